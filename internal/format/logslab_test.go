package format

import (
	"fmt"
	"slices"
	"sync"
	"testing"
)

func logEntry(i int) LogEntry { return LogEntry{ID: fmt.Sprintf("%032x", i), Token: 1} }

// naiveNext is the log Next must give: m's log and entry, the oldest
// dropped past limit, in a copy.
func naiveNext(log []LogEntry, e LogEntry, seq uint64, limit int) []LogEntry {
	e.Seq = seq
	out := append(slices.Clone(log), e)
	return out[max(0, len(out)-limit):]
}

// A chain of commits has, at each step, the log a copy would give, for
// limits below, at and above the slab's room; and no step changes the
// log of a manifest before it.
func TestNextLogChain(t *testing.T) {
	for _, limit := range []int{1, 3, 64, 65, 1000} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			m := &Manifest{Domain: "d", Highest: 1, Seq: 1, Keys: map[string]Entry{}}
			var chain []*Manifest
			var want [][]LogEntry
			for i := range min(3*limit+200, 1500) {
				next := m.Next("d", 1, logEntry(i), nil, nil, limit)
				w := naiveNext(m.Log, logEntry(i), m.Seq+1, limit)
				if !slices.EqualFunc(next.Log, w, sameEntry) {
					t.Fatalf("commit %d: log of %d entries differs from a copy's %d", i, len(next.Log), len(w))
				}
				chain, want = append(chain, next), append(want, w)
				m = next
			}
			for i, c := range chain {
				if !slices.EqualFunc(c.Log, want[i], sameEntry) {
					t.Fatalf("the log of commit %d changed after later commits", i)
				}
			}
		})
	}
}

func sameEntry(a, b LogEntry) bool { return a.ID == b.ID && a.Seq == b.Seq }

// Two commits built on the same manifest (two writers racing on one
// base, or a retry after a lost race) each get their own entry: the
// second does not overwrite the first's, however many follow on either.
func TestNextLogForks(t *testing.T) {
	base := &Manifest{Domain: "d", Highest: 1, Seq: 1, Keys: map[string]Entry{}}
	for i := range 10 {
		base = base.Next("d", 1, logEntry(i), nil, nil, 64)
	}
	a := base.Next("d", 1, logEntry(100), nil, nil, 64)
	b := base.Next("d", 1, logEntry(200), nil, nil, 64)
	a2 := a.Next("d", 1, logEntry(101), nil, nil, 64)
	b2 := b.Next("d", 1, logEntry(201), nil, nil, 64)
	for _, tc := range []struct {
		m    *Manifest
		last []int
	}{{a, []int{9, 100}}, {b, []int{9, 200}}, {a2, []int{9, 100, 101}}, {b2, []int{9, 200, 201}}, {base, []int{8, 9}}} {
		got := tc.m.Log[len(tc.m.Log)-len(tc.last):]
		for i, id := range tc.last {
			if got[i].ID != logEntry(id).ID {
				t.Fatalf("log ends with %q; want entries %v", got[i].ID, tc.last)
			}
		}
	}
}

// Commits built on one manifest at once each get their own entry (run
// with -race: no slot is written by two of them).
func TestNextLogConcurrent(t *testing.T) {
	base := &Manifest{Domain: "d", Highest: 1, Seq: 1, Keys: map[string]Entry{}}
	base = base.Next("d", 1, logEntry(0), nil, nil, 64)
	const n = 16
	out := make([]*Manifest, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { out[i] = base.Next("d", 1, logEntry(1+i), nil, nil, 64) })
	}
	wg.Wait()
	for i, m := range out {
		if len(m.Log) != 2 || m.Log[0].ID != logEntry(0).ID || m.Log[1].ID != logEntry(1+i).ID {
			t.Fatalf("commit %d: log %v", i, m.Log)
		}
	}
}

// A manifest's clone has a log of its own: a commit on the original
// does not write into it, and one on the clone does not write into the
// original's.
func TestNextLogAfterClone(t *testing.T) {
	base := (&Manifest{Domain: "d", Highest: 1, Seq: 1, Keys: map[string]Entry{}}).Next("d", 1, logEntry(0), nil, nil, 64)
	c := base.Clone()
	a := base.Next("d", 1, logEntry(1), nil, nil, 64)
	b := c.Next("d", 1, logEntry(2), nil, nil, 64)
	if a.Log[1].ID != logEntry(1).ID || b.Log[1].ID != logEntry(2).ID || len(c.Log) != 1 || len(base.Log) != 1 {
		t.Fatalf("logs mixed: %v / %v", a.Log, b.Log)
	}
}
