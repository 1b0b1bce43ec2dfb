package miniostore

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/internal/s3test"
)

// BenchmarkOnePutOrParts measures, for bodies between the part size
// (16 MiB) and SinglePutMax, the two ways Put could send them: one
// signed PutObject (putHeld for a body in memory, putStreamed for a
// file) and a multipart upload of concurrent parts (putConcurrent),
// interleaved, and reports each one's median. doc.go has the figures
// that chose the concurrent parts. Run it with
//
//	go test -run '^$' -bench OnePutOrParts -benchtime 15x ./objstore/miniostore/
func BenchmarkOnePutOrParts(b *testing.B) {
	s3test.EachServer(b, "miniostore", func(b *testing.B, srv s3test.Server) {
		ep, opts := testEndpoint(srv)
		bk := newBucket(b, ep, "", opts)
		for _, mib := range []int{20, 24, 32, 48, 64} {
			data := randomBytes(mib << 20)
			file := filepath.Join(b.TempDir(), "body")
			if err := os.WriteFile(file, data, 0o600); err != nil {
				b.Fatal(err)
			}
			f, err := os.Open(file)
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			size := int64(len(data))
			put := driver.PutOptions{}
			paths := []struct {
				name string
				put  func() error
			}{
				{"memory-one-put", func() error {
					mem := bytes.NewReader(data)
					dg := driver.DigestOf(data)
					_, err := bk.putHeld(b.Context(), "k", mem, size, dg.SHA256, put)
					return err
				}},
				{"memory-parts", func() error {
					_, _, err := bk.putConcurrent(b.Context(), "k", &memParts{r: bytes.NewReader(data), size: size}, size, put, true)
					return err
				}},
				{"file-one-put", func() error {
					f.Seek(0, 0)
					_, _, err := bk.putStreamed(b.Context(), "k", f, size, put, true)
					return err
				}},
				{"file-parts", func() error {
					_, n := bk.concurrentParts(size)
					_, _, err := bk.putConcurrent(b.Context(), "k", newBufParts(f, 0, size, n, bk.partConc, true), size, put, true)
					return err
				}},
			}
			b.Run(fmt.Sprintf("%dMiB", mib), func(b *testing.B) {
				times := make([][]time.Duration, len(paths))
				for b.Loop() {
					for i, p := range paths {
						t0 := time.Now()
						if err := p.put(); err != nil {
							b.Fatal(err)
						}
						times[i] = append(times[i], time.Since(t0))
					}
				}
				for i, p := range paths {
					slices.Sort(times[i])
					b.ReportMetric(float64(times[i][len(times[i])/2].Microseconds())/1000, p.name+"-ms-p50")
				}
			})
		}
	})
}
