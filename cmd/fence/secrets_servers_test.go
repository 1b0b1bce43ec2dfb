package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A whole CLI session against MinIO and dynalite, logging every decision
// at debug level, never prints the secret key it authenticates with: not
// in a log line, an error, doctor's report or any command's output.
func TestServersNoSecretInOutput(t *testing.T) {
	s3ep, dynep := endpoints(t, true, true)
	secret := os.Getenv("AWS_SECRET_ACCESS_KEY")
	if len(secret) < 12 {
		t.Skipf("AWS_SECRET_ACCESS_KEY is too short (%d characters) to scan for", len(secret))
	}
	bucket, table := unique("fence-cli-sec-"), unique("fence-cli-sec-")
	removeBucket(t, s3ep, bucket)
	removeTable(t, dynep, table)
	var out strings.Builder
	for _, format := range []string{"json", "text"} {
		c := newCLI(t)
		c.store = "s3://" + bucket + "?endpoint=" + s3ep + "&path_style=true"
		c.global = []string{"--coord", "dynamodb://" + table + "?endpoint=" + dynep, "--log-level", "debug", "--log-format", format}
		if err := os.MkdirAll(filepath.Join(c.dir, "out"), 0o755); err != nil {
			t.Fatal(err)
		}
		c.file("out/a.txt", "a")
		c.file("big.bin", strings.Repeat("b", 10000))
		session := [][]string{
			{"doctor"},
			{"init"},
			{"doctor"},
			{"lease", "acquire", "d"},
			{"lease", "status", "d"},
			{"put", "--token", "1", "d", "big", "big.bin"},
			{"put", "--token", "1", "d", "small", "-"},
			{"get", "d", "big"},
			{"ls", "d"},
			{"history", "d"},
			{"lease", "break", "d"},
			{"put", "--token", "1", "d", "late", "-"}, // fenced
			{"exec", "d", "--publish", "out", "--", "true"},
			{"gc", "d"},
			{"--json", "get", "d", "no-such-key"},
			{"--store", "s3://no-such-bucket-" + bucket + "?endpoint=" + s3ep + "&path_style=true", "ls", "d"},
			{"--store", "s3://" + bucket + "?endpoint=http://user:" + secret + "@127.0.0.1:1&path_style=true", "ls", "d"},
		}
		for _, args := range session {
			r := c.run("stdin value", args...)
			out.WriteString(r.stdout)
			out.WriteString(r.stderr)
		}
	}
	all := out.String()
	if !strings.Contains(all, `"msg":"fence: commit fenced`) || !strings.Contains(all, "fence: call") {
		t.Fatalf("the session logged no decisions; the scan proves nothing:\n%s", all)
	}
	if i := strings.Index(all, secret); i >= 0 {
		t.Fatalf("the secret key appears in the output: %q", all[max(0, i-200):min(len(all), i+len(secret)+50)])
	}
	t.Logf("%d bytes of output scanned", len(all))
}
