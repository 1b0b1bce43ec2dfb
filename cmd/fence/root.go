package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/user"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/fencedstore/fence"
	"github.com/fencedstore/fence/config"
	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/observe"
)

// Environment variables the CLI reads. Flags win over them.
const (
	envStore     = "FENCE_STORE"
	envCoord     = "FENCE_COORD"
	envToken     = "FENCE_TOKEN"
	envSkipProbe = "FENCE_UNSAFE_SKIP_PROBE"
	envPlain     = "FENCE_PLAIN_COPIES"
	envInlineMax = "FENCE_INLINE_MAX"
	envBin       = "FENCE_BIN" // set by exec for CMD: the running fence's absolute path
)

// app holds the global flags and the process's standard streams.
type app struct {
	ctx            context.Context
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string

	// openBackend opens a store URL; tests replace it.
	openBackend func(context.Context, string) (driver.Backend, error)
	// isTerminal reports whether a stream is a terminal (progress bars).
	isTerminal func(io.Writer) bool

	storeURL  string
	coordURL  string
	json      bool
	quiet     bool
	skipProbe bool
	plain     bool
	inlineMax int64
	timeout   time.Duration
	warned    bool             // the --unsafe-skip-probe warning was printed
	logger    *slog.Logger     // from --log-level and --log-format
	logs      observe.Observer // decisions to logger; nil when off
	logFormat string           // --log-format, once resolved: "text" or "json"
	jsonErr   *slog.Logger     // fence's own stderr lines as JSON (jsonLogs)
	args      []string         // the command line, for jsonLogs before flags are parsed
	metrics   observe.Observer // fence exec --metrics-*; nil otherwise
	cancels   []context.CancelFunc
}

// errTimeout ends a command that ran past --timeout.
var errTimeout = errors.New("gave up: the command ran past its time limit")

// run executes the fence command line args and returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return newApp(stdin, stdout, stderr).run(ctx, args)
}

func newApp(stdin io.Reader, stdout, stderr io.Writer) *app {
	return &app{stdin: stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv, openBackend: config.OpenBackend, isTerminal: isTerminal}
}

// run executes the fence command line args and returns the exit code.
func (a *app) run(ctx context.Context, args []string) int {
	a.ctx = ctx
	a.args = args
	stdin, stdout, stderr := a.stdin, a.stdout, a.stderr
	root := a.rootCmd()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(ctx)
	for _, cancel := range a.cancels {
		defer cancel()
	}
	return a.report(ctx, cmd, err)
}

func (a *app) rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "fence",
		Short: "Fenced writes to object stores, safe against stale lease holders",
		Long: `fence takes leases that carry fencing tokens and writes objects that the
store accepts only with the domain's current token, so a holder that
paused past its lease cannot overwrite its successor's work.

Start with 'fence demo'. With S3, MinIO or DynamoDB, run 'fence init' to
create the bucket and table, then 'fence doctor' to check them.

Store URLs (--store):
  file://PATH                 a local directory (default ./fence-data)
  mem://[NAME]                memory of this process (tests)
  s3://BUCKET[/PREFIX][?endpoint=URL&region=R&path_style=true&sse=...]
  minio://BUCKET[/PREFIX]?endpoint=http://HOST:PORT[&region=R]
  gs://BUCKET[/PREFIX][?endpoint=URL]
  azblob://CONTAINER[/PREFIX][?endpoint=URL&account=NAME]
Coordinator URLs (--coord):
  (empty)                     lease records kept in the store
  dynamodb://TABLE[?endpoint=URL&region=R]
  any store URL               lease records kept in that store
Credentials come only from the AWS chain (AWS_ACCESS_KEY_ID,
AWS_SECRET_ACCESS_KEY, AWS_PROFILE, ...), for gs:// from Application
Default Credentials (GOOGLE_APPLICATION_CREDENTIALS, ...), and for azblob://
from AZURE_STORAGE_CONNECTION_STRING, AZURE_STORAGE_ACCOUNT and
AZURE_STORAGE_KEY, or DefaultAzureCredential; never from URLs.

Examples:
  fence --store s3://my-bucket/fence --coord dynamodb://fence-leases doctor
  fence --store gs://my-bucket/fence ls reports/monthly
  AZURE_STORAGE_ACCOUNT=myaccount fence --store azblob://fence/prod ls reports/monthly
  # emulators: fake-gcs-server, and Azurite (with its account and key set)
  fence --store 'gs://fence-test?endpoint=http://127.0.0.1:4443' init
  fence --store 'azblob://fence?endpoint=http://127.0.0.1:10000/devstoreaccount1' init

Exit codes:
  0    ok
  1    error
  2    usage: bad flags or arguments
  3    fenced: the store has accepted a higher token in the domain
  4    held: another holder's lease is live
  5    lease lost: it expired, was released or was taken over
  126  exec: the command could not be run
  127  exec: the command was not found
  129  exec: interrupted by SIGHUP
  130  interrupted by SIGINT
  131  exec: interrupted by SIGQUIT
  143  interrupted by SIGTERM`,
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          cobra.NoArgs,
		RunE:          helpOnly,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkDurations(cmd); err != nil {
				return err
			}
			if err := a.setupLogging(cmd); err != nil {
				return err
			}
			// doctor and lease acquire have a --timeout of their own.
			if f := cmd.Flags().Lookup("timeout"); f != nil && f == cmd.Root().PersistentFlags().Lookup("timeout") && f.Changed && a.timeout > 0 {
				ctx, cancel := context.WithTimeoutCause(cmd.Context(), a.timeout, errTimeout)
				a.cancels = append(a.cancels, cancel)
				cmd.SetContext(ctx)
			}
			return nil
		},
	}
	root.Version = buildVersion()
	root.SetVersionTemplate("fence {{.Version}}\n")
	root.SetFlagErrorFunc(suggestFlag)
	pf := root.PersistentFlags()
	pf.StringVar(&a.storeURL, "store", config.DefaultStore, "object store `URL` (env "+envStore+"): "+config.StoreSchemes())
	pf.StringVar(&a.coordURL, "coord", "", "lease coordinator `URL` (env "+envCoord+"): dynamodb://TABLE or a store URL; default: lease records kept in the store")
	pf.BoolVar(&a.json, "json", false, "print data as JSON, and errors as one line {\"error\": ..., \"code\": N} on stderr")
	pf.BoolVarP(&a.quiet, "quiet", "q", false, "print only the command's data and errors: no progress, no summary lines such as put's 'committed ...'")
	pf.DurationVar(&a.timeout, "timeout", 0, "give up on the whole command after this `duration` (0: no limit; each request to a server is bounded on its own)")
	pf.Int64Var(&a.inlineMax, "inline-max", 4096, "keep values of at most this many `bytes` in the manifest itself, so that a commit of small values is one write and a read of one a single GET (env "+envInlineMax+"); 0 gives every value an object of its own, which builds that read manifest format v1 and v2 only need")
	pf.BoolVar(&a.plain, "plain-copies", false, "also write each committed key to DOMAIN/KEY, fenced, where any S3 client can read it (env "+envPlain+"=1)")
	pf.BoolVar(&a.skipProbe, "unsafe-skip-probe", false, "do not check that the store honours conditional writes (env "+envSkipProbe+"=1); on a store that ignores them, stale writers are NOT fenced")
	a.logFlags(root)
	root.AddCommand(a.demoCmd(), a.leaseCmd(), a.execCmd(), a.putCmd(), a.stageCmd(), a.commitCmd(), a.rmCmd(), a.getCmd(), a.lsCmd(), a.historyCmd(), a.syncPlainCmd(), a.gcCmd(), a.initCmd(), a.doctorCmd(), a.policyCmd(), a.outboxCmd(), a.benchCmd(), a.serveCmd())
	groups(root)
	return root
}

// groups makes every command that only groups others report an unknown
// subcommand with the closest ones (suggestCommand).
func groups(cmd *cobra.Command) {
	for _, c := range cmd.Commands() {
		groups(c)
	}
	if cmd.HasSubCommands() {
		cmd.Args = suggestCommand
	}
}

// helpOnly is the RunE of commands that only group others: without
// arguments it prints help, and cobra.NoArgs turns an unknown subcommand
// into a usage error (a command without RunE would print help and exit 0).
func helpOnly(cmd *cobra.Command, _ []string) error { return cmd.Help() }

// resolve returns a global flag's value: the flag when given, else the
// environment variable, else the flag's default.
func (a *app) resolve(cmd *cobra.Command, flag, env string) string {
	f := cmd.Flags().Lookup(flag)
	if f != nil && f.Changed {
		return f.Value.String()
	}
	if v := a.getenv(env); v != "" {
		return v
	}
	if f != nil {
		return f.Value.String()
	}
	return ""
}

// access says what a command does with the store and the coordinator.
type access struct {
	coord       bool // open the coordinator
	writeStore  bool // write objects through the store
	writeLeases bool // write lease records
}

var (
	readOnly    = access{}
	storeWrites = access{writeStore: true}
	leaseWrites = access{coord: true, writeLeases: true}
	allWrites   = access{coord: true, writeStore: true, writeLeases: true}
)

// open opens the store, and the coordinator when acc.coord. The returned
// function closes what was opened.
//
// Whatever writes to a backend (the Store, a bucket-lease coordinator)
// runs the capability probe (driver.Probe) before its first write, so a
// store ignoring conditional writes is refused before anything is
// written, lease records included. With --unsafe-skip-probe neither runs
// it, and a warning says so.
func (a *app) open(cmd *cobra.Command, acc access) (*objstore.Store, *coord.Coordinator, func(), error) {
	ctx := cmd.Context()
	skip, err := a.unsafeSkipProbe(cmd)
	if err != nil {
		return nil, nil, nil, err
	}
	if skip && (acc.writeStore || acc.writeLeases) {
		a.warnUnsafe()
	}
	cache, err := a.probeCache()
	if err != nil {
		return nil, nil, nil, err
	}
	storeURL, coordURL := a.resolve(cmd, "store", envStore), a.resolve(cmd, "coord", envCoord)
	b, err := a.openBackend(ctx, storeURL)
	if err != nil {
		return nil, nil, nil, fail(err)
	}
	if !acc.coord && !acc.writeStore {
		store := objstore.New(b, &objstore.Options{Holder: defaultHolder(), Logger: a.logger, Observer: a.observer()})
		return store, nil, func() { _ = store.Close() }, nil
	}
	// A store that writes asks the coordinator before a token raises a
	// domain (objstore.Options.Issuer): only the token issued last may.
	c, err := config.OpenCoordinator(ctx, coordURL, b, &config.CoordinatorOptions{SkipProbe: skip, ProbeCache: cache, Observer: a.observer()})
	if err != nil {
		_ = b.Close()
		return nil, nil, nil, fail(err)
	}
	plain, err := a.plainCopies(cmd)
	if err != nil {
		_ = config.CloseCoordinator(c)
		return nil, nil, nil, err
	}
	inline, err := a.inlineLimit(cmd)
	if err != nil {
		_ = config.CloseCoordinator(c)
		return nil, nil, nil, err
	}
	store := objstore.New(b, &objstore.Options{Holder: defaultHolder(), SkipProbe: skip, ProbeCache: cache, Issuer: fence.Issuer(c), PlainCopies: plain, InlineMax: inline, Logger: a.logger, Observer: a.observer()})
	closeAll := func() { _ = config.CloseCoordinator(c); _ = store.Close() }
	if !acc.coord {
		return store, nil, closeAll, nil
	}
	return store, c, closeAll, nil
}

// unsafeSkipProbe resolves --unsafe-skip-probe and FENCE_UNSAFE_SKIP_PROBE.
func (a *app) unsafeSkipProbe(cmd *cobra.Command) (bool, error) {
	if f := cmd.Flags().Lookup("unsafe-skip-probe"); f != nil && f.Changed {
		return a.skipProbe, nil
	}
	v := a.getenv(envSkipProbe)
	if v == "" {
		return false, nil
	}
	skip, err := strconv.ParseBool(v)
	if err != nil {
		return false, usage("%s=%q: want 1 or 0", envSkipProbe, v)
	}
	return skip, nil
}

// plainCopies resolves --plain-copies and FENCE_PLAIN_COPIES.
func (a *app) plainCopies(cmd *cobra.Command) (bool, error) {
	if f := cmd.Flags().Lookup("plain-copies"); f != nil && f.Changed {
		return a.plain, nil
	}
	v := a.getenv(envPlain)
	if v == "" {
		return false, nil
	}
	plain, err := strconv.ParseBool(v)
	if err != nil {
		return false, usage("%s=%q: want 1 or 0", envPlain, v)
	}
	return plain, nil
}

// inlineLimit resolves --inline-max and FENCE_INLINE_MAX into
// objstore.Options.InlineMax: 0 turns inline values off.
func (a *app) inlineLimit(cmd *cobra.Command) (int64, error) {
	v := a.resolve(cmd, "inline-max", envInlineMax)
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, usage("--inline-max (%s) %q: want a number of bytes, 0 or more", envInlineMax, v)
	}
	if n == 0 {
		return -1, nil
	}
	return n, nil
}

// warnUnsafe prints, once, the warning of --unsafe-skip-probe.
func (a *app) warnUnsafe() {
	if a.warned {
		return
	}
	a.warned = true
	a.notice(slog.LevelWarn, "WARNING: --unsafe-skip-probe ("+envSkipProbe+"): not checking that the store honours conditional writes.")
	a.notice(slog.LevelWarn, "WARNING: if it ignores them, fencing does NOTHING: a stale holder's writes are NOT rejected and can overwrite newer data.")
}

// token returns the token from --token, or from FENCE_TOKEN when the flag
// is absent.
func (a *app) token(cmd *cobra.Command) (uint64, error) {
	if f := cmd.Flags().Lookup("token"); f != nil && f.Changed {
		return parseToken(f.Value.String(), "--token")
	}
	if v := a.getenv(envToken); v != "" {
		return parseToken(v, envToken)
	}
	return 0, usage("no token: pass --token N or set %s", envToken)
}

// info prints a line that is not the command's data (put's "committed
// ..."), unless --quiet.
func (a *app) info(format string, args ...any) {
	if !a.quiet {
		fmt.Fprintf(a.stdout, format+"\n", args...)
	}
}

// printJSON writes v to stdout as indented JSON.
func (a *app) printJSON(v any) error {
	enc := json.NewEncoder(a.stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fail(fmt.Errorf("write output: %w", err))
	}
	return nil
}

// defaultHolder names this user on this machine, "<user>@<hostname>": the
// same in every process the user runs there, so that 'fence lease release'
// works from another process than 'fence lease acquire'.
func defaultHolder() string {
	name := ""
	if u, err := user.Current(); err == nil {
		name = u.Username
	}
	if name == "" {
		name = os.Getenv("USER")
	}
	if name == "" {
		name = fmt.Sprintf("uid%d", os.Getuid())
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "localhost"
	}
	return strings.ToValidUTF8(name+"@"+host, "?")
}

// isNotFound reports whether err means a missing domain or key.
func isNotFound(err error) bool { return errors.Is(err, objstore.ErrNotFound) }
