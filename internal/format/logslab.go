package format

import "sync/atomic"

// A commit's manifest has the log of the one before it with one entry
// added (and the oldest dropped past the limit). Copying the whole log
// for every commit costs its size each time (about 10 KiB at the default
// limit of 64), so Next appends in place instead when it can: successive
// manifests' logs share one array, a logSlab, with room for more entries
// past the end of the newest log.
//
// Manifests never change once made, and several commits may build on the
// same one at once (only one of their writes can land). The first to
// claim the slot after the base's log, with an atomic compare-and-swap on
// the slab's count of written entries, writes its entry there; every
// other copies the log into a new slab. No slot is written twice, and no
// log ever covers a slot that was not written before that log was made.

// logSlab is an array of log entries shared by successive manifests.
type logSlab struct {
	used atomic.Int64 // entries written from the array's start
	last *LogEntry    // the array's last element: names the array
	size int          // the array's length
}

// logRoom is how many entries past the log a new slab has room for,
// at most: the log is copied once per logRoom commits.
const logRoom = 64

// nextLog returns m's log with entry appended and trimmed to its limit,
// and the slab it lives in, without modifying what m's log holds.
func (m *Manifest) nextLog(entry LogEntry, limit int) ([]LogEntry, *logSlab) {
	start := 0
	if len(m.Log)+1 > limit {
		start = len(m.Log) + 1 - limit
	}
	if s := m.slab; s != nil && cap(m.Log) > len(m.Log) {
		whole := m.Log[:cap(m.Log)]
		end := int64(s.size - (cap(m.Log) - len(m.Log))) // where m's log ends in the array
		if &whole[len(whole)-1] == s.last && s.used.CompareAndSwap(end, end+1) {
			log := m.Log[start : len(m.Log)+1]
			log[len(log)-1] = entry
			return log, s
		}
	}
	keep := m.Log[start:]
	arr := make([]LogEntry, len(keep)+1+max(1, min(limit, logRoom)))
	copy(arr, keep)
	arr[len(keep)] = entry
	s := &logSlab{last: &arr[len(arr)-1], size: len(arr)}
	s.used.Store(int64(len(keep) + 1))
	return arr[:len(keep)+1], s
}
