/*
 * merged.pml: group commit: merged writes (group.pml).
 *
 *   M starts at seq 1, highest 1, raised X0: holder 1 was issued token 1
 *   and its fence landed.
 *   G   holder 1's Store: commits X=2 (attempt 1; on "unknown", one retry
 *       with After, attempt 2) and X=3 (attempts 3, 4) at token 1, queued
 *       together, so that a leader writes them in one conditional write;
 *       each retry queues again. With -DCLAIM, holder 2's first commit in
 *       the same Store is queued beside them: X=4 at token 2 (attempt 5),
 *       a NoFence holder's data commit, which claims token 2 (a takeover
 *       through the same Store; it raises M.highest, so it goes alone).
 *   W   holder 1 through another Store, concurrently: commit X=5 at token
 *       1 (attempts 7, 8). Its writes move the log on past G's.
 *   T   holder 2 through another Store, already issued token 2: a
 *       takeover, fence X=6 (attempt 11), then, if the fence succeeded,
 *       commit X=7 at token 2 (attempts 9, 10).
 *   GC  GCPASSES passes (default 1).
 *   Net, GNet  the in-flight requests, lone and merged.
 *
 * Configurations: -DNO_W drops W; -DTAKEOVER adds T; -DCLAIM adds holder
 * 2's claiming commit to G; -DNO_RETRY: G's commits do not retry;
 * -DNO_GC drops GC.
 */

#define NX 8
#define NATT 11
#define NOBJ 10
#define NRQ 4
#ifndef GCPASSES
#define GCPASSES 1
#endif

#include "fence.pml"
#include "gc.pml"
#include "group.pml"

#ifdef NO_RETRY
#define RT(a) 0
#else
#define RT(a) a
#endif

#ifdef CLAIM
#define G3 5
#else
#define G3 0
#endif

init {
	atomic {
		/* M: seq 1, written by the fence X0 at token 1 */
		logX[0] = X0;
		landed[X0] = 1;
		succ[1] = 1;
		owner[1] = 1;
		/* G, holder 1 */
		aX[1] = 2; aT[1] = 1; aH[1] = 1;
		aX[2] = 2; aT[2] = 1; aH[2] = 1;
		aX[3] = 3; aT[3] = 1; aH[3] = 1;
		aX[4] = 3; aT[4] = 1; aH[4] = 1;
		/* G, holder 2's claiming commit */
		aX[5] = 4; aT[5] = 2; aH[5] = 3; aC[5] = 1;
		/* W */
		aX[7] = 5; aT[7] = 1; aH[7] = 1;
		aX[8] = 5; aT[8] = 1; aH[8] = 1;
		/* T */
		aX[11] = 6; aT[11] = 2; aH[11] = 2; aF[11] = 1;
		aX[9] = 7; aT[9] = 2; aH[9] = 2;
		aX[10] = 7; aT[10] = 2; aH[10] = 2;
		run Group(1, RT(2), 3, RT(4), G3, 0);
#ifndef NO_W
		run Client(0, 7, 8, 0, 0);
#endif
#ifdef TAKEOVER
		run Client(0, 11, 0, 9, 10);
#endif
#ifndef NO_GC
		run GC();
#endif
		run Net();
		run GNet()
	}
}
