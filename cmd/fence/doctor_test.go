package main

import (
	"fmt"
	"strings"
	"testing"
)

// doctor's summary counts the rows it printed.
func TestDoctorSummaryCountsRows(t *testing.T) {
	c := newCLI(t)
	c.want(0, "", "init")
	c.env = []string{"AWS_ACCESS_KEY_ID=x", "AWS_SECRET_ACCESS_KEY=y", "AWS_REGION=us-east-1"}
	r := c.want(exitError, "", "--coord", "dynamodb://fence-leases?endpoint=http://127.0.0.1:1", "doctor", "--timeout", "3s")
	rows, failed := 0, 0
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		rows++
		if strings.HasPrefix(line, "FAIL") {
			failed++
		}
	}
	if want := fmt.Sprintf("doctor: %d of %d checks failed", failed, rows); !strings.Contains(r.stderr, want) {
		t.Fatalf("stderr %q; want %q after:\n%s", r.stderr, want, r.stdout)
	}
}
