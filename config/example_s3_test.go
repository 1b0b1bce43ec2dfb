package config_test

import (
	"context"
	"fmt"
	"log"

	"github.com/fencedstore/fence/config"
	// Each backend registers its scheme with config when imported: a
	// program links only the backends it imports. file:// and mem:// are
	// built in. The others: objstore/miniostore (minio://),
	// objstore/gcsstore (gs://), objstore/azblobstore (azblob://) and
	// coord/dynamocoord (a dynamodb:// coordinator).
	_ "github.com/fencedstore/fence/objstore/s3store"
)

// reportsURL is an S3 bucket behind a local endpoint; opening it sends
// no request.
const reportsURL = "s3://reports/monthly?endpoint=http://127.0.0.1:9000&region=us-east-1&path_style=true"

// Open an s3:// store: the program imports objstore/s3store for its side
// effect. Without that import, Open fails with a message that names the
// import line to add.
func ExampleOpen_s3() {
	o, err := config.Open(context.Background(), reportsURL, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer o.Close()
	fmt.Println(o.Store.Backend().Location())
	// Output: s3://reports/monthly@http://127.0.0.1:9000
}
