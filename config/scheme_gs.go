package config

import (
	"context"
	"errors"

	"google.golang.org/api/googleapi"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/gcsstore"
)

// gs://BUCKET[/PREFIX][?endpoint=URL]: Google Cloud Storage through
// objstore/gcsstore, with Application Default Credentials, or an emulator
// (fake-gcs-server) at endpoint, without credentials.
func init() {
	Register("gs", Scheme{
		Form:   "gs://BUCKET[/PREFIX][?endpoint=URL]",
		Params: []string{"endpoint"},
		CredentialsHelp: "fence takes Google Cloud credentials only from Application Default Credentials " +
			"(GOOGLE_APPLICATION_CREDENTIALS, gcloud auth application-default login, the metadata server), never from URLs",
		CheckBucket: gcsstore.CheckBucket,
		Open: func(ctx context.Context, loc Location) (driver.Backend, error) {
			return gcsstore.Open(ctx, loc.Bucket, loc.Prefix, &gcsstore.Options{Endpoint: loc.Endpoint})
		},
		Bucket: func(ctx context.Context, loc Location) (Bucket, error) {
			return gcsstore.Open(ctx, loc.Bucket, "", &gcsstore.Options{Endpoint: loc.Endpoint})
		},
		Reached: func(err error) bool {
			var ge *googleapi.Error
			return errors.As(err, &ge) && ge.Code != 0
		},
	})
}
