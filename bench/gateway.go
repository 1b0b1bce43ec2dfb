package bench

import (
	"context"
	"fmt"
	"runtime"

	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/miniostore"
	"github.com/fencedstore/fence/objstore/s3store"
	"github.com/fencedstore/fence/s3gw"
)

// gatewayPutSize is the size of the gateway case's small put: a value
// the commit keeps inline, which the gateway holds until the commit.
const gatewayPutSize = KiB

// gatewayStagedPutSize is the size of its larger put, above the Store's
// default InlineMax: a value the gateway stages as it arrives.
const gatewayStagedPutSize = 64 * KiB

// gatewayStreamAllowance is what the memory row's bound allows each
// concurrent part stream for its HTTP and decoding buffers and its
// hashing: a round figure above one run's measure (with
// PartBufferBytes negative, so that no part was kept, the gateway of a
// 256 MiB upload in 16 MiB parts, 4 at a time, peaked 6.3 MiB above
// its resident memory once serving).
const gatewayStreamAllowance = 2 * MiB

// gatewayCase measures a job's S3 client writing through the S3 gateway
// (package s3gw) as fence exec --s3 serves it: CommitAtEnd, plain HTTP
// on loopback, in a process of its own (a bench child, over the same
// backend with the same Store options), against the same client writing
// straight to the store's S3 endpoint. The client is aws-sdk-go-v2 with
// its default options, made once for each endpoint on one shared HTTP
// client. Five rows:
//
//   - a PutObject of 1 KiB, interleaved with the same PutObject straight
//     to the store, Config.Iterations times; each writes a new key, as a
//     job writes its outputs. The gateway holds each one until the
//     commit, which keeps it inline (s3gw's hold.go), so the put sends
//     nothing to the store: its cost moves to the commit row;
//   - the same with 64 KiB, which the gateway stages as it arrives (a
//     version object written during the put);
//   - a multipart upload of Config.GatewayMultipartSize in parts of
//     Config.GatewayPartSize, Config.GatewayPartConcurrency at a time,
//     interleaved likewise, as many times as Config.ByteBudget allows
//     (at least 5, at most Config.Iterations);
//   - the gateway process's peak resident memory (VmHWM) over the rows,
//     against its bound: its resident memory once it has served the put
//     rows and a small multipart upload (markServing), plus the
//     Store's part buffers (objstore.Options.PartBufferBytes), plus
//     gatewayStreamAllowance per concurrent part;
//   - the one commit, in the gateway's process, that publishes every
//     value the rows wrote through it: the job's commit at its end.
//     It has no plain side.
//
// The case needs an S3 endpoint to compare with: on other stores its
// rows are skipped.
func (r *runner) gatewayCase(ctx context.Context) []Row {
	cfg := r.cfg
	size, part, conc := cfg.GatewayMultipartSize, cfg.GatewayPartSize, cfg.GatewayPartConcurrency
	how := func(size int64) string {
		if r.inlined(1, size) {
			return " (held)"
		}
		return " (staged)"
	}
	put := Row{ID: "gateway/put/" + sizeID(gatewayPutSize), Name: "gateway put " + sizeName(gatewayPutSize) + how(gatewayPutSize), Metric: metricP50}
	putStaged := Row{ID: "gateway/put/" + sizeID(gatewayStagedPutSize), Name: "gateway put " + sizeName(gatewayStagedPutSize) + how(gatewayStagedPutSize), Metric: metricP50}
	mp := Row{ID: "gateway/multipart/" + sizeID(size), Name: fmt.Sprintf("gateway multipart %s (%s parts, %d at a time)", sizeName(size), sizeName(part), conc), Metric: metricP50}
	mem := Row{ID: mp.ID + "/memory", Name: fmt.Sprintf("gateway multipart %s, the gateway's peak RSS", sizeName(size)), Metric: metricRSS}
	commit := Row{ID: "gateway/commit", Name: "gateway commit of the rows' keys", Metric: metricP50}
	rows := []Row{put, putStaged, mp, mem, commit}
	switch cfg.Backend.(type) {
	case *s3store.Backend, *miniostore.Backend:
	default:
		for i := range rows {
			rows[i].Skipped = fmt.Sprintf("the gateway rows compare a client through the gateway with the same client straight to the store's S3 endpoint, which a %T store has not; measure with an s3:// or minio:// store", cfg.Backend)
		}
		return rows
	}
	direct, err := storeTarget(ctx, cfg.Backend)
	if err != nil {
		return errRows(err, rows...)
	}
	bs, err := specFor(cfg.Backend)
	if err != nil {
		return errRows(err, rows...)
	}
	access, secret := s3gw.NewCredentials()
	domain := r.domain("gateway")
	gwPrefix := direct.prefix + domain + "/"
	child, err := startGateway(ctx, childSpec{
		Op: childGateway, Fenced: true, Backend: bs, Domain: domain,
		UploadParallelism: r.par, SkipProbe: r.so.SkipProbe, PartBufferBytes: r.so.PartBufferBytes,
		InlineMax: r.so.InlineMax, InlineBudget: r.so.InlineBudget,
		Gateway: &gatewaySpec{Bucket: direct.bucket, KeyPrefix: gwPrefix, AccessKey: access, Secret: secret},
	})
	if err != nil {
		return errRows(err, rows...)
	}
	fmt.Fprintf(r.out, "bench: gateway serving %s in a child process\n", child.start.URL)
	hc := newGatewayHTTPClient()
	gw := s3Side{
		c:      newS3Client(s3Target{endpoint: child.start.URL, region: s3gw.DefaultRegion, creds: credentials.NewStaticCredentialsProvider(access, secret, "")}, hc),
		bucket: direct.bucket, prefix: gwPrefix,
	}
	st := s3Side{c: newS3Client(direct, hc), bucket: direct.bucket, prefix: direct.prefix}
	// Key i+1 of each kind: the warm-up (i = -1) writes key 0.
	key := func(kind string, i int) string { return fmt.Sprintf("%s/%d", kind, i+1) }

	var data payloads
	puts := func(kind string, size int64) ([]sideResult, error) {
		body := data.get(size)
		return r.interleaveSides(ctx, cfg.Iterations,
			side{op: func(ctx context.Context, i int) error { return gw.put(ctx, key(kind, i), body) }},
			side{op: func(ctx context.Context, i int) error { return st.put(ctx, r.plainKey("gateway", key(kind, i)), body) }},
		)
	}
	putRes, putErr := puts("put", gatewayPutSize)
	stagedRes, stagedErr := puts("put-staged", gatewayStagedPutSize)
	// The memory row's baseline: the gateway's memory once it has served
	// puts and a small multipart upload, its parts in order (none kept).
	servingRSS, markErr := int64(0), ctx.Err()
	if markErr == nil {
		if markErr = gw.multipart(ctx, key("mp-warm", -1), objstore.MinPartSize+KiB, objstore.MinPartSize, 1, &data); markErr == nil {
			servingRSS, markErr = child.servingRSS()
		}
	}
	rounds := cfg.iterations(size)
	var mpRes []sideResult
	mpErr := markErr
	// The multipart row also reads the CPU of the processes on each
	// path: the gateway's, and the store's when it is local.
	storePID := loopbackListener(direct.endpoint)
	gwCPU := &pathCPU{gatewayPID: child.cmd.Process.Pid, storePID: storePID}
	stCPU := &pathCPU{storePID: storePID}
	if mpErr == nil {
		fmt.Fprintf(r.out, "bench: gateway multipart: %d uploads of %s each way, and one warm-up\n", rounds, sizeName(size))
		mpRes, mpErr = r.interleaveSides(ctx, rounds,
			side{op: func(ctx context.Context, i int) error {
				return gwCPU.measure(i, func() error { return gw.multipart(ctx, key("mp", i), size, part, conc, &data) })
			}},
			side{op: func(ctx context.Context, i int) error {
				return stCPU.measure(i, func() error {
					return st.multipart(ctx, r.plainKey("gateway", key("mp", i)), size, part, conc, &data)
				})
			}},
		)
	}
	res, finErr := child.finish()
	res.StartRSS, res.ServingRSS = child.start.StartRSS, servingRSS

	base := fmt.Sprintf("the same aws-sdk-go-v2 client (its default options and request checksums, path style, one HTTP client for both sides) straight to the store's S3 endpoint, %s", direct.describeEndpoint())
	putBase := func(size int64) string {
		if r.inlined(1, size) {
			return base + ": one PutObject of the same bytes, a new key each time on both sides; the gateway holds the value until the commit, which keeps it inline, so its put sends nothing to the store"
		}
		return base + ": one PutObject of the same bytes, a new key each time on both sides; the gateway stages the value, a version object written during the put"
	}
	if putErr != nil {
		rows[0] = errRows(putErr, put)[0]
	} else {
		rows[0] = latencyStatsRow(put.ID, put.Name, putBase(gatewayPutSize), putRes[0].stats(), putRes[1].stats())
	}
	if stagedErr != nil {
		rows[1] = errRows(stagedErr, putStaged)[0]
	} else {
		rows[1] = latencyStatsRow(putStaged.ID, putStaged.Name, putBase(gatewayStagedPutSize)+"; no target", stagedRes[0].stats(), stagedRes[1].stats())
	}
	if mpErr != nil {
		rows[2] = errRows(mpErr, mp)[0]
	} else {
		fenced, plain := mpRes[0].stats(), mpRes[1].stats()
		gwCPU.perOp(&fenced)
		stCPU.perOp(&plain)
		rows[2] = latencyStatsRow(mp.ID, mp.Name, fmt.Sprintf("%s: the same CreateMultipartUpload, %d UploadParts (%d at a time, started in order) and CompleteMultipartUpload, a new key each time on both sides",
			base, (size+part-1)/part, conc), fenced, plain)
	}
	if finErr != nil {
		rows[3], rows[4] = errRows(finErr, mem)[0], errRows(finErr, commit)[0]
		return rows
	}
	rows[3] = r.gatewayMemoryRow(mem, res, conc, mpErr)
	rows[4] = commit
	rows[4].Name = fmt.Sprintf("gateway commit of %s keys", countName(int(res.Bytes)))
	rows[4].Baseline = "none: the one commit, in the gateway's process, that publishes every value the rows above wrote through the gateway (the job's commit at its end): it reads the manifest, checks each staged value's receipt with a HEAD, keeps the held values inline (moving them to a pack object past the manifest's inline budget) and writes the manifest; no plain side, no target"
	if want := int64(4 + 2*cfg.Iterations + rounds); putErr == nil && stagedErr == nil && mpErr == nil && res.Bytes != want {
		return append(rows[:4], errRows(fmt.Errorf("bench: the gateway's commit published %d values, want %d", res.Bytes, want), rows[4])[0])
	}
	rows[4].Fenced = Stats{N: 1, P50: res.Elapsed, P90: res.Elapsed, P99: res.Elapsed, OpsPerSec: ratio(1, res.Elapsed.Seconds())}
	return rows
}

// gatewayMemoryRow is the gateway's peak resident memory, from its
// child's result, against its bound.
func (r *runner) gatewayMemoryRow(row Row, res childResult, conc int, mpErr error) Row {
	switch {
	case runtime.GOOS != "linux":
		row.Skipped = "peak RSS is read from /proc/self/status (VmHWM), which only Linux has"
		return row
	case mpErr != nil:
		row.Skipped = "the multipart row failed"
		return row
	}
	buffers := r.so.PartBufferBytes
	switch {
	case buffers == 0:
		buffers = objstore.DefaultPartBufferBytes
	case buffers < 0:
		buffers = 0
	}
	streams := int64(conc) * gatewayStreamAllowance
	row.Bound = res.ServingRSS + buffers + streams
	row.Baseline = fmt.Sprintf("none; the bound %s is the gateway process's resident memory once it has served the put rows and a small multipart upload in order, after a garbage collection (%s; %s at its start), plus the Store's part buffers (objstore.Options.PartBufferBytes, %s), plus %s for each of the %d concurrent part streams (an allowance for their HTTP and decoding buffers and hashing, %s); the peak is the gateway process's VmHWM over the gateway rows, the time how long it served them; ratio: the peak over the bound",
		formatBytes(row.Bound), formatBytes(res.ServingRSS), formatBytes(res.StartRSS), formatBytes(buffers), formatBytes(gatewayStreamAllowance), conc, formatBytes(streams))
	row.Fenced = Stats{N: 1, P50: res.Served, P90: res.Served, P99: res.Served, OpsPerSec: ratio(1, res.Served.Seconds()), PeakRSS: res.PeakRSS}
	row.Ratio = ratio(float64(res.PeakRSS), float64(row.Bound))
	return row
}
