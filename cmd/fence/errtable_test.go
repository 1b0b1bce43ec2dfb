package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/objstore"
)

// TestExitCodesMatchErrorTable checks the exit column of the error table
// in the fence package's documentation (doc.go at the module root)
// against the exit code each situation's error gets.
func TestExitCodesMatchErrorTable(t *testing.T) {
	errs := map[string]error{
		"fenced":   fmt.Errorf("put: %w", &objstore.FencedError{Domain: "d", Token: 1, Highest: 2}),
		"lost":     fmt.Errorf("fence: commit in %q with token 1: the session has ended, nothing was written: %w", "d", coord.ErrLeaseLost),
		"unknown":  fmt.Errorf("put: %w", &objstore.UnknownOutcomeError{Domain: "d", CommitID: "c", Token: 1, Err: errors.New("timeout")}),
		"released": fmt.Errorf("fence: commit: %w", coord.ErrReleased),
		"held":     &coord.HeldError{Domain: "d", Holder: "B", Token: 2},
		"invalid":  &objstore.InvalidError{What: "key", Value: "a//b", Reason: "empty segment"},
	}
	src, err := os.ReadFile("../../doc.go")
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	for line := range strings.Lines(string(src)) {
		line, ok := strings.CutPrefix(strings.TrimRight(line, "\n"), "//\t")
		cells := strings.Split(line, "|")
		if !ok || len(cells) != 4 || strings.TrimSpace(cells[0]) == "situation" {
			continue
		}
		rows++
		situation := strings.TrimSpace(cells[0])
		want, err := strconv.Atoi(strings.TrimSpace(cells[3]))
		if err != nil {
			t.Fatalf("%s: exit %q: %v", situation, cells[3], err)
		}
		e, ok := errs[situation]
		if !ok {
			t.Errorf("situation %q has no error in this test", situation)
			continue
		}
		if got := exitCode(fail(e)); got != want {
			t.Errorf("%s: exit %d, the table says %d", situation, got, want)
		}
	}
	if rows != len(errs) {
		t.Errorf("the table has %d rows, the test knows %d situations", rows, len(errs))
	}
}
