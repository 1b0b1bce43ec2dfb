package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/job"
	"github.com/fencedstore/fence/objstore"
)

// Exit codes of a command exec could not start, as a shell has them.
const (
	exitCannotRun = 126 // found, but not executable
	exitNotFound  = 127 // not found
)

func (a *app) execCmd() *cobra.Command {
	var (
		ttl, grace time.Duration
		checkEvery time.Duration
		holder     string
		wait       waitFlag
		publish    string
		del        bool
		mf         metricsFlags
		s3f        s3Flags
	)
	cmd := &cobra.Command{
		Use:   "exec DOMAIN [flags] -- CMD [ARGS...]",
		Short: "Run CMD holding DOMAIN's lease, and publish its output atomically",
		Long: `exec takes DOMAIN's lease (fencing the previous holder's late writes), keeps
it alive in the background for as long as CMD runs, and releases it when
CMD exits. CMD runs in its own process group with FENCE_DOMAIN,
FENCE_TOKEN, FENCE_HOLDER, FENCE_STORE and FENCE_COORD set, so its own
'fence put' calls are fenced too, and FENCE_BIN, the absolute path of
this fence, so that CMD can run "$FENCE_BIN put ..." when fence is not on
PATH.

If the lease can no longer be proven live while CMD runs (the coordinator
refused a renewal or stopped answering), or a read of the lease record
(every --check-every, default 10s, whatever --ttl) shows that it was
broken or taken over, CMD's whole process group gets SIGTERM, then
SIGKILL after --grace, nothing is published, and exec exits 5, saying
who broke or took the lease, at which token and when.

SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to exec are passed on to CMD's
group; whatever in it still runs --grace later gets SIGKILL. Nothing is
published after such a signal, even if CMD exits 0, the lease is
released, and exec exits 128+N for signal N (130, 143, 129, 131).
Nothing CMD started outlives exec, even if exec is killed with SIGKILL: a
supervisor process, CMD's parent, then kills CMD's process group.

--wait waits for another holder's lease instead of exiting 4: --wait 10m
(or --wait=10m) at most 10 minutes, --wait alone without a limit.

With --publish DIR[:PREFIX], once CMD exits 0 every file under DIR becomes
a key (PREFIX/path) in ONE fenced commit: the report set appears whole or
not at all. DIR is looked for only then, so CMD may create it; if it is
not there, nothing is published and exec exits 1. With --delete, keys
under PREFIX that are no longer files in DIR are deleted in the same
commit. If a newer holder has fenced the domain meanwhile, nothing is
published and exec exits 3.

With --s3, CMD gets an S3 endpoint on loopback (AWS_ENDPOINT_URL, keys
made for this run in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, the
bucket in FENCE_S3_BUCKET, its keys under FENCE_S3_PREFIX=DOMAIN/), and
what CMD writes through it with any S3 client is published as ONE fenced
commit once CMD exits 0, as --publish does (--s3-commit each: every
completed write its own commit). --s3-tls serves HTTPS, with a CA made
for the run in AWS_CA_BUNDLE and NODE_EXTRA_CA_CERTS. After a lost lease
every write through it gets 403 FenceLeaseLost. See docs/cli.md.

exec exits with CMD's exit code (128+N when signal N ended it; 127 when
CMD was not found and 126 when it could not be run, as a shell does), 4 when
another holder's lease is live (without --wait), 5 when the lease was
lost, 3 when the publish was fenced.`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			at := cmd.ArgsLenAtDash()
			if at > 0 {
				// --wait 10m, two words: 10m is among the arguments.
				pre, err := wait.takeArg(a.args, args[:at])
				if err != nil {
					return err
				}
				args = append(pre, args[at:]...)
				at = len(pre)
			}
			if at != 1 {
				return usage("exec: want DOMAIN -- CMD [ARGS...] (put -- before the command)")
			}
			domain, argv := args[0], args[1:]
			if err := coord.ValidateTTL(ttl); err != nil {
				return usage("exec: --ttl: %v", err)
			}
			if grace <= 0 {
				return usage("exec: --grace %s: must be positive", grace)
			}
			if checkEvery <= 0 {
				return usage("exec: --check-every %s: must be positive", checkEvery)
			}
			opts := &job.Options{Holder: holder, TTL: ttl, Grace: grace, CheckEvery: checkEvery, Stdin: a.stdin, Stdout: a.stdout, Stderr: a.stderr}
			if opts.Holder == "" {
				// One per process: two runs of the same job on one
				// machine must exclude each other, not take over.
				opts.Holder = fmt.Sprintf("%s/exec-%d", defaultHolder(), os.Getpid())
			}
			ctx := cmd.Context()
			if wait.set {
				opts.Wait = true
				if wait.max > 0 {
					wctx, cancel := context.WithTimeout(ctx, wait.max)
					defer cancel()
					ctx = wctx
				}
			}
			if publish != "" {
				// DIR is looked for once CMD has exited 0: CMD may make it.
				dir, prefix, _ := strings.Cut(publish, ":")
				if dir == "" {
					return usage("exec: --publish %q: want DIR[:PREFIX]", publish)
				}
				opts.Publish = &job.Publish{Dir: dir, Prefix: prefix, Delete: del}
			} else if del {
				return usage("exec: --delete needs --publish")
			}
			var s3x *s3Exec
			if s3f.on {
				if publish != "" {
					return usage("exec: --s3 and --publish are two ways to give CMD's output: take one")
				}
				x, err := a.newS3Exec(cmd, &s3f, domain)
				if err != nil {
					return err
				}
				s3x = x
			} else if s3f.tls || s3f.bucket != "" || cmd.Flags().Changed("s3-commit") {
				return usage("exec: --s3-tls, --s3-bucket and --s3-commit need --s3")
			}
			m, err := a.startMetrics(domain, mf)
			if err != nil {
				return err
			}
			store, c, closeAll, err := a.open(cmd, allWrites)
			if err != nil {
				m.finish(ctx, a, nil)
				return err
			}
			defer closeAll()
			opts.Env = []string{envStore + "=" + a.resolve(cmd, "store", envStore), envCoord + "=" + a.resolve(cmd, "coord", envCoord)}
			if self, err := os.Executable(); err == nil {
				// CMD can run this fence whether or not it is on PATH.
				opts.Env = append(opts.Env, envBin+"="+self)
			}
			if plain, _ := a.plainCopies(cmd); plain {
				opts.Env = append(opts.Env, envPlain+"=1") // CMD's own fence put copies too
			}
			// The signals exec passes on to CMD's group. Any of them also
			// ends a wait for the lease, and makes exec exit 128+N.
			sigs := make(chan os.Signal, 4)
			signal.Notify(sigs, execSignals...)
			defer signal.Stop(sigs)
			ctx, got := relaySignals(ctx, sigs)
			opts.Signals = got.forward
			if s3x != nil {
				s3x.wire(opts, store, domain)
			}
			res, err := job.Run(ctx, store, c, domain, argv, opts)
			if s3x != nil {
				s3x.finish(ctx, res)
			}
			m.finish(ctx, a, got.late)
			if in := got.first(); in != nil {
				return execInterrupted(domain, argv, opts, in, res, err)
			}
			switch {
			case err == nil && res.ExitCode == 0:
				return nil
			case err == nil && res.Signal != nil:
				return &exitErr{code: res.ExitCode, err: fmt.Errorf("exec: %s was killed by %s", argv[0], nameOf(res.Signal))}
			case err == nil:
				return &exitErr{code: res.ExitCode, err: fmt.Errorf("exec: %s exited with status %d", argv[0], res.ExitCode)}
			case errors.Is(err, coord.ErrLeaseHeld):
				return a.acquireFailed(cmd.Context(), c, domain, wait.max, err)
			case errors.Is(err, coord.ErrLeaseLost):
				return &exitErr{code: exitLost, err: fmt.Errorf("exec %q: %w", domain, err)}
			case errors.Is(err, objstore.ErrFenced) && !res.Started:
				// The takeover fence was refused; job says so.
				return &exitErr{code: exitFenced, err: fmt.Errorf("exec %q: %w", domain, err)}
			case errors.Is(err, objstore.ErrFenced):
				return fenced(fmt.Sprintf("exec %q: publish", domain), err)
			case !res.Started && res.Lease.Token != 0 && (errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist)):
				// As a shell, env(1) and timeout(1) report it.
				return &exitErr{code: exitNotFound, err: fmt.Errorf("exec %q: %w", domain, err)}
			case !res.Started && res.Lease.Token != 0 && errors.Is(err, fs.ErrPermission):
				return &exitErr{code: exitCannotRun, err: fmt.Errorf("exec %q: %w", domain, err)}
			}
			return fail(fmt.Errorf("exec %q: %w", domain, err))
		},
	}
	f := cmd.Flags()
	f.DurationVar(&ttl, "ttl", 30*time.Second, "lease duration, renewed in the background every third of it")
	f.DurationVar(&grace, "grace", job.DefaultGrace, "time CMD's group has to exit after SIGTERM (or a signal exec passes on) before SIGKILL")
	f.DurationVar(&checkEvery, "check-every", job.DefaultCheckEvery, "read the lease record this `often` while CMD runs (one consistent read each), so that a break or takeover stops CMD within about this long, whatever --ttl")
	f.StringVar(&holder, "holder", "", "holder `NAME` (default <user>@<hostname>/exec-<pid>, one per process)")
	addWaitFlag(f, &wait)
	f.StringVar(&publish, "publish", "", "after CMD exits 0, commit every file under `DIR[:PREFIX]` at once (DIR is looked for then: CMD may create it)")
	f.BoolVar(&del, "delete", false, "with --publish, also delete keys under PREFIX that are not in DIR")
	s3f.add(f)
	f.StringVar(&mf.addr, "metrics-addr", "", "serve Prometheus metrics on http://`ADDR`/metrics while the run lasts (for example :9090)")
	f.StringVar(&mf.push, "metrics-push", "", "when the run ends, push its metrics to the Prometheus Pushgateway at `URL` (job fence_exec, grouped by domain)")
	f.DurationVar(&mf.linger, "metrics-linger", 0, "with --metrics-addr, keep serving the metrics this `long` after the run ends, for a last scrape (a signal ends it, and exec exits 128+N)")
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		if !slices.Contains(a.args, "--") {
			// CMD's own flags ("sh -c true"): without "--", they read as
			// exec's.
			return usage("%v: put -- before the command: fence exec DOMAIN [flags] -- CMD [ARGS...]", err)
		}
		return suggestFlag(c, err)
	})
	return cmd
}

// execSignals are the signals exec passes on to CMD's process group.
var execSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// relayed is what relaySignals hands on: every signal to forward (to
// job.Run), the first one again to late (for --metrics-linger), and the
// first one's *interrupted.
type relayed struct {
	forward chan os.Signal
	late    chan os.Signal
	mu      sync.Mutex
	in      *interrupted
}

func (r *relayed) first() *interrupted {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.in
}

// relaySignals reads sigs for as long as the process runs: the first
// signal cancels the returned context (ending a wait for the lease) with
// an *interrupted cause, and every signal is handed on to r.forward
// (dropped when 4 are pending: the first has started the grace clock).
func relaySignals(ctx context.Context, sigs <-chan os.Signal) (context.Context, *relayed) {
	ctx, cancel := context.WithCancelCause(ctx)
	r := &relayed{forward: make(chan os.Signal, 4), late: make(chan os.Signal, 1)}
	go func() {
		for s := range sigs {
			sig, ok := s.(syscall.Signal)
			if !ok {
				continue
			}
			r.mu.Lock()
			if r.in == nil {
				r.in = &interrupted{sig: sig}
				r.late <- s
			}
			in := r.in
			r.mu.Unlock()
			cancel(in)
			select {
			case r.forward <- s:
			default:
			}
		}
	}()
	return ctx, r
}

// execInterrupted is exec's error once a signal came: exit 128+N, and a
// message that says what became of CMD and that nothing was published.
// A publish that had landed before the signal could stop it is done
// work: exec then exits as it would have without the signal.
func execInterrupted(domain string, argv []string, opts *job.Options, in *interrupted, res job.Result, err error) error {
	if err == nil && res.Published != nil {
		return nil
	}
	var msg string
	switch {
	case !res.Started:
		msg = fmt.Sprintf("%s was not started", argv[0])
	case res.Signal == syscall.SIGKILL:
		msg = fmt.Sprintf("passed on to %s's process group, which was still running --grace %s later and was killed with SIGKILL", argv[0], opts.Grace)
	case res.Signal != nil:
		msg = fmt.Sprintf("passed on to %s's process group; %s was killed by %s", argv[0], argv[0], nameOf(res.Signal))
	default:
		msg = fmt.Sprintf("passed on to %s's process group; %s exited with status %d", argv[0], argv[0], res.ExitCode)
	}
	switch {
	case err != nil && !errors.As(err, new(*interrupted)):
		msg += ": " + err.Error()
	case opts.Publish != nil:
		msg += "; nothing was published"
	}
	return &exitErr{code: in.exitCode(), err: fmt.Errorf("exec %q: %w: %s", domain, in, msg)}
}

// nameOf names a signal: SIGUSR1.
func nameOf(s os.Signal) string {
	if sig, ok := s.(syscall.Signal); ok {
		return signalName(sig)
	}
	return s.String()
}
