//go:build unix

package job

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// group is a command running as the leader of its own process group,
// under a supervisor (superviseMain): a second instance of this program
// that is the command's parent and kills the group as soon as this
// process is gone, however it ended.
type group struct {
	sup      *exec.Cmd
	lifeline *os.File // write end; its end tells the supervisor to kill the group
	pgid     int
	exited   chan struct{}
	code     int            // the command's exit code, once exited is closed
	signal   syscall.Signal // the signal that ended the command, if one did, once exited is closed
	err      error          // set when the supervisor ended without saying how the command did
}

// startGroup starts argv (env, stdio) in a new process group under a
// supervisor. An argv[0] that cannot be found or run fails here, with the
// error exec.LookPath or the supervisor's exec gave.
func startGroup(argv, env []string, stdin io.Reader, stdout, stderr io.Writer) (*group, error) {
	if _, err := exec.LookPath(argv[0]); err != nil {
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find this program, to run the command's supervisor: %w", err)
	}
	lifeR, lifeW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	statR, statW, err := os.Pipe()
	if err != nil {
		lifeR.Close()
		lifeW.Close()
		return nil, err
	}
	sup := exec.Command(self, append([]string{supervisorArg}, argv...)...)
	sup.Env = append(append([]string(nil), env...), envSupervisor+"=1")
	sup.Stdin, sup.Stdout, sup.Stderr = stdin, stdout, stderr
	sup.ExtraFiles = []*os.File{lifeR, statW} // fdLifeline, fdStatus
	adoptOrphans()
	err = sup.Start()
	lifeR.Close()
	statW.Close()
	if err != nil {
		lifeW.Close()
		statR.Close()
		return nil, err
	}
	g := &group{sup: sup, lifeline: lifeW, exited: make(chan struct{}), code: -1}
	status := bufio.NewReader(statR)
	line, _ := status.ReadString('\n')
	switch word, n, rest := parseStatus(line); word {
	case "started":
		g.pgid = n
	case "failed":
		lifeW.Close()
		statR.Close()
		_ = sup.Wait()
		if n != 0 {
			return nil, &os.PathError{Op: "exec", Path: argv[0], Err: syscall.Errno(n)}
		}
		return nil, errors.New(rest)
	default:
		lifeW.Close()
		statR.Close()
		werr := sup.Wait()
		return nil, fmt.Errorf("the command's supervisor (%s) ended before starting it: %v", self, werr)
	}
	go func() {
		defer statR.Close()
		line, _ := status.ReadString('\n')
		switch word, n, _ := parseStatus(line); word {
		case "exited":
			g.code = n
		case "killed":
			g.code, g.signal = 128+n, syscall.Signal(n)
		default:
			g.err = errors.New("the command's supervisor ended before the command did")
		}
		close(g.exited)
	}()
	return g, nil
}

// supervise waits for the command to exit, forwarding signals to its
// group, and stops the group (SIGTERM, then SIGKILL after grace) as soon
// as lost is closed while the command runs. The first signal forwarded
// starts the same clock: whatever in the group is still running grace
// after it gets SIGKILL. It returns the command's exit code, whether it
// stopped it because of lost, and the first signal it forwarded (nil if
// none). A command that has exited by the time lost is seen is not
// stopped: its work is done, and whether it lands is the store's
// decision. When supervise returns, nothing in the group is left
// running: processes the command started and left behind get the same
// SIGTERM and SIGKILL, and the supervisor has exited.
func (g *group) supervise(lost <-chan struct{}, signals <-chan os.Signal, grace time.Duration) (code int, stopped bool, forwarded os.Signal) {
	defer g.close()
	var (
		kill     <-chan time.Time // fires grace after the first forwarded signal
		deadline time.Time
	)
	for running := true; running; {
		select {
		case <-g.exited:
			running = false
		case sig := <-signals:
			if s, ok := sig.(syscall.Signal); ok {
				_ = syscall.Kill(-g.pgid, s)
			}
			if forwarded == nil {
				forwarded = sig
				deadline = time.Now().Add(grace)
				t := time.NewTimer(grace)
				defer t.Stop()
				kill = t.C
			}
		case <-kill:
			kill = nil
			_ = syscall.Kill(-g.pgid, syscall.SIGKILL)
		case <-lost:
			lost = nil
			select {
			case <-g.exited:
				running = false // it had finished; its status says how
				continue
			default:
			}
			if leaderExited(g.pgid) {
				continue // it has finished; the supervisor is about to say how
			}
			stopped = true
			until := time.Now().Add(grace)
			if forwarded != nil && deadline.Before(until) {
				until = deadline
			}
			g.stopBy(until)
		}
	}
	// Whatever the command left behind.
	if forwarded != nil {
		g.stopBy(deadline)
	} else {
		g.stop(grace)
	}
	return g.code, stopped, forwarded
}

// killedBy returns the signal that ended the command, or nil if it
// exited (or has not been seen to end).
func (g *group) killedBy() os.Signal {
	select {
	case <-g.exited:
	default:
		return nil
	}
	if g.signal == 0 {
		return nil
	}
	return g.signal
}

// close ends the lifeline, so that the supervisor kills what may be left
// of the group and exits, and waits for it.
func (g *group) close() {
	g.lifeline.Close()
	_ = g.sup.Wait()
}

// stop ends every process in the group: SIGTERM, then SIGKILL once grace
// has passed, and waits until the group is empty.
func (g *group) stop(grace time.Duration) { g.stopBy(time.Now().Add(grace)) }

// stopBy is stop with SIGKILL at deadline (at once if it has passed).
func (g *group) stopBy(deadline time.Time) {
	if !g.alive() {
		return
	}
	_ = syscall.Kill(-g.pgid, syscall.SIGTERM)
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
// counts until the supervisor has reported its exit).
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
