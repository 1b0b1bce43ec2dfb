/*
 * group.pml: group commit (objstore/group.go): the commits of one domain
 * made through one Store are written by one leader at a time, several in
 * one conditional write of M. Included by a scenario after fence.pml and
 * gc.pml; the scenario defines NRQ before fence.pml (the merged requests
 * that may be in flight at once) and runs Group and GNet.
 *
 * A Group is one Store's queue for the domain, with up to NS commits
 * (slots), each a first attempt and, if that reports "unknown", one retry
 * with After: a new Commit call by its caller, which queues again. The
 * Group runs rounds, one leader's cas.Run each:
 *
 *   1. Take the queue: every commit waiting. Read M (the newest manifest
 *      the Store knows or its commits were decided on: a read of M at some
 *      moment, which is all the model needs) and settle each commit taken
 *      on it, by the rules of a lone attempt: its first read for a new
 *      attempt (which uploads its object if undecided), a read-back's
 *      rules otherwise. A commit decided here is reported.
 *   2. selectBatch: the oldest open commit, and after it, in queue order,
 *      the open commits at its token that are not fences, up to MAXB; the
 *      oldest alone if it would raise M.highest. The queue's order is
 *      chosen once per round, nondeterministically (any commit may be the
 *      oldest; the others follow it in slot order, cyclically).
 *   3. Write the batch If-Match the seq read: one request. Applied and
 *      ok: every commit of it is acknowledged and the round ends (the open
 *      commits not in it go back to the queue, for the next round). A
 *      failure (a lost reply, a 5xx, a 412 or 409): the request may be in
 *      flight and land later, whole (GNet); every commit of it becomes
 *      uncertain (uncBase = min(uncBase, the seq read)) and pending on
 *      that seq. Then read M back and settle each open commit on its own
 *      (landed if its id is in the log; not landed if the log covers its
 *      uncBase without it; unknown otherwise; fenced; claimed), and go to
 *      2 with those still open.
 *   4. After MAXW writes the round's deadline has passed (allDone: every
 *      waiter's context): each commit still open fails, as unknown if it
 *      is uncertain or pending (a write of it may still land), otherwise
 *      with a plain error, "not applied" (commit.fail).
 *
 * Variants (-D):
 *   MAXB=n            commits per write, 1 or 2 (default 2)
 *   MERGE_TOKENS      selectBatch ignores tokens and raises: any open
 *                     commit joins the oldest                   control
 *   MERGE_DROP_ENTRY  a merged write applies its second commit's change
 *                     but leaves out its log entry              control
 *   MERGE_NO_PENDING  a commit failed at the deadline is "not applied"
 *                     unless uncertain (pending ignored)        control
 *   UNC_RESET         as in fence.pml: uncBase restarts after a cleared
 *                     uncertainty, as groupPublication.Failed does
 *                                                       must still pass
 * A batch (a, b) in a trail is the attempts of one write, oldest first;
 * b = 0: a alone.
 */

#ifndef MAXB
#define MAXB 2
#endif
#if MAXB != 1 && MAXB != 2
#error "MAXB must be 1 or 2"
#endif

#define NS 3  /* commit slots of one Group */

/*
 * JOINS(x): open commit x (attempt id) may ride in the batch that gbA
 * heads: the oldest does not raise M.highest (M is the manifest just
 * read), x has its token, and x is not a fence (a fence always goes
 * alone: an equal-token fence is decided without a write).
 */
#ifdef MERGE_TOKENS
#define JOINS(x) (MAXB > 1 && !aF[x])  /* control: tokens and raises ignored */
#else
#define JOINS(x) (MAXB > 1 && aT[gbA] <= Mhigh && aT[x] == aT[gbA] && !aF[x])
#endif

hidden byte model_bound;  /* NRQ was too small: the search would not be exhaustive */
hidden byte gpick;        /* GNet: the request it lands */
hidden byte gla;
hidden byte glb;
hidden byte gout[NS];     /* what each slot's commit reported at the last read (coverage) */

/*
 * applyNoEntry(a), MERGE_DROP_ENTRY only: apply(a) without the log entry
 * (and without its seq).
 */
inline applyNoEntry(a) {
	printf("EV land (no log entry) commit=%d attempt=%d token=%d holder=%d\n", aX[a], a, aT[a], aH[a]);
	check(inv_no_stale_write, aT[a] >= Mhigh);
	check(inv_applied_once, !landed[aX[a]]);
	check(inv_fenced_honest, !negRep[aX[a]]);
	check(inv_one_writer, owner[aT[a]] == 0 || owner[aT[a]] == aH[a]);
	owner[aT[a]] = aH[a];
	landed[aX[a]] = 1;
	if
	:: !aF[a] ->
		check(inv_named_exists, exists[a]);
		Mname = a
	:: else -> skip
	fi;
	if
	:: aT[a] > Mhigh -> Mhigh = aT[a]; Mraised = aX[a]
	:: else -> skip
	fi
}

/*
 * landBatch(a, b): the store applies one merged write: attempt a's
 * commit, then b's (0: none), each its own entry and seq, atomically.
 */
inline landBatch(a, b) {
	apply(a);
	if
	:: b != 0 ->
#ifdef MERGE_DROP_ENTRY
		applyNoEntry(b)
#else
		apply(b)
#endif
	:: else -> skip
	fi;
	clearInFlight()
}

/*
 * The network for merged requests: any one in flight lands at any later
 * moment while M is at its If-Match seq (all of grq is), or never.
 */
proctype GNet() {
end:
	do
	:: atomic {
		grqA[0] != 0 ->
		gpick = 0;
		do
		:: gpick + 1 < NRQ && grqA[gpick + 1] != 0 -> gpick++  /* look further */
		:: break                                               /* land this one */
		od;
		gla = grqA[gpick];
		glb = grqB[gpick];
		printf("EV in-flight write of batch (%d, %d) lands\n", gla, glb);
		COVER(7);
		landBatch(gla, glb);
		gpick = 0;
		gla = 0;
		glb = 0
	}
	od
}

/* ------------------------------------------------------------------ */
/* The Group: one Store's queue for the domain, and its leaders.        */

/* The commit of slot s is done with res: check the outcome (outcome()
 * in fence.pml), then queue its retry, or close the slot. */
inline gfinish(s) {
	retry = gretry[s];
	unc = gunc[s];
	outcome(gcur[s]);
	gout[s] = res;
	if
	:: res == FAILED -> COVER(9)  /* "not applied", honest: its write can no longer land */
	:: else -> skip
	fi;
	if
	:: aC[gcur[s]] && res == ACK ->
		/* a claiming commit succeeded: a takeover at its token */
		check(inv_one_holder, !succ[aT[gcur[s]]]);
		succ[aT[gcur[s]]] = 1
	:: else -> skip
	fi;
	if
	:: res == UNKNOWN && !gretry[s] && gnext[s] != 0 ->
		/* the caller retries with After = uncBase: a new Commit call */
		gafter[s] = gunc[s];
		gcur[s] = gnext[s];
		gretry[s] = 1;
		gfresh[s] = 1
	:: else ->
		gcur[s] = 0;
		gretry[s] = 0;
		gafter[s] = 0;
		gfresh[s] = 0
	fi;
	gnext[s] = 0;
	gopen[s] = 0;
	gun[s] = 0;
	gunc[s] = 0;
	gpb[s] = 0;
	res = NONE;
	retry = 0;
	unc = 0
}

/*
 * gsettle(s): settle open commit s on M, just read (inside its atomic
 * step), by a lone attempt's rules; report it if decided.
 */
inline gsettle(s) {
	if
	:: gpb[s] != 0 && Mseq > gpb[s] -> gpb[s] = 0  /* its last failed write can no longer land */
	:: else -> skip
	fi;
	if
	:: gfresh[s] ->
		/* A new attempt's first read (its Commit call's decide). */
		gfresh[s] = 0;
		gun[s] = 0;
		gunc[s] = INF;
		if
		:: inLog(aX[gcur[s]]) -> res = ACK  /* "landed" */
		:: gretry[s] && !covers(gafter[s]) -> res = UNKNOWN  /* "unknown" again */
		:: else -> decide(gcur[s])
		fi;
		if
		:: gretry[s] -> gpb[s] = Mseq  /* an earlier attempt's write may be in flight, on this seq at the latest */
		:: else -> skip
		fi;
		if
		:: res == NONE && !aF[gcur[s]] -> exists[gcur[s]] = 1  /* upload */
		:: else -> skip
		fi
	:: else ->
		/* A read-back (or a later round's read). */
		if
		:: inLog(aX[gcur[s]]) -> res = ACK  /* landed: recovered */
		:: else ->
			if
			:: gun[s] && covers(gunc[s]) -> gun[s] = 0  /* not landed (so far) */
			:: else -> skip
			fi;
			if
			:: gun[s] && !(aF[gcur[s]] && Mhigh <= aT[gcur[s]]) -> res = UNKNOWN
			:: else -> decide(gcur[s])
			fi
		fi;
		if
		:: res == NONE && gw == MAXW ->
			/* the round's deadline: Stop, commit.fail */
#ifdef MERGE_NO_PENDING
			res = (gun[s] -> UNKNOWN : FAILED)
#else
			res = (gun[s] || gpb[s] != 0 -> UNKNOWN : FAILED)
#endif
		:: else -> skip
		fi
	fi;
	if
	:: res != NONE -> gfinish(s)
	:: else -> skip
	fi
}

/* Settle every open commit on M, just read, then pick the next batch. */
inline gread() {
	gout[0] = NONE;
	gout[1] = NONE;
	gout[2] = NONE;
	s = 0;
	do
	:: s < NS ->
		if
		:: gopen[s] -> gsettle(s)
		:: else -> skip
		fi;
		s++
	:: else -> break
	od;
	if
	:: gbB != 0 && ((gout[gsA] == ACK && gout[gsB] == UNKNOWN) || (gout[gsA] == UNKNOWN && gout[gsB] == ACK)) ->
		COVER(8)  /* one read-back settles the commits of one merged write two ways */
	:: else -> skip
	fi;
	/* selectBatch */
	gbA = 0;
	gbB = 0;
	gsA = 0;
	gsB = 0;
	i = 0;
	do
	:: i < NS ->
		s = (gfirst + i) % NS;
		if
		:: gopen[s] && gbA == 0 -> gbA = gcur[s]; gsA = s
		:: gopen[s] && gbA != 0 && gbB == 0 && JOINS(gcur[s]) -> gbB = gcur[s]; gsB = s
		:: else -> skip
		fi;
		i++
	:: else -> break
	od;
	i = 0;
	s = 0
}

/* The write of the batch failed: every commit of it is uncertain, and
 * pending on the seq it was based on (groupPublication.Failed). */
#ifdef UNC_RESET
/* objstore: an uncertainty after a cleared one starts uncBase afresh */
#define GMARK(s) if :: !gun[s] || gbase < gunc[s] -> gunc[s] = gbase :: else -> skip fi; gun[s] = 1; gpb[s] = gbase
#else
/* the design: uncBase = min(uncBase, m.seq) over every failed write */
#define GMARK(s) if :: gbase < gunc[s] -> gunc[s] = gbase :: else -> skip fi; gun[s] = 1; gpb[s] = gbase
#endif

inline gfailed() {
	GMARK(gsA);
	if
	:: gbB != 0 -> GMARK(gsB)
	:: else -> skip
	fi
}

/*
 * Group(p1, p2, q1, q2, r1, r2): three commits queued in one Store at
 * the start, slot 0 with attempts p1 and (its retry) p2, slot 1 q1 and
 * q2, slot 2 r1 and r2. 0 means none.
 */
proctype Group(byte p1; byte p2; byte q1; byte q2; byte r1; byte r2) {
	byte res, unc;    /* scratch: decide() and outcome() */
	bit retry;        /* scratch: outcome() */
	byte gcur[NS];    /* the slot's current attempt; 0: its commit is done */
	byte gnext[NS];   /* its retry's attempt; 0: none (or already running) */
	byte gunc[NS];    /* uncBase: the lowest base of a failed write (INF: none) */
	byte gafter[NS];  /* the After its retry carries */
	byte gpb[NS];     /* pending: the base of its last failed write, until a read moves past it (0: none) */
	bit gun[NS];      /* uncertain: a write of it may have landed unseen */
	bit gretry[NS];   /* the attempt is a retry carrying After */
	bit gopen[NS];    /* taken by the running round and not yet finished */
	bit gfresh[NS];   /* the attempt has not read M yet */
	byte gbase;       /* the seq of the manifest last read: the next write's If-Match */
	byte gw;          /* writes sent in this round */
	byte gfirst;      /* this round's queue order: slots gfirst, gfirst+1, ... (mod NS) */
	byte gbA, gbB;    /* the batch: its attempts, oldest first (gbB 0: alone; gbA 0: nothing to write) */
	byte gsA, gsB;    /* their slots */
	byte s, i;

	atomic {
		gcur[0] = p1; gnext[0] = p2; gfresh[0] = (p1 != 0);
		gcur[1] = q1; gnext[1] = q2; gfresh[1] = (q1 != 0);
		gcur[2] = r1; gnext[2] = r2; gfresh[2] = (r1 != 0)
	};
	do
	:: gcur[0] == 0 && gcur[1] == 0 && gcur[2] == 0 -> break
	:: else ->
		/* A round. The leader takes the queue and reads M. */
		atomic {
			gopen[0] = (gcur[0] != 0);
			gopen[1] = (gcur[1] != 0);
			gopen[2] = (gcur[2] != 0);
			if
			:: gopen[0] -> gfirst = 0
			:: gopen[1] -> gfirst = 1
			:: gopen[2] -> gfirst = 2
			fi;
			gbase = Mseq;
			gw = 0;
			printf("EV group round takes attempts %d %d %d (oldest: slot %d), reads M: seq %d, highest %d, raised %d, log commits %d %d\n", gcur[0], gcur[1], gcur[2], gfirst, Mseq, Mhigh, Mraised, logX[0], logX[L - 1]);
			gread()
		};
		do
		:: gbA == 0 -> break  /* every commit taken is settled, or the round wrote */
		:: else ->
			/* The conditional write of the batch, If-Match gbase. */
			atomic {
				gw++;
				if
				:: Mseq == gbase ->
					if
					:: printf("EV group writes batch (%d, %d) If-Match seq %d: applied, ok\n", gbA, gbB, gbase);
						landBatch(gbA, gbB);
						res = ACK;
						gfinish(gsA);
						if
						:: gbB != 0 -> res = ACK; gfinish(gsB)
						:: else -> skip
						fi;
						gbA = 0;  /* Wrote: the round ends */
						gbB = 0
					:: printf("EV group writes batch (%d, %d) If-Match seq %d: the reply is a failure; the request is in flight\n", gbA, gbB, gbase);
						i = 0;
						do
						:: i == NRQ -> check(model_bound, false)
						:: i < NRQ && (grqA[i] == 0 || (grqA[i] == gbA && grqB[i] == gbB)) ->
							grqA[i] = gbA; grqB[i] = gbB; break
						:: i < NRQ && grqA[i] != 0 && !(grqA[i] == gbA && grqB[i] == gbB) -> i++
						od;
						i = 0;
						gfailed()
					fi
				:: else ->
					printf("EV group writes batch (%d, %d) If-Match seq %d: 412, M is at seq %d\n", gbA, gbB, gbase, Mseq);
					gfailed()
				fi
			};
			if
			:: gbA == 0 -> break
			:: else ->
				/* The read-back. */
				atomic {
					gbase = Mseq;
					printf("EV group reads back M: seq %d, highest %d, raised %d, log commits %d %d\n", Mseq, Mhigh, Mraised, logX[0], logX[L - 1]);
					gread()
				}
			fi
		od;
		/* The round is over: the commits it did not finish go back to the
		 * queue (they are not open), for the next round. */
		atomic {
			gopen[0] = 0;
			gopen[1] = 0;
			gopen[2] = 0;
			gfirst = 0;
			gbase = 0;
			gw = 0;
			gsA = 0;
			gsB = 0
		}
	od
}
