package integration

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/filestore"
)

// commitResult is one child's report of one commit.
type commitResult struct {
	ID     string `json:"id"`
	Token  uint64 `json:"token"`
	Seq    uint64 `json:"seq"`
	Fenced bool   `json:"fenced"`
}

const childEnv = "FENCE_TEST_CHILD_COMMITS"

// TestMain lets the test binary act as a committing child process.
func TestMain(m *testing.M) {
	if dir := os.Getenv(childEnv); dir != "" {
		os.Exit(runCommitChild(dir, os.Getenv("FENCE_TEST_CHILD_NAME")))
	}
	if name := os.Getenv(holderEnv); name != "" {
		os.Exit(runHolder(name))
	}
	os.Exit(m.Run())
}

func runCommitChild(dir, name string) int {
	b, err := filestore.Open(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	s := objstore.New(b, &objstore.Options{Holder: name, LogLimit: 1000})
	out := json.NewEncoder(os.Stdout)
	for j := range 60 {
		token := uint64(j/5 + 1)
		c, err := s.Put(context.Background(), "two/procs", "k", token, strings.NewReader(fmt.Sprintf("%s %d", name, j)), -1)
		var fe *objstore.FencedError
		switch {
		case err == nil:
			out.Encode(commitResult{ID: c.ID, Token: token, Seq: c.Seq})
		case errors.As(err, &fe):
			out.Encode(commitResult{Token: token, Fenced: true})
		default:
			fmt.Fprintln(os.Stderr, "commit:", err)
			return 1
		}
	}
	return 0
}

// TestTwoProcessesLocalDirectory: two OS processes commit to one
// local-directory store with overlapping tokens. They never both win the
// same manifest version, every acknowledged commit is in the manifest's
// log, and nothing unacknowledged was applied.
func TestTwoProcessesLocalDirectory(t *testing.T) {
	dir := t.TempDir()
	var (
		mu   sync.Mutex
		acks []commitResult
		wg   sync.WaitGroup
	)
	fenced := 0
	for _, name := range []string{"p1", "p2"} {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"="+dir, "FENCE_TEST_CHILD_NAME="+name)
		cmd.Stderr = os.Stderr
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				var r commitResult
				if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				mu.Lock()
				if r.Fenced {
					fenced++
				} else {
					acks = append(acks, r)
				}
				mu.Unlock()
			}
			if err := cmd.Wait(); err != nil {
				t.Errorf("child %s: %v", name, err)
			}
		}()
	}
	wg.Wait()
	b, err := filestore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := format.ReadManifest(context.Background(), b, "two/procs")
	if err != nil {
		t.Fatal(err)
	}
	bySeq := map[uint64]string{}
	for _, a := range acks {
		if other, dup := bySeq[a.Seq]; dup {
			t.Fatalf("commits %s and %s both won manifest version %d", other, a.ID, a.Seq)
		}
		bySeq[a.Seq] = a.ID
	}
	logged := map[string]format.LogEntry{}
	var last uint64
	for _, e := range m.Log {
		logged[e.ID] = e
		if e.Token < last {
			t.Fatalf("log has token %d after %d", e.Token, last)
		}
		last = e.Token
	}
	for _, a := range acks {
		if e, ok := logged[a.ID]; !ok || e.Seq != a.Seq {
			t.Fatalf("acknowledged commit %s (seq %d) is not in the log", a.ID, a.Seq)
		}
	}
	// One extra entry: the fence that created the manifest.
	if int(m.Seq) != len(acks)+1 {
		t.Fatalf("manifest seq %d, %d commits acknowledged (+1 creation)", m.Seq, len(acks))
	}
	t.Logf("%d acknowledged, %d fenced, final seq %d, highest %d", len(acks), fenced, m.Seq, m.Highest)
}
