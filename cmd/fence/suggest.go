package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// suggestFlag adds to pflag's "unknown flag: --tokn" the command's
// closest flag, as git and kubectl do: "(did you mean --token?)".
func suggestFlag(cmd *cobra.Command, err error) error {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return usage("%v", err)
	}
	var names []string
	add := func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	}
	cmd.Flags().VisitAll(add)
	cmd.InheritedFlags().VisitAll(add)
	if best := closest(name, names); best != "" {
		return usage("%v (did you mean --%s?)", err, best)
	}
	return usage("%v", err)
}

// suggestCommand is the Args of a command that only groups others: an
// argument is an unknown subcommand, reported with the closest ones.
func suggestCommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	if best := closest(args[0], names); best != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", best)
	} else if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		msg += fmt.Sprintf(" (did you mean %q?)", s[0]) // cobra's: a prefix ("lea")
	}
	return usage("%s", msg)
}

// closest returns the name nearest to s by edit distance, if it is near
// enough to be a typo: at most 2 edits, and fewer than half of it.
func closest(s string, names []string) string {
	sort.Strings(names)
	best, bestD := "", 3
	for _, n := range names {
		d := levenshtein(s, n)
		if d < bestD && d*2 < len(n) {
			best, bestD = n, d
		}
	}
	return best
}

// levenshtein returns the edit distance between a and b: insertions,
// deletions, substitutions and transpositions of adjacent bytes ("exce"
// is one edit from "exec"), each counting one (optimal string alignment).
func levenshtein(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
