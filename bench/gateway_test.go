package bench

import (
	"bytes"
	"context"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/filestore"
	"github.com/fencedstore/fence/objstore/memstore"
	"github.com/fencedstore/fence/s3gw"
)

// TestGatewayCaseSkipsWithoutS3: on a store with no S3 endpoint the
// gateway rows are skipped, each saying why, and the run does not fail.
func TestGatewayCaseSkipsWithoutS3(t *testing.T) {
	cfg := tiny(memstore.New())
	cfg.Cases = []Case{CaseGateway}
	rep, err := Run(t.Context(), cfg, io.Discard)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if len(rep.Rows) != 5 {
		t.Fatalf("%d rows, want 5: %v", len(rep.Rows), rowIDs(rep))
	}
	for _, row := range rep.Rows {
		if row.Fenced.N != 0 || row.Error != "" || !strings.Contains(row.Skipped, "*memstore.Backend store has not; measure with an s3:// or minio:// store") {
			t.Errorf("%s: want skipped for want of an S3 endpoint, got %+v", row.ID, row)
		}
	}
	if table := rep.Table(); !strings.Contains(table, "measure with an s3:// or minio:// store") {
		t.Errorf("the table does not say why the rows were skipped:\n%s", table)
	}
}

// TestGatewayMemoryBound: the bound is the gateway's resident memory
// once serving, plus the Store's part buffers as the Store counts them
// (zero: the default; negative: none), plus the streams' allowance; the
// ratio is the peak over it.
func TestGatewayMemoryBound(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the memory row is measured on Linux only")
	}
	res := childResult{StartRSS: 30 * MiB, ServingRSS: 40 * MiB, PeakRSS: 120 * MiB, Served: time.Second}
	for pb, want := range map[int64]int64{
		0:        40*MiB + objstore.DefaultPartBufferBytes + 4*gatewayStreamAllowance,
		-1:       40*MiB + 4*gatewayStreamAllowance,
		32 * MiB: 40*MiB + 32*MiB + 4*gatewayStreamAllowance,
	} {
		r := newRunner(Config{Backend: memstore.New(), StoreOptions: &objstore.Options{PartBufferBytes: pb}}, io.Discard)
		row := r.gatewayMemoryRow(Row{ID: "m", Metric: metricRSS}, res, 4, nil)
		if row.Bound != want || row.Ratio != float64(120*MiB)/float64(want) || row.Fenced.PeakRSS != 120*MiB || row.Fenced.N != 1 {
			t.Errorf("PartBufferBytes %d: bound %d, ratio %v, want %d, %v; row %+v", pb, row.Bound, row.Ratio, want, float64(120*MiB)/float64(want), row)
		}
		if !strings.Contains(row.Baseline, "bound "+formatBytes(want)) {
			t.Errorf("PartBufferBytes %d: the baseline does not give the bound %s: %s", pb, formatBytes(want), row.Baseline)
		}
	}
	judged := Row{ID: "gateway/multipart/256MiB/memory", Metric: metricRSS, Fenced: Stats{N: 1, PeakRSS: 2}, Bound: 1, Ratio: 2}
	judge(&judged)
	if judged.Target == nil || judged.Target.Met {
		t.Errorf("a peak twice its bound: target %+v, want one not met", judged.Target)
	}
}

// TestGatewayChildOnFilestore runs the gateway child (a child process
// of this test binary) over a file store: a client's put through it is
// published by the child's commit once its standard input ends, and the
// child reports its memory.
func TestGatewayChildOnFilestore(t *testing.T) {
	b, err := filestore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	bs, err := specFor(b)
	if err != nil {
		t.Fatal(err)
	}
	access, secret := s3gw.NewCredentials()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	child, err := startGateway(ctx, childSpec{Op: childGateway, Fenced: true, Backend: bs, Domain: "d", UploadParallelism: 4,
		Gateway: &gatewaySpec{Bucket: s3gw.DefaultBucket, KeyPrefix: "d/", AccessKey: access, Secret: secret}})
	if err != nil {
		t.Fatal(err)
	}
	c := s3Side{
		c:      newS3Client(s3Target{endpoint: child.start.URL, region: s3gw.DefaultRegion, creds: credentials.NewStaticCredentialsProvider(access, secret, "")}, newGatewayHTTPClient()),
		bucket: s3gw.DefaultBucket, prefix: "d/",
	}
	body := []byte("through the gateway")
	putErr := c.put(ctx, "k", body)
	res, err := child.finish()
	if putErr != nil || err != nil {
		t.Fatalf("put: %v; child: %v", putErr, err)
	}
	if res.Bytes != 1 || res.Elapsed <= 0 || res.Served <= 0 {
		t.Errorf("child result %+v: want one value published, its commit timed and how long it served", res)
	}
	if runtime.GOOS == "linux" && (child.start.StartRSS <= 0 || res.PeakRSS < child.start.StartRSS) {
		t.Errorf("child memory: start %d, peak %d; want both, the peak at least the start", child.start.StartRSS, res.PeakRSS)
	}
	rd, err := objstore.New(b, nil).Get(ctx, "d", "k")
	if err != nil {
		t.Fatalf("the put is not published: %v", err)
	}
	defer rd.Close()
	if got, err := io.ReadAll(rd); err != nil || !bytes.Equal(got, body) {
		t.Errorf("published %q, %v; want %q", got, err, body)
	}
}
