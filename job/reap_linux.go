package job

import (
	"errors"
	"sync"

	"golang.org/x/sys/unix"
)

var subreaper sync.Once

// adoptOrphans makes this process the one that orphans of its
// descendants are handed to (PR_SET_CHILD_SUBREAPER), so that processes a
// command leaves behind can be reaped here rather than by an init that
// may never reap them (in a container, fence itself may be process 1's
// only child, or process 1).
func adoptOrphans() {
	subreaper.Do(func() { _ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) })
}

// reapGroup waits for every exited process of group pgid that this
// process may reap, without blocking.
func reapGroup(pgid int) {
	for {
		pid, err := unix.Wait4(-pgid, nil, unix.WNOHANG, nil)
		if pid <= 0 || err != nil {
			return
		}
	}
}

// hasExited reports whether process pid, a child of this process, has
// exited, without reaping it (so that exec.Cmd.Wait still gets its
// status). A child that is no longer there (ECHILD) has exited and been
// reaped already, by Wait.
func hasExited(pid int) bool {
	// Linux zeroes info when no child is waitable, and sets Signo to
	// SIGCHLD when one is.
	var info unix.Siginfo
	err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
	if errors.Is(err, unix.ECHILD) {
		return true
	}
	return err == nil && info.Signo == int32(unix.SIGCHLD)
}
