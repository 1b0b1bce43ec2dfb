//go:build unix

package job

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
)

// supervisorArg, as the first argument, makes a binary that links this
// package run as a command's supervisor (see init) instead of its own
// main. envSupervisor must be set too, so that no user's argument turns a
// program into one by accident.
const (
	supervisorArg = "fence-job-supervisor\x7f"
	envSupervisor = "FENCE_JOB_SUPERVISOR"
)

// The supervisor's file descriptors, given by Run: the lifeline's read
// end, whose end of file means that Run's process is gone (or is done
// with the command), and the status pipe's write end.
const (
	fdLifeline = 3
	fdStatus   = 4
)

// init turns this process into a supervisor when Run started it so: it
// runs the command and never returns. Any binary that imports package job
// can therefore supervise the commands its Run starts, with no hook in
// its main.
func init() {
	if len(os.Args) < 3 || os.Args[1] != supervisorArg || os.Getenv(envSupervisor) != "1" {
		return
	}
	os.Unsetenv(envSupervisor)
	os.Exit(superviseMain(os.Args[2], os.Args[3:]))
}

// superviseMain is the supervisor: the parent of the command, which it
// starts as the leader of a process group of its own. It reports on the
// status pipe "started PGID" (or "failed ERRNO MESSAGE" and exits), then
// "exited CODE" once the command has exited ("killed SIGNAL" when a
// signal ended it), and waits for the lifeline
// to end: at its end, whenever it comes (Run's process exited, was
// killed, even with SIGKILL, or closed it once it had stopped the group),
// it kills the command's whole process group with SIGKILL and exits.
// Nothing the command started is left running without a process that
// will stop it, unless it left the process group.
//
// The supervisor stays in Run's process group and ignores the signals a
// terminal or a supervisor of Run sends to a group (Run forwards them to
// the command's group); handlers, unlike ignored signals, do not pass on
// to the command.
func superviseMain(path string, args []string) int {
	lifeline, status := os.NewFile(fdLifeline, "lifeline"), os.NewFile(fdStatus, "status")
	syscall.CloseOnExec(fdLifeline)
	syscall.CloseOnExec(fdStatus)
	signal.Notify(make(chan os.Signal, 1), syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)

	cmd := exec.Command(path, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		errno := syscall.Errno(0)
		if e, ok := err.(*os.PathError); ok {
			if n, ok := e.Err.(syscall.Errno); ok {
				errno = n
			}
		}
		fmt.Fprintf(status, "failed %d %s\n", int(errno), strings.ReplaceAll(err.Error(), "\n", " "))
		return 127
	}
	pgid := cmd.Process.Pid
	fmt.Fprintf(status, "started %d\n", pgid)
	lost := make(chan struct{})
	go func() {
		_, _ = bufio.NewReader(lifeline).ReadByte() // nothing is ever written: only its end counts
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		close(lost)
	}()
	_ = cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		fmt.Fprintf(status, "killed %d\n", int(ws.Signal()))
	} else {
		fmt.Fprintf(status, "exited %d\n", exitCode(cmd.ProcessState))
	}
	status.Close()
	<-lost
	return 0
}

// parseStatus decodes one line of the status pipe.
func parseStatus(line string) (word string, n int, rest string) {
	word, tail, _ := strings.Cut(strings.TrimSpace(line), " ")
	num, rest, _ := strings.Cut(tail, " ")
	n, err := strconv.Atoi(num)
	if err != nil {
		return "", 0, line
	}
	return word, n, rest
}
