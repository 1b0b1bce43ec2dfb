package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// history lays out the commits as a table with the fences marked, and
// the stale holder's rejected put between them, on record with both
// tokens; --json (the log only) and --since select the same.
func TestHistory(t *testing.T) {
	c := newCLI(t)
	t1 := c.acquire("d", "--holder", "alice", "--ttl", "1s")
	c.want(0, "v1", "put", "d", "report.csv", "-", "--token", tok(t1))
	t2 := c.acquire("d", "--holder", "bob", "--wait", "--timeout", "30s")
	c.want(exitFenced, "late", "put", "d", "report.csv", "-", "--token", tok(t1))
	c.want(0, "v2", "put", "d", "report.csv", "-", "--token", tok(t2))

	r := c.want(0, "", "history", "d")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 7 || lines[0] != "| Seq | Time | Event | Token | Holder | Commit |" {
		t.Fatalf("history printed %q; want a header, a rule, 4 commits and a fenced attempt", r.stdout)
	}
	for i, want := range []string{
		"| 1 | ", "Fence: token raised to " + tok(t1),
		"| 2 | ", "Commit: put report.csv | " + tok(t1) + " |",
		"| 3 | ", "Fence: token raised to " + tok(t2),
		"| - | ", "Fenced: put report.csv (size unknown); refused: token " + tok(t2) + " was accepted | " + tok(t1) + " | ",
		"| 4 | ", "Commit: put report.csv | " + tok(t2) + " |",
	} {
		if line := lines[2+i/2]; !strings.Contains(line, want) {
			t.Errorf("history line %q does not contain %q", line, want)
		}
	}

	var recs []struct {
		Seq     uint64   `json:"seq"`
		Token   uint64   `json:"token"`
		Fence   bool     `json:"fence"`
		PutKeys []string `json:"put_keys"`
		Time    time.Time
	}
	r = c.want(0, "", "--json", "history", "d")
	if err := json.Unmarshal([]byte(r.stdout), &recs); err != nil || len(recs) != 4 {
		t.Fatalf("history --json printed %q: %v", r.stdout, err)
	}
	if !recs[2].Fence || recs[2].Token != t2 || recs[3].Fence || len(recs[3].PutKeys) != 1 {
		t.Fatalf("history --json = %+v", recs)
	}
	r = c.want(0, "", "--json", "history", "d", "--since", recs[3].Time.Format(time.RFC3339Nano))
	if err := json.Unmarshal([]byte(r.stdout), &recs); err != nil || len(recs) != 1 || recs[0].Seq != 4 {
		t.Fatalf("history --since the last commit printed %q: %v", r.stdout, err)
	}
	r = c.want(0, "", "--json", "history", "d", "--since", "1h")
	if err := json.Unmarshal([]byte(r.stdout), &recs); err != nil || len(recs) != 4 {
		t.Fatalf("history --since 1h printed %q: %v", r.stdout, err)
	}
	c.want(exitUsage, "", "history", "d", "--since", "yesterday")
	c.want(exitError, "", "history", "nothing-here")
}

// history --jsonl is the audit trail as JSON lines; --commit finds one
// commit with its tenure, and exits 1 for a commit that never landed.
func TestHistoryAudit(t *testing.T) {
	c := newCLI(t)
	tokN := c.acquire("d")
	c.want(0, "hi", "put", "--token", tok(tokN), "d", "k", "-")
	c.want(0, "", "lease", "break", "d")
	c.want(3, "late", "put", "--token", tok(tokN), "d", "k2", "-")
	r := c.want(0, "", "history", "d", "--jsonl")
	var kinds []string
	var commitID string
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var e struct {
			Kind     string `json:"kind"`
			CommitID string `json:"commit_id"`
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		kinds = append(kinds, e.Kind)
		if e.Kind == "commit" {
			commitID = e.CommitID
		}
	}
	if got := strings.Join(kinds, ","); got != "takeover,commit,takeover,fenced,lease" {
		t.Fatalf("--jsonl kinds = %s:\n%s", got, r.stdout)
	}
	r = c.want(0, "", "history", "d", "--commit", commitID)
	if !strings.Contains(r.stdout, "from then on the store rejected token "+tok(tokN)) {
		t.Errorf("--commit:\n%s", r.stdout)
	}
	r = c.want(1, "", "history", "d", "--commit", "0123456789abcdef0123456789abcdef")
	if !strings.Contains(r.stderr, "did not land") {
		t.Errorf("--commit of a commit not in the log: %q", r.stderr)
	}
}
