/*
 * gc.pml: garbage collection: one process, interleaved with everything.
 * Included by a scenario after fence.pml; the scenario defines NOBJ (the
 * data attempts, ids 1..NOBJ) and GCPASSES.
 *
 * A pass reads M once: a snapshot, which may be stale by the time GC
 * deletes (that is the point). From then on, at any moment and in any
 * order, GC may delete any existing version object that the snapshot
 * does not name and that the rule allows:
 *
 *   new GC:   o.token < M.highest, or o's attempt id is in M.log (that
 *             attempt landed, so its object, now unnamed, was superseded
 *             and can never be named again);
 *   OLD_GC:   every object not named (today's Collect with grace 0).
 *
 * "At any moment after the snapshot" covers every object that a listing
 * taken after the snapshot could return, and every order of the deletes.
 * GCPASSES bounds the snapshots. One is enough for the invariants:
 * nothing in the protocol reads a version object, so a delete changes no
 * other process's steps, and each invariant is about one deleted object.
 * More passes only cost time.
 */

#ifdef OLD_GC
#define DOOMED(o) true
#elif defined(STAGED)
/* A staged object's name carries a stage id, which no log holds. */
#define DOOMED(o) (aT[o] < gh)
#else
#define DOOMED(o) (aT[o] < gh || inLogA(o, gl))
#endif

/* GC may delete object o now, by its snapshot. */
#define DELETABLE(o) (exists[o] && (o) != gname && DOOMED(o))

proctype GC() {
	byte gh;       /* snapshot: M.highest */
	byte gname;    /* snapshot: M.names[k] */
	byte gl[L];    /* snapshot: the attempt ids in M.log */
	bit gsnap;     /* a snapshot has been taken */
	byte pass = 0;
end:
	do
	:: atomic {
		/* A pass begins: read M. */
		pass < GCPASSES ->
		pass++;
		gsnap = 1;
		gh = Mhigh;
		gname = Mname;
		hi = 0;
		do
		:: hi < L -> gl[hi] = logA[hi]; hi++
		:: else -> break
		od;
		hi = 0
	}
	:: atomic {
		/* Delete one object the snapshot dooms. */
		gsnap && ORN(NOBJ, DELETABLE) ->
		pick = 0;
		do
		:: pick < NOBJ ->
			pick++;
			if
			:: DELETABLE(pick) -> break  /* delete this one */
			:: true -> skip              /* or look further */
			fi
		:: else -> pick = 0; break      /* none picked: no step */
		od;
		if
		:: pick != 0 ->
			printf("EV GC deletes object %d (token %d; its snapshot: highest %d, names %d, log attempts %d %d)\n", pick, aT[pick], gh, gname, gl[0], gl[L - 1]);
			check(inv_named_exists, pick != Mname);
			exists[pick] = 0;
			if
			:: aT[pick] < gh -> COVER(5)  /* by the token rule */
			:: else -> COVER(6)           /* by the log rule (or OLD_GC) */
			fi
		:: else -> skip
		fi;
		pick = 0
	}
	od
}
