package main

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/fencedstore/fence/objstore/s3store"
)

// With --plain-copies a put is also at DOMAIN/KEY, where a plain S3
// client reads it, tagged with its commit; sync-plain writes the copies a
// put without the flag did not.
func TestServersPlainCopies(t *testing.T) {
	s3ep, _ := endpoints(t, true, false)
	bucket := unique("fence-cli-plain-")
	removeBucket(t, s3ep, bucket)
	c := newCLI(t)
	c.store = "s3://" + bucket + "?endpoint=" + s3ep + "&path_style=true"
	c.want(0, "", "init")
	token := c.acquire("reports")
	c.want(0, "a,b\n", "--plain-copies", "put", "reports", "daily/summary.csv", "-", "--token", tok(token))
	c.want(0, "quiet\n", "put", "reports", "later.csv", "-", "--token", tok(token))
	b, err := s3store.Open(t.Context(), bucket, "", &s3store.Options{Endpoint: s3ep, PathStyle: true})
	if err != nil {
		t.Fatal(err)
	}
	get := func(key string) (string, map[string]string, error) {
		out, err := b.Client().GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
		if err != nil {
			return "", nil, err
		}
		defer out.Body.Close()
		data, err := io.ReadAll(out.Body)
		return string(data), out.Metadata, err
	}
	got, meta, err := get("reports/daily/summary.csv")
	if err != nil || got != "a,b\n" || meta["fence-domain"] != "reports" || meta["fence-token"] != tok(token) {
		t.Fatalf("plain object = %q %v, %v", got, meta, err)
	}
	if _, _, err := get("reports/later.csv"); err == nil {
		t.Fatal("a put without --plain-copies wrote a plain copy")
	}
	c.want(0, "", "sync-plain", "reports")
	if got, _, err := get("reports/later.csv"); err != nil || got != "quiet\n" {
		t.Fatalf("after sync-plain: %q, %v", got, err)
	}
}

// On a store that keeps no metadata, a put with --plain-copies commits,
// and fails saying the copies could not be made and why.
func TestPlainCopiesNeedMetadata(t *testing.T) {
	c := newCLI(t)
	token := c.acquire("d")
	r := c.want(1, "x", "--plain-copies", "put", "d", "k", "-", "--token", tok(token))
	if !strings.Contains(r.stderr, "landed") || !strings.Contains(r.stderr, "metadata") {
		t.Fatalf("stderr %q does not say the commit landed and why the copy failed", r.stderr)
	}
	if r := c.want(0, "", "get", "d", "k"); r.stdout != "x" {
		t.Fatalf("get = %q", r.stdout)
	}
}
