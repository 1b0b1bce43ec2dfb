package job

import (
	"bytes"
	"os"
	"strconv"
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

// leaderExited reports whether process pid (the command, a child of its
// supervisor) has exited: it is gone, or a zombie that its supervisor has
// not reaped yet (it may have been stopped along with this process).
func leaderExited(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return os.IsNotExist(err)
	}
	// The state follows the parenthesised command name.
	i := bytes.LastIndexByte(stat, ')')
	return i > 0 && i+2 < len(stat) && (stat[i+2] == 'Z' || stat[i+2] == 'X')
}
