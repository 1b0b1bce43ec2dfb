//go:build unix && !linux

package job

// adoptOrphans does nothing here: orphans go to init.
func adoptOrphans() {}

// reapGroup does nothing here: only init reaps orphans.
func reapGroup(int) {}

// hasExited cannot look without reaping here; it reports false, so a
// command that exits as the lease ends counts as stopped.
func hasExited(int) bool { return false }
