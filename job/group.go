//go:build unix

package job

import (
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/fencedstore/fence/coord"
)

// group is a command running as the leader of its own process group.
type group struct {
	cmd    *exec.Cmd
	pgid   int
	exited chan struct{}
	err    error // cmd.Wait's, once exited is closed
}

// startGroup starts cmd in a new process group.
func startGroup(cmd *exec.Cmd) (*group, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	adoptOrphans()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	g := &group{cmd: cmd, pgid: cmd.Process.Pid, exited: make(chan struct{})}
	go func() {
		g.err = cmd.Wait()
		close(g.exited)
	}()
	return g, nil
}

// supervise waits for the command to exit, forwarding signals to its
// group, and stops the group (SIGTERM, then SIGKILL after grace) as soon
// as sess ends while the command runs. It returns the command's exit code
// and, when sess ended while the command ran, why. A command that has
// exited by the time the session's end is seen is not stopped: its work
// is done, and whether it lands is the store's decision. When supervise
// returns, nothing in the group is left running: processes the command
// started and left behind get the same SIGTERM and SIGKILL.
func (g *group) supervise(sess *coord.Session, signals <-chan os.Signal, grace time.Duration) (code int, lost error) {
	done := sess.Done()
	for running := true; running; {
		select {
		case <-g.exited:
			running = false
		case sig := <-signals:
			if s, ok := sig.(syscall.Signal); ok {
				_ = syscall.Kill(-g.pgid, s)
			}
		case <-done:
			done = nil
			if hasExited(g.pgid) {
				running = false // it had finished; Wait will say how
				<-g.exited
				break
			}
			lost = sess.Err()
			g.stop(grace)
		}
	}
	g.stop(grace) // whatever the command left behind
	return exitCode(g.cmd.ProcessState), lost
}

// stop ends every process in the group: SIGTERM, then SIGKILL once grace
// has passed, and waits until the group is empty.
func (g *group) stop(grace time.Duration) {
	if !g.alive() {
		return
	}
	_ = syscall.Kill(-g.pgid, syscall.SIGTERM)
	deadline := time.Now().Add(grace)
	for g.alive() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if g.alive() {
		_ = syscall.Kill(-g.pgid, syscall.SIGKILL)
	}
	// A killed process is gone once it has been reaped. Orphans are
	// reaped by init; where nothing reaps them (a container whose first
	// process does not), they stay as zombies, which run nothing: stop
	// waiting for them after reapWait.
	deadline = time.Now().Add(reapWait)
	for g.alive() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
}

// reapWait bounds the wait for killed processes to be reaped.
const reapWait = 5 * time.Second

// alive reports whether any process of the group is left (the leader
// counts until it has been waited for).
func (g *group) alive() bool {
	select {
	case <-g.exited:
	default:
		return true
	}
	reapGroup(g.pgid)
	return syscall.Kill(-g.pgid, 0) == nil
}

// exitCode returns a shell's view of how the process ended.
func exitCode(ps *os.ProcessState) int {
	if ps == nil {
		return -1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}
