package rules_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/fencedstore/fence/rules"
)

func TestRules(t *testing.T) {
	for _, tok := range []uint64{0, rules.MaxToken + 1} {
		var ie *rules.InvalidError
		if err := rules.ValidateToken(tok); !errors.Is(err, rules.ErrInvalid) || !errors.As(err, &ie) || ie.What != "token" {
			t.Errorf("ValidateToken(%d) = %v", tok, err)
		}
	}
	if err := rules.ValidateToken(rules.MaxToken); err != nil {
		t.Errorf("ValidateToken(MaxToken) = %v", err)
	}
	for _, d := range []string{"", "/a", "a/", "a//b", "a/../b", "a/_fence", "a/_fencex/b", "a\nb", strings.Repeat("x", rules.MaxKeyLen+1)} {
		if err := rules.ValidateDomain(d); !errors.Is(err, rules.ErrInvalid) {
			t.Errorf("ValidateDomain(%q) = %v", d, err)
		}
	}
	if err := rules.ValidateKey("k@00000000000000000001-x"); !errors.Is(err, rules.ErrInvalid) {
		t.Errorf("a key shaped like a version suffix: %v", err)
	}
	if err := rules.ValidateDomain("reports/monthly"); err != nil {
		t.Error(err)
	}
	if got := rules.SystemKey("d/e", "lease.json"); got != "d/e/_fence/lease.json" {
		t.Errorf("SystemKey = %q", got)
	}
	if h := rules.DefaultHolder(); h == "" || strings.ContainsAny(h, "\n\x00") {
		t.Errorf("DefaultHolder = %q", h)
	}
}
