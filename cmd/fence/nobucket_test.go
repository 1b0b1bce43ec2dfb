package main

import (
	"os"
	"strings"
	"testing"

	"github.com/fencedstore/fence/internal/azuretest"
)

// TestMissingBucketNamed: on every store, every command that reads or
// writes the store names a bucket (container) that does not exist as
// such, with where it was looked for, and never as a missing domain or
// key; exit 1, in one line (the SDK's full text only at --log-level
// debug). doctor fails its "exists" line.
func TestMissingBucketNamed(t *testing.T) {
	type store struct{ url, kind, name, endpoint string }
	var stores []store
	if ep := os.Getenv(s3EndpointEnv); ep != "" {
		name := unique("fence-nob-")
		stores = append(stores,
			store{"s3://" + name + "?path_style=true&endpoint=" + ep, "bucket", name, ep},
			store{"minio://" + name + "?endpoint=" + ep, "bucket", name, ep})
	}
	if ep := os.Getenv(gcsEndpointEnv); ep != "" {
		name := unique("fence-nob-")
		stores = append(stores, store{"gs://" + name + "?endpoint=" + ep, "bucket", name, ep})
	}
	if os.Getenv("FENCE_TEST_AZURE_ENDPOINT") != "" {
		ep := azuretest.Use(t, "missing containers")
		name := unique("fence-nob-")
		stores = append(stores, store{"azblob://" + name + "?endpoint=" + ep, "container", name, ep})
	}
	if len(stores) == 0 {
		t.Skipf("no servers: set %s, %s or FENCE_TEST_AZURE_ENDPOINT (bash deploy/local/test.sh starts them)", s3EndpointEnv, gcsEndpointEnv)
	}
	for _, s := range stores {
		t.Run(s.url[:strings.Index(s.url, ":")], func(t *testing.T) {
			c := newCLI(t)
			c.store = s.url
			want := s.kind + ` "` + s.name + `" does not exist at ` + s.endpoint
			for _, args := range [][]string{
				{"ls", "reports/monthly"},
				{"history", "reports/monthly"},
				{"gc", "reports/monthly"},
				{"get", "reports/monthly", "k"},
				{"put", "reports/monthly", "k", "-", "--token", "1"},
				{"lease", "acquire", "reports/monthly"},
			} {
				r := c.want(exitError, "v", args...)
				if !strings.Contains(r.stderr, want) || strings.Contains(r.stderr, "no such domain") || strings.Contains(r.stderr, "no key") {
					t.Errorf("%s: stderr %q, want it to say %s", strings.Join(args, " "), r.stderr, want)
				}
				if strings.Count(r.stderr, "\n") != 1 {
					t.Errorf("%s: want one line, got %q", strings.Join(args, " "), r.stderr)
				}
			}
			// The SDK's full text only at --log-level debug: for Azure,
			// its dump of many lines.
			r := c.run("", "--log-level", "debug", "ls", "reports/monthly")
			if r.code != exitError || s.kind == "container" && !strings.Contains(r.stderr, "ERROR CODE: ContainerNotFound") {
				t.Errorf("--log-level debug ls: %s, want exit 1 and the error in full", r)
			}
			r = c.want(exitError, "", "doctor")
			if !strings.Contains(r.stdout, "FAIL  "+s.kind+" exists: "+s.kind+` "`+s.name+`" does not exist`) {
				t.Errorf("doctor: %q, want a FAIL line saying the %s does not exist", r.stdout, s.kind)
			}
			for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
				if !strings.HasPrefix(line, "ok ") && !strings.HasPrefix(line, "FAIL ") && !strings.HasPrefix(line, "skip ") && !strings.HasPrefix(line, "warn ") {
					t.Errorf("doctor: a line that is not a check: %q", line)
				}
			}
		})
	}
}
