package policy_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/fencedstore/fence/policy"
)

func TestBucketPolicyShape(t *testing.T) {
	d := policy.Bucket("", "reports", "/tenant/")
	var back map[string]any
	if err := json.Unmarshal(d.JSON(), &back); err != nil {
		t.Fatal(err)
	}
	if back["Version"] != "2012-10-17" || len(d.Statement) != 2 {
		t.Fatalf("policy = %s", d.JSON())
	}
	for _, s := range d.Statement {
		if s.Effect != "Deny" || s.Principal != "*" || len(s.Action) != 1 || s.Action[0] != "s3:PutObject" || s.Condition["Bool"]["s3:ObjectCreationOperation"] != "true" {
			t.Errorf("statement %s = %+v", s.Sid, s)
		}
		for _, r := range s.Resource {
			if !strings.HasPrefix(r, "arn:aws:s3:::reports/tenant/") {
				t.Errorf("statement %s: resource %s outside the prefix", s.Sid, r)
			}
		}
	}
	for _, k := range []struct {
		key      string
		covered  bool
		writeOne bool
	}{
		{"tenant/reports/daily/_fence/manifest.json", true, false},
		{"tenant/d/_fence/lease.json", true, false},
		{"tenant/d/_fence/floor.json", true, false},
		{"tenant/_fence/probe/x", true, false},
		{"tenant/a/b/_fence/v/k@00000000000000000001-x", true, true},
		{"tenant/d/_fence/s/0001-x", true, true},
		{"tenant/d/report.csv", false, false}, // a plain copy, or the user's own object
		{"other/d/_fence/manifest.json", false, false},
	} {
		arn := "arn:aws:s3:::reports/" + k.key
		covered := false
		for _, r := range d.Statement[0].Resource {
			covered = covered || policy.Match(r, arn)
		}
		writeOnce := false
		for _, r := range d.Statement[1].Resource {
			writeOnce = writeOnce || policy.Match(r, arn)
		}
		if covered != k.covered || writeOnce != k.writeOne {
			t.Errorf("%s: conditional writes required %v, If-None-Match required %v; want %v, %v", k.key, covered, writeOnce, k.covered, k.writeOne)
		}
	}
}

func TestCheckAndMerge(t *testing.T) {
	want := policy.Bucket("", "b", "")
	if err := policy.Check("", want); err == nil || !strings.Contains(err.Error(), "no policy") {
		t.Errorf("Check of no policy = %v", err)
	}
	other := `{"Version":"2012-10-17","Statement":[{"Sid":"Theirs","Effect":"Allow","Principal":{"AWS":"arn:aws:iam::1:root"},"Action":"s3:GetObject","Resource":"arn:aws:s3:::b/*"}]}`
	if err := policy.Check(other, want); err == nil || !strings.Contains(err.Error(), policy.SidConditionalWrites+" is missing") {
		t.Errorf("Check without fence's statements = %v", err)
	}
	merged, err := policy.Merge(other, want)
	if err != nil {
		t.Fatal(err)
	}
	if len(merged.Statement) != 3 || merged.Statement[0].Sid != "Theirs" {
		t.Fatalf("Merge = %s", merged.JSON())
	}
	if err := policy.Check(string(merged.JSON()), want); err != nil {
		t.Errorf("Check after Merge = %v", err)
	}
	// As S3 may return it: single values as strings, the principal as
	// {"AWS": "*"}, condition keys in another case.
	s3form := strings.NewReplacer(`"Principal": "*"`, `"Principal": {"AWS": "*"}`, `"s3:ObjectCreationOperation"`, `"s3:objectcreationoperation"`).Replace(string(want.JSON()))
	if err := policy.Check(s3form, want); err != nil {
		t.Errorf("Check of the policy as S3 returns it = %v", err)
	}
	// Merging again replaces fence's statements instead of adding them.
	again, err := policy.Merge(string(merged.JSON()), want)
	if err != nil || len(again.Statement) != 3 {
		t.Errorf("Merge twice = %d statements, %v", len(again.Statement), err)
	}
	// A weakened statement is reported.
	weak := strings.Replace(string(merged.JSON()), `"s3:if-none-match": "true"`, `"s3:if-none-match": "false"`, 1)
	if err := policy.Check(weak, want); err == nil || !strings.Contains(err.Error(), "differs") {
		t.Errorf("Check of a weakened statement = %v", err)
	}
	if _, err := policy.Merge("not json", want); err == nil {
		t.Error("Merge of a corrupt policy succeeded")
	}
}

func TestIAMRoles(t *testing.T) {
	for _, r := range policy.Roles {
		d, err := policy.IAM(r, policy.Target{Bucket: "b", Prefix: "p", Table: "t"})
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range d.Actions() {
			if strings.Contains(a, "*") {
				t.Errorf("%s: wildcard action %s", r, a)
			}
		}
		if d.Allows("s3:GetObject", "arn:aws:s3:::b/q/x") {
			t.Errorf("%s: allows reads outside the prefix", r)
		}
	}
	if _, err := policy.IAM("admin", policy.Target{Bucket: "b"}); err == nil {
		t.Error("an unknown role was accepted")
	}
}
