package main

import (
	"net"
	"strings"
	"testing"
)

// TestTidy: a prefix is said once.
func TestTidy(t *testing.T) {
	for in, want := range map[string]string{
		`policy: policy: Azure assignable scope "bad": want ...`:          `policy: Azure assignable scope "bad": want ...`,
		`lease acquire "d/x": fence: acquire "d/x": read the store's ...`: `lease acquire "d/x": read the store's ...`,
		`put "k": get "k": boom`:                                      `put "k": get "k": boom`,
		`x: acquire "d": acquire "d"`:                                 `x: acquire "d": acquire "d"`,
		`fence: audit "d": read the lease: x`:                         `audit "d": read the lease: x`,
		`ls "d": objstore: read manifest "m": s3store: get "m": boom`: `ls "d": objstore: read manifest "m": s3store: get "m": boom`,
		`key "a: a: b"`:                                               `key "a: a: b"`,
	} {
		if got := tidy(in); got != want {
			t.Errorf("tidy(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestNoDoubledPrefixes: the messages that said a prefix twice say it
// once: fence policy's (policy: policy:), lease acquire's (fence: ...
// fence: acquire), and exec without "--" before its command says to put
// it there instead of pflag's "unknown shorthand flag".
func TestNoDoubledPrefixes(t *testing.T) {
	c := newCLI(t)
	c.store = "azblob://cont?endpoint=http://127.0.0.1:1/devstoreaccount1"
	r := c.want(exitUsage, "", "policy", "--iam", "writer", "--azure-scope", "bad")
	if !strings.HasPrefix(r.stderr, "fence: policy: Azure assignable scope") {
		t.Errorf("policy --azure-scope bad: %q", r.stderr)
	}
	c = newCLI(t)
	r = c.want(exitUsage, "", "exec", "job/a", "sh", "-c", "true")
	if !strings.Contains(r.stderr, "put -- before the command") {
		t.Errorf("exec without --: %q, want it to say to put -- before the command", r.stderr)
	}
	// The fence package's error for a lease it could not take starts
	// "fence: acquire": the store is at a port nothing listens on.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	c = failFastCLI(t, "minio://fence-ff?endpoint=http://"+l.Addr().String())
	r = c.want(exitError, "", "lease", "acquire", "d")
	if !strings.Contains(r.stderr, `acquire "d"`) || strings.Count(r.stderr, "fence: ") != 1 {
		t.Errorf("lease acquire: %q, want \"fence: \" once", r.stderr)
	}
}
