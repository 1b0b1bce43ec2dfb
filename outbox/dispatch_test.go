package outbox_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fencedstore/fence"
	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/coord/bucketlease"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/filestore"
	"github.com/fencedstore/fence/outbox"
)

const (
	childEnv = "FENCE_OUTBOX_TEST_CHILD" // the store directory
	crashEnv = "FENCE_OUTBOX_TEST_CRASH" // step:n at which the child kills itself
	destEnv  = "FENCE_OUTBOX_TEST_DEST"
)

func open(t testing.TB, dir string) (*objstore.Store, *coord.Coordinator) {
	b, err := filestore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	c := coord.New(bucketlease.New(b, nil))
	return objstore.New(b, &objstore.Options{Issuer: fence.Issuer(c)}), c
}

// runChild is the dispatcher process: it dispatches the outbox and kills
// itself (SIGKILL, as the kernel's OOM killer or a node loss would) at
// the step crashEnv names.
func runChild(t *testing.T, dir string) {
	store, c := open(t, dir)
	step, nth, _ := strings.Cut(os.Getenv(crashEnv), ":")
	n, _ := strconv.Atoi(nth)
	seen := map[string]int{}
	at := func(s string) {
		seen[s]++
		if s == step && seen[s] == n {
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
			time.Sleep(time.Minute)
		}
	}
	hooks := outbox.Hooks{
		Acquired:   func(uint64) { at("acquired") },
		Delivering: func(outbox.Record) { at("delivering") },
		Delivered:  func(outbox.Record) { at("delivered") },
		Recorded:   func(outbox.Record) { at("recorded") },
	}
	res, err := outbox.Dispatch(context.Background(), store, c, "jobs", outbox.HTTPDeliverer{}, &outbox.DispatchOptions{Holder: "dispatcher", TTL: time.Second, Wait: true, Hooks: hooks})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("delivered %d, failed %d, left %d\n", res.Delivered, len(res.Failed), res.Left)
	os.Exit(0)
}

// TestDispatchKilled kills the dispatcher at every step of a delivery
// (after taking the lease, before delivering, during the delivery, after
// it, after recording it) and then lets one finish: every record is
// delivered at least once, every delivery of a record carries the same
// key, and no two records share one.
func TestDispatchKilled(t *testing.T) {
	if dir := os.Getenv(childEnv); dir != "" {
		runChild(t, dir)
		return
	}
	dir := t.TempDir()
	var (
		mu       sync.Mutex
		received = map[string][]string{} // payload -> the keys it came with
		killAt   = 0                     // the request number at which to kill the child; 0: none
		requests = 0
		child    *exec.Cmd
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		requests++
		received[string(body)] = append(received[string(body)], r.Header.Get("Idempotency-Key"))
		kill := killAt != 0 && requests == killAt
		victim := child
		mu.Unlock()
		if kill {
			_ = victim.Process.Kill() // mid-delivery: the request arrived, the dispatcher never sees the answer
			time.Sleep(100 * time.Millisecond)
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()

	// A job commits five records with its data, in two commits.
	ctx := context.Background()
	store, c := open(t, dir)
	sess, err := fence.Acquire(ctx, store, c, "jobs", &fence.AcquireOptions{Holder: "job"})
	if err != nil {
		t.Fatal(err)
	}
	h := fence.NewHolder(sess, store)
	var records []string
	for commit := range 2 {
		changes := []objstore.Change{objstore.PutBytes(fmt.Sprintf("report-%d.csv", commit), []byte("a,b\n"))}
		for i := range 3 - commit {
			payload := fmt.Sprintf(`{"commit":%d,"record":%d}`, commit, i)
			records = append(records, payload)
			ch, err := outbox.Add(h.Token(), srv.URL+"/hook", "", []byte(payload))
			if err != nil {
				t.Fatal(err)
			}
			changes = append(changes, ch)
		}
		if _, err := h.Commit(ctx, changes, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := sess.Release(ctx); err != nil {
		t.Fatal(err)
	}

	runs := []struct {
		crash    string
		serverAt int
	}{
		{crash: "acquired:1"},
		{crash: "delivering:1"},
		{serverAt: 1}, // killed by the server mid-delivery
		{crash: "delivered:1"},
		{crash: "recorded:1"},
		{crash: "delivered:2"},
		{}, // finishes
	}
	for i, run := range runs {
		cmd := exec.Command(os.Args[0], "-test.run=^TestDispatchKilled$")
		cmd.Env = append(os.Environ(), childEnv+"="+dir, crashEnv+"="+run.crash, destEnv+"="+srv.URL)
		var outb strings.Builder
		cmd.Stdout, cmd.Stderr = &outb, &outb
		mu.Lock()
		requests, killAt, child = 0, run.serverAt, cmd
		err := cmd.Start()
		mu.Unlock()
		if err != nil {
			t.Fatal(err)
		}
		err = cmd.Wait()
		out := outb.String()
		var ee *exec.ExitError
		killed := errors.As(err, &ee) && ee.ProcessState.Sys().(syscall.WaitStatus).Signal() == syscall.SIGKILL
		if (run.crash != "" || run.serverAt != 0) != killed {
			t.Fatalf("run %d (%+v): %v\n%s", i, run, err, out)
		}
		t.Logf("run %d (%+v): killed %v %s", i, run, killed, strings.TrimSpace(out))
	}

	pending, err := outbox.Pending(ctx, store, "jobs")
	if err != nil || len(pending) != 0 {
		t.Fatalf("pending after the last dispatch = %v, %v", pending, err)
	}
	deliveries, err := outbox.Deliveries(ctx, store, "jobs")
	if err != nil || len(deliveries) != len(records) {
		t.Fatalf("%d deliveries recorded (%v), want %d", len(deliveries), err, len(records))
	}
	keyOf := map[string]string{}
	dupes := 0
	for _, p := range records {
		keys := received[p]
		if len(keys) == 0 {
			t.Errorf("record %s was never delivered", p)
			continue
		}
		dupes += len(keys) - 1
		for _, k := range keys {
			if k != keys[0] || k == "" {
				t.Errorf("record %s was delivered with keys %v: want one key", p, keys)
			}
		}
		if other, ok := keyOf[keys[0]]; ok {
			t.Errorf("records %s and %s share the key %s", p, other, keys[0])
		}
		keyOf[keys[0]] = p
	}
	if dupes == 0 {
		t.Error("no record was delivered twice: the kills after a delivery did not bite")
	}
	t.Logf("%d records, %d duplicate deliveries, each with its record's key", len(records), dupes)
}
