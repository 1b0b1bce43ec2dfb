package memstore_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/memstore"
)

// Create writes only where no object is; Keys lists what is stored.
func ExampleNew() {
	ctx := context.Background()
	b := memstore.New()
	_, err := b.Put(ctx, "report", strings.NewReader("v1"), 2, driver.PutOptions{Mode: driver.Create{}})
	fmt.Println(err)
	_, err = b.Put(ctx, "report", strings.NewReader("v2"), 2, driver.PutOptions{Mode: driver.Create{}})
	fmt.Println(errors.Is(err, driver.ErrPreconditionFailed))
	fmt.Println(b.Keys())
	// Output:
	// <nil>
	// true
	// [report]
}
