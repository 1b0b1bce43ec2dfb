package driver

import (
	"context"
	"fmt"
	"strings"
)

// SSEReporter is a backend that asks the store to encrypt what it writes
// (S3's x-amz-server-side-encryption) and can read back what the store
// reports for an object: s3store and miniostore.
type SSEReporter interface {
	// SSE returns the encryption every write asks for ("" for none,
	// "AES256", "aws:kms") and the KMS key id with "aws:kms".
	SSE() (sse, kmsKeyID string)
	// StoredSSE returns the encryption the store reports for key: ""
	// when it reports none, as a store does that accepted the header
	// and stored the object in plaintext.
	StoredSSE(ctx context.Context, key string) (sse, kmsKeyID string, err error)
}

// SSEOf returns the encryption b's writes ask for: SSE of an
// SSEReporter, "" for any other backend.
func SSEOf(b Backend) (sse, kmsKeyID string) {
	if r, ok := b.(SSEReporter); ok {
		return r.SSE()
	}
	return "", ""
}

// StoredSSE returns what the store reports for key, through an
// SSEReporter; any other backend fails with ErrUnsupported.
func StoredSSE(ctx context.Context, b Backend, key string) (sse, kmsKeyID string, err error) {
	if r, ok := b.(SSEReporter); ok {
		return r.StoredSSE(ctx, key)
	}
	return "", "", ErrUnsupported
}

// SSEAsked describes the header a write with sse and kmsKeyID carries.
func SSEAsked(sse, kmsKeyID string) string {
	s := "x-amz-server-side-encryption: " + sse
	if kmsKeyID != "" {
		s += " (KMS key " + kmsKeyID + ")"
	}
	return s
}

// SSEMismatch compares the encryption asked for (want, wantKey) with the
// one the store reports for key (got, gotKey): "" when they agree,
// otherwise what is wrong. A KMS key id may come back as the key's ARN,
// so one that ends with wantKey agrees.
func SSEMismatch(key, want, wantKey, got, gotKey string) string {
	asked := SSEAsked(want, wantKey)
	switch {
	case got == "":
		return fmt.Sprintf("the store accepted a write with %s and reports the object stored without encryption (no x-amz-server-side-encryption on HEAD of %q): it ignores sse=, so fence's objects would be stored in plaintext; use a store that encrypts (MinIO needs a KMS, versitygw's POSIX backend does not encrypt), or drop sse= from the URL", asked, key)
	case got != want:
		return fmt.Sprintf("the URL's sse= asks for %s, the store reports %q for %q", asked, got, key)
	case wantKey != "" && !strings.HasSuffix(gotKey, wantKey):
		return fmt.Sprintf("the URL's sse= asks for %s, the store reports KMS key %q for %q", asked, gotKey, key)
	}
	return ""
}

// probeSSE checks, when b's writes ask for server-side encryption, that
// the store reports the probe object key, just written, stored with it.
func probeSSE(ctx context.Context, b Backend, key string) error {
	want, wantKey := SSEOf(b)
	if want == "" {
		return nil
	}
	got, gotKey, err := StoredSSE(ctx, b, key)
	if err != nil {
		return fmt.Errorf("objstore: capability probe: reading back the server-side encryption of %q: %w", key, err)
	}
	if what := SSEMismatch(key, want, wantKey, got, gotKey); what != "" {
		return fmt.Errorf("%w: %s (at %s)", ErrEncryptionIgnored, what, b.Location())
	}
	return nil
}
