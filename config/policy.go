package config

import (
	"context"
	"errors"
	"fmt"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/policy"
)

// ErrNotS3 is returned by the policy functions for a store that is not
// an S3 bucket.
var ErrNotS3 = errors.New("config: bucket policies are for s3:// stores")

// BucketPolicy returns fence's bucket policy (policy.Bucket) for the s3://
// (or minio://) store storeURL names; partition is the ARN partition,
// empty for "aws".
func BucketPolicy(storeURL, partition string) (policy.Document, error) {
	loc, err := s3Location(storeURL, true)
	if err != nil {
		return policy.Document{}, err
	}
	return policy.Bucket(partition, loc.Bucket, loc.Prefix), nil
}

// IAMPolicy returns role's least-privilege policy (policy.IAM) for the
// store storeURL names and, when coordURL is a dynamodb:// URL, its table.
func IAMPolicy(role policy.Role, storeURL, coordURL string, t policy.Target) (policy.Document, error) {
	loc, err := s3Location(storeURL, true)
	if err != nil {
		return policy.Document{}, err
	}
	t.Bucket, t.Prefix = loc.Bucket, loc.Prefix
	if coordURL != "" {
		cl, err := ParseURL(coordURL)
		if err != nil {
			return policy.Document{}, err
		}
		switch cl.Scheme {
		case "dynamodb":
			t.Table = cl.Table
			if t.Region == "" {
				t.Region = cl.Region
			}
		case "s3", "minio":
			if cl.Bucket != loc.Bucket || cl.Prefix != loc.Prefix {
				return policy.Document{}, fmt.Errorf("config: lease records in another store (%s): write its policy with --store set to it", Redact(coordURL))
			}
		default:
			return policy.Document{}, fmt.Errorf("config: coordinator %s: IAM policies are for S3 and DynamoDB", Redact(coordURL))
		}
	}
	return policy.IAM(role, t)
}

// ApplyPolicy adds fence's bucket policy statements to the bucket's
// policy (keeping its other statements; policy.Merge), reads the policy
// back, and checks it. It returns the policy now in force.
func ApplyPolicy(ctx context.Context, storeURL, partition string) (policy.Document, error) {
	b, want, err := openPolicyBucket(ctx, storeURL, partition)
	if err != nil {
		return policy.Document{}, err
	}
	defer b.Close()
	raw, err := b.BucketPolicy(ctx)
	if err != nil {
		return policy.Document{}, err
	}
	merged, err := policy.Merge(raw, want)
	if err != nil {
		return policy.Document{}, err
	}
	if err := b.SetBucketPolicy(ctx, string(merged.JSON())); err != nil {
		return policy.Document{}, err
	}
	raw, err = b.BucketPolicy(ctx)
	if err != nil {
		return policy.Document{}, fmt.Errorf("config: reading the policy back: %w", err)
	}
	if err := policy.Check(raw, want); err != nil {
		return policy.Document{}, fmt.Errorf("config: the store accepted the policy but does not report it back intact: %w", err)
	}
	return merged, nil
}

// CheckPolicy reports whether the bucket's policy holds fence's
// statements (policy.Check): nil when it does.
func CheckPolicy(ctx context.Context, storeURL, partition string) error {
	b, want, err := openPolicyBucket(ctx, storeURL, partition)
	if err != nil {
		return err
	}
	defer b.Close()
	raw, err := b.BucketPolicy(ctx)
	if err != nil {
		return err
	}
	return policy.Check(raw, want)
}

// policyBucket is a store with a bucket policy: an s3:// store
// (objstore/s3store).
type policyBucket interface {
	driver.Backend
	Bucket() string
	Prefix() string
	BucketPolicy(ctx context.Context) (string, error)
	SetBucketPolicy(ctx context.Context, doc string) error
}

func openPolicyBucket(ctx context.Context, storeURL, partition string) (policyBucket, policy.Document, error) {
	loc, err := s3Location(storeURL, false)
	if err != nil {
		return nil, policy.Document{}, err
	}
	b, err := open(ctx, loc)
	if err != nil {
		return nil, policy.Document{}, err
	}
	s3b, ok := b.(policyBucket)
	if !ok {
		b.Close()
		return nil, policy.Document{}, fmt.Errorf("%w, not %s", ErrNotS3, Redact(storeURL))
	}
	return s3b, policy.Bucket(partition, loc.Bucket, loc.Prefix), nil
}

// s3Location parses storeURL, which must name an s3:// store (or, when
// minioToo, a minio:// one).
func s3Location(storeURL string, minioToo bool) (Location, error) {
	loc, err := ParseURL(storeURL)
	if err != nil {
		return Location{}, err
	}
	if loc.Scheme == "gs" || loc.Scheme == "azblob" {
		return Location{}, fmt.Errorf("%w, not %s: GCS and Azure have no bucket policy that refuses unconditional writes; fence policy without --apply or --check says what a writer, a reader and gc need there, and --iam ROLE prints a custom role", ErrNotS3, Redact(storeURL))
	}
	if loc.Scheme != "s3" && (!minioToo || loc.Scheme != "minio") {
		return Location{}, fmt.Errorf("%w, not %s", ErrNotS3, Redact(storeURL))
	}
	return loc, nil
}
