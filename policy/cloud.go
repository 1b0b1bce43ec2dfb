package policy

import (
	"fmt"
	"strings"
)

// Permission is one permission (GCS) or action (Azure) a role needs, with
// what fence does with it.
type Permission struct {
	Name string `json:"name"`
	Why  string `json:"why"`
}

// Predefined is a cloud's built-in role that holds every permission a
// fence role needs, and what else it grants.
type Predefined struct {
	Name string `json:"name"`
	Note string `json:"note"`
}

// names returns the names of ps, in order.
func names(ps []Permission) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	return out
}

// pick returns the permissions of catalog named in want, in want's order.
func pick(catalog map[string]string, want ...string) []Permission {
	out := make([]Permission, len(want))
	for i, n := range want {
		why, ok := catalog[n]
		if !ok {
			panic("policy: no reason recorded for " + n) // a programming error in this package
		}
		out[i] = Permission{Name: n, Why: why}
	}
	return out
}

func unknownRole(role Role) error {
	return fmt.Errorf("policy: unknown role %q: want %s", role, roleNames())
}

// where names the store for role descriptions: "gs://b/p".
func where(scheme, bucket, prefix string) string {
	s := scheme + "://" + bucket
	if p := strings.TrimSuffix(cleanPrefix(prefix), "/"); p != "" {
		s += "/" + p
	}
	return s
}
