package integration

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fencedstore/fence"
	"github.com/fencedstore/fence/internal/dynamotest"
	"github.com/fencedstore/fence/objstore"
)

// The stale-holder scenario across two OS processes against real servers:
// holder A acquires, checks that its lease is live, and is then really
// stopped with SIGSTOP — between its check and its write, where no check
// can help. Its lease expires; holder B, another process, acquires a higher
// token, fences the domain and writes. A is resumed with SIGCONT and sends
// its write. The store must reject it, naming both tokens, and a reader
// must see B's bytes.

const holderEnv = "FENCE_TEST_CHILD_HOLDER"

// event is one line a holder process prints.
type event struct {
	Event   string `json:"event"` // acquired, checked, wrote, fenced, session, error
	Token   uint64 `json:"token,omitempty"`
	Highest uint64 `json:"highest,omitempty"`
	Detail  string `json:"detail,omitempty"`
}

// It runs with tokens from each DynamoDB implementation (dynalite and
// AWS's DynamoDB Local; a subtest per implementation, skipping when its
// variable is unset) and with bucket leases.
func TestStaleHolderAcrossProcesses(t *testing.T) {
	s3URL := s3Server(t)
	for _, c := range []struct{ backend, coord string }{
		{"s3", "dynamodb"},    // aws-sdk-go-v2 against MinIO, tokens from DynamoDB
		{"minio", "bucket"},   // minio-go against MinIO, bucket leases
		{"minio", "dynamodb"}, // minio-go against MinIO, tokens from DynamoDB
	} {
		t.Run(c.backend+"+"+c.coord, func(t *testing.T) {
			t.Parallel()
			run := func(t *testing.T, dynURL string) {
				s := setup{
					Backend: c.backend, Coord: c.coord, S3: s3URL, Dynamo: dynURL,
					Bucket: uniqueName("stale"), Table: uniqueName("leases"),
					// 3 s: at 1.5 s, one run with DynamoDB Local on the
					// loaded 2-core machine found A's fresh lease within
					// its 150 ms safety margin before A's check.
					Domain: "reports/monthly", TTLMilli: 3000,
				}
				provision(t, s)
				runStaleHolder(t, s)
			}
			if c.coord == "dynamodb" {
				// One implementation after the other: as many holders
				// at once as with one, on a busy 2-core machine.
				dynamotest.Run(t, run)
			} else {
				run(t, "")
			}
		})
	}
}

func runStaleHolder(t *testing.T, s setup) {
	a := startHolder(t, s, "A")
	acq := a.next(t, "acquired")
	a.next(t, "checked")
	// A is between its lease check and its write: stop it for real.
	if err := syscall.Kill(a.cmd.Process.Pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stopped := true
	defer func() {
		if stopped {
			syscall.Kill(a.cmd.Process.Pid, syscall.SIGCONT)
		}
	}()

	// B waits for A's lease to expire (A cannot renew while stopped),
	// takes over with a higher token, fences, writes and exits.
	b := startHolder(t, s, "B")
	bAcq := b.next(t, "acquired")
	if bAcq.Token <= acq.Token {
		t.Fatalf("B's token %d is not above A's %d", bAcq.Token, acq.Token)
	}
	b.next(t, "wrote")
	b.wait(t)

	// Wake A and let it send the write it prepared.
	if err := syscall.Kill(a.cmd.Process.Pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	stopped = false
	fmt.Fprintln(a.stdin, "write")
	got := a.next(t, "fenced")
	if got.Token != acq.Token || got.Highest != bAcq.Token {
		t.Fatalf("A's rejection names tokens %d and %d, want %d and %d", got.Token, got.Highest, acq.Token, bAcq.Token)
	}
	// A's session noticed on resuming that its lease is gone.
	sess := a.next(t, "session")
	if !strings.Contains(sess.Detail, "lease lost") && !strings.Contains(sess.Detail, "deadline") {
		t.Fatalf("A's session ended with %q, want lease lost", sess.Detail)
	}
	a.wait(t)

	// A reader sees B's bytes, with B's token.
	ctx := context.Background()
	store, _, err := s.open(ctx, "reader")
	if err != nil {
		t.Fatal(err)
	}
	data, v, err := store.ReadAll(ctx, s.Domain, "summary.csv")
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != "written by B\n" || v.Token != bAcq.Token {
		t.Fatalf("reader sees %q with token %d, want B's bytes with token %d", data, v.Token, bAcq.Token)
	}
	t.Logf("A held token %d, was stopped past its lease, and was fenced at %d; reader saw B's bytes", acq.Token, bAcq.Token)
}

// holder is a running holder process.
type holder struct {
	name  string
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines *bufio.Scanner
}

func startHolder(t *testing.T, s setup, name string) *holder {
	t.Helper()
	cfg, _ := json.Marshal(s)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), holderEnv+"="+name, "FENCE_TEST_CHILD_SETUP="+string(cfg))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGCONT)
		cmd.Process.Kill()
		cmd.Wait()
	})
	return &holder{name: name, cmd: cmd, stdin: stdin, lines: bufio.NewScanner(stdout)}
}

// next reads the holder's next event and checks its kind.
func (h *holder) next(t *testing.T, want string) event {
	t.Helper()
	if !h.lines.Scan() {
		t.Fatalf("holder %s ended before %q: %v", h.name, want, h.lines.Err())
	}
	var e event
	if err := json.Unmarshal(h.lines.Bytes(), &e); err != nil {
		t.Fatalf("holder %s printed %q: %v", h.name, h.lines.Text(), err)
	}
	if e.Event != want {
		t.Fatalf("holder %s: got %+v, want event %q", h.name, e, want)
	}
	return e
}

func (h *holder) wait(t *testing.T) {
	t.Helper()
	h.stdin.Close()
	if err := h.cmd.Wait(); err != nil {
		t.Fatalf("holder %s: %v", h.name, err)
	}
}

// runHolder is the holder process's main.
func runHolder(name string) int {
	var s setup
	if err := json.Unmarshal([]byte(os.Getenv("FENCE_TEST_CHILD_SETUP")), &s); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	out := json.NewEncoder(os.Stdout)
	fail := func(err error) int {
		out.Encode(event{Event: "error", Detail: err.Error()})
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	store, c, err := s.open(ctx, name)
	if err != nil {
		return fail(err)
	}
	session, err := fence.Acquire(ctx, store, c, s.Domain, &fence.AcquireOptions{Holder: name, TTL: s.ttl(), Wait: true})
	if err != nil {
		return fail(err)
	}
	lease := session.Lease()
	out.Encode(event{Event: "acquired", Token: lease.Token})

	if name == "B" {
		if _, err := store.Put(session.Ctx(), s.Domain, "summary.csv", lease.Token, strings.NewReader("written by B\n"), -1); err != nil {
			return fail(err)
		}
		out.Encode(event{Event: "wrote", Token: lease.Token})
		if err := session.Release(ctx); err != nil {
			return fail(err)
		}
		return 0
	}

	// Holder A: check the lease, then (stopped here by the parent) write
	// without checking again.
	select {
	case <-session.Done():
		return fail(fmt.Errorf("lease lost before the check: %w", session.Err()))
	default:
	}
	out.Encode(event{Event: "checked", Token: lease.Token})
	in := bufio.NewScanner(os.Stdin)
	if !in.Scan() {
		return fail(errors.New("stdin closed before the write"))
	}
	_, err = store.Put(ctx, s.Domain, "summary.csv", lease.Token, strings.NewReader("written by A, late\n"), -1)
	var fe *objstore.FencedError
	switch {
	case errors.As(err, &fe):
		out.Encode(event{Event: "fenced", Token: fe.Token, Highest: fe.Highest, Detail: err.Error()})
	case err == nil:
		out.Encode(event{Event: "wrote", Token: lease.Token})
	default:
		return fail(err)
	}
	<-session.Done()
	out.Encode(event{Event: "session", Detail: fmt.Sprint(session.Err())})
	return 0
}
