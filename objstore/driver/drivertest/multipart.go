package drivertest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
)

// Part sizes RunMultipart asks for.
const (
	// MultipartPartSize is the part size of the UnknownSize case: the
	// usual default of S3 backends.
	MultipartPartSize = 16 << 20
	// MultipartMinPartSize is the smallest part S3 accepts (all parts but
	// the last), used by the other cases.
	MultipartMinPartSize = 5 << 20
)

// RunMultipart runs the multipart suite, for backends on S3-like stores
// that write large bodies with multipart uploads. It checks that a body
// of unknown size streams through parts with two parts in memory, that
// the precondition holds on the multipart path, also when it changes
// while the parts upload (it must be checked by CompleteMultipartUpload),
// that every failed upload is aborted, stores nothing and leaves no
// unfinished upload behind, and that a Store over the backend refuses to
// write once the conditional headers are dropped.
//
// newBackend returns a backend over a fresh, empty bucket (or namespace)
// whose multipart uploads use parts of partSize bytes
// (MultipartPartSize or MultipartMinPartSize) and which writes bodies of
// known size above partSize with multipart uploads. It should register
// the bucket's removal with t.Cleanup. RunMultipart calls it once per
// subtest and closes the backend when the subtest ends. uploads returns
// the keys of the unfinished multipart uploads in b's bucket.
func RunMultipart[B driver.Backend](t *testing.T, newBackend func(t *testing.T, partSize int64) B, uploads func(t *testing.T, b B) []string) {
	t.Helper()
	runMultipart(t, true, newBackend, uploads)
}

// RunStaged is RunMultipart for a store that writes large bodies in
// staged blocks committed by one request of its own (Azure's Put Block
// List), whose ETags do not count the parts and which has no call to
// discard the blocks of a failed upload (the store drops them itself):
// it checks all RunMultipart checks but the part count in ETags and the
// absence of unfinished uploads. The store's failed writes must still
// leave no object behind. The backend must be a driver.MultipartPutter;
// messages name its driver.MultipartCommitName.
func RunStaged[B driver.Backend](t *testing.T, newBackend func(t *testing.T, partSize int64) B) {
	t.Helper()
	runMultipart(t, false, newBackend, nil)
}

func runMultipart[B driver.Backend](t *testing.T, s3 bool, newBackend func(t *testing.T, partSize int64) B, uploads func(t *testing.T, b B) []string) {
	t.Helper()
	tests := []struct {
		name     string
		partSize int64
		fn       func(*multipartCase, *testing.T)
	}{
		{"UnknownSize", MultipartPartSize, (*multipartCase).unknownSize},
		{"Failures", MultipartMinPartSize, (*multipartCase).failures},
		{"PreconditionAtComplete", MultipartMinPartSize, (*multipartCase).preconditionAtComplete},
		{"RefusesStoreIgnoringConditions", MultipartPartSize, (*multipartCase).refusesStoreIgnoringConditions},
		{"PutMultipart", MultipartPartSize, (*multipartCase).putMultipart},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newBackend(t, tc.partSize)
			c := &multipartCase{b: b, partSize: tc.partSize, partETags: s3}
			if uploads != nil {
				c.uploads = func(t *testing.T) []string { return uploads(t, b) }
			}
			t.Cleanup(func() {
				if err := c.b.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			})
			tc.fn(c, t)
		})
	}
}

type multipartCase struct {
	b        driver.Backend
	partSize int64
	// partETags: the ETag of an object written in n parts ends in "-n".
	partETags bool
	// uploads lists unfinished uploads; nil when the store has none to
	// list (RunStaged).
	uploads func(t *testing.T) []string
}

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

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(b []byte) (int, error) { return f(b) }

// gated reads r, but blocks once n bytes have been read until open is
// closed, telling reached first.
type gated struct {
	r       io.Reader
	n       int64
	reached chan struct{}
	open    chan struct{}
}

func (g *gated) Read(p []byte) (int, error) {
	if g.n == 0 {
		if g.reached != nil {
			close(g.reached)
			g.reached = nil
		}
		<-g.open
		return g.r.Read(p)
	}
	n, err := g.r.Read(p[:min(int64(len(p)), g.n)])
	g.n -= int64(n)
	return n, err
}

// mustHaveNoUploads fails t if the bucket has unfinished multipart
// uploads of one of keys, or of any key when none is given.
func (c *multipartCase) mustHaveNoUploads(t *testing.T, keys ...string) {
	t.Helper()
	if c.uploads == nil {
		return
	}
	ups := c.uploads(t)
	if len(keys) > 0 {
		ups = slices.DeleteFunc(ups, func(k string) bool { return !slices.Contains(keys, k) })
	}
	if len(ups) != 0 {
		t.Fatalf("%d unfinished multipart uploads left behind, first %q", len(ups), ups[0])
	}
}

func (c *multipartCase) mustGet(t *testing.T, key string, size int64, sum [32]byte) driver.ObjectInfo {
	t.Helper()
	rc, info, err := c.b.Get(t.Context(), key, driver.GetOptions{})
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

func (c *multipartCase) mustNotExist(t *testing.T, key string) {
	t.Helper()
	if _, err := c.b.Head(t.Context(), key); !errors.Is(err, driver.ErrNotFound) {
		t.Fatalf("Head(%q) = %v, want ErrNotFound", key, err)
	}
}

// unknownSize streams 56 MiB of unknown size: four parts of 16 MiB (the
// last one 8 MiB), holding two parts in memory at a time, the one being
// sent and the next one being read.
func (c *multipartCase) unknownSize(t *testing.T) {
	b := c.b
	const size = 56 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	info, err := b.Put(t.Context(), "big", &pattern{n: size}, -1, driver.PutOptions{Mode: driver.Create{}})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatalf("Put: %v", err)
	}
	// Two 16 MiB part buffers (plus about 2 MiB each while they grew) and
	// the client's own allocations, which minio-go makes for every part;
	// buffering the body would take 56 MiB alone.
	alloc := after.TotalAlloc - before.TotalAlloc
	if alloc > 3*uint64(c.partSize) {
		t.Errorf("Put of %d bytes allocated %d bytes; want two part buffers", size, alloc)
	}
	t.Logf("Put of %d MiB of unknown size allocated %.1f MiB", size>>20, float64(alloc)/(1<<20))
	// S3 quotes ETags, minio-go does not.
	if c.partETags && !strings.HasSuffix(strings.Trim(info.ETag, `"`), "-4") {
		t.Errorf("ETag %s: want a 4-part multipart ETag", info.ETag)
	}
	got := c.mustGet(t, "big", size, patternSum(size))
	if got.ETag != info.ETag {
		t.Fatalf("Put returned ETag %s, Get says %s", info.ETag, got.ETag)
	}
	c.mustHaveNoUploads(t)

	// Write-once holds on the multipart path: If-None-Match: * is checked
	// by CompleteMultipartUpload, and the upload is aborted.
	_, err = b.Put(t.Context(), "big", &pattern{n: size}, -1, driver.PutOptions{Mode: driver.Create{}})
	if !errors.Is(err, driver.ErrPreconditionFailed) {
		t.Fatalf("second multipart Put with If-None-Match: %v, want ErrPreconditionFailed", err)
	}
	c.mustHaveNoUploads(t)
}

// failures checks that every failed multipart upload is aborted, stores
// nothing and leaves no unfinished upload behind. Each subtest checks the
// uploads of its own keys: once, on versitygw, a subtest found an upload
// of "k" that the ones before it had aborted (by versitygw's source, a
// part still being written when the abort arrives makes the upload's
// directory again), which their own checks, made at once, had not seen.
func (c *multipartCase) failures(t *testing.T) {
	b := c.b
	ctx := t.Context()
	const size = 12 << 20 // three parts of 5 MiB
	sum := patternSum(size)
	errBody := errors.New("body failed")
	t.Run("BodyFails", func(t *testing.T) {
		_, err := b.Put(ctx, "k", &failAfter{r: &pattern{n: size}, n: 7 << 20, err: errBody}, -1, driver.PutOptions{Mode: driver.Create{}})
		if !errors.Is(err, errBody) {
			t.Fatalf("Put: %v, want the body's error", err)
		}
		c.mustNotExist(t, "k")
		c.mustHaveNoUploads(t, "k")
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
		_, err := b.Put(cctx, "cancelled", r, -1, driver.PutOptions{})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Put: %v, want context.Canceled", err)
		}
		c.mustNotExist(t, "cancelled")
		c.mustHaveNoUploads(t, "cancelled")
	})
	t.Run("KnownSizeShort", func(t *testing.T) {
		_, err := b.Put(ctx, "k", &pattern{n: size - 1}, size, driver.PutOptions{})
		if err == nil {
			t.Fatal("Put of a body shorter than its size succeeded")
		}
		c.mustNotExist(t, "k")
		c.mustHaveNoUploads(t, "k")
	})
	t.Run("KnownSizeLong", func(t *testing.T) {
		_, err := b.Put(ctx, "k", &pattern{n: size + 1}, size, driver.PutOptions{})
		if err == nil {
			t.Fatal("Put of a body longer than its size succeeded")
		}
		c.mustNotExist(t, "k")
		c.mustHaveNoUploads(t, "k")
	})
	t.Run("Preconditions", func(t *testing.T) {
		orig, err := b.Put(ctx, "cond", &pattern{n: size}, size, driver.PutOptions{Mode: driver.Create{}})
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name string
			key  string
			opts driver.PutOptions
			want error
		}{
			{"IfNoneMatchExisting", "cond", driver.PutOptions{Mode: driver.Create{}}, driver.ErrPreconditionFailed},
			{"IfMatchStale", "cond", driver.PutOptions{Mode: driver.Update{ETag: `"0123456789abcdef0123456789abcdef-3"`}}, driver.ErrPreconditionFailed},
			{"IfMatchMissing", "missing", driver.PutOptions{Mode: driver.Update{ETag: orig.ETag}}, driver.ErrPreconditionFailed},
		} {
			_, err := b.Put(ctx, tc.key, &pattern{n: size + 5}, -1, tc.opts)
			if !errors.Is(err, tc.want) {
				t.Errorf("%s: Put = %v, want %v", tc.name, err, tc.want)
			}
		}
		c.mustGet(t, "cond", size, sum)
		c.mustNotExist(t, "missing")
		c.mustHaveNoUploads(t, "cond", "missing")
		// And the current ETag works on the multipart path.
		if _, err := b.Put(ctx, "cond", &pattern{n: size + 5}, -1, driver.PutOptions{Mode: driver.Update{ETag: orig.ETag}}); err != nil {
			t.Fatalf("multipart Put with the current If-Match: %v", err)
		}
		c.mustGet(t, "cond", size+5, patternSum(size+5))
		c.mustHaveNoUploads(t, "cond", "missing")
	})
}

// preconditionAtComplete: the object appears while a multipart upload
// with If-None-Match: * is under way. The precondition must be checked
// when the upload completes, not only when it starts, so the upload fails
// and the other writer's object stays.
func (c *multipartCase) preconditionAtComplete(t *testing.T) {
	b := c.b
	ctx := t.Context()
	const size = 12 << 20
	body := &gated{r: &pattern{n: size}, n: 7 << 20, reached: make(chan struct{}), open: make(chan struct{})}
	reached := body.reached
	done := make(chan error, 1)
	go func() {
		_, err := b.Put(ctx, "k", body, -1, driver.PutOptions{Mode: driver.Create{}})
		done <- err
	}()
	<-reached // the first part is uploaded, the second is being read
	// The other writer's put is unconditional: Azurite refuses
	// If-None-Match: * on a Put Blob of a key that has staged,
	// uncommitted blocks (which no reader sees), so a Create would race
	// with the first part's upload there.
	if _, err := b.Put(ctx, "k", strings.NewReader("other"), 5, driver.PutOptions{}); err != nil {
		t.Fatalf("competing Put: %v", err)
	}
	close(body.open)
	if err := <-done; !errors.Is(err, driver.ErrPreconditionFailed) {
		t.Fatalf("multipart Put that lost the race: %v, want ErrPreconditionFailed", err)
	}
	c.mustGet(t, "k", 5, sha256.Sum256([]byte("other")))
	c.mustHaveNoUploads(t)
}

// putMultipart: the backend's PutMultipart, with which the probe checks
// CompleteMultipartUpload, writes a tiny body as a multipart upload of
// one part (its ETag ends in "-1") and honours the precondition there.
func (c *multipartCase) putMultipart(t *testing.T) {
	ctx := t.Context()
	mp, ok := c.b.(driver.MultipartPutter)
	if !ok {
		t.Fatal("the backend writes with multipart uploads but is not a driver.MultipartPutter")
	}
	put := func(body string, mode driver.PutMode) (driver.ObjectInfo, error) {
		return mp.PutMultipart(ctx, "tiny", strings.NewReader(body), int64(len(body)), driver.PutOptions{Mode: mode})
	}
	first, err := put("1", driver.Create{})
	if err != nil {
		t.Fatalf("PutMultipart of one byte: %v", err)
	}
	if c.partETags && !strings.HasSuffix(strings.Trim(first.ETag, `"`), "-1") {
		t.Fatalf("ETag %s: want a 1-part multipart ETag", first.ETag)
	}
	c.mustGet(t, "tiny", 1, sha256.Sum256([]byte("1")))
	if _, err := put("2", driver.Create{}); !errors.Is(err, driver.ErrPreconditionFailed) {
		t.Fatalf("PutMultipart with If-None-Match: * over an existing object: %v, want ErrPreconditionFailed", err)
	}
	if _, err := put("3", driver.Update{ETag: `"0123456789abcdef0123456789abcdef-1"`}); !errors.Is(err, driver.ErrPreconditionFailed) {
		t.Fatalf("PutMultipart with a stale If-Match: %v, want ErrPreconditionFailed", err)
	}
	if _, err := put("4", driver.Update{ETag: first.ETag}); err != nil {
		t.Fatalf("PutMultipart with the current If-Match: %v", err)
	}
	c.mustGet(t, "tiny", 1, sha256.Sum256([]byte("4")))
	if _, err := mp.PutMultipart(ctx, "unknown", strings.NewReader("x"), -1, driver.PutOptions{}); err == nil {
		t.Fatal("PutMultipart of a body of unknown size succeeded; it needs the size")
	}
	c.mustHaveNoUploads(t)
}

// refusesStoreIgnoringConditions: a Store over a backend that drops the
// conditional headers refuses to write, and writes nothing; so does one
// over a backend that drops them on CompleteMultipartUpload alone, which
// only the probe's multipart check can tell (its error says so).
func (c *multipartCase) refusesStoreIgnoringConditions(t *testing.T) {
	b := c.b
	ctx := t.Context()
	if err := driver.Probe(ctx, b); err != nil {
		t.Fatalf("Probe of the real backend: %v", err)
	}
	if _, ok := b.(driver.MultipartPutter); !ok {
		t.Fatal("the backend writes with multipart uploads but is not a driver.MultipartPutter, so the probe cannot check CompleteMultipartUpload")
	}
	for _, tc := range []struct {
		name string
		b    driver.Backend
		want string
	}{
		{"All", IgnoreConditions(b), "If-None-Match: *"},
		{"OnComplete", IgnoreConditionsOnComplete(b, c.partSize), driver.MultipartCommitName(b)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := objstore.New(tc.b, nil)
			_, err := s.Put(ctx, "d", "k", 1, strings.NewReader("x"), 1)
			if !errors.Is(err, objstore.ErrUnsafeStore) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Put through a store that ignores conditions: %v, want ErrUnsafeStore naming %s", err, tc.want)
			}
			var left []string
			if err := b.List(ctx, "", func(o driver.ObjectInfo) error {
				left = append(left, o.Key)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if len(left) != 0 {
				t.Fatalf("the refused Put left %d objects, first %q", len(left), left[0])
			}
			c.mustHaveNoUploads(t)
		})
	}
}
