package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
)

// The operations issue's "Done when": a fence exec against MinIO and
// dynalite, taken over mid-run by a second holder, leaves a log line
// naming both tokens, a fence_commits_total{outcome="fenced"} increment
// on its /metrics, and the takeover in fence history.
func TestServersExecTakeoverObserved(t *testing.T) {
	s3ep, dynep := endpoints(t, true, true)
	bucket, table := unique("fence-cli-obs-"), unique("fence-cli-obs-")
	removeBucket(t, s3ep, bucket)
	removeTable(t, dynep, table)
	c := newCLI(t)
	c.store = "s3://" + bucket + "?endpoint=" + s3ep + "&path_style=true"
	c.global = []string{"--coord", "dynamodb://" + table + "?endpoint=" + dynep}
	c.want(0, "", "init")
	if err := os.MkdirAll(filepath.Join(c.dir, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	c.file("out/report.csv", "a,b\n1,2\n")

	cmd, _, stderr := c.startExec("--log-level", "info", "--log-format", "json",
		"exec", "reports/monthly", "--ttl", "60s", "--metrics-addr", "127.0.0.1:0", "--metrics-linger", "5s", "--publish", "out", "--",
		"sh", "-c", `touch started; while [ ! -e go ]; do sleep 0.05; done`)
	waitFile(t, filepath.Join(c.dir, "started"))
	addr := waitFor(t, stderr, regexp.MustCompile(`metrics on (http://\S+/metrics)`))
	m := scrape(t, addr)
	if got := metric(m, "fence_lease_events_total", "event", "acquired"); got != 1 {
		t.Errorf("lease acquisitions on /metrics = %g, want 1", got)
	}

	r := c.want(0, "", "--json", "lease", "break", "reports/monthly")
	var broke struct {
		OldToken uint64 `json:"old_token"`
		Token    uint64 `json:"token"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &broke); err != nil || broke.OldToken == 0 || broke.Token <= broke.OldToken {
		t.Fatalf("lease break = %q (%v)", r.stdout, err)
	}
	c.file("go", "")
	waitFor(t, stderr, regexp.MustCompile(`"outcome":"fenced"`))
	m = scrape(t, addr)
	if got := metric(m, "fence_commits_total", "outcome", "fenced"); got != 1 {
		t.Errorf(`fence_commits_total{outcome="fenced"} = %g, want 1`, got)
	}
	err := cmd.Wait() // after the linger

	if ee, ok := err.(interface{ ExitCode() int }); !ok || ee.ExitCode() != exitFenced {
		t.Fatalf("exec = %v, want exit %d (fenced)\n%s", err, exitFenced, stderr)
	}

	var fenced map[string]any
	for _, line := range strings.Split(stderr.String(), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && rec["outcome"] == "fenced" {
			fenced = rec
		}
	}
	if fenced == nil || fenced["token"] != float64(broke.OldToken) || fenced["highest"] != float64(broke.Token) || fenced["level"] != "WARN" || fenced["domain"] != "reports/monthly" || fenced["commit_id"] == "" {
		t.Errorf("the fenced commit's log record = %v; want level WARN, token %d and highest %d\n%s", fenced, broke.OldToken, broke.Token, stderr)
	}

	r = c.want(0, "", "--json", "history", "reports/monthly")
	if !strings.Contains(r.stdout, `"token": `+jsonNum(broke.Token)) {
		t.Errorf("history has no commit at the takeover's token %d:\n%s", broke.Token, r.stdout)
	}
}

func jsonNum(n uint64) string { b, _ := json.Marshal(n); return string(b) }

// waitFor waits until re matches what buf holds and returns its first
// group (or the whole match).
func waitFor(t *testing.T, buf *syncBuffer, re *regexp.Regexp) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if m := re.FindStringSubmatch(buf.String()); m != nil {
			return m[len(m)-1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s in:\n%s", re, buf.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// scrape reads a /metrics endpoint in the exposition format.
func scrape(t *testing.T, url string) map[string][]map[string]any {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var p expfmt.TextParser
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("scrape %s: %v", url, err)
	}
	out := map[string][]map[string]any{}
	for name, f := range fams {
		for _, m := range f.GetMetric() {
			s := map[string]any{}
			for _, l := range m.GetLabel() {
				s[l.GetName()] = l.GetValue()
			}
			if c := m.GetCounter(); c != nil {
				s["value"] = c.GetValue()
			}
			out[name] = append(out[name], s)
		}
	}
	return out
}

// metric returns the value of the sample of name whose label is value.
func metric(m map[string][]map[string]any, name, label, value string) float64 {
	for _, s := range m[name] {
		if s[label] == value {
			v, _ := s["value"].(float64)
			return v
		}
	}
	return -1
}
