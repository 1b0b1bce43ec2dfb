package objstore_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/filestore"
	"github.com/fencedstore/fence/objstore/memstore"
	"github.com/fencedstore/fence/rules"
)

// limited is a backend whose object keys may be at most max bytes, as an
// S3 store's are once its prefix is counted.
type limited struct {
	driver.Backend
	max int
}

func (b limited) CheckKey(key string) error {
	if len(key) > b.max {
		return &rules.InvalidError{What: "key", Value: key, Reason: fmt.Sprintf("%d bytes, over %d", len(key), b.max)}
	}
	return nil
}

// TestKeyLimitCheckedBeforeUpload: a key whose version object the
// backend cannot store is refused with ErrInvalid naming the key, and no
// version of the commit is uploaded, not even one of a key that fits.
func TestKeyLimitCheckedBeforeUpload(t *testing.T) {
	ctx := context.Background()
	mem := memstore.New()
	s := objstore.New(limited{mem, 100}, nil)
	long := strings.Repeat("x", 60)
	_, err := s.Commit(ctx, "d", 1, []objstore.Change{
		objstore.PutReader("short", strings.NewReader("a"), 1),
		objstore.PutReader(long, strings.NewReader("b"), 1),
	}, nil)
	if !errors.Is(err, objstore.ErrInvalid) || !strings.Contains(err.Error(), fmt.Sprintf("key %q", long)) {
		t.Fatalf("err = %v, want ErrInvalid naming the key", err)
	}
	for _, k := range mem.Keys() {
		if strings.HasPrefix(k, format.VersionPrefix("d")) {
			t.Fatalf("version %q uploaded", k)
		}
	}
}

// TestFileSegmentLimitCheckedBeforeUpload: on the local directory a key
// whose last segment fits rules.ValidateKey but not, with the version
// suffix, filestore's per-segment limit is refused before upload, naming
// the key and the limit.
func TestFileSegmentLimitCheckedBeforeUpload(t *testing.T) {
	b, err := filestore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	key := "reports/" + strings.Repeat("r", 220)
	_, err = objstore.New(b, nil).Put(context.Background(), "d", key, 1, strings.NewReader("x"), 1)
	if !errors.Is(err, objstore.ErrInvalid) || !strings.Contains(err.Error(), fmt.Sprintf("key %q", key)) || !strings.Contains(err.Error(), fmt.Sprint(filestore.MaxSegmentLen)) {
		t.Fatalf("err = %v, want ErrInvalid naming the key and the limit", err)
	}
}
