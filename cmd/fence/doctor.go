package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/fencedstore/fence/config"
)

func (a *app) doctorCmd() *cobra.Command {
	var opts config.DoctorOptions
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check that the store and the coordinator work, one line per check",
		Long: `doctor checks --store and --coord and prints one line per check:

  store reachable               the server (or file system) answers
  bucket exists                 (directory exists for file://)
  server-side encryption        (with sse= only) a probe object is
                                stored with the encryption asked for
  conditional writes honoured   If-None-Match: * and a stale If-Match are
                                refused with 412: the capability probe,
                                which writes and deletes one object under
                                _fence/probe/
  store writable                (only when the probe's write is refused
                                outright: permission, full disk, read-only)
  bucket policy requires conditional writes   (s3:// only; skip for
                                minio://) warn when the bucket's policy
                                lacks fence's statements (see 'fence policy')
  coordinator reachable
  table exists with the right schema   (dynamodb:// only)
  test acquisition and release  a lease on a scratch domain (--domain,
                                default fence-doctor/<hostname>), fenced
                                at the store, then released

With a store URL as --coord, the lease store gets the same checks. A
check whose prerequisite failed is skipped; warn is not a failure. A
refused key or signature names the settings to check. doctor creates nothing
('fence init' does) and never touches other domains. Exits 1 when any
check fails (a warning does not). With --json, prints the checks as a
JSON array of {"name", "status" ("ok", "fail", "warn" or "skip"),
"detail"}.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			skip, err := a.unsafeSkipProbe(cmd)
			if err != nil {
				return err
			}
			if skip {
				a.warnUnsafe()
			}
			opts.SkipProbe = skip
			if opts.ProbeCache, err = a.probeCache(); err != nil {
				return err
			}
			if !a.json {
				opts.OnCheck = func(c config.Check) { fmt.Fprintln(a.stdout, checkLine(c)) }
			}
			checks, err := config.Doctor(cmd.Context(), a.resolve(cmd, "store", envStore), a.resolve(cmd, "coord", envCoord), &opts)
			if err != nil {
				return fail(fmt.Errorf("doctor: %w", err))
			}
			if a.json {
				if err := a.printJSON(checks); err != nil {
					return err
				}
			}
			failed := 0
			for _, c := range checks {
				if c.Status == config.StatusFail {
					failed++
				}
			}
			if failed > 0 {
				// len(checks) is the number of rows printed.
				return &exitErr{code: exitError, err: fmt.Errorf("doctor: %d of %d checks failed", failed, len(checks))}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Domain, "domain", "", "scratch `DOMAIN` of the test acquisition (default fence-doctor/<hostname>)")
	f.DurationVar(&opts.Timeout, "timeout", config.DefaultDoctorTimeout, "time limit of each check")
	return cmd
}

// checkLine formats one check: "ok    name (detail)", "FAIL  name:
// detail", "warn  name: detail" or "skip  name: detail".
func checkLine(c config.Check) string {
	switch c.Status {
	case config.StatusOK:
		if c.Detail == "" {
			return "ok    " + c.Name
		}
		return fmt.Sprintf("ok    %s (%s)", c.Name, c.Detail)
	case config.StatusFail:
		return fmt.Sprintf("FAIL  %s: %s", c.Name, c.Detail)
	case config.StatusWarn:
		return fmt.Sprintf("warn  %s: %s", c.Name, c.Detail)
	}
	return fmt.Sprintf("skip  %s: %s", c.Name, c.Detail)
}
