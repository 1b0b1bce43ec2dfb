package objstore_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/faulty"
	"github.com/fencedstore/fence/objstore/memstore"
)

// hashing adds driver.HashingPutter to a backend, as s3store has it.
type hashing struct {
	*faulty.Backend
	calls *atomic.Int64 // PutHashed calls, when set
}

func (h hashing) PutHashed(ctx context.Context, key string, body io.Reader, size int64, opts driver.PutOptions) (driver.ObjectInfo, driver.Digest, error) {
	if h.calls != nil {
		h.calls.Add(1)
	}
	data, err := io.ReadAll(body)
	if err != nil {
		return driver.ObjectInfo{}, driver.Digest{}, err
	}
	info, err := h.Put(ctx, key, bytes.NewReader(data), size, opts)
	if err != nil && !errors.Is(err, driver.ErrPreconditionFailed) {
		return info, driver.Digest{}, err
	}
	return info, driver.Digest{Known: true, Size: int64(len(data)), SHA256: sha256.Sum256(data)}, err
}

// TestVersionUploadReplyLost: a version upload whose reply was lost is
// sent again and answered 412, since the object exists. The commit
// accepts the object as its own only if it holds the same bytes, with
// the body's digest from the backend (a HashingPutter) or its own.
func TestVersionUploadReplyLost(t *testing.T) {
	value := strings.Repeat("a value too large to be kept inline. ", 200)
	for _, tc := range []struct {
		name string
		wrap func(*faulty.Backend) driver.Backend
	}{
		{"Put", func(b *faulty.Backend) driver.Backend { return b }},
		{"PutHashed", func(b *faulty.Backend) driver.Backend { return hashing{Backend: b} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, other := range []bool{false, true} {
				ctx := context.Background()
				fb := faulty.New(memstore.New())
				s := objstore.New(tc.wrap(fb), &objstore.Options{SkipProbe: true})
				fb.Add(faulty.Rule{Op: faulty.OpPut, Mode: driver.Create{}, Match: isVersion, Fault: faulty.Fault{DropReply: true, Then: func() {
					if other {
						overwriteVersions(t, fb.Unwrap())
					}
				}}})
				_, err := s.Put(ctx, "d", "k", 1, strings.NewReader(value), int64(len(value)))
				if other {
					if err == nil || !strings.Contains(err.Error(), "already exists with other bytes") {
						t.Fatalf("Put over a version holding other bytes = %v; want the other-bytes error", err)
					}
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				if n := fb.Calls(faulty.OpPut); n < 3 {
					t.Fatalf("%d puts: the version upload was not sent again", n)
				}
				got, _, err := s.ReadAll(ctx, "d", "k")
				if err != nil || string(got) != value {
					t.Fatalf("ReadAll = %d bytes, %v", len(got), err)
				}
				// The entry has the CRCs of the bytes read back, whether
				// or not the backend's digest had them.
				m, _ := format.ReadManifest(ctx, fb.Unwrap(), "d")
				if c, i := crcsOf([]byte(value)); m.Keys["k"].CRC32C != c || m.Keys["k"].CRC32 != i {
					t.Fatalf("entry has crc32c %q and crc32 %q; want %s and %s", m.Keys["k"].CRC32C, m.Keys["k"].CRC32, c, i)
				}
			}
		})
	}
}

func isVersion(c faulty.Call) bool { return strings.Contains(c.Key, "/_fence/v/") }

// overwriteVersions puts other bytes in every version object of b.
func overwriteVersions(t *testing.T, b driver.Backend) {
	ctx := context.Background()
	var keys []string
	if err := b.List(ctx, "", func(o driver.ObjectInfo) error {
		if strings.Contains(o.Key, "/_fence/v/") {
			keys = append(keys, o.Key)
		}
		return nil
	}); err != nil {
		t.Error(err)
	}
	for _, k := range keys {
		if _, err := b.Put(ctx, k, strings.NewReader("other"), 5, driver.PutOptions{}); err != nil {
			t.Error(err)
		}
	}
}
