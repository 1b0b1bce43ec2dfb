package main

import (
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fencedstore/fence/coord"
)

// checkDurations refuses, as a usage error naming the flag, a duration
// given on the command line that has no meaning: a --ttl outside
// coord.MinTTL to coord.MaxTTL (0 used to mean the default, 10s), a
// doctor --timeout of 0 or below (it bounds each check), and any other
// negative duration.
func checkDurations(cmd *cobra.Command) error {
	var err error
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if err != nil || f.Value.Type() != "duration" {
			return
		}
		d, perr := time.ParseDuration(f.Value.String())
		if perr != nil {
			return // cobra refused it already
		}
		switch {
		case f.Name == "ttl":
			if d < coord.MinTTL || d > coord.MaxTTL {
				err = usage("--ttl %s: must be between %s and %s", d, coord.MinTTL, coord.MaxTTL)
			}
		case f.Name == "timeout" && cmd.Name() == "doctor":
			if d <= 0 {
				err = usage("--timeout %s: must be above 0 (it bounds each check)", d)
			}
		case d < 0:
			err = usage("--%s %s: must not be negative", f.Name, d)
		}
	})
	return err
}
