package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// With --json, a failing command prints one line {"error", "code"} on
// stderr instead of the text message, and exits with the same code.
func TestJSONErrors(t *testing.T) {
	c := newCLI(t)
	t1 := c.acquire("d", "--ttl", "1s")
	t2 := c.acquire("d", "--holder", "bob", "--wait")
	for _, tt := range []struct {
		code int
		want string
		args []string
	}{
		{exitError, "not found", []string{"--json", "get", "d", "k"}},
		{exitUsage, "pass a file name, or '-'", []string{"--json", "put", "d", "k", "--token", tok(t2)}},
		{exitUsage, "unknown flag", []string{"--json", "ls", "d", "--frob"}},
		{exitFenced, "token " + tok(t1) + " is fenced", []string{"rm", "d", "k", "--token", tok(t1), "--json"}},
	} {
		r := c.run("", tt.args...)
		if r.code != tt.code {
			t.Errorf("fence %q: exit %d, want %d", tt.args, r.code, tt.code)
		}
		var e struct {
			Error string
			Code  int
		}
		if strings.Count(r.stderr, "\n") != 1 || json.Unmarshal([]byte(r.stderr), &e) != nil {
			t.Errorf("fence %q: stderr %q is not one line of JSON", tt.args, r.stderr)
			continue
		}
		if e.Code != tt.code || !strings.Contains(e.Error, tt.want) || strings.HasPrefix(e.Error, "fence: ") {
			t.Errorf("fence %q: stderr %+v, want code %d and an error containing %q", tt.args, e, tt.code, tt.want)
		}
	}
}

// A signal's exit code is in the JSON error too.
func TestJSONErrorOfSignal(t *testing.T) {
	ctx, cancel := context.WithCancelCause(t.Context())
	cancel(&interrupted{sig: 15})
	var out, errb strings.Builder
	code := run(ctx, []string{"--json", "--store", "file://" + t.TempDir(), "ls", "d"}, strings.NewReader(""), &out, &errb)
	var e struct {
		Error string
		Code  int
	}
	if err := json.Unmarshal([]byte(errb.String()), &e); err != nil || code != 143 || e.Code != 143 || !strings.Contains(e.Error, "SIGTERM") {
		t.Fatalf("exit %d, stderr %q (%v); want 143 in both", code, errb.String(), err)
	}
}
