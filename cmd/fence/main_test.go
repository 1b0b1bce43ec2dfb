package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fenceBin is the fence binary built once for all tests; each test runs it
// as a real process against its own temporary store.
var fenceBin string

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	if steps := os.Getenv(envS3Steps); steps != "" {
		return runS3Steps(steps) // a job of the exec --s3 tests
	}
	dir, err := os.MkdirTemp("", "fence-cli-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	fenceBin = filepath.Join(dir, "fence")
	args := []string{"build", "-o", fenceBin}
	if raceEnabled {
		args = append(args, "-race")
	}
	build := exec.Command("go", append(args, ".")...)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building fence:", err)
		return 1
	}
	return m.Run()
}

// cli runs fence processes against one temporary file:// store, from a
// temporary working directory, with no FENCE_* variables but its own.
type cli struct {
	t      *testing.T
	store  string
	dir    string
	env    []string
	global []string // flags put before every command, such as --coord
	cache  string   // XDG_CACHE_HOME, where the probe's verdicts are kept
}

func newCLI(t *testing.T) *cli {
	t.Helper()
	return &cli{t: t, store: "file://" + t.TempDir(), dir: t.TempDir(), cache: t.TempDir()}
}

type result struct {
	code           int
	stdout, stderr string
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
}

// run runs fence with args (after --store, unless c.store is empty), stdin
// as input.
func (c *cli) run(stdin string, args ...string) result {
	c.t.Helper()
	return c.runFrom(strings.NewReader(stdin), args...)
}

// runFrom is run with stdin read from r.
func (c *cli) runFrom(r io.Reader, args ...string) result {
	c.t.Helper()
	args = append(append([]string(nil), c.global...), args...)
	if c.store != "" {
		args = append([]string{"--store", c.store}, args...)
	}
	cmd := exec.Command(fenceBin, args...)
	cmd.Dir = c.dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "FENCE_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	// A race-enabled binary otherwise sleeps a second at exit.
	cmd.Env = append(cmd.Env, "GORACE=atexit_sleep_ms=0")
	if c.cache != "" {
		cmd.Env = append(cmd.Env, "XDG_CACHE_HOME="+c.cache)
	}
	cmd.Env = append(cmd.Env, c.env...)
	cmd.Stdin = r
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	if d := time.Since(start); d > 300*time.Millisecond {
		c.t.Logf("fence %s took %s", strings.Join(args, " "), d)
	}
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			c.t.Fatalf("fence %q: %v", args, err)
		}
		code = ee.ExitCode()
	}
	return result{code: code, stdout: out.String(), stderr: errb.String()}
}

// want runs fence and fails the test unless it exits with code.
func (c *cli) want(code int, stdin string, args ...string) result {
	c.t.Helper()
	r := c.run(stdin, args...)
	if r.code != code {
		c.t.Fatalf("fence %s: want exit %d, got %s", strings.Join(args, " "), code, r)
	}
	if code != 0 && !strings.HasPrefix(r.stderr, "fence: ") {
		c.t.Errorf("fence %s: stderr does not start with \"fence: \": %q", strings.Join(args, " "), r.stderr)
	}
	return r
}

// acquire runs 'lease acquire' and returns the token it prints.
func (c *cli) acquire(args ...string) uint64 {
	c.t.Helper()
	r := c.want(0, "", append([]string{"lease", "acquire"}, args...)...)
	tok, err := strconv.ParseUint(strings.TrimSpace(r.stdout), 10, 64)
	if err != nil || strings.Count(r.stdout, "\n") != 1 {
		c.t.Fatalf("lease acquire printed %q, want a token alone on a line", r.stdout)
	}
	return tok
}

func (c *cli) file(name, content string) string {
	c.t.Helper()
	p := filepath.Join(c.dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		c.t.Fatal(err)
	}
	return p
}

func tok(n uint64) string { return strconv.FormatUint(n, 10) }

// TestStaleTokenRejected is the "Done when" sequence: a lease with
// a short TTL, a second holder that waits for its expiry and takes over,
// the first holder's token rejected before the second one wrote anything.
func TestStaleTokenRejected(t *testing.T) {
	staleTokenRejected(t, newCLI(t))
}

// staleTokenRejected runs the stale-holder sequence with c's store and
// coordinator.
func staleTokenRejected(t *testing.T, c *cli) {
	t1 := c.acquire("d", "--ttl", "1s", "--holder", "alice")
	// bob waits on alice's expiry; nothing in the test sleeps.
	t2 := c.acquire("d", "--ttl", "10s", "--holder", "bob", "--wait", "--timeout", "30s")
	if t2 <= t1 {
		t.Fatalf("second token %d is not above the first %d", t2, t1)
	}

	stale := c.file("stale.txt", "alice's late report\n")
	fresh := c.file("fresh.txt", "bob's report\n")
	r := c.want(exitFenced, "", "put", "d", "k", stale, "--token", tok(t1))
	for _, want := range []string{tok(t1), tok(t2), "fenced"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("fenced put: stderr %q does not mention %q", r.stderr, want)
		}
	}
	c.want(exitError, "", "get", "d", "k") // nothing of alice's write is visible

	c.want(0, "", "put", "d", "k", fresh, "--token", tok(t2))
	if r := c.want(0, "", "get", "d", "k"); r.stdout != "bob's report\n" {
		t.Fatalf("get printed %q, want bob's bytes", r.stdout)
	}
	out := filepath.Join(c.dir, "out.txt")
	c.want(0, "", "get", "d", "k", "-o", out)
	if b, err := os.ReadFile(out); err != nil || string(b) != "bob's report\n" {
		t.Fatalf("get -o wrote %q, %v", b, err)
	}

	// The stale token stays rejected after the new holder wrote.
	c.want(exitFenced, "", "put", "d", "k", stale, "--token", tok(t1))

	c.want(0, "", "lease", "release", "d", "--token", tok(t2), "--holder", "bob")
	c.want(exitLost, "", "lease", "release", "d", "--token", tok(t2), "--holder", "bob")
	if t3 := c.acquire("d", "--holder", "carol"); t3 <= t2 {
		t.Fatalf("token after release %d is not above %d", t3, t2)
	}
}

// TestDefaultHolder checks that acquire and release in different processes
// agree on the default holder name.
func TestDefaultHolder(t *testing.T) {
	c := newCLI(t)
	r := c.want(0, "", "--json", "lease", "acquire", "d", "--ttl", "1m")
	var l struct {
		Domain, Holder, Expires string
		Token                   uint64
	}
	if err := json.Unmarshal([]byte(r.stdout), &l); err != nil {
		t.Fatalf("lease acquire --json printed %q: %v", r.stdout, err)
	}
	if l.Domain != "d" || l.Token == 0 || !strings.Contains(l.Holder, "@") || l.Expires == "" {
		t.Fatalf("lease acquire --json printed %+v", l)
	}
	c.want(0, "", "lease", "release", "d", "--token", tok(l.Token))
}

func TestLeaseHeld(t *testing.T) {
	c := newCLI(t)
	t1 := c.acquire("d", "--ttl", "1m", "--holder", "alice")
	r := c.want(exitHeld, "", "lease", "acquire", "d", "--holder", "bob")
	for _, want := range []string{`"alice"`, tok(t1), "until 20"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("held: stderr %q does not mention %q", r.stderr, want)
		}
	}
	if r.stdout != "" {
		t.Errorf("held: stdout %q, want nothing", r.stdout)
	}
	r = c.want(exitHeld, "", "lease", "acquire", "d", "--holder", "bob", "--wait", "--timeout", "300ms")
	if !strings.Contains(r.stderr, `"alice"`) {
		t.Errorf("held after --timeout: stderr %q does not name alice", r.stderr)
	}
	// bob cannot release alice's lease.
	c.want(exitLost, "", "lease", "release", "d", "--token", tok(t1), "--holder", "bob")
}

func TestNoFence(t *testing.T) {
	c := newCLI(t)
	t1 := c.acquire("d", "--ttl", "1m", "--holder", "alice")
	c.want(0, "", "put", "d", "k", "-", "--token", tok(t1))
	t2 := c.acquire("d", "--ttl", "1m", "--holder", "alice", "--no-fence")
	if t2 <= t1 {
		t.Fatalf("token %d is not above %d", t2, t1)
	}
	// Without the fence the store has not seen t2, so t1 still writes.
	c.want(0, "", "put", "d", "k", "-", "--token", tok(t1))
	c.want(0, "", "put", "d", "k", "-", "--token", tok(t2))
	c.want(exitFenced, "", "put", "d", "k", "-", "--token", tok(t1))
}

func TestUsageErrors(t *testing.T) {
	c := newCLI(t)
	for _, args := range [][]string{
		{"put", "d", "k", "-", "--token", "0"},
		{"put", "d", "k", "-", "--token", "abc"},
		{"put", "d", "k", "-", "--token", "-1"},
		{"put", "d", "k", "-", "--token", "9223372036854775808"},  // MaxInt64+1
		{"put", "d", "k", "-", "--token", "18446744073709551616"}, // above uint64
		{"put", "d", "k", "-"},                                    // no token at all
		{"put", "d"},
		{"put", "d", "k", "a", "b", "--token", "1"},
		{"put", "/d", "k", "-", "--token", "1"},
		{"put", "d", "../k", "-", "--token", "1"},
		{"lease", "release", "d"},
		{"lease", "release", "d", "--token", "0"},
		{"lease", "acquire"},
		{"lease", "acquire", "d", "--ttl", "1ns"},
		{"lease", "acquire", "d", "--ttl", "soon"},
		{"get", "d"},
		{"ls"},
		{"frobnicate"},
		{"lease", "frobnicate", "d"},
		{"--no-such-flag", "ls", "d"},
	} {
		r := c.want(exitUsage, "", args...)
		if r.stdout != "" {
			t.Errorf("fence %q: stdout %q, want nothing", args, r.stdout)
		}
	}

	c.env = []string{"FENCE_TOKEN=abc"}
	r := c.want(exitUsage, "", "put", "d", "k", "-")
	if !strings.Contains(r.stderr, "FENCE_TOKEN") {
		t.Errorf("bad FENCE_TOKEN: stderr %q does not name it", r.stderr)
	}
}

func TestTokenFromEnv(t *testing.T) {
	c := newCLI(t)
	t1 := c.acquire("d", "--holder", "alice")
	c.env = []string{"FENCE_TOKEN=" + tok(t1)}
	c.want(0, "from stdin\n", "put", "d", "k", "-")
	if r := c.want(0, "", "get", "d", "k"); r.stdout != "from stdin\n" {
		t.Fatalf("get printed %q", r.stdout)
	}

	t2 := c.acquire("d", "--holder", "alice")               // the holder takes over its own lease
	c.want(exitFenced, "", "put", "d", "k", "-")            // FENCE_TOKEN is now stale
	c.want(0, "", "put", "d", "k", "-", "--token", tok(t2)) // the flag wins over it
}

func TestStoreURL(t *testing.T) {
	c := newCLI(t)
	r := c.want(exitUsage, "", "--store", "s3://AKIAEXAMPLE:s3cr3t@bucket/p", "ls", "d")
	if strings.Contains(r.stderr, "s3cr3t") || !strings.Contains(r.stderr, "s3://bucket/p") {
		t.Errorf("bad store URL: stderr %q", r.stderr)
	}
	c.want(exitUsage, "", "--coord", "ftp://host", "lease", "acquire", "d")

	// FENCE_STORE is used when --store is absent.
	dir := t.TempDir()
	c.store = ""
	c.env = []string{"FENCE_STORE=file://" + dir}
	c.acquire("d")
	if _, err := os.Stat(filepath.Join(c.dir, "fence-data")); !os.IsNotExist(err) {
		t.Errorf("FENCE_STORE was ignored: ./fence-data exists (%v)", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) == 0 {
		t.Errorf("FENCE_STORE was ignored: %s is empty", dir)
	}

	// With neither, the store is ./fence-data.
	c.env = nil
	c.acquire("d")
	if fi, err := os.Stat(filepath.Join(c.dir, "fence-data")); err != nil || !fi.IsDir() {
		t.Errorf("default store: ./fence-data is not a directory: %v", err)
	}
}

func TestCoordURL(t *testing.T) {
	c := newCLI(t)
	leases := "file://" + t.TempDir()
	t1 := c.acquire("--coord", leases, "d", "--holder", "alice", "--ttl", "1m")
	c.want(exitHeld, "", "--coord", leases, "lease", "acquire", "d", "--holder", "bob")
	// FENCE_COORD is used when --coord is absent.
	c.env = []string{"FENCE_COORD=" + leases}
	c.want(exitHeld, "", "lease", "acquire", "d", "--holder", "bob")
	c.acquire("--coord", "mem://", "d", "--holder", "bob") // the flag wins over it
	// The store's own lease records know nothing of alice's lease, but the
	// floor (the store's highest token) keeps the token above hers.
	c.env = nil
	if t2 := c.acquire("d", "--holder", "bob"); t2 <= t1 {
		t.Fatalf("token %d from the store's lease records is not above the store's highest %d", t2, t1)
	}
	c.want(exitFenced, "", "put", "d", "k", "-", "--token", tok(t1))
}

func TestNotFound(t *testing.T) {
	c := newCLI(t)
	r := c.want(exitError, "", "get", "nodomain", "k")
	if !strings.Contains(r.stderr, "not found") {
		t.Errorf("get in a missing domain: stderr %q", r.stderr)
	}
	t1 := c.acquire("d", "--holder", "alice")
	c.want(0, "x", "put", "d", "k", "-", "--token", tok(t1))
	r = c.want(exitError, "", "get", "d", "missing")
	if !strings.Contains(r.stderr, "not found") || !strings.Contains(r.stderr, `"missing"`) {
		t.Errorf("get of a missing key: stderr %q", r.stderr)
	}
	r = c.want(exitError, "", "ls", "nodomain")
	if !strings.Contains(r.stderr, "no such domain") {
		t.Errorf("ls of a missing domain: stderr %q", r.stderr)
	}
}

func TestList(t *testing.T) {
	c := newCLI(t)
	t1 := c.acquire("d", "--holder", "alice")
	c.want(0, "12345", "put", "d", "b/two", "-", "--token", tok(t1))
	c.want(0, "", "put", "d", "a", c.file("a", "abc"), "--token", tok(t1))
	r := c.want(0, "", "ls", "d")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 3 {
		t.Fatalf("ls printed %q, want a header and two keys", r.stdout)
	}
	for i, want := range [][]string{{"KEY", "TOKEN", "SIZE", "COMMITTED"}, {"a", tok(t1), "3"}, {"b/two", tok(t1), "5"}} {
		f := strings.Fields(lines[i])
		if len(f) != 4 || !equal(f[:len(want)], want) {
			t.Errorf("ls line %d = %q, want fields starting %q", i, lines[i], want)
		}
	}

	r = c.want(0, "", "ls", "d", "--json")
	var vs []struct {
		Key       string
		Token     uint64
		Size      int64
		SHA256    string
		Committed string
	}
	if err := json.Unmarshal([]byte(r.stdout), &vs); err != nil {
		t.Fatalf("ls --json printed %q: %v", r.stdout, err)
	}
	if len(vs) != 2 || vs[0].Key != "a" || vs[0].Size != 3 || vs[0].Token != t1 || vs[1].Key != "b/two" || vs[0].Committed == "" {
		t.Fatalf("ls --json = %+v", vs)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestPutLargeFile(t *testing.T) {
	c := newCLI(t)
	data := bytes.Repeat([]byte("0123456789abcdef"), 1<<18) // 4 MiB
	p := filepath.Join(c.dir, "big")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	t1 := c.acquire("d", "--holder", "alice")
	c.want(0, "", "put", "d", "big", p, "--token", tok(t1))
	out := filepath.Join(c.dir, "big.out")
	c.want(0, "", "get", "d", "big", "-o", out)
	got, err := os.ReadFile(out)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("get -o returned %d bytes (%v), want %d identical bytes", len(got), err, len(data))
	}
}

func TestDemo(t *testing.T) {
	c := newCLI(t)
	r := c.want(0, "", "demo")
	for _, want := range []string{"| Step | Event | Token |", "Store rejects the old work", "Reader sees holder B's bytes", "fenced", "OK:"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("demo output does not contain %q:\n%s", want, r.stdout)
		}
	}
	// Again, as JSON: tokens keep rising across runs.
	r = c.want(0, "", "demo", "--json")
	var res struct {
		TokenA        uint64 `json:"token_a"`
		TokenB        uint64 `json:"token_b"`
		StaleRejected bool   `json:"stale_rejected"`
		ReaderSawB    bool   `json:"reader_saw_b"`
		OK            bool   `json:"ok"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("demo --json printed %q: %v", r.stdout, err)
	}
	if !res.OK || !res.StaleRejected || !res.ReaderSawB || res.TokenB <= res.TokenA || res.TokenA <= 2 {
		t.Fatalf("second demo run: %+v", res)
	}
}
