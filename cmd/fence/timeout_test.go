package main

import (
	"io"
	"strings"
	"testing"
	"time"
)

// slowStdin yields "part\n" n times, pausing before each.
type slowStdin struct {
	n     int
	pause time.Duration
}

func (s *slowStdin) Read(p []byte) (int, error) {
	if s.n == 0 {
		return 0, io.EOF
	}
	time.Sleep(s.pause)
	s.n--
	return copy(p, "part\n"), nil
}

// TestTimeout: a put from a producer slower than --timeout gives up,
// saying so, and commits nothing; without --timeout the same producer's
// put succeeds, however long it takes.
func TestTimeout(t *testing.T) {
	c := newCLI(t)
	token := tok(c.acquire("d"))
	r := c.runFrom(&slowStdin{n: 4, pause: 400 * time.Millisecond}, "--timeout", "500ms", "put", "d", "k", "-", "--token", token)
	if r.code != exitError || !strings.Contains(r.stderr, "ran past its time limit (--timeout 500ms)") {
		t.Fatalf("put past --timeout: %s", r)
	}
	c.want(exitError, "", "get", "d", "k")
	r = c.runFrom(&slowStdin{n: 4, pause: 400 * time.Millisecond}, "put", "d", "k", "-", "--token", token)
	if r.code != exitOK {
		t.Fatalf("put of a slow producer without --timeout: %s", r)
	}
	if got := c.want(exitOK, "", "get", "d", "k").stdout; got != strings.Repeat("part\n", 4) {
		t.Fatalf("get = %q", got)
	}
}
