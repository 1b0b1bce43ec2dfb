package s3part

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

func TestFill(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789"), 300_000) // 3 MB
	for _, limit := range []int64{1, 1000, 64 << 10, 300_000, 1_000_000, 1_500_000, 2_000_000, 3_000_000, 4_000_000} {
		for _, r := range []io.Reader{bytes.NewReader(data), iotest.OneByteReader(bytes.NewReader(data[:min(int64(len(data)), limit+7)]))} {
			got, eof, err := fill(r, nil, limit)
			if err != nil {
				t.Fatal(err)
			}
			want := data[:min(int64(len(data)), limit)]
			if !bytes.Equal(got, want) || int64(cap(got)) > limit {
				t.Fatalf("limit %d: got %d bytes (cap %d), want %d", limit, len(got), cap(got), len(want))
			}
			if limit > int64(len(data)) && !eof {
				t.Fatalf("limit %d: no EOF", limit)
			}
		}
	}
	// The buffer is reused for the next part.
	r := bytes.NewReader(data)
	first, _, _ := fill(r, nil, 400_000)
	second, _, _ := fill(r, first, 400_000)
	if &first[:1][0] != &second[:1][0] || !bytes.Equal(second, data[400_000:800_000]) {
		t.Fatal("second part did not reuse the first's buffer")
	}
	errBody := errors.New("boom")
	if _, _, err := fill(iotest.ErrReader(errBody), nil, 10); !errors.Is(err, errBody) {
		t.Fatalf("fill on a failing reader: %v", err)
	}
}

// opaque hides a reader's length.
type opaque struct{ io.Reader }

// TestReadUpload checks the choice between one PutObject and a multipart
// upload, the parts, and the size checks, with parts of 10 bytes.
func TestReadUpload(t *testing.T) {
	const partSize = 10
	data := []byte("0123456789abcdefghijklmnopqrstuvwxyz") // 36 bytes
	for _, tc := range []struct {
		name            string
		n, size         int64 // body length, declared size
		threshold       int64
		single          bool
		parts           []int // part lengths
		readErr, putErr string
	}{
		{name: "KnownSmall", n: 5, size: 5, threshold: partSize, single: true},
		{name: "KnownAtThreshold", n: 10, size: 10, threshold: partSize, single: true},
		{name: "KnownAboveThreshold", n: 25, size: 25, threshold: partSize, parts: []int{10, 10, 5}},
		{name: "KnownBelowLargeThreshold", n: 25, size: 25, threshold: 30, single: true},
		{name: "KnownExactParts", n: 20, size: 20, threshold: partSize, parts: []int{10, 10}},
		{name: "UnknownEndsInOnePart", n: 9, size: -1, threshold: partSize, single: true},
		{name: "UnknownEmpty", n: 0, size: -1, threshold: partSize, single: true},
		{name: "UnknownOnePartExactly", n: 10, size: -1, threshold: partSize, parts: []int{10}},
		{name: "UnknownLarge", n: 36, size: -1, threshold: partSize, parts: []int{10, 10, 10, 6}},
		{name: "UnknownAboveLargeThreshold", n: 25, size: -1, threshold: 30, parts: []int{10, 10, 5}},
		{name: "SingleShort", n: 4, size: 5, threshold: partSize, readErr: "body has 4 bytes, size says 5"},
		{name: "SingleLong", n: 6, size: 5, threshold: partSize, readErr: "body is longer than the declared size 5"},
		{name: "MultipartShortInFirstPart", n: 8, size: 25, threshold: partSize, readErr: "body has 8 bytes, size says 25"},
		{name: "MultipartShort", n: 24, size: 25, threshold: partSize, parts: []int{10, 10, 4}, putErr: "body has 24 bytes, size says 25"},
		{name: "MultipartLong", n: 31, size: 25, threshold: partSize, parts: []int{10, 10}, putErr: "body is longer than the declared size 25"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Read(opaque{bytes.NewReader(data[:tc.n])}, tc.size, partSize, tc.threshold)
			if tc.readErr != "" {
				if err == nil || err.Error() != tc.readErr {
					t.Fatalf("Read: %v, want %q", err, tc.readErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if p.Single() != tc.single {
				t.Fatalf("Single() = %v, want %v", p.Single(), tc.single)
			}
			if tc.single {
				if !bytes.Equal(p.Data(), data[:tc.n]) {
					t.Fatalf("Data() = %q, want %q", p.Data(), data[:tc.n])
				}
				return
			}
			var got []int
			var body []byte
			total, err := p.Upload(func(n int, part []byte, hash [sha256.Size]byte) error {
				if n != len(got)+1 {
					t.Fatalf("part %d after %d parts", n, len(got))
				}
				if hash != sha256.Sum256(part) {
					t.Fatalf("part %d (%q): the SHA-256 passed with it is not the part's", n, part)
				}
				got = append(got, len(part))
				body = append(body, part...)
				return nil
			})
			if tc.putErr != "" {
				if err == nil || err.Error() != tc.putErr {
					t.Fatalf("Upload: %v, want %q", err, tc.putErr)
				}
			} else if err != nil || total != tc.n {
				t.Fatalf("Upload = %d, %v; want %d, nil", total, err, tc.n)
			}
			if !slices.Equal(got, tc.parts) || !bytes.Equal(body, data[:sum(got)]) {
				t.Fatalf("parts %v (%q), want %v", got, body, tc.parts)
			}
		})
	}
}

func sum(s []int) (n int) {
	for _, x := range s {
		n += x
	}
	return n
}

func TestUploadErrors(t *testing.T) {
	errPut, errBody := errors.New("put failed"), errors.New("body failed")
	p, err := Read(io.MultiReader(strings.NewReader("0123456789"), iotest.ErrReader(errBody)), -1, 10, 10)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Upload(func(int, []byte, [sha256.Size]byte) error { return nil }); !errors.Is(err, errBody) || !strings.HasPrefix(err.Error(), "reading body: ") {
		t.Fatalf("Upload of a failing body: %v", err)
	}
	p, err = Read(strings.NewReader(strings.Repeat("x", 25)), -1, 10, 10)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Upload(func(int, []byte, [sha256.Size]byte) error { return errPut }); err != errPut {
		t.Fatalf("Upload with a failing put: %v, want put's error as is", err)
	}
	if _, err := Read(iotest.ErrReader(errBody), 5, 10, 10); !errors.Is(err, errBody) {
		t.Fatalf("Read of a failing body: %v", err)
	}
	// A known size grows the part size to fit MaxParts parts.
	size := int64(MaxParts*10 + 1)
	p, err = Read(opaque{bytes.NewReader(make([]byte, size))}, size, 10, 10)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	if total, err := p.Upload(func(int, []byte, [sha256.Size]byte) error { n++; return nil }); err != nil || total != size || n > MaxParts {
		t.Fatalf("Upload of %d bytes = %d, %v in %d parts", size, total, err, n)
	}
	// An unknown size does not.
	p, err = Read(opaque{bytes.NewReader(make([]byte, size))}, -1, 10, 10)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Upload(func(int, []byte, [sha256.Size]byte) error { return nil }); err == nil || err.Error() != "body exceeds 10000 parts of 10 bytes" {
		t.Fatalf("Upload of %d bytes in parts of 10: %v", size, err)
	}
}

func TestAbortOnError(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	called := false
	var err error
	AbortOnError(ctx, &err, "u", func(context.Context) error { called = true; return nil })
	if called || err != nil {
		t.Fatalf("abort after success: called %v, err %v", called, err)
	}
	errUp, errAbort := errors.New("upload failed"), errors.New("abort failed")
	err = errUp
	AbortOnError(ctx, &err, "u1", func(actx context.Context) error {
		if actx.Err() != nil {
			t.Errorf("abort context ended with the caller's: %v", actx.Err())
		}
		if _, ok := actx.Deadline(); !ok {
			t.Error("abort context has no deadline")
		}
		return errAbort
	})
	if !errors.Is(err, errUp) || err.Error() != "upload failed (and aborting multipart upload u1 failed: abort failed)" {
		t.Fatalf("err = %v", err)
	}
}
