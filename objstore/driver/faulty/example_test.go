package faulty_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/faulty"
	"github.com/fencedstore/fence/objstore/memstore"
)

// A write whose reply is lost is applied all the same: the caller sees an
// ambiguous error and must read back to learn the outcome.
func ExampleFault_dropReply() {
	ctx := context.Background()
	mem := memstore.New()
	b := faulty.New(mem)
	b.Add(faulty.Once(faulty.OpPut, "report", faulty.Fault{DropReply: true}))

	_, err := b.Put(ctx, "report", strings.NewReader("v1"), 2, driver.PutOptions{Mode: driver.Create{}})
	fmt.Println(errors.Is(err, faulty.ErrReplyDropped), errors.Is(err, driver.ErrPreconditionFailed))

	// The retry meets its own earlier write.
	_, err = b.Put(ctx, "report", strings.NewReader("v1"), 2, driver.PutOptions{Mode: driver.Create{}})
	fmt.Println(errors.Is(err, driver.ErrPreconditionFailed))
	fmt.Println(mem.Keys(), b.Calls(faulty.OpPut))
	// Output:
	// true false
	// true
	// [report] 2
}
