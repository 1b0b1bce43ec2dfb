package filestore_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"strings"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/filestore"
)

func Example() {
	dir, err := os.MkdirTemp("", "filestore-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	ctx := context.Background()
	b, err := filestore.Open(dir)
	if err != nil {
		log.Fatal(err)
	}
	v1, err := b.Put(ctx, "reports/monthly", strings.NewReader("v1"), 2, driver.PutOptions{Mode: driver.Create{}})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := b.Put(ctx, "reports/monthly", strings.NewReader("v2"), 2, driver.PutOptions{Mode: driver.Update{ETag: v1.ETag}}); err != nil {
		log.Fatal(err)
	}
	// A second write from the same stale ETag loses.
	_, err = b.Put(ctx, "reports/monthly", strings.NewReader("v3"), 2, driver.PutOptions{Mode: driver.Update{ETag: v1.ETag}})
	fmt.Println(errors.Is(err, driver.ErrPreconditionFailed))

	rc, _, err := b.Get(ctx, "reports/monthly", driver.GetOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer rc.Close()
	data, _ := io.ReadAll(rc)
	fmt.Println(string(data))
	// Output:
	// true
	// v2
}
