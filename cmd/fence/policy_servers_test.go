package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/fencedstore/fence/policy"
)

// fence policy against MinIO: it prints the policy, --check reports it
// missing, and --apply reports that MinIO refuses its condition keys
// (it does, in this version) instead of claiming success.
func TestServersPolicy(t *testing.T) {
	s3ep, _ := endpoints(t, true, false)
	bucket := unique("fence-cli-pol-")
	removeBucket(t, s3ep, bucket)
	c := newCLI(t)
	c.store = "s3://" + bucket + "/tenant?endpoint=" + s3ep + "&path_style=true"
	c.want(0, "", "init")
	var doc policy.Document
	r := c.want(0, "", "policy")
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || len(doc.Statement) != 2 {
		t.Fatalf("policy printed %q (%v)", r.stdout, err)
	}
	r = c.want(1, "", "policy", "--check")
	if !strings.Contains(r.stderr, policy.SidConditionalWrites) {
		t.Errorf("policy --check on a bucket without it: %q", r.stderr)
	}
	r = c.want(1, "", "policy", "--apply")
	if !strings.Contains(r.stderr, "may not support the condition keys") || !strings.Contains(r.stderr, "MalformedPolicy") {
		t.Errorf("policy --apply on MinIO: %q", r.stderr)
	}
	r = c.want(0, "", "--coord", "dynamodb://leases?region=eu-west-1", "policy", "--iam", "writer")
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if !doc.Allows("dynamodb:UpdateItem", "arn:aws:dynamodb:eu-west-1:123456789012:table/leases") || !doc.Allows("s3:PutObject", "arn:aws:s3:::"+bucket+"/tenant/d/_fence/manifest.json") || doc.Allows("s3:PutObject", "arn:aws:s3:::"+bucket+"/other") {
		t.Errorf("writer policy:\n%s", r.stdout)
	}
}

func TestPolicyUsage(t *testing.T) {
	c := newCLI(t)
	r := c.want(2, "", "policy")
	if !strings.Contains(r.stderr, "bucket policies are for s3:// stores") {
		t.Errorf("policy on a file store: %q", r.stderr)
	}
	c.store = "s3://bucket"
	c.want(2, "", "policy", "--apply", "--check")
	c.want(2, "", "policy", "--iam", "writer", "--apply")
	r = c.want(2, "", "policy", "--iam", "admin")
	if !strings.Contains(r.stderr, `--iam "admin": want writer, reader or gc`) {
		t.Errorf("policy --iam admin: %q", r.stderr)
	}
}
