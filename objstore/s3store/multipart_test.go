package s3store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/fencedstore/fence/objstore"
)

// pattern is a deterministic body of n bytes that hides its length.
type pattern struct{ off, n int64 }

func (p *pattern) Read(b []byte) (int, error) {
	if p.off >= p.n {
		return 0, io.EOF
	}
	b = b[:min(int64(len(b)), p.n-p.off)]
	for i := range b {
		x := p.off + int64(i)
		b[i] = byte(x*7 + x>>13)
	}
	p.off += int64(len(b))
	return len(b), nil
}

func patternSum(n int64) [32]byte {
	h := sha256.New()
	io.Copy(h, &pattern{n: n})
	var s [32]byte
	h.Sum(s[:0])
	return s
}

func sumOf(s string) [32]byte { return sha256.Sum256([]byte(s)) }

// failAfter returns err once n bytes have been read from r.
type failAfter struct {
	r   io.Reader
	n   int64
	err error
}

func (f *failAfter) Read(b []byte) (int, error) {
	if f.n <= 0 {
		return 0, f.err
	}
	b = b[:min(int64(len(b)), f.n)]
	n, err := f.r.Read(b)
	f.n -= int64(n)
	return n, err
}

func mustHaveNoUploads(t *testing.T, b *Backend) {
	t.Helper()
	if ups := listUploads(t, b.client, b.bucket); len(ups) != 0 {
		t.Fatalf("%d unfinished multipart uploads left behind, first %q", len(ups), aws.ToString(ups[0].Key))
	}
}

func mustGet(t *testing.T, b *Backend, key string, size int64, sum [32]byte) objstore.ObjectInfo {
	t.Helper()
	rc, info, err := b.Get(t.Context(), key)
	if err != nil {
		t.Fatalf("Get(%q): %v", key, err)
	}
	defer rc.Close()
	h := sha256.New()
	n, err := io.Copy(h, rc)
	if err != nil || n != size || !bytes.Equal(h.Sum(nil), sum[:]) || info.Size != size {
		t.Fatalf("Get(%q): %d bytes (info says %d), err %v; want %d bytes of the pattern", key, n, info.Size, err, size)
	}
	return info
}

// TestMultipartUnknownSize streams 40 MiB of unknown size: three parts of
// the default 16 MiB, holding one part in memory at a time.
func TestMultipartUnknownSize(t *testing.T) {
	b := newBucket(t, "", testOptions(t))
	const size = 40 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	info, err := b.Put(t.Context(), "big", &pattern{n: size}, -1, objstore.PutOptions{IfNoneMatch: true})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatalf("Put: %v", err)
	}
	// One 16 MiB part buffer (plus about 2 MiB while it grew) and the
	// client's own overhead; buffering the body would take 40 MiB alone.
	alloc := after.TotalAlloc - before.TotalAlloc
	if alloc > 2*DefaultPartSize {
		t.Errorf("Put of %d bytes allocated %d bytes; want one part buffer", size, alloc)
	}
	t.Logf("Put of %d MiB of unknown size allocated %.1f MiB", size>>20, float64(alloc)/(1<<20))
	if !strings.HasSuffix(info.ETag, `-3"`) {
		t.Errorf("ETag %s: want a 3-part multipart ETag", info.ETag)
	}
	got := mustGet(t, b, "big", size, patternSum(size))
	if got.ETag != info.ETag {
		t.Fatalf("Put returned ETag %s, Get says %s", info.ETag, got.ETag)
	}
	mustHaveNoUploads(t, b)

	// Write-once holds on the multipart path: If-None-Match: * is checked
	// by CompleteMultipartUpload, and the upload is aborted.
	_, err = b.Put(t.Context(), "big", &pattern{n: size}, -1, objstore.PutOptions{IfNoneMatch: true})
	if !errors.Is(err, objstore.ErrPreconditionFailed) {
		t.Fatalf("second multipart Put with If-None-Match: %v, want ErrPreconditionFailed", err)
	}
	mustHaveNoUploads(t, b)
}

// TestMultipartFailures checks that every failed multipart upload is
// aborted, stores nothing and leaves no unfinished upload behind.
func TestMultipartFailures(t *testing.T) {
	opts := testOptions(t)
	opts.PartSize, opts.MultipartThreshold = MinPartSize, MinPartSize
	b := newBucket(t, "", opts)
	ctx := t.Context()
	const size = 12 << 20 // three parts of 5 MiB
	sum := patternSum(size)
	errBody := errors.New("body failed")

	t.Run("BodyFails", func(t *testing.T) {
		_, err := b.Put(ctx, "k", &failAfter{r: &pattern{n: size}, n: 7 << 20, err: errBody}, -1, objstore.PutOptions{IfNoneMatch: true})
		if !errors.Is(err, errBody) {
			t.Fatalf("Put: %v, want the body's error", err)
		}
		mustNotExist(t, b, "k")
		mustHaveNoUploads(t, b)
	})
	t.Run("Cancelled", func(t *testing.T) {
		// The caller's context ends mid-upload; the abort still goes out.
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		body := &failAfter{r: &pattern{n: size}, n: 11 << 20}
		body.err = io.EOF
		rest := &pattern{n: 1 << 20}
		r := io.MultiReader(body, readerFunc(func(p []byte) (int, error) {
			cancel() // after two parts went out; the third is being read
			return rest.Read(p)
		}))
		_, err := b.Put(cctx, "k", r, -1, objstore.PutOptions{})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Put: %v, want context.Canceled", err)
		}
		mustNotExist(t, b, "k")
		mustHaveNoUploads(t, b)
	})
	t.Run("KnownSizeShort", func(t *testing.T) {
		_, err := b.Put(ctx, "k", &pattern{n: size - 1}, size, objstore.PutOptions{})
		if err == nil {
			t.Fatal("Put of a body shorter than its size succeeded")
		}
		mustNotExist(t, b, "k")
		mustHaveNoUploads(t, b)
	})
	t.Run("KnownSizeLong", func(t *testing.T) {
		_, err := b.Put(ctx, "k", &pattern{n: size + 1}, size, objstore.PutOptions{})
		if err == nil {
			t.Fatal("Put of a body longer than its size succeeded")
		}
		mustNotExist(t, b, "k")
		mustHaveNoUploads(t, b)
	})
	t.Run("Preconditions", func(t *testing.T) {
		orig, err := b.Put(ctx, "cond", &pattern{n: size}, size, objstore.PutOptions{IfNoneMatch: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name string
			key  string
			opts objstore.PutOptions
			want error
		}{
			{"IfNoneMatchExisting", "cond", objstore.PutOptions{IfNoneMatch: true}, objstore.ErrPreconditionFailed},
			{"IfMatchStale", "cond", objstore.PutOptions{IfMatch: `"0123456789abcdef0123456789abcdef-3"`}, objstore.ErrPreconditionFailed},
			{"IfMatchMissing", "missing", objstore.PutOptions{IfMatch: orig.ETag}, objstore.ErrNotFound},
		} {
			_, err := b.Put(ctx, tc.key, &pattern{n: size + 5}, -1, tc.opts)
			if !errors.Is(err, tc.want) {
				t.Errorf("%s: Put = %v, want %v", tc.name, err, tc.want)
			}
		}
		mustGet(t, b, "cond", size, sum)
		mustNotExist(t, b, "missing")
		mustHaveNoUploads(t, b)
		// And the current ETag works on the multipart path.
		if _, err := b.Put(ctx, "cond", &pattern{n: size + 5}, -1, objstore.PutOptions{IfMatch: orig.ETag}); err != nil {
			t.Fatalf("multipart Put with the current If-Match: %v", err)
		}
		mustGet(t, b, "cond", size+5, patternSum(size+5))
		mustHaveNoUploads(t, b)
	})
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(b []byte) (int, error) { return f(b) }

func mustNotExist(t *testing.T, b *Backend, key string) {
	t.Helper()
	if _, err := b.Head(t.Context(), key); !errors.Is(err, objstore.ErrNotFound) {
		t.Fatalf("Head(%q) = %v, want ErrNotFound", key, err)
	}
}

// ignoreConditions is a store that accepts conditional headers and
// ignores them: it drops them before they reach the backend.
type ignoreConditions struct{ objstore.Backend }

func (i ignoreConditions) Put(ctx context.Context, key string, body io.Reader, size int64, opts objstore.PutOptions) (objstore.ObjectInfo, error) {
	opts.IfMatch, opts.IfNoneMatch = "", false
	return i.Backend.Put(ctx, key, body, size, opts)
}

// TestRefusesStoreIgnoringConditions: a Store over a backend that drops
// the conditional headers refuses to write, and writes nothing.
func TestRefusesStoreIgnoringConditions(t *testing.T) {
	b := newBucket(t, "", testOptions(t))
	ctx := t.Context()
	if err := objstore.Probe(ctx, b); err != nil {
		t.Fatalf("Probe of the real backend: %v", err)
	}
	s := objstore.New(ignoreConditions{b}, nil)
	_, err := s.Put(ctx, "d", "k", 1, strings.NewReader("x"), 1)
	if !errors.Is(err, objstore.ErrUnsafeStore) {
		t.Fatalf("Put through a store that ignores conditions: %v, want ErrUnsafeStore", err)
	}
	out, err := b.client.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(b.bucket)})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Contents) != 0 {
		t.Fatalf("the refused Put left %d objects, first %q", len(out.Contents), aws.ToString(out.Contents[0].Key))
	}
}

// TestNoSuchBucket: a missing bucket is ErrNotFound, named in the message.
func TestNoSuchBucket(t *testing.T) {
	opts := testOptions(t)
	b, err := Open(t.Context(), "fence-s3store-no-such-bucket", "", &opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	_, err = b.Put(ctx, "k", strings.NewReader("x"), 1, objstore.PutOptions{IfNoneMatch: true})
	if !errors.Is(err, objstore.ErrNotFound) || !strings.Contains(err.Error(), `bucket "fence-s3store-no-such-bucket" does not exist`) {
		t.Fatalf("Put to a missing bucket: %v", err)
	}
	_, _, err = b.Get(ctx, "k")
	if !errors.Is(err, objstore.ErrNotFound) || !strings.Contains(err.Error(), "fence-s3store-no-such-bucket") {
		t.Fatalf("Get from a missing bucket: %v", err)
	}
	err = b.List(ctx, "", func(objstore.ObjectInfo) error { return nil })
	if !errors.Is(err, objstore.ErrNotFound) || !strings.Contains(err.Error(), "fence-s3store-no-such-bucket") {
		t.Fatalf("List of a missing bucket: %v", err)
	}
}
