// Package hist is the history format shared by the fault suite and its
// child processes: one JSON object per line, appended by each process to
// its own file, with times from CLOCK_MONOTONIC so that every process on
// the machine reads the same clock.
package hist

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// Operations.
const (
	OpAcquire = "acquire" // fence.Acquire: floor, lease, fence (a fence in the register)
	OpIssue   = "issue"   // one Coordinator.TryAcquire that issued a token
	OpCommit  = "commit"  // Store.Commit of one to three keys
	OpRead    = "read"    // a snapshot read of every key of a domain
	OpRelease = "release" // Session.Release
	OpLost    = "lost"    // the holder saw its session end (an event: Call == Return)
	OpStats   = "stats"   // counters a process reports (an event)
	OpPoint   = "point"   // a writer reached a kill or pause point (an event)
	// OpRetry is a retry of a commit whose outcome was unknown, with the
	// same changes and token (In.RetryOf names the commit's operation).
	OpRetry = "retry"
	// OpGC is one Store.Collect of one domain (Out.Stats: its counts).
	OpGC = "gc"
	// OpPlain is one plain GET of a key's plain copy (In.Key), as a
	// client that does not speak fence makes it: Out.Values holds its
	// bytes, Out.Seq, Out.Token and Out.CommitID what its metadata says.
	OpPlain = "plain"
	// OpPlainPut is one plain-copy write a writer sent (its copy log):
	// In.Domain and In.Key name the copy, Out.Seq is the seq of the
	// commit it copies. OK: the store accepted it; Fail: it did not (a
	// refused precondition, or an error; Err says which).
	OpPlainPut = "plain-put"
)

// Outcomes.
const (
	OK       = "ok"
	Fenced   = "fenced"
	Unknown  = "unknown"  // the store could not tell whether the write applied
	Fail     = "fail"     // a definite failure: nothing was applied
	NotFound = "notfound" // a read of a domain with no manifest
)

// Phases: an operation that writes is recorded twice, when it is called
// (so that one whose process dies is known) and when it returns.
const (
	PhaseCall   = "call"
	PhaseReturn = "return"
)

// Record is one line of a history.
type Record struct {
	Client string `json:"client"`
	Op     string `json:"op"`
	ID     int64  `json:"id"` // per client, increasing
	Phase  string `json:"phase,omitempty"`
	Call   int64  `json:"call"`             // CLOCK_MONOTONIC, ns
	Return int64  `json:"return,omitempty"` // CLOCK_MONOTONIC, ns; 0 in a call record
	In     Input  `json:"in"`
	Out    Output `json:"out"`
	// Outcome is one of OK, Fenced, Unknown, Fail, NotFound; empty in a
	// call record.
	Outcome string `json:"outcome,omitempty"`
	Err     string `json:"err,omitempty"`
}

// Input is what an operation was asked to do.
type Input struct {
	Domain string            `json:"domain,omitempty"`
	Key    string            `json:"key,omitempty"` // plain reads, plain-put points
	Token  uint64            `json:"token,omitempty"`
	Puts   map[string]string `json:"puts,omitempty"` // key -> value, for commits
	Tag    string            `json:"tag,omitempty"`  // the holder recorded in the commit log
	Floor  uint64            `json:"floor,omitempty"`
	// NoFence: an acquire without the takeover fence; it writes nothing
	// to the store (its holder's first commit claims the token).
	NoFence bool `json:"no_fence,omitempty"`
	// Retries: the ID of the commit operation retried, the commit id and
	// After of its UnknownOutcomeError.
	RetryOf  int64  `json:"retry_of,omitempty"`
	CommitID string `json:"commit_id,omitempty"`
	After    uint64 `json:"after,omitempty"`
}

// Output is what an operation returned.
type Output struct {
	Token     uint64 `json:"token,omitempty"`
	Seq       uint64 `json:"seq,omitempty"`
	Highest   uint64 `json:"highest,omitempty"`
	CommitID  string `json:"commit_id,omitempty"`
	Recovered bool   `json:"recovered,omitempty"`
	// PlainFailed: the commit landed, but some of its plain copies
	// failed (objstore.ErrPlainCopy).
	PlainFailed bool              `json:"plain_failed,omitempty"`
	Values      map[string]string `json:"values,omitempty"`   // reads: key -> value
	Versions    map[string]string `json:"versions,omitempty"` // reads: key -> version object key
	// Fence is the outcome of the fence step of an acquire: OK, Fenced,
	// Unknown, Fail, or empty when no token was obtained.
	Fence string           `json:"fence,omitempty"`
	Stats map[string]int64 `json:"stats,omitempty"`
	// Class classifies a failed read: ClassIntegrity or ClassMissing when
	// a version the manifest names was corrupt or missing.
	Class string `json:"class,omitempty"`
	// Missing names, for a read of class ClassMissing, the key and the
	// version object that was not found.
	Missing map[string]string `json:"missing,omitempty"`
	// For a write refused with a *objstore.FencedError: ClaimedBy (a
	// fence at a token another commit had raised the domain to) and
	// Issued (a token older than the coordinator's newest).
	ClaimedBy string `json:"claimed_by,omitempty"`
	Issued    uint64 `json:"issued,omitempty"`
}

// Read failure classes that break I4.
const (
	ClassIntegrity = "integrity"
	ClassMissing   = "missing-version"
)

// Now returns CLOCK_MONOTONIC in nanoseconds. It is the same clock in
// every process of the machine and does not jump with the wall clock.
func Now() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		panic(fmt.Sprintf("hist: clock_gettime: %v", err))
	}
	return ts.Nano()
}

// Writer appends records to one file, each with a single write(2), so
// that a line is complete even if the process is killed right after.
type Writer struct {
	mu sync.Mutex
	f  *os.File
}

// Create opens path for appending.
func Create(path string) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	return &Writer{f: f}, nil
}

// Write appends r.
func (w *Writer) Write(r Record) {
	line, err := json.Marshal(r)
	if err != nil {
		panic(err)
	}
	line = append(line, '\n')
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := w.f.Write(line); err != nil {
		fmt.Fprintf(os.Stderr, "hist: write: %v\n", err)
	}
}

// Close closes the file.
func (w *Writer) Close() error { return w.f.Close() }

// Client numbers one client's operations and records them.
type Client struct {
	Name string
	W    *Writer
	mu   sync.Mutex
	next int64
}

// NextID reserves the number of the client's next operation.
func (c *Client) NextID() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.next++
	return c.next
}

// Tag is the holder name a commit with operation number id records in the
// manifest's log, so that the commit can be found there even when its
// process died before it could report the commit id.
func (c *Client) Tag(id int64) string { return fmt.Sprintf("%s#%d", c.Name, id) }

// Begin records the call of an operation that writes, and returns the
// record to finish with End.
func (c *Client) Begin(id int64, op string, in Input) Record {
	r := Record{Client: c.Name, Op: op, ID: id, Phase: PhaseCall, Call: Now(), In: in}
	c.W.Write(r)
	return r
}

// Start returns the record of an operation that is recorded only when it
// returns (reads, releases, token issues).
func (c *Client) Start(op string, in Input) Record {
	return Record{Client: c.Name, Op: op, ID: c.NextID(), Call: Now(), In: in}
}

// End records r's return.
func (c *Client) End(r Record, outcome string, out Output, err error) {
	r.Phase = PhaseReturn
	r.Return = Now()
	r.Outcome = outcome
	r.Out = out
	if err != nil {
		r.Err = err.Error()
	}
	c.W.Write(r)
}

// Event records an instantaneous event.
func (c *Client) Event(op string, in Input, out Output, detail string) {
	r := Record{Client: c.Name, Op: op, ID: c.NextID(), Phase: PhaseReturn, In: in, Out: out, Outcome: OK, Err: detail}
	r.Call = Now()
	r.Return = r.Call
	c.W.Write(r)
}
