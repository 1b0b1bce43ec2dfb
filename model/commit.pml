/*
 * commit.pml: the commit / read-back / retry / GC scenario.
 *
 *   M starts at seq 1, highest 1, raised X0: holder 1 was issued token 1
 *   and its fence landed.
 *   W1  holder 1: commit X=2 at token 1 (attempt 1; on "unknown", one
 *       retry with After, attempt 2).
 *   W2  holder 1 again, concurrently: commit X=3 at token 1 (attempts 3,
 *       4), then commit X=4 at token 1 (attempts 5, 6). Its writes move
 *       the log on past W1's.
 *   T   holder 2, already issued token 2: a takeover, fence X=5 (attempt
 *       9), then, if the fence succeeded, commit X=6 at token 2
 *       (attempts 7, 8).
 *   GC  GCPASSES passes (default 2).
 *   Net the in-flight requests.
 *
 * Configurations: -DNO_TAKEOVER drops T; -DW2_ONE gives W2 one commit;
 * -DNO_GC drops GC. With -DSTAGED each retry publishes its commit's
 * staged object (the first attempt's) instead of an upload of its own;
 * with -DSTAGED_ANY_TOKEN too, T's data commit at token 2 publishes W1's
 * staged object of token 1.
 */

#define NX 7
#define NATT 9
#define NOBJ 8
#ifndef GCPASSES
#define GCPASSES 2
#endif

#include "fence.pml"
#include "gc.pml"

init {
	atomic {
		/* M: seq 1, written by the fence X0 at token 1 */
		logX[0] = X0;
		landed[X0] = 1;
		succ[1] = 1;
		owner[1] = 1;
		/* W1 */
		aX[1] = 2; aT[1] = 1; aH[1] = 1;
		aX[2] = 2; aT[2] = 1; aH[2] = 1;
		/* W2 */
		aX[3] = 3; aT[3] = 1; aH[3] = 1;
		aX[4] = 3; aT[4] = 1; aH[4] = 1;
		aX[5] = 4; aT[5] = 1; aH[5] = 1;
		aX[6] = 4; aT[6] = 1; aH[6] = 1;
		/* T */
		aX[9] = 5; aT[9] = 2; aH[9] = 2; aF[9] = 1;
		aX[7] = 6; aT[7] = 2; aH[7] = 2;
		aX[8] = 6; aT[8] = 2; aH[8] = 2;
#ifdef STAGED
		aO[2] = 1; aO[4] = 3; aO[6] = 5; aO[8] = 7;
#ifdef STAGED_ANY_TOKEN
		aO[7] = 1; aO[8] = 1;
#endif
#endif
		run Client(0, 1, 2, 0, 0);
#ifdef W2_ONE
		run Client(0, 3, 4, 0, 0);
#else
		run Client(0, 3, 4, 5, 6);
#endif
#ifndef NO_TAKEOVER
		run Client(0, 9, 0, 7, 8);
#endif
#ifndef NO_GC
		run GC();
#endif
		run Net()
	}
}
