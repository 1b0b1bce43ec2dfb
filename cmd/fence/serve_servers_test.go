package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

// fence serve against MinIO, with leases in DynamoDB (dynalite) and in
// the bucket: the pages show the holder, the tokens and the takeover,
// and nothing it serves or prints, at debug level, holds the secret key
// it authenticates with.
func TestServersServe(t *testing.T) {
	s3ep, dynep := endpoints(t, true, true)
	secret := os.Getenv("AWS_SECRET_ACCESS_KEY")
	if len(secret) < 12 {
		t.Skipf("AWS_SECRET_ACCESS_KEY is too short (%d characters) to scan for", len(secret))
	}
	for _, leases := range []string{"dynamodb", "bucket"} {
		t.Run(leases, func(t *testing.T) {
			bucket := unique("fence-serve-")
			removeBucket(t, s3ep, bucket)
			c := newCLI(t)
			c.store = "s3://" + bucket + "?endpoint=" + s3ep + "&path_style=true"
			if leases == "dynamodb" {
				table := unique("fence-serve-")
				removeTable(t, dynep, table)
				c.global = []string{"--coord", "dynamodb://" + table + "?endpoint=" + dynep}
			}
			c.want(0, "", "init")
			t1 := c.acquire("reports", "--holder", "alice")
			c.want(0, "a,b\n", "put", "--token", tok(t1), "reports", "monthly.csv", "-")
			c.want(0, "", "lease", "break", "reports", "--holder", "ops")
			c.want(exitFenced, "late", "put", "--token", tok(t1), "reports", "late.csv", "-")
			t3 := c.acquire("reports", "--holder", "bob")
			c.want(0, "c,d\n", "put", "--token", tok(t3), "reports", "monthly.csv", "-")

			url, _, stop := startServe(t, c, nil, "--addr", "127.0.0.1:0", "--log-level", "debug")
			var all strings.Builder
			page := func(path string) string {
				body := fetch(t, url+path, 200)
				all.WriteString(body)
				return body
			}
			var d struct {
				Lease struct {
					Holder string `json:"holder"`
					Token  uint64 `json:"token"`
					Live   bool   `json:"live"`
				} `json:"lease"`
				Highest uint64 `json:"store_highest_token"`
				History struct {
					Events []struct {
						Kind     string `json:"kind"`
						Holder   string `json:"holder"`
						CommitID string `json:"commit_id"`
						Token    uint64 `json:"token"`
					} `json:"events"`
				} `json:"history"`
			}
			if err := json.Unmarshal([]byte(page("/domain/reports?format=json")), &d); err != nil {
				t.Fatal(err)
			}
			if d.Lease.Holder != "bob" || d.Lease.Token != t3 || !d.Lease.Live || d.Highest != t3 {
				t.Errorf("domain page %+v, want bob's live lease at token %d", d, t3)
			}
			var takeovers []string
			for _, e := range d.History.Events {
				if e.Kind == "takeover" {
					takeovers = append(takeovers, fmt.Sprintf("%s@%d", e.Holder, e.Token))
				}
			}
			if len(takeovers) != 3 || takeovers[1] != fmt.Sprintf("ops@%d", t1+1) {
				t.Errorf("takeovers %v, want alice's, the break by ops at %d, bob's", takeovers, t1+1)
			}
			if html := page("/"); !strings.Contains(html, "bob") || !strings.Contains(html, `href="/domain/reports"`) {
				t.Errorf("the domains page lacks reports held by bob:\n%s", html)
			}
			page("/?format=json")
			page("/domain/reports")
			page("/commit/" + d.History.Events[0].CommitID + "/reports")
			page("/metrics")
			all.WriteString(stop())
			if !strings.Contains(all.String(), "fence: call") {
				t.Fatalf("serve logged no calls at debug level; the scan proves little:\n%s", all.String())
			}
			if i := strings.Index(all.String(), secret); i >= 0 {
				t.Fatalf("the secret key appears in what serve served or printed: %q", all.String()[max(0, i-200):min(all.Len(), i+len(secret)+50)])
			}
			t.Logf("%d bytes of pages and logs scanned", all.Len())
		})
	}
}
