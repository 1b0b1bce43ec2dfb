/*
 * takeover.pml: the takeover scenario, with the coordinator's wipe.
 *
 *   M starts at seq 1, highest 1, raised X0: holder 1 was issued token 1
 *   (the coordinator's counter is 1) and its fence landed.
 *   W1  holder 1, now stale: commit X=2 at token 1 (attempts 1, 2).
 *   H2  holder 2 acquires a token t (floor = M.highest, then
 *       t = max(counter, floor) + 1, counter = t) and fences at t
 *       (fence X=3, attempt 7; with -DFENCE_RETRY, on "unknown", one
 *       retry with After, attempt 8). Only if the fence succeeded:
 *       commit X=4 at t (attempts 3, 4).
 *   H3  holder 3, the same: fence X=5 (attempts 9, 10), commit X=6
 *       (attempts 5, 6).
 *   Wipe  once, at any moment: the counter goes back to 0 (the lease
 *       records were deleted), so H2 and H3 may be issued the same token.
 *   GC  GCPASSES passes (default 1).
 *   Net the in-flight requests.
 *
 * Configurations: -DNO_STALE drops W1; -DNO_DATA stops the holders after
 * their fences; -DNO_GC drops GC.
 */

#define NX 7
#define NATT 10
#define NOBJ 6
#ifndef GCPASSES
#define GCPASSES 1
#endif

#include "fence.pml"
#include "gc.pml"

#ifdef FENCE_RETRY
#define FR(a) a
#else
#define FR(a) 0
#endif

#ifdef NO_DATA
#define DATA(a) 0
#else
#define DATA(a) a
#endif

init {
	atomic {
		/* M: seq 1, written by holder 1's fence X0 at token 1 */
		logX[0] = X0;
		landed[X0] = 1;
		succ[1] = 1;
		owner[1] = 1;
		/* W1, holder 1, stale at token 1 */
		aX[1] = 2; aT[1] = 1; aH[1] = 1;
		aX[2] = 2; aT[2] = 1; aH[2] = 1;
		/* H2 */
		aX[7] = 3; aH[7] = 2; aF[7] = 1;
		aX[8] = 3; aH[8] = 2; aF[8] = 1;
		aX[3] = 4; aH[3] = 2;
		aX[4] = 4; aH[4] = 2;
		/* H3 */
		aX[9] = 5; aH[9] = 3; aF[9] = 1;
		aX[10] = 5; aH[10] = 3; aF[10] = 1;
		aX[5] = 6; aH[5] = 3;
		aX[6] = 6; aH[6] = 3;
#ifndef NO_STALE
		run Client(0, 1, 2, 0, 0);
#endif
		run Client(1, 7, FR(8), DATA(3), DATA(4));
		run Client(1, 9, FR(10), DATA(5), DATA(6));
		run Wipe();
#ifndef NO_GC
		run GC();
#endif
		run Net()
	}
}
