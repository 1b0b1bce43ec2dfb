package drivertest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
)

// RunParts runs the suite of values uploaded in parts. When the
// backend is a driver.PartUploader it checks the interface's contract
// (re-uploads replace, Complete is whole, a failed part body changes
// nothing, Abort leaves nothing, a too-small part is ErrPartTooSmall
// where the store has a minimum); whatever the backend, it checks
// Store.StageParts over it: parts in any order and at once, re-uploaded
// and failing, give a receipt that a commit publishes and every read
// verifies; parts that arrive in order, or ahead within the Store's
// buffer, are not read back, and beyond it are; Abort and Complete
// leave nothing but the value; a bad part list is refused as S3 refuses
// it; a fenced token uploads nothing.
//
// newBackend returns a backend over a fresh, empty bucket (or
// namespace); RunParts calls it once per subtest and closes it when the
// subtest ends. uploads, when not nil, returns the keys of b's
// unfinished uploads in parts; the suite then checks that none is left.
func RunParts[B driver.Backend](t *testing.T, newBackend func(t *testing.T) B, uploads func(t *testing.T, b B) []string) {
	t.Helper()
	tests := []struct {
		name    string
		backend bool // needs a driver.PartUploader
		fn      func(*partsCase)
	}{
		{"DriverRoundTrip", true, (*partsCase).driverRoundTrip},
		{"DriverFailedPart", true, (*partsCase).driverFailedPart},
		{"DriverAbort", true, (*partsCase).driverAbort},
		{"DriverSmallPart", true, (*partsCase).driverSmallPart},
		{"Shuffled", false, (*partsCase).shuffled},
		{"InOrderNoReadBack", false, (*partsCase).inOrder},
		{"AheadWithinBuffer", false, (*partsCase).aheadWithinBuffer},
		{"AheadBeyondBuffer", false, (*partsCase).aheadBeyondBuffer},
		{"Sparse", false, (*partsCase).sparse},
		{"FailedPartBody", false, (*partsCase).failedPartBody},
		{"Abort", false, (*partsCase).abort},
		{"PartList", false, (*partsCase).partList},
		{"Fenced", false, (*partsCase).fenced},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newBackend(t)
			t.Cleanup(func() {
				if err := b.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			})
			c := &partsCase{t: t, b: &counting{Backend: b}}
			if uploads != nil {
				c.uploads = func() []string { return uploads(t, b) }
			}
			if pu, ok := driver.Backend(b).(driver.PartUploader); ok {
				id, err := pu.CreateParts(t.Context(), "drivertest-probe", driver.PutOptions{})
				switch {
				case err == nil:
					if err := pu.AbortParts(t.Context(), "drivertest-probe", id); err != nil {
						t.Fatalf("AbortParts: %v", err)
					}
					c.pu = pu
				case !errors.Is(err, driver.ErrUnsupported):
					t.Fatalf("CreateParts: %v", err)
				}
			}
			if tc.backend && c.pu == nil {
				t.Skip("the backend has no uploads in parts (driver.PartUploader)")
			}
			tc.fn(c)
		})
	}
}

type partsCase struct {
	t       *testing.T
	b       *counting
	pu      driver.PartUploader
	uploads func() []string
}

// counting is a backend that counts the Gets of one object (the
// upload's version object, once known) and passes driver.PartUploader
// on.
type counting struct {
	driver.Backend
	object atomic.Pointer[string]
	gets   atomic.Int64
}

func (c *counting) Get(ctx context.Context, key string, opts driver.GetOptions) (io.ReadCloser, driver.ObjectInfo, error) {
	if o := c.object.Load(); o != nil && *o == key {
		c.gets.Add(1)
	}
	return c.Backend.Get(ctx, key, opts)
}

func (c *counting) CreateParts(ctx context.Context, key string, opts driver.PutOptions) (string, error) {
	pu, ok := c.Backend.(driver.PartUploader)
	if !ok {
		return "", driver.ErrUnsupported
	}
	return pu.CreateParts(ctx, key, opts)
}

func (c *counting) UploadPart(ctx context.Context, key, uploadID string, n int, body io.Reader, size int64) (string, error) {
	return c.Backend.(driver.PartUploader).UploadPart(ctx, key, uploadID, n, body, size)
}

func (c *counting) CompleteParts(ctx context.Context, key, uploadID string, parts []driver.CompletedPart, mode driver.PutMode) (driver.ObjectInfo, error) {
	return c.Backend.(driver.PartUploader).CompleteParts(ctx, key, uploadID, parts, mode)
}

func (c *counting) AbortParts(ctx context.Context, key, uploadID string) error {
	return c.Backend.(driver.PartUploader).AbortParts(ctx, key, uploadID)
}

// partData returns n deterministic bytes, different for each seed.
func partData(seed uint64, n int64) []byte {
	b := make([]byte, n)
	rand.NewChaCha8([32]byte{byte(seed), byte(seed >> 8), 7}).Read(b)
	return b
}

// errPartBody is the error of a part's body that fails mid-read.
var errPartBody = errors.New("drivertest: the body failed mid-read")

// failingBody returns a body that yields the first n bytes of data,
// then fails.
func failingBody(data []byte, n int64) io.Reader {
	return &failAfter{r: bytes.NewReader(data), n: n, err: errPartBody}
}

const minPart = driver.MinPartSize

// get reads key whole from the backend.
func (c *partsCase) get(key string) []byte {
	c.t.Helper()
	rc, _, err := c.b.Backend.Get(c.t.Context(), key, driver.GetOptions{})
	if err != nil {
		c.t.Fatalf("Get(%q): %v", key, err)
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		c.t.Fatalf("Get(%q): %v", key, err)
	}
	return data
}

// noUploads fails the test if the backend lists unfinished uploads.
func (c *partsCase) noUploads() {
	c.t.Helper()
	if c.uploads == nil {
		return
	}
	var left []string
	for _, k := range c.uploads() {
		if k != "drivertest-probe" {
			left = append(left, k)
		}
	}
	if len(left) > 0 {
		c.t.Fatalf("unfinished uploads left: %q", left)
	}
}

// keys returns every key under prefix.
func (c *partsCase) keys(prefix string) []string {
	c.t.Helper()
	var keys []string
	if err := c.b.Backend.List(c.t.Context(), prefix, func(o driver.ObjectInfo) error {
		keys = append(keys, o.Key)
		return nil
	}); err != nil {
		c.t.Fatalf("List(%q): %v", prefix, err)
	}
	return keys
}

func (c *partsCase) upload(key, id string, n int, data []byte) string {
	c.t.Helper()
	etag, err := c.pu.UploadPart(c.t.Context(), key, id, n, bytes.NewReader(data), int64(len(data)))
	if err != nil {
		c.t.Fatalf("UploadPart %d: %v", n, err)
	}
	return etag
}

func (c *partsCase) create(key string) string {
	c.t.Helper()
	id, err := c.pu.CreateParts(c.t.Context(), key, driver.PutOptions{})
	if err != nil {
		c.t.Fatalf("CreateParts: %v", err)
	}
	c.t.Cleanup(func() { c.pu.AbortParts(context.WithoutCancel(c.t.Context()), key, id) })
	return id
}

// driverRoundTrip: parts uploaded out of order, one uploaded again with
// other bytes, make one object of the listed parts, in order, written
// only if the precondition holds; the upload is then gone.
func (c *partsCase) driverRoundTrip() {
	t, ctx := c.t, c.t.Context()
	const key = "parts/round-trip"
	id := c.create(key)
	p1, p2, p2b, p3 := partData(1, minPart), partData(2, minPart), partData(3, minPart), partData(4, 1000)
	e3 := c.upload(key, id, 3, p3)
	c.upload(key, id, 2, p2)
	e1 := c.upload(key, id, 1, p1)
	e2 := c.upload(key, id, 2, p2b)
	c.upload(key, id, 4, partData(5, 10)) // not listed: discarded
	if _, err := c.b.Head(ctx, key); !errors.Is(err, driver.ErrNotFound) {
		t.Fatalf("Head before CompleteParts: %v, want ErrNotFound", err)
	}
	info, err := c.pu.CompleteParts(ctx, key, id, []driver.CompletedPart{{N: 1, ETag: e1}, {N: 2, ETag: e2}, {N: 3, ETag: e3}}, driver.Create{})
	if err != nil {
		t.Fatalf("CompleteParts: %v", err)
	}
	want := bytes.Join([][]byte{p1, p2b, p3}, nil)
	if info.Size != int64(len(want)) || info.ETag == "" {
		t.Fatalf("CompleteParts: %+v, want size %d and an ETag", info, len(want))
	}
	if got := c.get(key); !bytes.Equal(got, want) {
		t.Fatalf("object has %d bytes, not the parts' %d in order (sha256 %x, want %x)", len(got), len(want), sha256.Sum256(got), sha256.Sum256(want))
	}
	c.noUploads()

	// Create on an existing object: the precondition fails at Complete.
	id2 := c.create(key)
	e := c.upload(key, id2, 1, []byte("other"))
	if _, err := c.pu.CompleteParts(ctx, key, id2, []driver.CompletedPart{{N: 1, ETag: e}}, driver.Create{}); !errors.Is(err, driver.ErrPreconditionFailed) {
		t.Fatalf("CompleteParts with Create on an existing object: %v, want ErrPreconditionFailed", err)
	}
	if got := c.get(key); !bytes.Equal(got, want) {
		t.Fatal("a refused CompleteParts changed the object")
	}
	if err := c.pu.AbortParts(ctx, key, id2); err != nil {
		t.Fatalf("AbortParts: %v", err)
	}
	c.noUploads()
}

// driverFailedPart: an upload of a part whose body fails, or is shorter
// or longer than its size, leaves the part as it was.
func (c *partsCase) driverFailedPart() {
	t, ctx := c.t, c.t.Context()
	const key = "parts/failed"
	id := c.create(key)
	p1 := partData(1, minPart)
	e1 := c.upload(key, id, 1, p1)
	other := partData(2, minPart)
	if _, err := c.pu.UploadPart(ctx, key, id, 1, failingBody(other, 1<<20), minPart); err == nil {
		t.Fatal("UploadPart of a body that fails: no error")
	}
	if _, err := c.pu.UploadPart(ctx, key, id, 1, bytes.NewReader(other[:100]), minPart); err == nil {
		t.Fatal("UploadPart of a body shorter than its size: no error")
	}
	if _, err := c.pu.UploadPart(ctx, key, id, 1, bytes.NewReader(other), 100); err == nil {
		t.Fatal("UploadPart of a body longer than its size: no error")
	}
	// The part is as it was, or unusable: never other bytes.
	if _, err := c.pu.CompleteParts(ctx, key, id, []driver.CompletedPart{{N: 1, ETag: e1}}, driver.Create{}); err != nil {
		t.Logf("CompleteParts after failed uploads of the part: %v; uploading it again", err)
		e1 = c.upload(key, id, 1, p1)
		if _, err := c.pu.CompleteParts(ctx, key, id, []driver.CompletedPart{{N: 1, ETag: e1}}, driver.Create{}); err != nil {
			t.Fatalf("CompleteParts: %v", err)
		}
	}
	if got := c.get(key); !bytes.Equal(got, p1) {
		t.Fatal("a failed upload of a part changed it")
	}
	c.noUploads()
}

// driverAbort: AbortParts leaves nothing, and aborting again is not an
// error.
func (c *partsCase) driverAbort() {
	t, ctx := c.t, c.t.Context()
	const key = "parts/abort"
	id := c.create(key)
	c.upload(key, id, 1, partData(1, minPart))
	c.upload(key, id, 2, partData(2, 10))
	if err := c.pu.AbortParts(ctx, key, id); err != nil {
		t.Fatalf("AbortParts: %v", err)
	}
	if err := c.pu.AbortParts(ctx, key, id); err != nil {
		t.Fatalf("AbortParts again: %v", err)
	}
	if keys := c.keys("parts/"); len(keys) != 0 {
		t.Fatalf("objects after AbortParts: %q", keys)
	}
	c.noUploads()
}

// driverSmallPart: a part other than the last below the store's
// minimum is refused with ErrPartTooSmall, on a store that has one.
func (c *partsCase) driverSmallPart() {
	t, ctx := c.t, c.t.Context()
	const key = "parts/small"
	id := c.create(key)
	e1 := c.upload(key, id, 1, []byte("small"))
	e2 := c.upload(key, id, 2, []byte("last"))
	_, err := c.pu.CompleteParts(ctx, key, id, []driver.CompletedPart{{N: 1, ETag: e1}, {N: 2, ETag: e2}}, driver.Create{})
	switch {
	case err == nil:
		t.Log("the store has no minimum part size")
		if got := c.get(key); string(got) != "smalllast" {
			t.Fatalf("object is %q", got)
		}
	case errors.Is(err, driver.ErrPartTooSmall) && errors.Is(err, driver.ErrPermanent):
		if _, herr := c.b.Head(ctx, key); !errors.Is(herr, driver.ErrNotFound) {
			t.Fatalf("Head after a refused CompleteParts: %v, want ErrNotFound", herr)
		}
		if err := c.pu.AbortParts(ctx, key, id); err != nil {
			t.Fatalf("AbortParts: %v", err)
		}
	default:
		t.Fatalf("CompleteParts with a small first part: %v, want success or ErrPartTooSmall", err)
	}
	c.noUploads()
}

// The Store-level cases.

const domain = "parts"

func (c *partsCase) store(bufferBytes int64) *objstore.Store {
	return objstore.New(c.b, &objstore.Options{PartBufferBytes: bufferBytes, InlineMax: -1})
}

func (c *partsCase) stageParts(s *objstore.Store, key string) *objstore.PartUpload {
	c.t.Helper()
	u, err := s.StageParts(c.t.Context(), domain, key, 1)
	if err != nil {
		c.t.Fatalf("StageParts: %v", err)
	}
	obj := u.Object()
	c.b.object.Store(&obj)
	return u
}

func (c *partsCase) uploadPart(u *objstore.PartUpload, n int, data []byte) {
	c.t.Helper()
	if _, err := u.UploadPart(c.t.Context(), n, bytes.NewReader(data), int64(len(data))); err != nil {
		c.t.Fatalf("UploadPart %d: %v", n, err)
	}
}

// complete completes u with parts, commits the receipt, and checks that
// the store reads back want, with want's SHA-256, that the object named
// by the receipt is the only version object, and that no upload is
// left.
func (c *partsCase) complete(s *objstore.Store, u *objstore.PartUpload, key string, parts []int, want []byte) {
	t, ctx := c.t, c.t.Context()
	t.Helper()
	r, err := u.Complete(ctx, parts)
	if err != nil {
		t.Fatalf("Complete(%v): %v", parts, err)
	}
	sum := sha256.Sum256(want)
	if r.Size != int64(len(want)) || r.SHA256 != hex.EncodeToString(sum[:]) || r.Object != u.Object() {
		t.Fatalf("receipt %+v, want size %d, sha256 %x, object %q", r, len(want), sum, u.Object())
	}
	if _, err := s.Commit(ctx, domain, 1, []objstore.Change{objstore.PutReceipt(r)}, nil); err != nil {
		t.Fatalf("commit of the receipt: %v", err)
	}
	got, v, err := objstore.New(c.b.Backend, nil).ReadAll(ctx, domain, key)
	if err != nil {
		t.Fatalf("read after commit: %v", err)
	}
	if !bytes.Equal(got, want) || v.SHA256 != r.SHA256 {
		t.Fatalf("read %d bytes (sha256 %x), version sha256 %s; want %d bytes, sha256 %x", len(got), sha256.Sum256(got), v.SHA256, len(want), sum)
	}
	c.onlyVersion(u.Object())
	c.noUploads()
}

// onlyVersion fails the test unless the domain's version objects are
// exactly want (none when want is "").
func (c *partsCase) onlyVersion(want string) {
	c.t.Helper()
	var versions []string
	for _, k := range c.keys(domain + "/") {
		if strings.Contains(k, "/_fence/v/") {
			versions = append(versions, k)
		}
	}
	if want == "" && len(versions) == 0 || len(versions) == 1 && versions[0] == want {
		return
	}
	c.t.Fatalf("version objects %q, want only %q", versions, want)
}

// shuffled: parts uploaded at once in random order, one of them again
// with other bytes, make the value, which reads back verified.
func (c *partsCase) shuffled() {
	s := c.store(0)
	u := c.stageParts(s, "shuffled")
	parts := [][]byte{partData(1, minPart), partData(2, minPart), partData(3, minPart+1), partData(4, 12345)}
	order := rand.Perm(len(parts))
	var wg sync.WaitGroup
	errs := make([]error, len(parts))
	for _, i := range order {
		wg.Go(func() {
			_, errs[i] = u.UploadPart(c.t.Context(), i+1, bytes.NewReader(parts[i]), int64(len(parts[i])))
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		c.t.Fatal(err)
	}
	parts[1] = partData(20, minPart) // same size: only the checksums tell
	c.uploadPart(u, 2, parts[1])
	c.complete(s, u, "shuffled", []int{1, 2, 3, 4}, bytes.Join(parts, nil))
}

// inOrder: parts that arrive in order are hashed as they stream:
// nothing is read back.
func (c *partsCase) inOrder() {
	s := c.store(0)
	u := c.stageParts(s, "in-order")
	parts := [][]byte{partData(1, minPart), partData(2, minPart), partData(3, 100)}
	for i, p := range parts {
		c.uploadPart(u, i+1, p)
	}
	c.complete(s, u, "in-order", []int{1, 2, 3}, bytes.Join(parts, nil))
	c.wantGets(0)
}

func (c *partsCase) wantGets(want int64) {
	c.t.Helper()
	if got := c.b.gets.Load(); want == 0 && got != 0 || want != 0 && got == 0 {
		c.t.Fatalf("the version object was read %d times, want %s", got, map[bool]string{true: "none", false: "some"}[want == 0])
	}
}

// aheadWithinBuffer: parts that arrive ahead of their turn, within the
// Store's buffer, are hashed from memory: nothing is read back.
func (c *partsCase) aheadWithinBuffer() {
	s := c.store(0)
	u := c.stageParts(s, "ahead")
	parts := [][]byte{partData(1, minPart), partData(2, minPart), partData(3, minPart), partData(4, 100)}
	for _, i := range []int{3, 2, 4, 1} {
		c.uploadPart(u, i, parts[i-1])
	}
	c.complete(s, u, "ahead", []int{1, 2, 3, 4}, bytes.Join(parts, nil))
	c.wantGets(0)
}

// aheadBeyondBuffer: a part ahead of its turn that does not fit in the
// buffer is read back, and the value is still right.
func (c *partsCase) aheadBeyondBuffer() {
	s := c.store(minPart)
	u := c.stageParts(s, "beyond")
	parts := [][]byte{partData(1, minPart), partData(2, minPart), partData(3, minPart), partData(4, 100)}
	for _, i := range []int{3, 2, 4, 1} {
		c.uploadPart(u, i, parts[i-1])
	}
	c.complete(s, u, "beyond", []int{1, 2, 3, 4}, bytes.Join(parts, nil))
	if c.pu != nil { // otherwise every part is read back, from its own object
		c.wantGets(1)
	}
}

// sparse: part numbers need not be consecutive.
func (c *partsCase) sparse() {
	s := c.store(0)
	u := c.stageParts(s, "sparse")
	parts := map[int][]byte{1: partData(1, minPart), 5: partData(5, minPart), 9: partData(9, 10)}
	for _, n := range []int{9, 1, 5} {
		c.uploadPart(u, n, parts[n])
	}
	c.uploadPart(u, 7, partData(7, 10)) // not listed
	c.complete(s, u, "sparse", []int{1, 5, 9}, bytes.Join([][]byte{parts[1], parts[5], parts[9]}, nil))
}

// failedPartBody: an upload whose body fails mid-read, of a part not
// uploaded yet or of one already hashed, leaves no trace in the value;
// the part it was an upload of must be uploaded again.
func (c *partsCase) failedPartBody() {
	t, ctx := c.t, c.t.Context()
	s := c.store(0)
	u := c.stageParts(s, "failed")
	parts := [][]byte{partData(1, minPart), partData(2, minPart), partData(3, 100)}
	c.uploadPart(u, 1, parts[0])
	other := partData(10, minPart)
	for _, n := range []int{2, 1} { // a new part, then a hashed one
		if _, err := u.UploadPart(ctx, n, failingBody(other, 1<<20+17), minPart); err == nil {
			t.Fatalf("UploadPart %d of a body that fails: no error", n)
		}
	}
	if _, err := u.UploadPart(ctx, 3, bytes.NewReader(other[:10]), 100); err == nil {
		t.Fatal("UploadPart of a body shorter than its size: no error")
	}
	if _, err := u.Complete(ctx, []int{1}); !errors.Is(err, objstore.ErrInvalidPart) {
		t.Fatalf("Complete naming a part whose last upload failed: %v, want ErrInvalidPart", err)
	}
	for i, p := range parts {
		c.uploadPart(u, i+1, p)
	}
	c.complete(s, u, "failed", []int{1, 2, 3}, bytes.Join(parts, nil))
	c.wantGets(0)
}

// abort: Abort leaves no object and no upload, and the upload takes no
// more parts.
func (c *partsCase) abort() {
	t, ctx := c.t, c.t.Context()
	s := c.store(0)
	u := c.stageParts(s, "abort")
	c.uploadPart(u, 2, partData(2, minPart))
	c.uploadPart(u, 1, partData(1, minPart))
	c.uploadPart(u, 1, partData(3, 10))
	if err := u.Abort(ctx); err != nil {
		t.Fatalf("Abort: %v", err)
	}
	c.onlyVersion("")
	c.noUploads()
	if _, err := u.UploadPart(ctx, 3, bytes.NewReader([]byte("x")), 1); !errors.Is(err, objstore.ErrNoSuchUpload) {
		t.Fatalf("UploadPart after Abort: %v, want ErrNoSuchUpload", err)
	}
	if _, err := u.Complete(ctx, []int{1}); !errors.Is(err, objstore.ErrNoSuchUpload) {
		t.Fatalf("Complete after Abort: %v, want ErrNoSuchUpload", err)
	}
	if err := u.Abort(ctx); err != nil {
		t.Fatalf("Abort again: %v", err)
	}
}

// partList: Complete refuses, as S3 does, a part never uploaded, a list
// out of order and a small part that is not the last, writing nothing
// and leaving the upload open; a good list then completes it.
func (c *partsCase) partList() {
	t, ctx := c.t, c.t.Context()
	s := c.store(0)
	u := c.stageParts(s, "list")
	parts := [][]byte{partData(1, minPart), partData(2, minPart-1), partData(3, minPart)}
	for i, p := range parts {
		c.uploadPart(u, i+1, p)
	}
	for _, tc := range []struct {
		parts []int
		want  error
	}{
		{[]int{1, 4}, objstore.ErrInvalidPart},
		{nil, objstore.ErrInvalidPart},
		{[]int{2, 1}, objstore.ErrInvalidPartOrder},
		{[]int{1, 1}, objstore.ErrInvalidPartOrder},
		{[]int{1, 2, 3}, objstore.ErrPartTooSmall},
	} {
		_, err := u.Complete(ctx, tc.parts)
		var pe *objstore.PartError
		if !errors.Is(err, tc.want) || !errors.As(err, &pe) {
			t.Fatalf("Complete(%v): %v, want a *PartError matching %v", tc.parts, err, tc.want)
		}
		if _, err := c.b.Head(ctx, u.Object()); !errors.Is(err, driver.ErrNotFound) {
			t.Fatalf("Head of the value's object after a refused Complete: %v, want ErrNotFound", err)
		}
	}
	c.complete(s, u, "list", []int{1, 3}, bytes.Join([][]byte{parts[0], parts[2]}, nil))
	if _, err := u.Complete(ctx, []int{1, 3}); !errors.Is(err, objstore.ErrNoSuchUpload) {
		t.Fatalf("Complete again: %v, want ErrNoSuchUpload", err)
	}
}

// fenced: StageParts at a token below the domain's highest fails with
// ErrFenced and uploads nothing.
func (c *partsCase) fenced() {
	t, ctx := c.t, c.t.Context()
	s := c.store(0)
	if _, err := s.Fence(ctx, domain, 2); err != nil {
		t.Fatal(err)
	}
	before := c.keys("")
	_, err := s.StageParts(ctx, domain, "stale", 1)
	var fe *objstore.FencedError
	if !errors.Is(err, objstore.ErrFenced) || !errors.As(err, &fe) || fe.Highest != 2 {
		t.Fatalf("StageParts at 1 after a fence at 2: %v, want ErrFenced at 2", err)
	}
	if after := c.keys(""); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("objects %q after a fenced StageParts, %q before", after, before)
	}
	c.noUploads()
}
