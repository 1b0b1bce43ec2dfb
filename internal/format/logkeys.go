package format

import (
	"fmt"
	"slices"

	"github.com/fencedstore/fence/rules"
)

// LogKeysLimit is the most key names a log entry records of each kind
// (put, deleted), so that the log, and the manifest, stay small.
const LogKeysLimit = 16

// SetKeys records in e the names of the keys its commit put and deleted:
// the first LogKeysLimit of each in sorted order, with KeysTruncated set
// when either list was cut short. The counts Puts and Deletes are set to
// the full numbers. puts and deletes are not modified.
func (e *LogEntry) SetKeys(puts, deletes []string) {
	e.Puts, e.Deletes = len(puts), len(deletes)
	e.PutKeys, e.DeletedKeys = firstSorted(puts), firstSorted(deletes)
	e.KeysTruncated = len(puts) > LogKeysLimit || len(deletes) > LogKeysLimit
}

func firstSorted(keys []string) []string {
	if len(keys) == 0 {
		return nil
	}
	s := slices.Sorted(slices.Values(keys))
	return slices.Clip(s[:min(len(s), LogKeysLimit)])
}

// checkLogEntry checks the key names e records and returns a reason when
// they cannot be trusted: more names than the limit or than the counts,
// or a name that is not a valid key. Empty lists become nil, as they
// encode.
func checkLogEntry(e *LogEntry) string {
	for _, l := range []struct {
		what  string
		keys  *[]string
		count int
	}{{"put_keys", &e.PutKeys, e.Puts}, {"deleted_keys", &e.DeletedKeys, e.Deletes}} {
		if len(*l.keys) == 0 {
			*l.keys = nil
			continue
		}
		if len(*l.keys) > min(l.count, LogKeysLimit) {
			return fmt.Sprintf("log entry of seq %d names %d %s, more than its count %d or the limit %d", e.Seq, len(*l.keys), l.what, l.count, LogKeysLimit)
		}
		for _, k := range *l.keys {
			if err := rules.ValidateKey(k); err != nil {
				return fmt.Sprintf("log entry of seq %d: %s names invalid key %q: %v", e.Seq, l.what, k, err)
			}
		}
	}
	return ""
}

// pointers returns a pointer to each entry of log.
func pointers(log []LogEntry) []*LogEntry {
	ps := make([]*LogEntry, len(log))
	for i := range log {
		ps[i] = &log[i]
	}
	return ps
}
