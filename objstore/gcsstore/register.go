package gcsstore

import (
	"context"
	"errors"

	"google.golang.org/api/googleapi"

	"github.com/fencedstore/fence/config/registry"
	"github.com/fencedstore/fence/objstore/driver"
)

// gs://BUCKET[/PREFIX][?endpoint=URL]: Google Cloud Storage, with
// Application Default Credentials, or an emulator (fake-gcs-server) at
// endpoint, without credentials. A program that imports this package
// (import _ "github.com/fencedstore/fence/objstore/gcsstore") has
// package config open gs:// URLs.
func init() {
	registry.Register("gs", registry.Scheme{
		Form:   "gs://BUCKET[/PREFIX][?endpoint=URL]",
		Params: []string{"endpoint"},
		CredentialsHelp: "fence takes Google Cloud credentials only from Application Default Credentials " +
			"(GOOGLE_APPLICATION_CREDENTIALS, gcloud auth application-default login, the metadata server), never from URLs",
		CheckBucket: CheckBucket,
		Open: func(ctx context.Context, loc registry.Location) (driver.Backend, error) {
			return Open(ctx, loc.Bucket, loc.Prefix, &Options{Endpoint: loc.Endpoint})
		},
		Bucket: func(ctx context.Context, loc registry.Location) (registry.Bucket, error) {
			return Open(ctx, loc.Bucket, "", &Options{Endpoint: loc.Endpoint})
		},
		Reached: func(err error) bool {
			var ge *googleapi.Error
			return errors.As(err, &ge) && ge.Code != 0
		},
	})
}
