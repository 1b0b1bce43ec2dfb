package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/fencedstore/fence/bench"
	"github.com/fencedstore/fence/coord/dynamocoord"
)

func (a *app) benchCmd() *cobra.Command {
	var (
		cases                  string
		putSizes, getSizes     string
		memorySize             string
		iterations, commitKeys int
		processIterations      int
		domains, liveKeys      []int
		writers                []int
		throughputTime         time.Duration
		cli                    string
	)
	def := bench.Defaults()
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure fenced operations side by side with the plain ones they wrap",
		Long: `bench measures, interleaved on the same bucket with the same client, each
fenced operation against the plain operation it wraps (put, multi-key
commit, get, lease acquisition, concurrent domains, concurrent writers in
one domain, commits in large domains, a batch job's cycle, a whole 'fence put' process, peak memory of
a large put and get) and against its floor, the bare calls the protocol
cannot avoid, and prints p50, p90, p99, operations per second, both
ratios, and the client's CPU and allocations per operation. It writes
only under a scratch prefix, fence-bench/<random>/, and deletes it at the
end. See docs/benchmarks.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg := bench.Config{Iterations: iterations, CommitKeys: commitKeys, Domains: domains, Writers: writers, LiveKeys: liveKeys, ThroughputTime: throughputTime,
				ProcessIterations: processIterations, CLI: cli}
			var err error
			if cfg.Cases, err = bench.ParseCases(cases); err != nil {
				return usage("%w", err)
			}
			if cfg.PutSizes, err = parseSizes(putSizes); err != nil {
				return usage("--put-sizes: %w", err)
			}
			if cfg.GetSizes, err = parseSizes(getSizes); err != nil {
				return usage("--get-sizes: %w", err)
			}
			if memorySize != "" {
				sizes, err := parseSizes(memorySize)
				if err != nil || len(sizes) != 1 {
					return usage("--memory-size %q: want one size such as 1GiB", memorySize)
				}
				cfg.MemorySize = sizes[0]
			}
			store, c, closeAll, err := a.open(cmd, allWrites)
			if err != nil {
				return err
			}
			defer closeAll()
			cfg.Backend, cfg.Coordinator = store.Backend(), c
			cfg.StoreURL, cfg.CoordURL = a.resolve(cmd, "store", envStore), a.resolve(cmd, "coord", envCoord)
			if cfg.CLI == "" {
				// The process rows run this binary's own 'fence put'.
				if cfg.CLI, err = os.Executable(); err != nil {
					return fail(fmt.Errorf("bench: find this executable for the process rows (pass --cli): %w", err))
				}
			}
			if dd, ok := c.Driver().(*dynamocoord.Driver); ok {
				cfg.DynamoDB = dd.Client()
			}
			rep, err := bench.Run(cmd.Context(), cfg, a.progressOut())
			if a.json {
				if perr := a.printJSON(rep); perr != nil {
					return perr
				}
			} else {
				fmt.Fprint(a.stdout, rep.Table())
			}
			if err != nil {
				return fail(fmt.Errorf("bench: %w", err))
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&cases, "cases", "all", "comma-separated cases to run: put, commit, get, lease, domains, writers, livekeys, job, process, memory, receipts, gateway")
	f.StringVar(&putSizes, "put-sizes", "", "object sizes of the put rows (default 1KiB,1MiB,64MiB)")
	f.StringVar(&getSizes, "get-sizes", "", "object sizes of the get rows (default 1KiB,64MiB)")
	f.StringVar(&memorySize, "memory-size", "", "object size of the peak-memory rows (default 1GiB)")
	f.IntVar(&iterations, "iterations", 0, fmt.Sprintf("timed iterations of each side of a latency row (default %d)", def.Iterations))
	f.IntVar(&commitKeys, "commit-keys", 0, fmt.Sprintf("keys in the multi-key commit (default %d)", def.CommitKeys))
	f.IntSliceVar(&domains, "domains", nil, fmt.Sprintf("concurrent domains of the throughput rows (default %v)", def.Domains))
	f.IntSliceVar(&writers, "writers", nil, fmt.Sprintf("goroutines of the one-domain throughput rows (default %v)", def.Writers))
	f.IntSliceVar(&liveKeys, "live-keys", nil, fmt.Sprintf("live keys of the large-domain rows (default %v)", def.LiveKeys))
	f.DurationVar(&throughputTime, "throughput-time", 0, fmt.Sprintf("length of each throughput phase (default %s)", def.ThroughputTime))
	f.IntVar(&processIterations, "process-iterations", 0, fmt.Sprintf("timed processes of each side of the process rows (default %d)", def.ProcessIterations))
	f.StringVar(&cli, "cli", "", "fence binary `PATH` the process rows run (default this executable)")
	return cmd
}

// parseSizes parses "1KiB,64MiB,512" into bytes. "" gives nil (defaults).
func parseSizes(s string) ([]int64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []int64
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		unit := int64(1)
		num := part
		for _, u := range []struct {
			suffix string
			n      int64
		}{{"GiB", bench.GiB}, {"MiB", bench.MiB}, {"KiB", bench.KiB}, {"B", 1}} {
			if before, ok := strings.CutSuffix(part, u.suffix); ok {
				num, unit = before, u.n
				break
			}
		}
		var n int64
		if _, err := fmt.Sscan(num, &n); err != nil || n < 0 || fmt.Sprint(n) != num {
			return nil, fmt.Errorf("size %q: want a whole number with an optional KiB, MiB or GiB", part)
		}
		out = append(out, n*unit)
	}
	return out, nil
}
