package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// The "Done when" for fenced attempts on file://: see
// checkFencedOnRecord.
func TestFencedAttemptsOnRecord(t *testing.T) {
	checkFencedOnRecord(t, newCLI(t))
}

// The same on MinIO (minio-go), with bucket leases kept in the store.
func TestServersFencedAttemptsOnRecord(t *testing.T) {
	s3ep, _ := endpoints(t, true, false)
	bucket := unique("fence-cli-fenced-")
	c := newCLI(t)
	c.store = "minio://" + bucket + "?endpoint=" + s3ep
	removeBucket(t, s3ep, bucket)
	c.want(0, "", "init")
	checkFencedOnRecord(t, c)
}

// checkFencedOnRecord: a stale holder's 'fence put' of a 4-byte value
// (kept in the manifest: nothing is uploaded) and of a 10 MiB value (the
// writer is refused before it uploads) each exit 3 and appear as a
// fenced attempt, with both tokens, on 'fence serve's domain page, in its
// JSON, in /metrics, and in 'fence history' and 'fence history --jsonl'.
func checkFencedOnRecord(t *testing.T, c *cli) {
	stale := c.acquire("d", "--holder", "alice", "--ttl", "1s")
	c.want(0, "v1", "put", "d", "k", "-", "--token", tok(stale))
	fresh := c.acquire("d", "--holder", "bob", "--wait", "--timeout", "30s")
	small := c.file("small.txt", "four")
	large := c.file("large.bin", strings.Repeat("x", 10<<20))
	c.want(exitFenced, "", "put", "d", "small.txt", small, "--token", tok(stale))
	c.want(exitFenced, "", "put", "d", "large.bin", large, "--token", tok(stale))
	sizes := map[string]int64{"small.txt": 4, "large.bin": 10 << 20}

	// fence history --jsonl: one "fenced" line per attempt.
	var lines []string
	for _, line := range strings.Split(strings.TrimSpace(c.want(0, "", "history", "d", "--jsonl").stdout), "\n") {
		var e struct {
			Kind     string   `json:"kind"`
			Token    uint64   `json:"token"`
			FencedBy uint64   `json:"fenced_by"`
			PutKeys  []string `json:"put_keys"`
			PutSizes []int64  `json:"put_sizes"`
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if e.Kind != "fenced" {
			continue
		}
		if e.Token != stale || e.FencedBy != fresh || len(e.PutKeys) != 1 || len(e.PutSizes) != 1 || sizes[e.PutKeys[0]] != e.PutSizes[0] {
			t.Errorf("history --jsonl: %s; want token %d fenced by %d, one key of the size put", line, stale, fresh)
		}
		lines = append(lines, line)
	}
	if len(lines) != 2 {
		t.Fatalf("history --jsonl has %d fenced lines, want 2", len(lines))
	}
	table := c.want(0, "", "history", "d").stdout
	for key, size := range sizes {
		want := "| - | "
		row := fmt.Sprintf("Fenced: put %s (%d bytes); refused: token %d was accepted | %d |", key, size, fresh, stale)
		if !strings.Contains(table, want) || !strings.Contains(table, row) {
			t.Errorf("fence history lacks %q:\n%s", row, table)
		}
	}

	url, _, _ := startServe(t, c, nil, "--addr", "127.0.0.1:0")
	var page struct {
		Attempts []struct {
			Key      string `json:"key"`
			Token    uint64 `json:"token"`
			FencedBy uint64 `json:"fenced_by"`
			Source   string `json:"source"`
			Record   struct {
				PutSizes []int64 `json:"put_sizes"`
			} `json:"record"`
		} `json:"fenced_attempts"`
	}
	if err := json.Unmarshal([]byte(fetch(t, url+"/domain/d?format=json", 200)), &page); err != nil {
		t.Fatal(err)
	}
	if len(page.Attempts) != 2 {
		t.Fatalf("the domain's JSON has %d fenced attempts, want 2: %+v", len(page.Attempts), page.Attempts)
	}
	for _, a := range page.Attempts {
		if a.Token != stale || a.FencedBy != fresh || a.Source != "record" || len(a.Record.PutSizes) != 1 || a.Record.PutSizes[0] != sizes[a.Key] {
			t.Errorf("the domain's JSON has %+v; want token %d fenced by %d, on record, with its size", a, stale, fresh)
		}
	}
	html := fetch(t, url+"/domain/d", 200)
	for _, want := range []string{`put &#34;small.txt&#34; (4 B)`, `put &#34;large.bin&#34; (10.0 MiB)`} {
		if !strings.Contains(html, want) {
			t.Errorf("the domain page lacks %s", want)
		}
	}
	if n := strings.Count(html, fmt.Sprintf(`<td class="num attempt-token">%d</td><td class="num fenced-by">%d</td>`, stale, fresh)); n != 2 {
		t.Errorf("the domain page shows %d fenced attempts with tokens %d and %d, want 2", n, stale, fresh)
	}
	metrics := fetch(t, url+"/metrics", 200)
	for _, want := range []string{
		`(?m)^fence_fenced_attempts_recorded 2$`,
		fmt.Sprintf(`(?m)^fence_fenced_attempt_newest_token %d$`, stale),
		fmt.Sprintf(`(?m)^fence_fenced_attempt_newest_fenced_by %d$`, fresh),
	} {
		if !regexp.MustCompile(want).MatchString(metrics) {
			t.Errorf("/metrics lacks %s:\n%s", want, grepFence(metrics))
		}
	}

	// fence gc keeps the records within its grace, then deletes them.
	for _, step := range []struct {
		grace         string
		seen, deleted int
		left          int
	}{{"1h", 2, 0, 2}, {"0s", 2, 2, 0}} {
		var res struct {
			Records int `json:"fenced_records"`
			Deleted int `json:"fenced_deleted"`
		}
		if err := json.Unmarshal([]byte(c.want(0, "", "--json", "gc", "d", "--grace", step.grace).stdout), &res); err != nil {
			t.Fatal(err)
		}
		left := strings.Count(c.want(0, "", "history", "d", "--jsonl").stdout, `"kind":"fenced"`)
		if res.Records != step.seen || res.Deleted != step.deleted || left != step.left {
			t.Errorf("gc --grace %s: %+v, %d records left; want %d seen, %d deleted, %d left", step.grace, res, left, step.seen, step.deleted, step.left)
		}
	}
}

// grepFence returns the lines of metrics about fenced attempts.
func grepFence(metrics string) string {
	var out []string
	for _, l := range strings.Split(metrics, "\n") {
		if strings.Contains(l, "fenced") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
