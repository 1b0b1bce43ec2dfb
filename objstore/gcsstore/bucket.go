package gcsstore

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"

	"cloud.google.com/go/storage"
)

// BucketExists reports whether the backend's bucket exists, with one
// request. A missing bucket is (false, nil); any other failure (no
// connection, credentials refused) is an error that keeps the SDK's
// error in the chain.
func (b *Backend) BucketExists(ctx context.Context) (bool, error) {
	_, err := b.bucket.Attrs(ctx)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, storage.ErrBucketNotExist), status(err) == http.StatusNotFound:
		return false, nil
	}
	return false, fmt.Errorf("gcsstore: get bucket %q: %w", b.name, err)
}

// EnsureBucket creates the backend's bucket unless it exists; it is
// idempotent. The project is Options.Project, else GOOGLE_CLOUD_PROJECT;
// an emulator takes any. A name taken by another project fails.
func (b *Backend) EnsureBucket(ctx context.Context) error {
	if ok, err := b.BucketExists(ctx); err != nil || ok {
		return err
	}
	project := b.project
	if project == "" {
		project = os.Getenv("GOOGLE_CLOUD_PROJECT")
	}
	if project == "" && b.emulated {
		project = "fence"
	}
	if project == "" {
		return fmt.Errorf("gcsstore: create bucket %q: no project to create it in; set GOOGLE_CLOUD_PROJECT", b.name)
	}
	err := b.bucket.Create(ctx, project, nil)
	if status(err) == http.StatusConflict {
		if ok, _ := b.BucketExists(ctx); ok {
			return nil // created meanwhile, or ours
		}
		return fmt.Errorf("gcsstore: create bucket %q: the name is taken by another project; choose another bucket name: %w", b.name, err)
	}
	if err != nil {
		return fmt.Errorf("gcsstore: create bucket %q: %w", b.name, err)
	}
	return nil
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}
