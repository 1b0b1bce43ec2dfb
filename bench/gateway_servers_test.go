package bench

import (
	"crypto/rand"
	"encoding/hex"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/miniostore"
	"github.com/fencedstore/fence/objstore/s3store"
)

// TestGatewayCaseAgainstServers runs the gateway case alone on a real
// MinIO, through s3store and through miniostore, with a multipart
// upload of three 5 MiB parts: each row has its figures (never a timing
// bound), the commit publishes every value the rows wrote, and the
// bucket is empty afterwards.
func TestGatewayCaseAgainstServers(t *testing.T) {
	ep := os.Getenv(s3EndpointEnv)
	if ep == "" {
		t.Skipf("bench: %s is not set; set it to an S3-compatible endpoint such as http://127.0.0.1:9000 (MinIO), with AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (deploy/local/test.sh does), to run against a real store", s3EndpointEnv)
	}
	ctx := t.Context()
	var rnd [6]byte
	rand.Read(rnd[:])
	bucket := "fence-bench-gw-" + hex.EncodeToString(rnd[:])
	s3b, err := s3store.Open(ctx, bucket, "via-s3", &s3store.Options{Endpoint: ep, Region: "us-east-1", PathStyle: true})
	if err != nil {
		t.Fatal(err)
	}
	client := s3b.Client()
	if _, err := client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatalf("create bucket %s: %v", bucket, err)
	}
	t.Cleanup(func() { removeBucket(t, client, bucket) })
	mb, err := miniostore.Open(ep, bucket, "via-minio", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		b    driver.Backend
	}{{"s3store", s3b}, {"miniostore", mb}} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tiny(tc.b)
			cfg.Cases = []Case{CaseGateway}
			cfg.Iterations = 3
			rep, err := Run(ctx, cfg, io.Discard)
			if err != nil {
				t.Fatalf("Run: %v\n%s", err, rep.Table())
			}
			want := []string{"gateway/put/1KiB", "gateway/put/64KiB", "gateway/multipart/15MiB", "gateway/multipart/15MiB/memory", "gateway/commit"}
			if got := rowIDs(rep); !slicesEqual(got, want) {
				t.Fatalf("rows %v, want %v", got, want)
			}
			put, staged, mp, mem, commit := rep.Rows[0], rep.Rows[1], rep.Rows[2], rep.Rows[3], rep.Rows[4]
			for _, row := range []Row{put, staged, mp} {
				if row.Fenced.N != 3 || row.Plain.N != 3 || row.Ratio <= 0 || row.Fenced.P50 <= 0 || row.Plain.P50 <= 0 || !strings.Contains(row.Baseline, "aws-sdk-go-v2") {
					t.Errorf("%s: want 3 timed calls a side and a ratio, got %+v", row.ID, row)
				}
			}
			if mem.Fenced.PeakRSS <= 0 || mem.Bound <= objstore.DefaultPartBufferBytes+4*gatewayStreamAllowance || mem.Ratio <= 0 || !strings.Contains(mem.Baseline, "PartBufferBytes, 64 MiB") {
				t.Errorf("memory row: want a peak RSS, a bound with the gateway's resident memory once serving and the default part buffers, and a ratio, got %+v", mem)
			}
			// Four puts of each size and four uploads (the three timed
			// ones of each row and its warm-up), and the small upload
			// before the memory row's baseline.
			if commit.Fenced.N != 1 || commit.Fenced.P50 <= 0 || commit.Name != "gateway commit of 13 keys" {
				t.Errorf("commit row: want one commit of 13 keys timed, got %+v", commit)
			}
			// The multipart row reads the CPU of the gateway's process
			// and of the local MinIO, on Linux.
			if runtime.GOOS == "linux" && (mp.Fenced.GatewayCPU <= 0 || mp.Fenced.StoreCPU <= 0 || mp.Plain.StoreCPU <= 0 || mp.Plain.GatewayCPU != 0) {
				t.Errorf("multipart row: want the gateway's CPU on the fenced side and the store's on both, got fenced %+v, plain %+v", mp.Fenced, mp.Plain)
			}
			table := rep.Table()
			for _, s := range []string{put.Name, staged.Name, mp.Name, mem.Name, commit.Name, "bound " + formatBytes(mem.Bound), "CPU per operation of each process on the path"} {
				if !strings.Contains(table, s) {
					t.Errorf("table lacks %q:\n%s", s, table)
				}
			}
			t.Log("\n" + table)
		})
	}
	if keys := listBucket(t, client, bucket); len(keys) != 0 {
		t.Errorf("cleanup left %d objects, for example %q", len(keys), keys[0])
	}
}

func slicesEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
