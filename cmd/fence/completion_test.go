package main

import (
	"strings"
	"testing"
)

// fence completion SHELL prints a completion script for bash, zsh and
// fish (it used to be disabled).
func TestCompletion(t *testing.T) {
	c := newCLI(t)
	for shell, want := range map[string]string{"bash": "complete -o default -F __start_fence fence", "zsh": "#compdef fence", "fish": "complete -c fence"} {
		if r := c.want(0, "", "completion", shell); !strings.Contains(r.stdout, want) {
			t.Errorf("completion %s: stdout does not contain %q:\n%.300s", shell, want, r.stdout)
		}
	}
}
