package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fencedstore/fence/config"
	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/objstore"
)

// Environment variables the CLI reads. Flags win over them.
const (
	envStore = "FENCE_STORE"
	envCoord = "FENCE_COORD"
	envToken = "FENCE_TOKEN"
)

// app holds the global flags and the process's standard streams.
type app struct {
	ctx            context.Context
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string

	storeURL string
	coordURL string
	json     bool
}

// run executes the fence command line args and returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv}
	root := a.rootCmd()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return exitOK
	}
	code := exitCode(err)
	fmt.Fprintf(stderr, "fence: %v\n", err)
	if code == exitUsage && cmd != nil {
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
	}
	return code
}

func (a *app) rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "fence",
		Short: "Fenced writes to object stores, safe against stale lease holders",
		Long: `fence takes leases that carry fencing tokens and writes objects that the
store accepts only with the domain's current token, so a holder that
paused past its lease cannot overwrite its successor's work.

Start with 'fence demo'.

Exit codes: 0 ok, 1 error, 2 usage, 3 fenced (the store rejected the
token), 4 lease held by another holder.`,
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          cobra.NoArgs,
		RunE:          helpOnly,
	}
	root.CompletionOptions.DisableDefaultCmd = true
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usage("%v", err) })
	pf := root.PersistentFlags()
	pf.StringVar(&a.storeURL, "store", config.DefaultStore, "object store `URL` (env "+envStore+"); "+config.Supported)
	pf.StringVar(&a.coordURL, "coord", "", "lease coordinator `URL` (env "+envCoord+"); default: lease records kept in the store")
	pf.BoolVar(&a.json, "json", false, "print data as JSON")
	root.AddCommand(a.demoCmd(), a.leaseCmd(), a.putCmd(), a.getCmd(), a.lsCmd())
	return root
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

// open opens the store, and the coordinator when withCoord. The returned
// function closes what was opened.
func (a *app) open(cmd *cobra.Command, withCoord bool) (*objstore.Store, coord.Coordinator, func(), error) {
	ctx := cmd.Context()
	b, err := config.OpenBackend(ctx, a.resolve(cmd, "store", envStore))
	if err != nil {
		return nil, nil, nil, fail(err)
	}
	store := objstore.New(b, &objstore.Options{Holder: defaultHolder()})
	if !withCoord {
		return store, nil, func() { _ = store.Close() }, nil
	}
	c, err := config.OpenCoordinator(ctx, a.resolve(cmd, "coord", envCoord), b)
	if err != nil {
		_ = store.Close()
		return nil, nil, nil, fail(err)
	}
	return store, c, func() { _ = config.CloseCoordinator(c); _ = store.Close() }, nil
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
