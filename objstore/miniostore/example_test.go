package miniostore_test

import (
	"context"
	"log"
	"strings"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/miniostore"
)

// A fenced store on a MinIO bucket. Credentials come from the
// environment, for example MINIO_ROOT_USER and MINIO_ROOT_PASSWORD.
func Example() {
	ctx := context.Background()
	b, err := miniostore.Open("http://127.0.0.1:9000", "reports", "prod", &miniostore.Options{Region: "us-east-1"})
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
