/*
 * fence.pml: the shared part of the model of fence's commit protocol, the
 * design with attempt ids, After, the equal-token fence rule and the new
 * GC rule. A scenario file (commit.pml, takeover.pml, merged.pml)
 * defines the ids, includes this file and gc.pml (merged.pml also
 * group.pml, group commit's merged writes), and starts the processes. See
 * docs/model.md for what is modelled, what is abstracted away and why.
 *
 * One domain, one key k. spin explores every interleaving of every
 * process and every nondeterministic reply, exhaustively.
 *
 * Ids (0 = none everywhere):
 *   commit id X    1..NX-1    X0 (1) is the fence that created M, token 1.
 *   attempt id A   1..NATT    one Commit or Fence call. A data attempt
 *                             (ids 1..NOBJ) uploads one version object
 *                             o = (k, token, A); its object id is A.
 *   holder h       1..3       the lease holder making an attempt (ghost).
 *
 * Variants (-D on spin's command line):
 *   OLD_GC       GC deletes every unnamed object (today's Collect with
 *                grace 0)                                        control
 *   OLD_RETRY    a retry ignores After                           control
 *   OLD_FENCE    a fence at an equal token is a no-op success    control
 *   OLD_409      a 409 reply means "nothing applied"             control
 *   PLAIN_ERROR  a write loop that stops right after a read-back
 *                cleared its uncertainty returns a plain error,
 *                meaning "not applied" (objstore/commit.go's c.fail
 *                when the fold after the clear fails)            control
 *   NO_FENCE     holders acquire as fence.Acquire with NoFence
 *                does: no fence; their first data commit claims the
 *                token (the equal-token rule of a fence)  must still pass
 *   NO_CLAIM     with NO_FENCE: the data commit claims nothing (as
 *                before claims: a second read of M.highest after
 *                the acquisition, then plain data commits)       control
 *   UNC_RESET    uncBase restarts after a cleared uncertainty, as
 *                objstore/commit.go does today         must still pass
 *   STAGED       every data commit publishes a staged value (a
 *                receipt, objstore/stage.go): its object is written
 *                once, by a stage at the commit's token, before the
 *                commit's first attempt reads M, and every attempt of
 *                the commit (its retries) publishes that same object,
 *                checking first that it exists; the stage id in the
 *                object's name never enters the log, so GC's log rule
 *                never applies to it                   must still pass
 *   STAGED_ANY_TOKEN  with STAGED: the scenario's aO[] also gives a
 *                commit another token's staged object, as a commit
 *                that did not check the receipt's token would publish
 *                it                                              control
 *   REACH=n      coverage: fail when event n happens (COVER below),
 *                to show that the scenario reaches it
 *   L=n          log length, 1 to 3 (default 2)
 *   MAXW=n       manifest writes per attempt (default 2)
 */

#ifndef L
#define L 2
#endif
#ifndef MAXW
#define MAXW 2
#endif

#define NA (NATT + 1)
#define INF 255

/* Outcomes of an attempt (what Commit or Fence returns). */
#define NONE    0  /* undecided: upload and write */
#define ACK     1  /* "ack" (or "landed"): the commit is applied */
#define FENCED  2  /* "fenced": not applied, and never will be */
#define UNKNOWN 3  /* "unknown": the caller may retry with After */
#define CLAIMED 4  /* fence, or a claiming data commit: "token already claimed by another acquisition" */
#define NOOP    5  /* OLD_FENCE only: an equal-token fence's no-op success (claims nothing) */
#define FAILED  6  /* PLAIN_ERROR only: a plain error, which claims "not applied" */

#define X0 1  /* commit id of M's first write, holder 1's fence at token 1 */

/* OR of P(1) .. P(n), for the guards of Net and GC. */
#define OR1(P) P(1)
#define OR2(P) (OR1(P) || P(2))
#define OR3(P) (OR2(P) || P(3))
#define OR4(P) (OR3(P) || P(4))
#define OR5(P) (OR4(P) || P(5))
#define OR6(P) (OR5(P) || P(6))
#define OR7(P) (OR6(P) || P(7))
#define OR8(P) (OR7(P) || P(8))
#define OR9(P) (OR8(P) || P(9))
#define OR10(P) (OR9(P) || P(10))
#define OR11(P) (OR10(P) || P(11))
#define OR12(P) (OR11(P) || P(12))
#define ORN_(n, P) OR##n(P)
#define ORN(n, P) ORN_(n, P)

/* ------------------------------------------------------------------ */
/* The manifest M. Its fields change only in land(): the store applying */
/* one conditional write, atomically (the store is linearizable).       */

byte Mseq = 1;      /* seq: the number of landed writes */
byte Mhigh = 1;     /* highest: the highest accepted token */
byte Mraised = X0;  /* raised: the commit id of the write that raised highest to its value */
byte Mname = 0;     /* names[k]: the attempt id (= object id) named, 0 = none */

/*
 * log: the last L landed writes, newest first. logX[i] and logA[i] are
 * the commit id and attempt id of the write with seq Mseq-i (the seq is
 * implicit; 0 where Mseq-i < 1). A fence's entry has attempt id 0: it
 * uploaded nothing. The log's tokens are left out: no rule reads them.
 */
byte logX[L];
byte logA[L];

/* The seq of the oldest entry in the log (the log starts at seq 1). */
#define LOGOLDEST (Mseq >= L -> Mseq - L + 1 : 1)

/*
 * covers(s): the log still holds every write after seq s, so a commit id
 * absent from it did not land after s: m.seq <= s, or the oldest entry's
 * seq <= s+1.
 */
#define covers(s) (Mseq <= (s) || LOGOLDEST <= (s) + 1)

/* inLog(x): commit id x is in the log. LOGATT(x): its attempt id there.
 * inLogA(a, l): attempt id a is in the log snapshot l (GC). */
#if L == 1
#define inLog(x) (logX[0] == (x))
#define LOGATT(x) logA[0]
#define inLogA(a, l) ((a) == l[0])
#elif L == 2
#define inLog(x) (logX[0] == (x) || logX[1] == (x))
#define LOGATT(x) (logX[0] == (x) -> logA[0] : logA[1])
#define inLogA(a, l) ((a) == l[0] || (a) == l[1])
#elif L == 3
#define inLog(x) (logX[0] == (x) || logX[1] == (x) || logX[2] == (x))
#define LOGATT(x) (logX[0] == (x) -> logA[0] : (logX[1] == (x) -> logA[1] : logA[2]))
#define inLogA(a, l) ((a) == l[0] || (a) == l[1] || (a) == l[2])
#else
#error "L must be 1, 2 or 3"
#endif

/* ------------------------------------------------------------------ */
/* Version objects: write-once, named (k, token, A); each exists or has */
/* been deleted. No name is ever reused: every attempt has a fresh id.  */

bit exists[NA];

/* aO[a]: the object attempt a publishes when it is not its own upload
 * (STAGED: a retry publishes its commit's staged object); 0: its own. */
byte aO[NA];
#define OBJ(a) (aO[a] != 0 -> aO[a] : (a))

/* What each attempt is, set by the scenario (a takeover's tokens when
 * its holder is issued one). */
byte aX[NA];  /* commit id */
byte aT[NA];  /* token */
bit aF[NA];   /* a fence: data-less, names nothing */
bit aC[NA];   /* a data commit that claims its token (NO_FENCE) */
byte aH[NA];  /* holder (ghost) */

/*
 * In-flight manifest writes. pend[A]: a conditional write by attempt A,
 * If-Match on the CURRENT Mseq, was sent and may still be applied: a
 * request whose reply was a failure or is lost (a timeout, a 5xx, a 412
 * or 409 answering an SDK retry of it). A request If-Match on an older
 * seq can never apply, so every landing clears all of pend: the model
 * keeps exactly the requests that can still land.
 */
bit pend[NA];

#ifdef NRQ
/*
 * Merged writes in flight (group.pml): request i carries attempts
 * grqA[i] and grqB[i] (0: alone), in that order, If-Match the current
 * Mseq; grqA[i] == 0: no request. Filled from 0 up, cleared together.
 */
byte grqA[NRQ];
byte grqB[NRQ];
#endif

/* The coordinator's token counter (takeover.pml): holder 1 has token 1. */
byte counter = 1;

/* ------------------------------------------------------------------ */
/* Ghost state for the invariants; the protocol never reads it.         */

bit landed[NX];     /* commit id X has landed */
bit negRep[NX];     /* X was reported fenced, claimed (or, PLAIN_ERROR, failed) */
bit succ[5];        /* a holder's takeover succeeded at token t */
byte owner[5];      /* the holder of the first write landed with token t */

/*
 * One hidden variable per invariant, so that pan's "assertion violated
 * NAME" says which invariant a trail breaks. Hidden variables are not
 * part of the state; each is set just before its assert.
 */
hidden byte inv_no_stale_write;  /* a landed write's token >= the highest of the manifest it replaced */
hidden byte inv_applied_once;    /* each commit id lands at most once */
hidden byte inv_fenced_honest;   /* fenced or claimed: not landed, and never lands later */
hidden byte inv_ack_honest;      /* ack: the commit landed */
hidden byte inv_named_exists;    /* the object the manifest names exists */
hidden byte inv_ack_named;       /* an acked write's object is named and exists until superseded */
hidden byte inv_one_holder;      /* at most one takeover succeeds per token */
hidden byte inv_one_writer;      /* the writes landed with one token are all one holder's */
hidden byte hi;                  /* loop index inside atomic steps */
hidden byte pick;                /* the request Net lands, the object GC deletes */

#define check(inv, cond) inv = (cond); assert(inv)

/*
 * COVER(n): event n happened. The Go test reads pan's list of unreached
 * statements to check that a correct model's search reached each event
 * it should (so that it does not pass vacuously). With -DREACH=n the
 * event fails the search instead, for a trail that shows how.
 *   1 an in-flight request lands (after its writer moved on)
 *   2 a retry acks a commit that an earlier attempt landed
 *   3 an ack where the object named is another attempt's, not the
 *     acking attempt's own upload
 *   4 a takeover reports "token already claimed"
 *   5 GC deletes an object by the token rule
 *   6 GC deletes an object by the log rule
 *   7 a merged write in flight lands (group.pml)
 *   8 one read-back settles the two commits of a merged write two ways:
 *     one landed, the other unknown (its entry left the log)
 *   9 a group commit fails "not applied" at its round's deadline
 */
hidden byte cover;
#ifdef REACH
#define COVER(n) if :: REACH == (n) -> printf("EV cover %d\n", n); assert(false) :: else -> cover = n fi
#else
#define COVER(n) cover = n
#endif

/*
 * apply(a): attempt a's commit becomes the manifest's next entry: m' = m
 * with names[k] = o (data only), highest = max(highest, t), raised = X
 * if t > highest, seq+1, log += (seq+1, X, A). land(a) is a lone
 * commit's write; group.pml's landBatch applies the commits of one
 * merged write in order, then clears the in-flight requests once.
 */
inline apply(a) {
	printf("EV land seq=%d commit=%d attempt=%d token=%d fence=%d holder=%d\n", Mseq + 1, aX[a], a, aT[a], aF[a], aH[a]);
	check(inv_no_stale_write, aT[a] >= Mhigh);
	check(inv_applied_once, !landed[aX[a]]);
	check(inv_fenced_honest, !negRep[aX[a]]);
	check(inv_one_writer, owner[aT[a]] == 0 || owner[aT[a]] == aH[a]);
	owner[aT[a]] = aH[a];
	landed[aX[a]] = 1;
	if
	:: !aF[a] ->
		check(inv_named_exists, exists[OBJ(a)]);
		Mname = OBJ(a)
	:: else -> skip
	fi;
	if
	:: aT[a] > Mhigh -> Mhigh = aT[a]; Mraised = aX[a]
	:: else -> skip
	fi;
	Mseq++;
	hi = L - 1;
	do
	:: hi > 0 -> logX[hi] = logX[hi - 1]; logA[hi] = logA[hi - 1]; hi--
	:: else -> break
	od;
	logX[0] = aX[a];
	logA[0] = (aF[a] -> 0 : a)  /* hi is 0 again */
}

/* Every other in-flight request was If-Match on the old seq: none of
 * them can land any more (group.pml's merged requests included). */
inline clearInFlight() {
	hi = 0;
	do
	:: hi < NA -> pend[hi] = 0; hi++
	:: else -> break
	od;
#ifdef NRQ
	hi = 0;
	do
	:: hi < NRQ -> grqA[hi] = 0; grqB[hi] = 0; hi++
	:: else -> break
	od;
#endif
	hi = 0
}

/*
 * land(a): the store applies attempt a's conditional write, alone. The
 * caller has checked that the write's If-Match seq is the current one.
 */
inline land(a) {
	apply(a);
	clearInFlight()
}

/*
 * The network: any in-flight request lands at any later moment while M
 * is still at its If-Match seq, or never. (A write applied whose reply
 * is then lost is a request that lands at once.) One atomic step picks
 * one pending request and lands it.
 */
#define PENDING(i) pend[i]

proctype Net() {
end:
	do
	:: atomic {
		ORN(NATT, PENDING) ->
		pick = 0;
		do
		:: pick < NATT ->
			pick++;
			if
			:: pend[pick] -> break  /* land this one */
			:: true -> skip         /* or look further */
			fi
		:: else -> pick = 0; break  /* none picked: no step */
		od;
		if
		:: pick != 0 ->
			printf("EV in-flight write of attempt %d lands\n", pick);
			COVER(1);
			land(pick)
		:: else -> skip
		fi;
		pick = 0
	}
	od
}

/* ------------------------------------------------------------------ */
/* One attempt: one Commit or Fence call, steps 1 to 3.                 */
/*
 * The calling proctype (Client) declares:
 *   byte res        the outcome
 *   byte mseq       the seq of the manifest last read: the next write's base
 *   byte unc        uncBase: the lowest base of a write answered with a
 *                   failure (INF: none); the After of an "unknown"
 *   byte after      the After this attempt carries, when retry
 *   byte w          manifest writes sent so far (at most MAXW)
 *   bit uncertain   a write may have landed unseen
 *   bit retry       this attempt is a retry carrying After
 * a: the attempt id.
 */

/*
 * decide(a): the rules after a read of M (in the same atomic step) once
 * X is known not to be in the log and no uncertainty forbids deciding:
 * fenced, a fence's equal-token rule, or NONE (write).
 */
#ifdef OLD_FENCE
#define EQUAL_FENCE(a) (Mraised == aX[a] -> ACK : NOOP)  /* control: an equal token is a no-op success */
#else
#define EQUAL_FENCE(a) (Mraised == aX[a] -> ACK : CLAIMED)
#endif

inline decide(a) {
	if
	:: Mhigh > aT[a] -> res = FENCED
	:: aF[a] && Mhigh == aT[a] -> res = EQUAL_FENCE(a)
#ifndef NO_CLAIM
	:: aC[a] && Mhigh == aT[a] && Mraised != aX[a] -> res = CLAIMED
#endif
	:: else -> res = NONE
	fi
}

#ifdef UNC_RESET
/* objstore/commit.go today: an uncertainty after a cleared one starts uncBase afresh */
#define MARK_UNCERTAIN if :: !uncertain || mseq < unc -> unc = mseq :: else -> skip fi; uncertain = 1
#else
/* the design: uncBase = min(uncBase, m.seq) over every failed write of the attempt */
#define MARK_UNCERTAIN if :: mseq < unc -> unc = mseq :: else -> skip fi; uncertain = 1
#endif

/*
 * advance(): after an attempt of the Client below reports, pick its next
 * attempt (cur): the retry, commit 2, or none (0). In the same atomic
 * step as the report.
 */
inline advance() {
	if
	:: res == UNKNOWN && !retry && !second && a2 != 0 -> cur = a2; retry = 1
	:: res == UNKNOWN && !retry && second && b2 != 0 -> cur = b2; retry = 1
	:: else ->
		/* the commit is done */
		if
		:: (aF[cur] || aC[cur]) && (res == ACK || res == NOOP) ->
			/* a takeover succeeded (its fence, or its claiming
			 * commit): at most one per token */
			check(inv_one_holder, !succ[aT[cur]]);
			succ[aT[cur]] = 1
		:: else -> skip
		fi;
		if
		:: second || (aF[cur] && res != ACK && res != NOOP) -> cur = 0
		:: else -> cur = b1; second = 1
		fi;
		retry = 0;
		after = 0
	fi
}

/*
 * outcome(a): attempt a returns res: check that the outcome is honest.
 * Reads res, retry and unc (for the trail); changes nothing else.
 */
inline outcome(a) {
	if
	:: res == ACK -> printf("EV attempt %d of commit %d (token %d, retry %d, uncBase %d) reports ack\n", a, aX[a], aT[a], retry, unc)
	:: res == FENCED -> printf("EV attempt %d of commit %d (token %d, retry %d, uncBase %d) reports fenced\n", a, aX[a], aT[a], retry, unc)
	:: res == UNKNOWN -> printf("EV attempt %d of commit %d (token %d, retry %d, uncBase %d) reports unknown\n", a, aX[a], aT[a], retry, unc)
	:: res == CLAIMED -> printf("EV attempt %d of commit %d (token %d, retry %d, uncBase %d) reports claimed: token already claimed by another acquisition\n", a, aX[a], aT[a], retry, unc)
	:: res == NOOP -> printf("EV attempt %d of commit %d (token %d, retry %d, uncBase %d) reports success: an equal-token no-op\n", a, aX[a], aT[a], retry, unc)
	:: res == FAILED -> printf("EV attempt %d of commit %d (token %d, retry %d, uncBase %d) reports a plain error: not applied\n", a, aX[a], aT[a], retry, unc)
	fi;

	if
	:: res == ACK ->
		check(inv_ack_honest, landed[aX[a]]);
		/* If k still names commit X's write, it names the object of the
		 * attempt that landed X, and that object exists. (k's name
		 * changes only when a later landed write on k supersedes it.) */
		check(inv_ack_named, aF[a] || aX[Mname] != aX[a] || (Mname == OBJ(LOGATT(aX[a])) && exists[Mname]));
		if
		:: !aF[a] && LOGATT(aX[a]) != a && retry -> COVER(2)     /* a retry acks what an earlier attempt landed */
		:: else -> skip
		fi;
		if
		:: !aF[a] && LOGATT(aX[a]) != a && exists[a] -> COVER(3) /* acked, but the object named is not this attempt's own upload */
		:: else -> skip
		fi
	:: res == FENCED || res == CLAIMED || res == FAILED ->
		check(inv_fenced_honest, !landed[aX[a]]);
		negRep[aX[a]] = 1;
		if
		:: res == CLAIMED -> COVER(4)
		:: else -> skip
		fi
	:: else -> skip
	fi
}

/*
 * report(a): the attempt returns res: check that the outcome is honest,
 * and go on to the Client's next attempt. Runs inside the atomic step
 * that decided res; a is the Client's cur.
 */
inline report(a) {
	outcome(a);
	if
	:: res == UNKNOWN && !retry -> after = unc  /* the caller's After for its retry */
	:: else -> skip                             /* a retry's "unknown again" keeps its After */
	fi;
	mseq = 0;
	w = 0;
	uncertain = 0;
	unc = 0;
	advance()  /* last: it changes cur, which is a */
}

inline attempt(a) {
	/*
	 * Step 1: read M and decide. Step 2, in the same atomic step: upload
	 * the version object o = (k, t, A). (Uploading at the read, not a
	 * moment later, only gives GC more to delete.)
	 */
	atomic {
		mseq = Mseq;
		uncertain = 0;
		unc = INF;
		w = 0;
		printf("EV attempt %d of commit %d (token %d, retry %d, After %d) reads M: seq %d, highest %d, raised %d, log commits %d %d\n", a, aX[a], aT[a], retry, after, Mseq, Mhigh, Mraised, logX[0], logX[L - 1]);
		if
		:: inLog(aX[a]) -> res = ACK  /* "landed" */
		:: else ->
			if
#ifndef OLD_RETRY
			:: retry && !covers(after) -> res = UNKNOWN  /* "unknown" again */
#endif
			:: else -> decide(a)  /* not a retry, or a retry whose log covers After: X has not landed */
			fi
		fi;
		if
#ifdef STAGED
		/* The stage wrote the commit's object before its first attempt;
		 * an attempt whose object is gone (the collector deleted it) is
		 * refused by the receipt check, and, having decided on this M
		 * that it may still land, reports unknown (commit.refused). */
		:: res == NONE && !aF[a] && OBJ(a) == a -> exists[a] = 1
		:: res == NONE && !aF[a] && OBJ(a) != a && exists[OBJ(a)] -> skip
		:: res == NONE && !aF[a] && OBJ(a) != a && !exists[OBJ(a)] -> res = UNKNOWN; report(a)
#else
		:: res == NONE && !aF[a] -> exists[a] = 1
#endif
		:: res == NONE && aF[a] -> skip
		:: else -> report(a)
		fi
	};
	/* Step 3: the write loop. */
	do
	:: res != NONE -> break
	:: else ->
		/* The conditional write of m' based on the manifest read, If-Match mseq. */
		atomic {
			w++;
			if
			:: Mseq == mseq ->
				if
				:: land(a); res = ACK; report(a)  /* applied, reply ok */
				:: pend[a] = 1; MARK_UNCERTAIN;   /* sent, reply a failure: lost, 5xx, or a 412 or 409 to an SDK retry */
					printf("EV attempt %d writes If-Match seq %d: the reply is a failure; the request is in flight\n", a, mseq)
#ifdef OLD_409
				:: pend[a] = 1;                   /* control: the reply is a 409, taken as "nothing applied" */
					printf("EV attempt %d writes If-Match seq %d: the reply is a 409, taken as nothing applied; the request is in flight\n", a, mseq)
#endif
				fi
			:: else -> MARK_UNCERTAIN;  /* 412: M moved on (the writer cannot tell this 412 from the one above) */
				printf("EV attempt %d writes If-Match seq %d: 412, M is at seq %d\n", a, mseq, Mseq)
			fi
		};
		if
		:: res == NONE ->
			/* The read-back: re-read M and decide. */
			atomic {
				mseq = Mseq;
				printf("EV attempt %d reads back M: seq %d, highest %d, raised %d, log commits %d %d\n", a, Mseq, Mhigh, Mraised, logX[0], logX[L - 1]);
				if
				:: inLog(aX[a]) -> res = ACK  /* landed: recovered */
				:: else ->
					if
					:: uncertain && covers(unc) -> uncertain = 0  /* not landed (so far) */
					:: else -> skip
					fi;
					if
					:: uncertain && !(aF[a] && Mhigh <= aT[a]) ->
						/* The log moved on: unknown; never fenced, never
						 * written again. A fence with M.highest <= its token
						 * goes on: had it landed, M.highest would be at least
						 * its token, and raised its id while equal to it. */
						res = UNKNOWN
					:: else -> decide(a)  /* fenced, the equal-token rule, or write again */
					fi
				fi;
				if
				:: res == NONE && w == MAXW ->
					/* Out of writes (the model's bound; a deadline in the
					 * code): unknown, with After = uncBase. */
#ifdef PLAIN_ERROR
					res = (uncertain -> UNKNOWN : FAILED)
#else
					res = UNKNOWN
#endif
				:: else -> skip
				fi;
				if
				:: res != NONE -> report(a)
				:: else -> skip
				fi
			}
		:: else -> skip
		fi
	od
}

/* ------------------------------------------------------------------ */
/* A client: one holder's work, run as one process.                     */
/*
 * Client(acq, a1, a2, b1, b2): commit 1 is attempt a1 and, if it reports
 * "unknown", its retry a2 (with After); then commit 2, attempts b1 and b2,
 * the same way. 0 means none. If commit 1 is a fence (a takeover), commit
 * 2 runs only if the fence succeeded. With acq, the holder first acquires
 * a token, which becomes the token of all four attempts:
 *
 *   floor = M.highest; then, in one coordinator step,
 *   t = max(counter, floor) + 1, counter = t.
 */
proctype Client(bit acq; byte a1; byte a2; byte b1; byte b2) {
	byte res, mseq, unc, after, w;
	bit uncertain, retry;
	byte cur = a1;   /* the attempt to run next */
	bit second;      /* running commit 2 */
	byte t;          /* token, when acquired */
	if
	:: acq ->
		t = Mhigh;  /* the floor */
		atomic {
			t = (counter > t -> counter : t) + 1;
			counter = t;
			aT[a1] = t;
			aT[a2] = t;
			aT[b1] = t;
			aT[b2] = t;
			aT[0] = 0;
			printf("EV holder %d is issued token %d\n", aH[a1], t);
#ifdef NO_FENCE
			skip  /* t is read again below */
#else
			t = 0  /* the attempts carry it */
#endif
		};
#ifdef NO_FENCE
		/* fence.Acquire with NoFence: no fence; the data commit claims
		 * the token. */
		atomic {
			aC[b1] = 1;
			aC[b2] = 1;
			aC[0] = 0;
#ifdef NO_CLAIM
			/* before claims: refuse the token if the store's highest
			 * has reached it */
			printf("EV holder %d checks the floor again: highest %d\n", aH[a1], Mhigh);
			if
			:: Mhigh >= t -> cur = 0
			:: else -> cur = b1; second = 1
			fi;
#else
			cur = b1;
			second = 1;
#endif
			t = 0
		}
#else
		skip
#endif
	:: else -> skip
	fi;
	do
	:: cur == 0 -> break
	:: else -> attempt(cur)
	od
}

/* The coordinator's lease records are deleted: its counter restarts. */
proctype Wipe() {
	atomic { counter = 0; printf("EV wipe: the coordinator's counter is reset to 0\n") }
}
