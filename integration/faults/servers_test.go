package faults

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// server is a MinIO or dynalite process of the suite's own, on a fixed
// port and data directory, so that it can be killed and started again
// where it was.
type server struct {
	name string
	bin  string
	port int
	dir  string
	log  string
	args func(s *server, keepData bool) []string
	env  []string

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{} // closed when cmd has been waited for
	status string        // how cmd ended, once exited is closed
}

func (s *server) addr() string { return fmt.Sprintf("127.0.0.1:%d", s.port) }
func (s *server) url() string  { return "http://" + s.addr() }

// start starts the server, on a fresh data directory unless keepData, and
// waits (at most a minute) until it accepts connections.
func (s *server) start(keepData bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !keepData {
		if err := os.RemoveAll(s.dir); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return err
	}
	logf, err := os.OpenFile(s.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(s.bin, s.args(s, keepData)...)
	cmd.Env = append(os.Environ(), s.env...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", s.name, err)
	}
	s.cmd = cmd
	exited := make(chan struct{})
	s.exited = exited
	go func() {
		err := cmd.Wait()
		s.status = fmt.Sprint(err)
		close(exited)
	}()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		c, err := net.DialTimeout("tcp", s.addr(), time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case <-exited:
			out, _ := os.ReadFile(s.log)
			return fmt.Errorf("%s exited before listening on %s:\n%s", s.name, s.addr(), tail(out, 2000))
		case <-time.After(100 * time.Millisecond):
		}
	}
	return fmt.Errorf("%s did not listen on %s within a minute", s.name, s.addr())
}

// kill kills the server with SIGKILL and waits for it. (dynalite's
// script is run by node directly, and neither server has children.)
func (s *server) kill() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	select {
	case <-s.exited:
	case <-time.After(30 * time.Second):
	}
	s.cmd = nil
	// Wait until the port is free again, at most 10 s.
	for range 100 {
		c, err := net.DialTimeout("tcp", s.addr(), 200*time.Millisecond)
		if err != nil {
			return
		}
		c.Close()
		time.Sleep(100 * time.Millisecond)
	}
}

// crashed reports whether the server exited without being killed by
// the suite.
func (s *server) crashed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return false
	}
	select {
	case <-s.exited:
		return true
	default:
		return false
	}
}

// ensure restarts the server on its data if it is not running (killed by
// a fault and not restarted yet, or crashed), and says so.
func (s *server) ensure() (string, error) {
	s.mu.Lock()
	dead := s.cmd == nil
	s.mu.Unlock()
	if !dead && !s.crashed() {
		return "", nil
	}
	out, _ := os.ReadFile(s.log)
	status := "killed by the suite"
	s.mu.Lock()
	if s.cmd != nil {
		status = s.status
	}
	s.mu.Unlock()
	s.kill()
	msg := fmt.Sprintf("%s was not running (%s); restarted it on its data. The end of its log:\n%s", s.name, status, tail(out, 600))
	return msg, s.start(true)
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// freePorts returns n loopback TCP ports nothing listens on now.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	ports := make([]int, n)
	for i := range ports {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		ports[i] = ln.Addr().(*net.TCPAddr).Port
	}
	return ports
}

// startServers starts the suite's own MinIO and dynalite under dir, and
// stops them when t ends.
func startServers(t *testing.T, env environment, dir string) (minio, dynalite *server) {
	t.Helper()
	ports := freePorts(t, 3)
	mport, cport, dport := ports[0], ports[1], ports[2]
	minio = newMinio(env, dir, mport, cport)
	dynalite = &server{
		name: "dynalite", bin: env.dynaliteBin, port: dport,
		dir: filepath.Join(dir, "dynalite-data"), log: filepath.Join(dir, "dynalite.log"),
		args: func(s *server, _ bool) []string {
			return []string{"--host", "127.0.0.1", "--port", fmt.Sprint(s.port), "--path", s.dir}
		},
	}
	t.Cleanup(minio.kill)
	t.Cleanup(dynalite.kill)
	if err := minio.start(false); err != nil {
		t.Fatal(err)
	}
	if err := dynalite.start(false); err != nil {
		t.Fatal(err)
	}
	return minio, dynalite
}

// newMinio returns (unstarted) a MinIO of the suite's own under dir, on
// port with its console on cport, with extra environment settings.
func newMinio(env environment, dir string, port, cport int, extra ...string) *server {
	return &server{
		name: "minio", bin: env.minioBin, port: port,
		dir: filepath.Join(dir, "minio-data"), log: filepath.Join(dir, "minio.log"),
		args: func(s *server, _ bool) []string {
			return []string{"server", "--quiet", "--address", s.addr(), "--console-address", fmt.Sprintf("127.0.0.1:%d", cport), s.dir}
		},
		env: append([]string{"MINIO_ROOT_USER=" + env.accessKey, "MINIO_ROOT_PASSWORD=" + env.secretKey, "MINIO_BROWSER=off"}, extra...),
	}
}
