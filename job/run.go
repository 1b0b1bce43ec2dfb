package job

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fencedstore/fence"
	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/objstore"
)

// Environment variables Run sets for the command.
const (
	EnvDomain = "FENCE_DOMAIN"
	EnvToken  = "FENCE_TOKEN"
	EnvHolder = "FENCE_HOLDER"
)

// DefaultGrace is how long a command has between SIGTERM and SIGKILL.
const DefaultGrace = 10 * time.Second

// Options tunes Run. nil means defaults.
type Options struct {
	// Holder, TTL and Wait are fence.AcquireOptions'.
	Holder string
	TTL    time.Duration
	Wait   bool
	// Grace is how long the command's process group has to exit after
	// SIGTERM before it gets SIGKILL. Default DefaultGrace.
	Grace time.Duration
	// CheckEvery is how often the lease record is read (one consistent
	// read) while the command runs, so that a break or a takeover stops
	// the command within about CheckEvery, whatever the TTL. Default
	// DefaultCheckEvery.
	CheckEvery time.Duration
	// Publish, when set, is committed once the command has exited 0.
	Publish *Publish
	// Output, when set (and Publish is not), is committed once the
	// command has exited 0, as Publish is: its changes, in one commit
	// at the lease's token. fence exec --s3 sets it to its S3 gateway.
	Output Output
	// Prepare, when set, runs once the lease is held, before the command
	// starts: the variables it returns are added to the command's
	// environment (after Env). An error stops the run before the
	// command starts, and the lease is released.
	Prepare func(ctx context.Context, l coord.Lease) ([]string, error)
	// Lost, when set, is called once, as soon as the lease is seen lost
	// while the command runs (before the command is stopped).
	Lost func(cause error)
	// Unset names variables of this process's environment that the
	// command does not get.
	Unset []string
	// Env is added to the command's environment (after this process's
	// and before FENCE_DOMAIN, FENCE_TOKEN and FENCE_HOLDER).
	Env []string
	// Stdin, Stdout and Stderr are the command's; nil means none.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Signals are forwarded to the command's process group while it
	// runs. The first one starts the Grace clock: what is still running
	// in the group Grace after it gets SIGKILL. Once a signal has been
	// received, whenever before the publish, nothing is published
	// (Result.Interrupted).
	Signals <-chan os.Signal
}

// Result says what Run did.
type Result struct {
	// Lease is the lease the command ran under (zero if none was taken).
	Lease coord.Lease
	// Started reports whether the command was started.
	Started bool
	// ExitCode is the command's exit status, 128+N when signal N ended
	// it (as a shell reports it), and -1 when it did not run.
	ExitCode int
	// Signal is the signal that ended the command, when one did (then
	// ExitCode is 128 plus its number); nil when it exited.
	Signal os.Signal
	// Interrupted is the first signal received from Options.Signals
	// (nil if none was): the command got it, and nothing was published,
	// whatever its exit code.
	Interrupted os.Signal
	// Published is the commit of Options.Publish, when it was made.
	Published *objstore.CommitResult
}

// Run takes domain's lease, runs argv under it, publishes opts.Publish if
// the command exited 0, and releases the lease. A command that exits
// non-zero is not an error: Result.ExitCode says how it ended, and
// nothing is published. Nor is a command that exited 0 after a signal
// came through opts.Signals (Result.Interrupted): a signal before the
// publish starts cancels it. A publish directory that does not exist
// once the command has exited 0 is an error, and nothing is published. The error is a *LostError when the lease was lost
// while the command ran, a *objstore.FencedError when the publish was
// fenced, and otherwise what prevented the job (taking the lease,
// starting the command, reading the directory, the commit).
//
// ctx bounds the acquisition and the publish; once the command runs,
// ending ctx does not stop it (deliver a signal through opts.Signals).
//
// On Linux, Run makes this process a child subreaper
// (PR_SET_CHILD_SUBREAPER), so that what the command leaves behind is
// handed to it, and reaped, rather than to an init that may not reap (in
// a container). Orphans of other children this process starts come to it
// too.
func Run(ctx context.Context, store *objstore.Store, c *coord.Coordinator, domain string, argv []string, opts *Options) (Result, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Grace <= 0 {
		o.Grace = DefaultGrace
	}
	if o.CheckEvery <= 0 {
		o.CheckEvery = DefaultCheckEvery
	}
	res := Result{ExitCode: -1}
	if len(argv) == 0 {
		return res, &objstore.InvalidError{What: "command", Value: "", Reason: "empty"}
	}
	sess, err := acquire(ctx, store, c, domain, o)
	if err != nil {
		var fe *objstore.FencedError
		if errors.As(err, new(*fence.TakeoverError)) && errors.As(err, &fe) && max(fe.Highest, fe.Issued) > fe.Token {
			// Another holder fenced the domain between our acquisition
			// and our fence (this process was paused, say).
			newer := max(fe.Highest, fe.Issued)
			return res, fmt.Errorf("job: %q: takeover fence refused: token %d is below %d; the command was not started: %w", domain, fe.Token, newer, err)
		}
		return res, err
	}
	res.Lease = sess.Lease()
	// Release the lease however Run ends, even once ctx has ended; but
	// not for longer than its TTL, after which it has expired anyway (a
	// coordinator that stopped answering would otherwise hold the exit
	// up).
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ttlOf(o))
		defer cancel()
		_ = sess.Release(rctx)
	}()

	var extra []string
	if o.Prepare != nil {
		if extra, err = o.Prepare(ctx, res.Lease); err != nil {
			return res, fmt.Errorf("job: %q: prepare: %w", domain, err)
		}
	}
	env := append(append(append(environ(o.Unset), o.Env...), extra...),
		EnvDomain+"="+domain,
		EnvToken+"="+strconv.FormatUint(res.Lease.Token, 10),
		EnvHolder+"="+res.Lease.Holder)
	g, err := startGroup(argv, env, o.Stdin, o.Stdout, o.Stderr)
	if err != nil {
		return res, fmt.Errorf("job: start %q: %w", argv[0], err)
	}
	res.Started = true
	wctx, stopWatch := context.WithCancel(context.WithoutCancel(ctx))
	lost, why := watch(wctx, c, sess, o.CheckEvery)
	if o.Lost != nil {
		go func() {
			<-lost
			if _, _, cause := why(); cause != nil {
				o.Lost(cause)
			}
		}()
	}
	code, stopped, forwarded := g.supervise(lost, o.Signals, o.Grace)
	stopWatch()
	res.ExitCode, res.Signal, res.Interrupted = code, g.killedBy(), forwarded
	if stopped {
		st, read, cause := why()
		ectx, cancel := context.WithTimeout(context.WithoutCancel(ctx), o.CheckEvery)
		defer cancel()
		return res, explain(ectx, store, res.Lease, st, read, cause)
	}
	if g.err != nil {
		return res, fmt.Errorf("job: %q: %w", argv[0], g.err)
	}
	if res.Interrupted == nil {
		// A signal that came after the command's exit still cancels the
		// publish.
		select {
		case sig := <-o.Signals:
			res.Interrupted = sig
		default:
		}
	}
	out := o.Output
	if o.Publish != nil {
		out = o.Publish
	}
	if code != 0 || out == nil || res.Interrupted != nil {
		return res, nil
	}
	if o.Publish != nil {
		// The command may have made the directory itself: it is looked
		// for only now.
		switch fi, err := os.Stat(o.Publish.Dir); {
		case err != nil:
			return res, &PublishDirError{Dir: o.Publish.Dir, Command: argv[0], Err: err}
		case !fi.IsDir():
			return res, &PublishDirError{Dir: o.Publish.Dir, Command: argv[0], Err: fmt.Errorf("%s is not a directory", o.Publish.Dir)}
		}
	}
	changes, closeFiles, err := out.Changes(ctx, store, domain)
	if err != nil {
		return res, err
	}
	defer closeFiles()
	if len(changes) == 0 {
		return res, nil // nothing to publish; a commit of nothing would be a second fence
	}
	// The store decides this commit, not the lease's clock: it lands
	// unless a newer holder has fenced the domain.
	cr, err := store.Commit(ctx, domain, res.Lease.Token, changes, &objstore.CommitOptions{Holder: res.Lease.Holder})
	if err != nil {
		return res, err
	}
	res.Published = &cr
	return res, nil
}

// Output is what a run publishes once its command has exited 0: the
// changes of one commit, and a function that frees what they hold.
type Output interface {
	Changes(ctx context.Context, store *objstore.Store, domain string) ([]objstore.Change, func(), error)
}

// environ is this process's environment without the variables unset
// names.
func environ(unset []string) []string {
	env := os.Environ()
	if len(unset) == 0 {
		return env
	}
	kept := env[:0:0]
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(unset, name) {
			kept = append(kept, kv)
		}
	}
	return kept
}

// PublishDirError is Run's error when the command exited 0 but
// Options.Publish.Dir was then not a directory: nothing was published.
type PublishDirError struct {
	Dir     string // Options.Publish.Dir
	Command string // the command's name (argv[0])
	Err     error  // what os.Stat said, or that Dir is not a directory
}

func (e *PublishDirError) Error() string {
	if errors.Is(e.Err, fs.ErrNotExist) {
		return fmt.Sprintf("job: publish: directory %q does not exist after %s exited 0; nothing was published", e.Dir, e.Command)
	}
	return fmt.Sprintf("job: publish: directory %q after %s exited 0: %v; nothing was published", e.Dir, e.Command, e.Err)
}

func (e *PublishDirError) Unwrap() error { return e.Err }

// ttlOf returns the lease duration o asks for.
func ttlOf(o Options) time.Duration {
	if o.TTL > 0 {
		return o.TTL
	}
	return coord.DefaultTTL
}

// acquire takes the lease under ctx, but starts a session that ctx's end
// does not stop: once the command runs, only the lease decides.
func acquire(ctx context.Context, store *objstore.Store, c *coord.Coordinator, domain string, o Options) (*coord.Session, error) {
	sctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() { cancel(context.Cause(ctx)) })
	sess, err := fence.Acquire(sctx, store, c, domain, &fence.AcquireOptions{Holder: o.Holder, TTL: o.TTL, Wait: o.Wait})
	if !stop() {
		// ctx ended during the acquisition.
		if err == nil {
			sess.Release(context.WithoutCancel(ctx))
		}
		return nil, errors.Join(fmt.Errorf("job: acquire %q: %w", domain, context.Cause(ctx)), err)
	}
	return sess, err
}
