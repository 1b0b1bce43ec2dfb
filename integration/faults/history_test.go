package faults

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/fencedstore/fence/integration/faults/internal/hist"
)

// op is one operation of the history: a call record merged with its
// return record.
type op struct {
	hist.Record
	// pending: the call was recorded but no return (the process died, or
	// was stopped for good, with the operation in flight).
	pending bool
	// The store's own record decides what an unknown or pending write did:
	applied bool   // it is in the manifest history
	seq     uint64 // the manifest seq it produced (0: none, or a no-op fence)
	// retBound is the latest time the operation can have taken effect:
	// its return, or for one resolved as applied the return of the first
	// operation that observed it (else "infinity").
	retBound int64
}

// history is a run's records, merged.
type history struct {
	ops    []*op         // every operation, by call time
	events []hist.Record // lost, stats and point events
	// retries are the retries of commits whose outcome was unknown, by
	// call time. They are not in ops: each commit in ops carries the
	// outcome of its last retry (see mergeRetries).
	retries []*op
	// plain are the plain GETs of plain copies, by call time; they are
	// not in ops, as they do not read through fence (I12 judges them).
	plain []hist.Record
	// plainPuts are the writers' plain-copy writes (their copy log), by
	// call time.
	plainPuts []hist.Record
}

// loadHistory reads every hist-*.jsonl file in dir.
func loadHistory(dir string) (*history, error) {
	files, err := filepath.Glob(filepath.Join(dir, "hist-*.jsonl"))
	if err != nil {
		return nil, err
	}
	h := &history{}
	calls := map[string]*op{}
	key := func(r hist.Record) string { return fmt.Sprintf("%s/%d", r.Client, r.ID) }
	for _, f := range files {
		recs, err := readRecords(f)
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			switch {
			case r.Op == hist.OpLost || r.Op == hist.OpStats || r.Op == hist.OpPoint:
				h.events = append(h.events, r)
			case r.Op == hist.OpPlain:
				h.plain = append(h.plain, r)
			case r.Op == hist.OpPlainPut:
				h.plainPuts = append(h.plainPuts, r)
			case r.Phase == hist.PhaseCall:
				o := &op{Record: r, pending: true}
				calls[key(r)] = o
				h.ops = append(h.ops, o)
			default:
				if o, ok := calls[key(r)]; ok {
					call := o.Call
					o.Record = r
					o.Call = call
					o.pending = false
					continue
				}
				h.ops = append(h.ops, &op{Record: r})
			}
		}
	}
	sort.SliceStable(h.ops, func(i, j int) bool { return h.ops[i].Call < h.ops[j].Call })
	sort.SliceStable(h.events, func(i, j int) bool { return h.events[i].Call < h.events[j].Call })
	sort.SliceStable(h.plain, func(i, j int) bool { return h.plain[i].Call < h.plain[j].Call })
	sort.SliceStable(h.plainPuts, func(i, j int) bool { return h.plainPuts[i].Call < h.plainPuts[j].Call })
	h.mergeRetries()
	return h, nil
}

// mergeRetries moves the retries out of ops and gives each retried
// commit the outcome of its retries, as one operation from the commit's
// call to the return of the retry that settled it: a retry that
// succeeded (the commit landed, by the first attempt or by the retry)
// makes the commit acknowledged, at the seq the retry reported; one
// fenced makes it fenced (it never landed). Otherwise (the retries ended
// unknown, failed, or were left pending) the commit stays unknown and the
// store's record decides. Each retry's own report is judged by X3.
func (h *history) mergeRetries() {
	commits := map[string]*op{}
	key := func(client string, id int64) string { return fmt.Sprintf("%s/%d", client, id) }
	var ops, retries []*op
	for _, o := range h.ops {
		switch o.Op {
		case hist.OpCommit:
			commits[key(o.Client, o.ID)] = o
		case hist.OpRetry:
			retries = append(retries, o)
			continue
		}
		ops = append(ops, o)
	}
	if len(retries) == 0 {
		return
	}
	h.ops, h.retries = ops, retries
	settled := map[*op]bool{}
	for _, r := range retries { // by call time
		c := commits[key(r.Client, r.In.RetryOf)]
		if c == nil || settled[c] {
			continue
		}
		c.pending = false
		switch {
		case r.pending:
			c.Outcome, c.Return = hist.Unknown, r.Call
		case r.Outcome == hist.OK, r.Outcome == hist.Fenced:
			c.Outcome, c.Return, c.Out, c.Err = r.Outcome, r.Return, r.Out, r.Err
			settled[c] = true
		default:
			c.Outcome, c.Return = hist.Unknown, r.Return
			if r.Out.CommitID != "" {
				c.Out.CommitID = r.Out.CommitID
			}
		}
	}
}

// readRecords reads one history file. A last line cut short (a process
// killed while writing it cannot leave one, but be safe) is ignored.
func readRecords(path string) ([]hist.Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []hist.Record
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var r hist.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			continue
		}
		out = append(out, r)
	}
	return out, sc.Err()
}

// lease is a lease a writer holds, as far as its history tells.
type lease struct {
	client, domain string
	token          uint64
}

// liveView follows the history files while a run goes on, so that faults
// can pick their targets (a writer that holds a lease) and know when
// something happened. It is safe for concurrent use: the fault phase and
// the watcher of self-paused writers both refresh it.
type liveView struct {
	dir     string
	mu      sync.Mutex
	offsets map[string]int64
	holders map[string]lease // client -> lease held
	ok      map[string]int   // commits acknowledged, per domain
	points  []hist.Record
	issues  []issue // tokens issued, in the order read
	// returned is, per client, the return time of its last commit or
	// retry read so far.
	returned map[string]int64
}

// issue is a token issued, as the live view read it.
type issue struct {
	client, domain string
	token          uint64
	at             int64 // hist.Now() when it was issued
}

// issueCount returns the number of issues read so far.
func (l *liveView) issueCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.issues)
}

// issueAfter returns the newest issue read after the first n, if any.
func (l *liveView) issueAfter(n int) (issue, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.issues) <= n {
		return issue{}, false
	}
	return l.issues[len(l.issues)-1], true
}

func newLiveView(dir string) *liveView {
	return &liveView{dir: dir, offsets: map[string]int64{}, holders: map[string]lease{}, ok: map[string]int{}, returned: map[string]int64{}}
}

// refresh reads what was appended since the last call.
func (l *liveView) refresh() {
	l.mu.Lock()
	defer l.mu.Unlock()
	files, _ := filepath.Glob(filepath.Join(l.dir, "hist-*.jsonl"))
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			continue
		}
		if _, err := f.Seek(l.offsets[path], io.SeekStart); err != nil {
			f.Close()
			continue
		}
		data, _ := io.ReadAll(f)
		f.Close()
		end := bytes.LastIndexByte(data, '\n')
		if end < 0 {
			continue
		}
		l.offsets[path] += int64(end + 1)
		for line := range bytes.SplitSeq(data[:end], []byte{'\n'}) {
			var r hist.Record
			if json.Unmarshal(line, &r) != nil || (r.Phase == hist.PhaseCall && r.Op != hist.OpRelease) {
				continue
			}
			l.apply(r)
		}
	}
}

func (l *liveView) apply(r hist.Record) {
	switch r.Op {
	case hist.OpAcquire:
		if r.Outcome == hist.OK {
			l.holders[r.Client] = lease{client: r.Client, domain: r.In.Domain, token: r.Out.Token}
		}
	case hist.OpRelease:
		delete(l.holders, r.Client)
	case hist.OpCommit:
		if r.Outcome == hist.OK {
			l.ok[r.In.Domain]++
		}
		l.returned[r.Client] = max(l.returned[r.Client], r.Return)
	case hist.OpRetry:
		l.returned[r.Client] = max(l.returned[r.Client], r.Return)
	case hist.OpPoint:
		l.points = append(l.points, r)
	case hist.OpIssue:
		if r.Outcome == hist.OK {
			l.issues = append(l.issues, issue{client: r.Client, domain: r.In.Domain, token: r.Out.Token, at: r.Return})
		}
	}
}

// holder returns the lease client holds, by what was read so far.
func (l *liveView) holder(client string) (lease, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	h, ok := l.holders[client]
	return h, ok
}

// leases returns every lease held, by what was read so far, ordered by
// client so that a seed picks the same one from the same view.
func (l *liveView) leases() []lease {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.SortedFunc(maps.Values(l.holders), func(a, b lease) int { return strings.Compare(a.client, b.client) })
}

// lastPoint returns the last point event of client read so far.
func (l *liveView) lastPoint(client string) (hist.Record, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := len(l.points) - 1; i >= 0; i-- {
		if l.points[i].Client == client {
			return l.points[i], true
		}
	}
	return hist.Record{}, false
}

// returnedSince reports whether a commit or retry of client returned
// after t, by what was read so far.
func (l *liveView) returnedSince(client string, t int64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.returned[client] > t
}

// commits returns the number of acknowledged commits seen so far.
func (l *liveView) commits() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, v := range l.ok {
		n += v
	}
	return n
}
