package main

import (
	"strings"
	"testing"
)

// Durations without meaning are usage errors naming the flag: --ttl 0
// used to mean 10s silently.
func TestDurationsOutOfRange(t *testing.T) {
	c := newCLI(t)
	for _, tt := range []struct {
		flag string
		args []string
	}{
		{"--ttl", []string{"lease", "acquire", "d", "--ttl", "0"}},
		{"--ttl", []string{"lease", "acquire", "d", "--ttl", "99ms"}},
		{"--ttl", []string{"lease", "acquire", "d", "--ttl", "25h"}},
		{"--ttl", []string{"lease", "acquire", "d", "--ttl", "-1s"}},
		{"--ttl", []string{"demo", "--ttl", "0"}},
		{"--timeout", []string{"doctor", "--timeout", "0"}},
		{"--timeout", []string{"lease", "acquire", "d", "--timeout", "-1s"}},
		{"--timeout", []string{"--timeout", "-1s", "ls", "d"}},
		{"--grace", []string{"gc", "d", "--grace", "-1h"}},
	} {
		r := c.want(exitUsage, "", tt.args...)
		if !strings.Contains(r.stderr, tt.flag) {
			t.Errorf("fence %q: stderr %q does not name %s", tt.args, r.stderr, tt.flag)
		}
	}
	// Nothing was acquired: a lease with the limits' own values works.
	c.acquire("d", "--ttl", "100ms")
	c.acquire("d", "--ttl", "24h")
}
