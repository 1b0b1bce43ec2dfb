package bench

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"
)

// Report is the outcome of one Run. It marshals to JSON as is.
type Report struct {
	// Store names the measured backend (its location when it has one).
	Store string `json:"store"`
	// Coordinator names the measured lease coordinator.
	Coordinator string `json:"coordinator"`
	// Plain names the client of the plain baselines.
	Plain string `json:"plain"`
	// Scratch is the prefix the run wrote under and deleted.
	Scratch  string        `json:"scratch"`
	Machine  Machine       `json:"machine"`
	Settings Settings      `json:"settings"`
	Started  time.Time     `json:"started"`
	Elapsed  time.Duration `json:"elapsed_ns"`
	// Rows holds one row per measurement, in the order they ran.
	Rows    []Row   `json:"rows"`
	Cleanup Cleanup `json:"cleanup"`
}

// Row is one fenced operation measured against the plain operation it
// wraps (or, for live-key rows, against the same commit in a smaller
// domain).
type Row struct {
	// ID identifies the row across runs: "put/1KiB", "commit/100x1KiB",
	// "get/64MiB", "lease/acquire", "domains/64", "livekeys/10000",
	// "memory/put/1GiB".
	ID   string `json:"id"`
	Case Case   `json:"case"`
	// Name describes the fenced side.
	Name string `json:"name"`
	// Metric is what Ratio compares: "p50" (latency), "ops/s"
	// (throughput) or "peak RSS".
	Metric string `json:"metric"`
	Fenced Stats  `json:"fenced"`
	// Baseline describes the plain side; Plain holds its figures.
	Baseline string `json:"baseline"`
	Plain    Stats  `json:"plain"`
	// Ratio is fenced over plain of Metric; 0 when either is missing.
	Ratio float64 `json:"ratio"`
	// FloorBaseline describes the row's floor: the bare calls the
	// protocol cannot avoid for the fenced operation, made through the
	// plain side's client in the same interleaved run. Floor holds its
	// figures (the plain side's own when the floor is the plain call).
	// Latency rows only.
	FloorBaseline string `json:"floor_baseline,omitempty"`
	Floor         Stats  `json:"floor,omitzero"`
	// FloorRatio is the fenced p50 over the floor's p50; 0 when either is
	// missing.
	FloorRatio float64 `json:"floor_ratio,omitempty"`
	// Target is the target for this row, if it has one.
	Target *Target `json:"target,omitempty"`
	// FloorTarget judges FloorRatio against the goal for every
	// row with a floor (within 1.2x of it).
	FloorTarget *Target `json:"floor_target,omitempty"`
	// CostTarget judges the client's CPU and allocations per operation
	// against the plain side's, where the issue sets a goal.
	CostTarget *Target `json:"cost_target,omitempty"`
	// Bound is, for a memory row without a plain side, the peak resident
	// memory its fenced side should stay under (the gateway's: its part
	// buffers); Ratio is then the peak over it.
	Bound int64 `json:"bound_bytes,omitempty"`
	// Skipped says why the row was not measured (or has no baseline).
	Skipped string `json:"skipped,omitempty"`
	// Error is the error that stopped the row.
	Error string `json:"error,omitempty"`
}

// Target is a goal the row is judged against. It is informational.
type Target struct {
	Text string `json:"text"` // for example "<= 2.2x"
	Met  bool   `json:"met"`
}

// Machine describes where the run happened.
type Machine struct {
	OS        string `json:"os"`
	Arch      string `json:"arch"`
	CPUs      int    `json:"cpus"`
	MemTotal  int64  `json:"mem_total_bytes,omitempty"`
	GoVersion string `json:"go_version"`
	// LoadAvg is /proc/loadavg's 1, 5 and 15 minute load averages when
	// the run started: other work on the machine skews the figures.
	LoadAvg string `json:"load_avg,omitempty"`
	// Revision is the VCS revision the binary was built from, when the
	// build recorded one ("+dirty" when the tree had changes).
	Revision string `json:"revision,omitempty"`
}

// Settings echoes the configuration a report was measured with.
type Settings struct {
	Cases             []Case        `json:"cases"`
	Iterations        int           `json:"iterations"`
	ByteBudget        int64         `json:"byte_budget"`
	PutSizes          []int64       `json:"put_sizes"`
	GetSizes          []int64       `json:"get_sizes"`
	CommitKeys        int           `json:"commit_keys"`
	CommitKeySize     int64         `json:"commit_key_size"`
	CommitIterations  int           `json:"commit_iterations"`
	UploadParallelism int           `json:"upload_parallelism"`
	Domains           []int         `json:"domains"`
	ThroughputTime    time.Duration `json:"throughput_time_ns"`
	ThroughputRounds  int           `json:"throughput_rounds"`
	LiveKeys          []int         `json:"live_keys"`
	MemorySize        int64         `json:"memory_size"`
	ProcessIterations int           `json:"process_iterations"`

	GatewayMultipartSize   int64 `json:"gateway_multipart_size,omitempty"`
	GatewayPartSize        int64 `json:"gateway_part_size,omitempty"`
	GatewayPartConcurrency int   `json:"gateway_part_concurrency,omitempty"`
}

// Cleanup reports what the run deleted at the end.
type Cleanup struct {
	Deleted int `json:"deleted"`
	// Left lists what could not be deleted, or could not be reached.
	Left  []string `json:"left,omitempty"`
	Error string   `json:"error,omitempty"`
}

// Failed returns the rows that stopped with an error.
func (r Report) Failed() []Row {
	var out []Row
	for _, row := range r.Rows {
		if row.Error != "" {
			out = append(out, row)
		}
	}
	return out
}

// Table renders the report as aligned text: a header naming the store,
// the coordinator and the baseline client, the latency and throughput
// rows, then the memory rows.
func (r Report) Table() string {
	var b strings.Builder
	fmt.Fprintf(&b, "store:       %s\n", r.Store)
	fmt.Fprintf(&b, "coordinator: %s\n", r.Coordinator)
	fmt.Fprintf(&b, "plain:       %s\n", r.Plain)
	fmt.Fprintf(&b, "machine:     %s/%s, %d CPUs", r.Machine.OS, r.Machine.Arch, r.Machine.CPUs)
	if r.Machine.MemTotal > 0 {
		fmt.Fprintf(&b, ", %s memory", formatBytes(r.Machine.MemTotal))
	}
	fmt.Fprintf(&b, ", %s", r.Machine.GoVersion)
	if r.Machine.LoadAvg != "" {
		fmt.Fprintf(&b, ", load average %s at the start", r.Machine.LoadAvg)
	}
	if r.Machine.Revision != "" {
		fmt.Fprintf(&b, ", built from %s", r.Machine.Revision)
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "run:         %s, %s\n\n", r.Started.UTC().Format(time.RFC3339), r.Elapsed.Round(time.Second))

	// Names are padded to one width, so that they read left-aligned in
	// right-aligned columns.
	w := len("case")
	for _, row := range r.Rows {
		w = max(w, len(row.Name))
	}
	name := func(s string) string { return fmt.Sprintf("%-*s", w, s) }

	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\tfenced p50\tp90\tp99\tops/s\tplain p50\tp90\tp99\tops/s\tratio\ttarget\t\tfloor p50\tx floor\t<= %gx\t\n", name("case"), floorLimit)
	var mem, notes, costs []Row
	for _, row := range r.Rows {
		if row.Metric == metricRSS {
			mem = append(mem, row)
			continue
		}
		if row.Error != "" || row.Skipped != "" {
			notes = append(notes, row)
		}
		if row.Error != "" || row.Fenced.N == 0 {
			fmt.Fprintf(tw, "%s\t-\t\t\t\t\t\t\t\t\t\t\t\t\t\t\n", name(row.Name))
			continue
		}
		if row.Fenced.hasCost() {
			costs = append(costs, row)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t", name(row.Name), formatDur(row.Fenced.P50), formatDur(row.Fenced.P90), formatDur(row.Fenced.P99), formatOps(row.Fenced.OpsPerSec))
		if row.Plain.N > 0 {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t", formatDur(row.Plain.P50), formatDur(row.Plain.P90), formatDur(row.Plain.P99), formatOps(row.Plain.OpsPerSec))
		} else {
			fmt.Fprint(tw, "-\t\t\t\t")
		}
		fmt.Fprintf(tw, "%s\t%s\t", formatRatio(row.Ratio), formatTarget(row.Target))
		if row.Floor.N > 0 {
			fmt.Fprintf(tw, "%s\t%s\t%s\t\n", formatDur(row.Floor.P50), formatRatio(row.FloorRatio), formatMet(row.FloorTarget))
		} else {
			fmt.Fprint(tw, "-\t\t\t\n")
		}
	}
	tw.Flush()

	if len(costs) > 0 {
		b.WriteString("\nclient cost per operation (CPU: user + system of the client process; B, allocs: heap allocations)\n")
		tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "%s\tfenced CPU\tB\tallocs\tplain CPU\tB\tallocs\tCPU ratio\tB ratio\ttarget\t\t\n", name("case"))
		for _, row := range costs {
			f, p := row.Fenced, row.Plain
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t", name(row.Name), formatCPU(f.CPU), formatCount(f.AllocBytes), formatCount(f.Allocs))
			if p.hasCost() {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t", formatCPU(p.CPU), formatCount(p.AllocBytes), formatCount(p.Allocs),
					formatRatio(ratio(float64(f.CPU), float64(p.CPU))), formatRatio(ratio(float64(f.AllocBytes), float64(p.AllocBytes))))
			} else {
				fmt.Fprint(tw, "-\t\t\t\t\t")
			}
			fmt.Fprintf(tw, "%s\t\n", formatTarget(row.CostTarget))
		}
		tw.Flush()
	}

	var paths []Row
	for _, row := range costs {
		if row.Fenced.hasPathCPU() {
			paths = append(paths, row)
		}
	}
	if len(paths) > 0 {
		b.WriteString("\nCPU per operation of each process on the path (user + system; the store server's when it listens on this machine; total: on this machine; where both paths keep its cores busy, the latency ratio follows the total ratio)\n")
		tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "%s\tfenced: client\tgateway\tstore\ttotal\tplain: client\tstore\ttotal\ttotal ratio\t\n", name("case"))
		for _, row := range paths {
			f, p := row.Fenced, row.Plain
			ft, pt := f.CPU+f.GatewayCPU+f.StoreCPU, p.CPU+p.StoreCPU
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", name(row.Name), formatCPU(f.CPU), formatCPU(f.GatewayCPU), formatCPU(f.StoreCPU), formatCPU(ft),
				formatCPU(p.CPU), formatCPU(p.StoreCPU), formatCPU(pt), formatRatio(ratio(float64(ft), float64(pt))))
		}
		tw.Flush()
	}

	if len(mem) > 0 {
		b.WriteString("\n")
		tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "%s\tfenced peak RSS\ttime\tplain peak RSS\ttime\tratio\ttarget\t\t\n", name("case"))
		for _, row := range mem {
			if row.Error != "" || row.Skipped != "" {
				notes = append(notes, row)
			}
			if row.Error != "" || row.Fenced.N == 0 {
				fmt.Fprintf(tw, "%s\t-\t\t\t\t\t\t\t\n", name(row.Name))
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t", name(row.Name), formatBytes(row.Fenced.PeakRSS), formatDur(row.Fenced.P50))
			switch {
			case row.Plain.N > 0:
				fmt.Fprintf(tw, "%s\t%s\t", formatBytes(row.Plain.PeakRSS), formatDur(row.Plain.P50))
			case row.Bound > 0:
				fmt.Fprintf(tw, "bound %s\t\t", formatBytes(row.Bound))
			default:
				fmt.Fprint(tw, "-\t\t")
			}
			fmt.Fprintf(tw, "%s\t%s\t\n", formatRatio(row.Ratio), formatTarget(row.Target))
		}
		tw.Flush()
	}

	baselines := map[string]bool{}
	b.WriteString("\nbaselines:\n")
	for _, row := range r.Rows {
		if row.Baseline != "" && !baselines[row.Name] {
			baselines[row.Name] = true
			fmt.Fprintf(&b, "  %s: %s\n", row.Name, row.Baseline)
		}
	}
	floors := map[string]bool{}
	for _, row := range r.Rows {
		if row.FloorBaseline != "" && !floors[row.Name] {
			if len(floors) == 0 {
				b.WriteString("\nfloors (the bare calls the protocol cannot avoid, through the plain side's client):\n")
			}
			floors[row.Name] = true
			fmt.Fprintf(&b, "  %s: %s\n", row.Name, row.FloorBaseline)
		}
	}
	if len(notes) > 0 {
		b.WriteString("\nnotes:\n")
		for _, row := range notes {
			if row.Error != "" {
				fmt.Fprintf(&b, "  %s: error: %s\n", row.Name, row.Error)
			}
			if row.Skipped != "" {
				fmt.Fprintf(&b, "  %s: %s\n", row.Name, row.Skipped)
			}
		}
	}
	fmt.Fprintf(&b, "\ncleanup: deleted %d objects under %s", r.Cleanup.Deleted, r.Scratch)
	for _, l := range r.Cleanup.Left {
		fmt.Fprintf(&b, "; left %s", l)
	}
	if r.Cleanup.Error != "" {
		fmt.Fprintf(&b, "; error: %s", r.Cleanup.Error)
	}
	b.WriteString("\n")
	return b.String()
}

func formatRatio(r float64) string {
	if r == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", r)
}

// formatMet prints whether t is met, or nothing without a target.
func formatMet(t *Target) string {
	switch {
	case t == nil:
		return ""
	case t.Met:
		return "met"
	}
	return "NOT MET"
}

// formatCPU prints a CPU time per operation in microseconds, or in
// milliseconds from 10 ms.
func formatCPU(d time.Duration) string {
	switch {
	case d == 0:
		return "-"
	case d >= 10*time.Millisecond:
		return formatDur(d)
	}
	return fmt.Sprintf("%.0fus", float64(d)/float64(time.Microsecond))
}

// formatCount prints n with a k or M suffix from 10,000: 190k, 1.9M;
// "-" for 0, not measured (a child process's allocations).
func formatCount(n int64) string {
	switch {
	case n == 0:
		return "-"
	case n >= 10_000_000:
		return fmt.Sprintf("%.0fM", float64(n)/1e6)
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%.0fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

func formatTarget(t *Target) string {
	if t == nil {
		return "\t"
	}
	if t.Met {
		return t.Text + "\tmet"
	}
	return t.Text + "\tNOT MET"
}

// formatDur prints d with three significant digits: in milliseconds
// below a second, in seconds from there.
func formatDur(d time.Duration) string {
	ms := float64(d) / float64(time.Millisecond)
	switch {
	case d >= 10*time.Second:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d >= time.Second:
		return fmt.Sprintf("%.2fs", d.Seconds())
	case ms >= 100:
		return fmt.Sprintf("%.0fms", ms)
	case ms >= 10:
		return fmt.Sprintf("%.1fms", ms)
	case ms >= 1:
		return fmt.Sprintf("%.2fms", ms)
	default:
		return fmt.Sprintf("%.3fms", ms)
	}
}

func formatOps(ops float64) string {
	switch {
	case ops == 0:
		return "-"
	case ops >= 100:
		return fmt.Sprintf("%.0f", ops)
	case ops >= 10:
		return fmt.Sprintf("%.1f", ops)
	default:
		return fmt.Sprintf("%.2f", ops)
	}
}

// formatBytes prints n in the largest binary unit that keeps it at least
// 1, without decimals when it is a whole number of that unit.
func formatBytes(n int64) string {
	for _, u := range []struct {
		unit int64
		name string
	}{{GiB, "GiB"}, {MiB, "MiB"}, {KiB, "KiB"}} {
		switch {
		case n < u.unit:
			continue
		case n%u.unit == 0:
			return fmt.Sprintf("%d %s", n/u.unit, u.name)
		default:
			return fmt.Sprintf("%.1f %s", float64(n)/float64(u.unit), u.name)
		}
	}
	return fmt.Sprintf("%d B", n)
}

// sizeID names a size in row IDs: "1KiB", "64MiB", "1GiB", else "1500B".
func sizeID(n int64) string {
	for _, u := range []struct {
		unit int64
		name string
	}{{GiB, "GiB"}, {MiB, "MiB"}, {KiB, "KiB"}} {
		if n >= u.unit && n%u.unit == 0 {
			return fmt.Sprintf("%d%s", n/u.unit, u.name)
		}
	}
	return fmt.Sprintf("%dB", n)
}

// sizeName names a size in row names: "1 KiB", "64 MiB", "1500 B".
func sizeName(n int64) string {
	id := sizeID(n)
	i := strings.IndexFunc(id, func(r rune) bool { return r < '0' || r > '9' })
	return id[:i] + " " + id[i:]
}

// countName prints n with thousands separators: 10,000.
func countName(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
