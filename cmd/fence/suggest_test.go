package main

import (
	"strings"
	"testing"
)

// An unknown flag or subcommand names the closest one, as git and
// kubectl do; a name far from all of them gets no guess.
func TestSuggestions(t *testing.T) {
	c := newCLI(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"put", "d", "k", "-", "--tokn", "2"}, "unknown flag: --tokn (did you mean --token?)"},
		{[]string{"exec", "d", "--chek-every", "1s", "--", "true"}, "(did you mean --check-every?)"},
		{[]string{"--stor", "x", "ls", "d"}, "(did you mean --store?)"},
		{[]string{"exce", "d"}, `unknown command "exce" for "fence" (did you mean "exec"?)`},
		{[]string{"lease", "brek", "d"}, `unknown command "brek" for "fence lease" (did you mean "break"?)`},
	} {
		r := c.want(exitUsage, "", tc.args...)
		if !strings.Contains(r.stderr, tc.want) {
			t.Errorf("fence %s: stderr %q; want %q", strings.Join(tc.args, " "), r.stderr, tc.want)
		}
	}
	for _, args := range [][]string{{"put", "d", "k", "-", "--zzzzzz"}, {"frobnicate"}} {
		if r := c.want(exitUsage, "", args...); strings.Contains(r.stderr, "did you mean") {
			t.Errorf("fence %s: stderr %q; want no guess", strings.Join(args, " "), r.stderr)
		}
	}
}

func TestLevenshtein(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"tokn", "token", 1}, {"kitten", "sitting", 3}, {"abc", "", 3}, {"flaw", "lawn", 2}, {"exce", "exec", 1}} {
		if d := levenshtein(tc.a, tc.b); d != tc.d {
			t.Errorf("levenshtein(%q, %q) = %d; want %d", tc.a, tc.b, d, tc.d)
		}
	}
}
