package faults

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fencedstore/fence/integration/faults/internal/spec"
)

// child is one writer, reader or collector process.
type child struct {
	name   string
	slot   int // writer slot, or -1 for the reader and collector processes
	cmd    *exec.Cmd
	exited chan struct{}
	status string // how it ended, once exited is closed
}

func (c *child) pid() int { return c.cmd.Process.Pid }

// signal sends sig unless the process has ended. os.Process signals
// through a pidfd, so a recycled pid is never hit.
func (c *child) signal(sig syscall.Signal) {
	select {
	case <-c.exited:
	default:
		_ = c.cmd.Process.Signal(sig)
	}
}

// stopped reports whether the process is stopped (SIGSTOP).
func (c *child) stopped() bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", c.pid()))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] == 'T'
}

// fleet runs the writers and the reader of one run, and replaces a writer
// that dies while the workload runs (a kill point, or SIGKILL) with a new
// client in the same slot.
type fleet struct {
	bin, dir string
	logf     func(format string, args ...any)
	env      []string // added to every process's environment

	mu       sync.Mutex
	slots    []*child      // current writer of each slot
	base     []spec.Writer // each slot's first configuration
	all      []*child      // every process started
	gen      []int         // restarts per slot
	reader   *child
	gc       *child
	stopping bool
	wg       sync.WaitGroup
	restarts int
}

func (f *fleet) start(name string, slot int, kind string, cfg any) (*child, error) {
	path := filepath.Join(f.dir, name+".json")
	if err := spec.Save(path, cfg); err != nil {
		return nil, err
	}
	logf, err := os.OpenFile(filepath.Join(f.dir, name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	cmd := exec.Command(f.bin, kind, path)
	if len(f.env) > 0 {
		cmd.Env = append(os.Environ(), f.env...)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &child{name: name, slot: slot, cmd: cmd, exited: make(chan struct{})}
	f.all = append(f.all, c)
	f.wg.Go(func() {
		err := cmd.Wait()
		c.status = "exit 0"
		if err != nil {
			c.status = err.Error()
		}
		close(c.exited)
		if slot >= 0 {
			f.exited(c)
		}
	})
	return c, nil
}

// startWriters starts one writer per configuration.
func (f *fleet) startWriters(cfgs []spec.Writer) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.base = cfgs
	f.slots = make([]*child, len(cfgs))
	f.gen = make([]int, len(cfgs))
	for i, cfg := range cfgs {
		c, err := f.start(cfg.Client, i, "writer", cfg)
		if err != nil {
			return err
		}
		f.slots[i] = c
	}
	return nil
}

// startGC starts the garbage collector process.
func (f *fleet) startGC(cfg spec.GC) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, err := f.start("gc", -1, "gc", cfg)
	f.gc = c
	return err
}

func (f *fleet) startReader(cfg spec.Reader) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, err := f.start("readers", -1, "reader", cfg)
	f.reader = c
	return err
}

// exited replaces a writer that ended while the workload runs.
func (f *fleet) exited(c *child) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stopping || f.slots[c.slot] != c {
		return
	}
	f.logf("writer %s ended (%s); replacing it", c.name, c.status)
	if f.restarts >= 50 {
		f.logf("too many restarts; slot %d stays empty", c.slot)
		return
	}
	f.restarts++
	f.gen[c.slot]++
	cfg := f.base[c.slot]
	cfg.Client = fmt.Sprintf("%s.%d", cfg.Client, f.gen[c.slot])
	cfg.History = filepath.Join(f.dir, "hist-"+cfg.Client+".jsonl")
	cfg.KillAt, cfg.PauseAt = "", ""
	cfg.Seed += uint64(f.gen[c.slot]) * 7919
	// A short pause, as a supervisor would take.
	time.Sleep(200 * time.Millisecond)
	nc, err := f.start(cfg.Client, c.slot, "writer", cfg)
	if err != nil {
		f.logf("restart %s: %v", cfg.Client, err)
		return
	}
	f.slots[c.slot] = nc
}

// writers returns the current writer of every slot that has one.
func (f *fleet) writers() []*child {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []*child
	for _, c := range f.slots {
		if c != nil {
			out = append(out, c)
		}
	}
	return out
}

// byName returns the current writer named name, or nil.
func (f *fleet) byName(name string) *child {
	for _, c := range f.writers() {
		if c.name == name {
			return c
		}
	}
	return nil
}

// stop ends every process: SIGCONT (a stopped process cannot handle
// SIGTERM), SIGTERM, and SIGKILL for any still running after grace.
func (f *fleet) stop(grace time.Duration) {
	f.mu.Lock()
	f.stopping = true
	all := append([]*child(nil), f.all...)
	f.mu.Unlock()
	for _, c := range all {
		c.signal(syscall.SIGCONT)
		c.signal(syscall.SIGTERM)
	}
	deadline := time.Now().Add(grace)
	for _, c := range all {
		select {
		case <-c.exited:
		case <-time.After(time.Until(deadline)):
			f.logf("%s did not stop within %s; killing it", c.name, grace)
			c.signal(syscall.SIGKILL)
			<-c.exited
		}
	}
	f.wg.Wait()
}

// kill ends every process at once (test cleanup).
func (f *fleet) kill() {
	f.mu.Lock()
	f.stopping = true
	all := append([]*child(nil), f.all...)
	f.mu.Unlock()
	for _, c := range all {
		c.signal(syscall.SIGKILL)
	}
	f.wg.Wait()
}
