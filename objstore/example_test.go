package objstore_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/memstore"
)

// A holder with token 41 paused past its lease; the holder with token 42
// fenced the domain and wrote. The late write is rejected and readers see
// token 42's bytes.
func Example() {
	ctx := context.Background()
	store := objstore.New(memstore.New(), nil)

	store.Put(ctx, "reports/monthly", "summary.csv", 41, strings.NewReader("from A"), -1)
	store.Fence(ctx, "reports/monthly", 42) // B takes over
	store.Put(ctx, "reports/monthly", "summary.csv", 42, strings.NewReader("from B"), -1)

	_, err := store.Put(ctx, "reports/monthly", "summary.csv", 41, strings.NewReader("late A"), -1)
	var fenced *objstore.FencedError
	if errors.As(err, &fenced) {
		fmt.Printf("rejected: token %d, highest %d\n", fenced.Token, fenced.Highest)
	}
	data, v, _ := store.ReadAll(ctx, "reports/monthly", "summary.csv")
	fmt.Printf("%s (token %d)\n", data, v.Token)
	// Output:
	// rejected: token 41, highest 42
	// from B (token 42)
}
