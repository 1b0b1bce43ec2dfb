package s3store_test

import (
	"context"
	"log"
	"strings"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/s3store"
)

// A fenced store on a MinIO bucket. Credentials come from the AWS chain,
// for example AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.
func Example() {
	ctx := context.Background()
	b, err := s3store.Open(ctx, "reports", "prod", &s3store.Options{
		Endpoint:  "http://127.0.0.1:9000",
		Region:    "us-east-1",
		PathStyle: true,
	})
	if err != nil {
		log.Fatal(err)
	}
	s := objstore.New(b, nil)
	defer s.Close()
	// token comes from the lease that owns domain "monthly".
	const token = 42
	if _, err := s.Put(ctx, "monthly", "2026-11.csv", token, strings.NewReader("a,b\n"), -1); err != nil {
		log.Fatal(err)
	}
}
