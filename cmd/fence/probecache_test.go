package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Every fence process used to probe the store before its first write.
// Now the first one records the verdict in the user's cache directory and
// the next ones trust it for its lifetime (FENCE_PROBE_CACHE), or probe
// every time with FENCE_PROBE_CACHE=off.
func TestProbeVerdictCachedAcrossProcesses(t *testing.T) {
	c := newCLI(t)
	c.global = []string{"--log-level", "debug"}
	const probed, cached = "capability probe passed", "a cached verdict holds"
	verdicts := func() []string {
		files, _ := filepath.Glob(filepath.Join(c.cache, "fence", "probe", "*.json"))
		return files
	}
	// The acquisition writes a lease record in the store: it probes
	// first, and records the verdict.
	token := tok(c.acquire("d", "--ttl", "1h"))
	files := verdicts()
	if len(files) != 1 {
		t.Fatalf("verdict files under %s after the first write: %v", c.cache, files)
	}
	put := func(env ...string) string {
		t.Helper()
		c.env = env
		return c.want(0, "v", "put", "d", "k", "-", "--token", token).stderr
	}
	if e := put(); !strings.Contains(e, cached) || strings.Contains(e, probed) {
		t.Fatalf("second process: stderr %q; want it to trust the cached verdict", e)
	}
	if e := put(envProbeCache + "=off"); !strings.Contains(e, probed) {
		t.Fatalf("%s=off: stderr %q; want a probe", envProbeCache, e)
	}
	time.Sleep(20 * time.Millisecond)
	if e := put(envProbeCache + "=10ms"); !strings.Contains(e, probed) {
		t.Fatalf("%s=10ms, verdict older: stderr %q; want a probe", envProbeCache, e)
	}
	// doctor runs the probe's checks and forgets or renews the verdict.
	if err := os.Remove(files[0]); err != nil {
		t.Fatal(err)
	}
	c.env = nil
	c.want(0, "", "doctor")
	if e := put(); !strings.Contains(e, cached) {
		t.Fatalf("after doctor: stderr %q; want doctor's verdict to hold", e)
	}

	c.env = []string{envProbeCache + "=soon"}
	r := c.want(exitUsage, "", "put", "d", "k", "-", "--token", token)
	if !strings.Contains(r.stderr, envProbeCache+`="soon"`) {
		t.Fatalf("bad %s: stderr %q does not name it", envProbeCache, r.stderr)
	}
}
