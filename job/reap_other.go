//go:build unix && !linux

package job

// adoptOrphans does nothing here: orphans go to init.
func adoptOrphans() {}

// reapGroup does nothing here: only init reaps orphans.
func reapGroup(int) {}

// leaderExited cannot tell here; it reports false, so a command that
// exits as the lease ends counts as stopped.
func leaderExited(int) bool { return false }
