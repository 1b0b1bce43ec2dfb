package bench_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/fencedstore/fence/bench"
	"github.com/fencedstore/fence/objstore/memstore"
)

// Run a short benchmark of the put and get cases on the memory backend
// and print the table. Figures vary from run to run, so the example shows
// no output.
func ExampleRun() {
	cfg := bench.Config{
		Backend:    memstore.New(),
		Cases:      []bench.Case{bench.CasePut, bench.CaseGet},
		Iterations: 10,
		PutSizes:   []int64{bench.KiB},
		GetSizes:   []int64{bench.KiB},
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rep, err := bench.Run(ctx, cfg, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	fmt.Print(rep.Table())
}
