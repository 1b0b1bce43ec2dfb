package memstore_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/memstore"
)

// A write whose reply is lost is applied all the same: the caller sees an
// ambiguous error and must read back to learn the outcome.
func ExampleBackend_SetHook() {
	ctx := context.Background()
	b := memstore.New()
	b.SetHook(memstore.Once(memstore.OpPut, "report", memstore.Fault{DropReply: true}))

	_, err := b.Put(ctx, "report", strings.NewReader("v1"), 2, driver.PutOptions{Mode: driver.Create{}})
	fmt.Println(errors.Is(err, memstore.ErrReplyDropped), errors.Is(err, driver.ErrPreconditionFailed))

	// The retry meets its own earlier write.
	_, err = b.Put(ctx, "report", strings.NewReader("v1"), 2, driver.PutOptions{Mode: driver.Create{}})
	fmt.Println(errors.Is(err, driver.ErrPreconditionFailed))
	fmt.Println(b.Keys(), b.Calls(memstore.OpPut))
	// Output:
	// true false
	// true
	// [report] 2
}
