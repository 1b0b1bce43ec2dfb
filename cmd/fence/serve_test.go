package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// startServe starts 'fence serve' with args over c's store and
// c.global, and returns its base URL, what it printed on stderr until
// then, and stop, which stops it with SIGTERM, checks that it exits 0
// and returns all it printed on stderr. stop runs when the test ends, if
// not before.
func startServe(t *testing.T, c *cli, env []string, args ...string) (url, stderr string, stop func() string) {
	t.Helper()
	args = append(append(append([]string{"--store", c.store}, c.global...), "serve"), args...)
	cmd := exec.Command(fenceBin, args...)
	cmd.Dir = c.dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "FENCE_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var seen strings.Builder
	sc := bufio.NewScanner(pipe)
	for url == "" && sc.Scan() {
		seen.WriteString(sc.Text() + "\n")
		if m := regexp.MustCompile(`^fence: serve: (http://\S+)/$`).FindStringSubmatch(sc.Text()); m != nil {
			url = m[1]
		}
	}
	if url == "" {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("fence serve printed no address:\n%s", seen.String())
	}
	stderr = seen.String()
	var rest strings.Builder
	copied := make(chan struct{})
	go func() {
		for sc.Scan() {
			rest.WriteString(sc.Text() + "\n")
		}
		close(copied)
	}()
	var once sync.Once
	stop = func() string {
		once.Do(func() {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-copied:
			case <-time.After(10 * time.Second):
				_ = cmd.Process.Kill()
				<-copied
				t.Error("fence serve did not stop within 10s of SIGTERM")
			}
			if err := cmd.Wait(); err != nil {
				t.Errorf("fence serve did not exit cleanly on SIGTERM: %v", err)
			}
		})
		return stderr + rest.String()
	}
	t.Cleanup(func() { stop() })
	return url, stderr, stop
}

func fetch(t *testing.T, url string, want int) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		t.Fatalf("GET %s: %d, want %d:\n%s", url, resp.StatusCode, want, b)
	}
	return string(b)
}

// fence serve serves the store's domains, /metrics of its own calls and
// /healthz on loopback, and stops on SIGTERM.
func TestServe(t *testing.T) {
	c := newCLI(t)
	tok := c.acquire("reports")
	c.want(0, "a,b\n", "put", "--token", strconv.FormatUint(tok, 10), "reports", "monthly.csv", "-")
	url, _, _ := startServe(t, c, nil, "--addr", "127.0.0.1:0")
	if body := fetch(t, url+"/", 200); !strings.Contains(body, `href="/domain/reports"`) || !strings.Contains(body, `<code class="store">`+c.store+`</code>`) {
		t.Errorf("the domains page lacks reports, or does not name the store %s:\n%s", c.store, body)
	}
	if body := fetch(t, url+"/domain/reports?format=json", 200); !strings.Contains(body, `"key": "monthly.csv"`) {
		t.Errorf("the domain's JSON lacks its key:\n%s", body)
	}
	fetch(t, url+"/healthz", 200)
	// The JSON has the shapes of the CLI's --json: the lease that of
	// 'lease status', the keys those of 'ls', a commit that of 'history
	// --commit'.
	var page struct {
		Lease   map[string]any   `json:"lease"`
		Keys    []map[string]any `json:"keys"`
		History struct {
			Events []map[string]any `json:"events"`
		} `json:"history"`
	}
	if err := json.Unmarshal([]byte(fetch(t, url+"/domain/reports?format=json", 200)), &page); err != nil {
		t.Fatal(err)
	}
	var status map[string]any
	var ls []map[string]any
	var commit map[string]any
	id, _ := page.History.Events[1]["commit_id"].(string)
	for _, q := range []struct {
		v    any
		args []string
	}{{&status, []string{"lease", "status", "reports"}}, {&ls, []string{"ls", "reports"}}, {&commit, []string{"history", "reports", "--commit", id}}} {
		if err := json.Unmarshal([]byte(c.want(0, "", append([]string{"--json"}, q.args...)...).stdout), q.v); err != nil {
			t.Fatal(err)
		}
	}
	delete(status, "time_left_seconds")
	delete(page.Lease, "time_left_seconds")
	if fmt.Sprint(status) != fmt.Sprint(page.Lease) || fmt.Sprint(ls) != fmt.Sprint(page.Keys) {
		t.Errorf("serve's JSON differs from the CLI's:\nlease %v\n want %v\nkeys %v\n want %v", page.Lease, status, page.Keys, ls)
	}
	got := commitJSON(t, fetch(t, url+"/commit/"+id+"/reports?format=json", 200))
	delete(got, "domain")
	if fmt.Sprint(got) != fmt.Sprint(commit) {
		t.Errorf("commit %v\n want %v", got, commit)
	}
	if body := fetch(t, url+"/metrics", 200); !strings.Contains(body, "fence_") {
		t.Errorf("/metrics has no fence metrics:\n%.2000s", body)
	}
}

// Another address than loopback needs --allow-remote, and then warns;
// FENCE_SERVE_TOKEN guards the pages.
func TestServeRemote(t *testing.T) {
	c := newCLI(t)
	r := c.want(2, "", "serve", "--addr", "0.0.0.0:0")
	if !strings.Contains(r.stderr, "--allow-remote") {
		t.Errorf("the refusal does not name --allow-remote: %s", r.stderr)
	}
	url, stderr, _ := startServe(t, c, []string{"FENCE_SERVE_TOKEN=tok-123456"}, "--addr", "0.0.0.0:0", "--allow-remote")
	if !strings.Contains(stderr, "WARNING") {
		t.Errorf("no warning for a remote address:\n%s", stderr)
	}
	url = strings.Replace(url, "0.0.0.0", "127.0.0.1", 1)
	url = strings.Replace(url, "[::]", "127.0.0.1", 1)
	fetch(t, url+"/", 401)
	fetch(t, url+"/healthz", 200)
}

func commitJSON(t *testing.T, body string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatal(err)
	}
	return m
}
