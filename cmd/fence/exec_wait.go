package main

import (
	"fmt"
	"slices"
	"time"

	"github.com/spf13/pflag"
)

// waitForever is --wait given without a duration.
const waitForever = "forever"

// waitFlag is --wait, the same for exec and lease acquire: alone, wait
// for another holder's lease without a limit; --wait D or --wait=D, wait
// at most D. (lease acquire's older --wait --timeout D still works;
// "true" and "false" are taken too, as the flag was a boolean there.)
type waitFlag struct {
	set bool          // waiting was asked for
	max time.Duration // its bound; 0 without one
}

func (w *waitFlag) String() string {
	switch {
	case !w.set:
		return ""
	case w.max == 0:
		return waitForever
	}
	return w.max.String()
}

func (w *waitFlag) Set(s string) error {
	switch s {
	case waitForever, "true":
		*w = waitFlag{set: true}
		return nil
	case "false":
		*w = waitFlag{}
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return fmt.Errorf("want a positive duration (--wait 10m), or --wait alone to wait without a limit")
	}
	*w = waitFlag{set: true, max: d}
	return nil
}

func (*waitFlag) Type() string { return "duration" }

// addWaitFlag defines --wait on f.
func addWaitFlag(f *pflag.FlagSet, w *waitFlag) {
	f.Var(w, "wait", "wait for another holder's lease to end instead of exiting 4: at most `DURATION` when given (--wait 10m or --wait=10m), without a limit alone")
	f.Lookup("wait").NoOptDefVal = waitForever
}

// takeArg gives the bound of a `--wait D` spelled as two words back to
// the flag. pflag takes a --wait with no "=" as --wait alone (it has an
// optional value), so D ends up among the arguments: for each "--wait"
// of cmdline (the whole command line, up to its "--") followed by a word
// that reads as a duration, that duration is the flag's value and the
// word is removed from args. args are the positional arguments before
// "--"; the result is a new slice.
func (w *waitFlag) takeArg(cmdline, args []string) ([]string, error) {
	args = slices.Clone(args)
	for i, word := range cmdline {
		if word == "--" {
			break
		}
		if word != "--wait" || i+1 >= len(cmdline) {
			continue
		}
		next := cmdline[i+1]
		if _, err := time.ParseDuration(next); err != nil {
			continue // a flag, "--" or an argument
		}
		j := slices.Index(args, next)
		if j < 0 {
			continue // taken as another flag's value
		}
		if err := w.Set(next); err != nil {
			return nil, usage("--wait %s: %v", next, err)
		}
		args = slices.Delete(args, j, j+1)
	}
	return args, nil
}
