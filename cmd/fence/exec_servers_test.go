package main

import (
	"errors"
	"io"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// tcpProxy forwards connections to a server until it is cut: then it
// refuses new connections and drops the ones it carries, as a network
// partition would.
type tcpProxy struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func startProxy(t *testing.T, target string) *tcpProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &tcpProxy{ln: ln}
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", target)
			if err != nil {
				in.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, in, out)
			p.mu.Unlock()
			go func() { io.Copy(out, in); out.Close() }()
			go func() { io.Copy(in, out); in.Close() }()
		}
	}()
	t.Cleanup(p.cut)
	return p
}

func (p *tcpProxy) addr() string { return p.ln.Addr().String() }

func (p *tcpProxy) cut() {
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
}

// A fence exec whose coordinator becomes unreachable stops its command's
// whole process group (a child that ignores SIGTERM included) and exits
// 5, publishing nothing.
func TestServersExecCoordinatorUnreachable(t *testing.T) {
	_, dynep := endpoints(t, false, true)
	table := unique("fence-cli-exec-")
	removeTable(t, dynep, table)
	c := newCLI(t)
	c.global = []string{"--coord", "dynamodb://" + table + "?endpoint=" + dynep}
	c.want(0, "", "init")
	p := startProxy(t, dynep[len("http://"):])
	c.global = []string{"--coord", "dynamodb://" + table + "?endpoint=http://" + p.addr()}
	cmd, stdout, stderr := c.startExec("exec", "d", "--ttl", "2s", "--grace", "300ms", "--publish", ".", "--",
		"sh", "-c", `echo $$ > leader; (trap '' TERM; while :; do sleep 0.05; done) & touch ready; wait`)
	waitFile(t, filepath.Join(c.dir, "ready"))
	leader := 0
	for leader == 0 {
		leader = readInt(t, filepath.Join(c.dir, "leader"))
	}
	start := time.Now()
	p.cut()
	code := exitStatus(t, cmd.Wait())
	t.Logf("exit %d %s after the cut", code, time.Since(start).Round(time.Millisecond))
	if code != exitLost {
		t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, exitLost, stdout, stderr)
	}
	if err := syscall.Kill(-leader, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("the command's process group %d is still there (%v)", leader, err)
	}
	if r := c.run("", "ls", "d"); strings.Contains(r.stdout, "leader") {
		t.Fatalf("something was published:\n%s", r)
	}
}

// TestExecStoppedPastItsLease against MinIO (through minio-go) and
// dynalite.
func TestServersExecStoppedPastItsLease(t *testing.T) {
	s3ep, dynep := endpoints(t, true, true)
	bucket, table := unique("fence-cli-stop-"), unique("fence-cli-stop-")
	removeBucket(t, s3ep, bucket)
	removeTable(t, dynep, table)
	c := newCLI(t)
	c.store = "minio://" + bucket + "?endpoint=" + s3ep
	c.global = []string{"--coord", "dynamodb://" + table + "?endpoint=" + dynep}
	c.want(0, "", "init")
	stoppedPastItsLease(t, c, "d")
}
