package wire

import (
	"bytes"
	"crypto/md5"
	"encoding/base64"
	"io"
	"net/http"
	"strings"
	"testing"
)

func b64(b []byte) string                { return base64.StdEncoding.EncodeToString(b) }
func decodeB64(s string) ([]byte, error) { return base64.StdEncoding.DecodeString(s) }

// TestAlgorithmVectors checks each algorithm against the check value of
// "123456789" in the CRC catalogue (CRC-32/ISO-HDLC, CRC-32/ISCSI,
// CRC-64/NVME) and the published SHA digests.
func TestAlgorithmVectors(t *testing.T) {
	want := map[Algorithm]string{
		CRC32:     "cbf43926",
		CRC32C:    "e3069283",
		CRC64NVME: "ae8b14860a799888",
		SHA1:      "f7c3bc1d808e04732adf679965ccc34ca7ae3441",
		SHA256:    "15e2b0d3c33891ebb0f1ef609ec419420c20e320ce94c65fbc8c3312448eb225",
	}
	for _, a := range Algorithms {
		h := a.New()
		h.Write([]byte("123456789"))
		if got := hexOf(h.Sum(nil)); got != want[a] {
			t.Errorf("%s(123456789) = %s, want %s", a, got, want[a])
		}
		if len(h.Sum(nil)) != a.size() {
			t.Errorf("%s: size %d, digest %d bytes", a, a.size(), len(h.Sum(nil)))
		}
	}
}

func hexOf(b []byte) string {
	const d = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, d[c>>4], d[c&15])
	}
	return string(out)
}

func plainRequest(body []byte, h map[string]string) *http.Request {
	r, _ := http.NewRequest("PUT", "http://localhost/b/k", bytes.NewReader(body))
	for k, v := range h {
		r.Header.Set(k, v)
	}
	return r
}

func sumOf(a Algorithm, data []byte) string {
	h := a.New()
	h.Write(data)
	return b64(h.Sum(nil))
}

// TestHeaderChecksums: Content-MD5 and every x-amz-checksum-* header are
// verified at the end of the body, and a wrong one is BadDigest.
func TestHeaderChecksums(t *testing.T) {
	data := []byte(strings.Repeat("fence ", 1000))
	md := md5.Sum(data)
	unsigned := &Auth{PayloadHash: UnsignedPayload}
	for _, a := range Algorithms {
		r := plainRequest(data, map[string]string{a.Header(): sumOf(a, data), "Content-MD5": b64(md[:])})
		b, err := OpenBody(r, unsigned, BodyOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got, err := io.ReadAll(b); err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%s: %v", a, err)
		}
		if c, ok := b.Checksum(); !ok || c.Algorithm != a || c.Value != sumOf(a, data) {
			t.Errorf("%s: Checksum() = %+v, %v", a, c, ok)
		}
		if m, ok := b.MD5(); !ok || !bytes.Equal(m, md[:]) {
			t.Errorf("%s: MD5() = %x, %v", a, m, ok)
		}
		r = plainRequest(data, map[string]string{a.Header(): flipBase64(sumOf(a, data))})
		if _, err := readBody(t, r, unsigned); code(err) != CodeBadDigest {
			t.Errorf("%s one bit off: %v, want BadDigest", a, err)
		}
	}
	wrongMD5 := md5.Sum([]byte("other"))
	for _, tc := range []struct {
		name string
		h    map[string]string
		code string
	}{
		{"wrong Content-MD5", map[string]string{"Content-MD5": b64(wrongMD5[:])}, CodeBadDigest},
		{"Content-MD5 not base64", map[string]string{"Content-MD5": "not base64"}, CodeInvalidDigest},
		{"Content-MD5 too short", map[string]string{"Content-MD5": b64(md[:8])}, CodeInvalidDigest},
		{"checksum of the wrong size", map[string]string{"X-Amz-Checksum-Crc32": b64(make([]byte, 8))}, CodeInvalidRequest},
		{"two checksum headers", map[string]string{"X-Amz-Checksum-Crc32": sumOf(CRC32, data), "X-Amz-Checksum-Sha1": sumOf(SHA1, data)}, CodeInvalidRequest},
		{"sdk algorithm disagrees", map[string]string{"X-Amz-Checksum-Crc32": sumOf(CRC32, data), "X-Amz-Sdk-Checksum-Algorithm": "SHA1"}, CodeInvalidRequest},
		{"unknown sdk algorithm", map[string]string{"X-Amz-Sdk-Checksum-Algorithm": "MD4"}, CodeInvalidRequest},
		{"trailer without a trailer mode", map[string]string{"X-Amz-Trailer": "x-amz-checksum-crc32"}, CodeInvalidRequest},
	} {
		if _, err := readBody(t, plainRequest(data, tc.h), unsigned); code(err) != tc.code {
			t.Errorf("%s: %v, want %s", tc.name, err, tc.code)
		}
	}
}

// TestSignedPayloadHash: a body whose SHA-256 is not the signed one is
// refused at its end.
func TestSignedPayloadHash(t *testing.T) {
	data := []byte("signed bytes")
	good := &Auth{PayloadHash: sha256Hex(data)}
	if got, err := readBody(t, plainRequest(data, nil), good); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("right hash: %q, %v", got, err)
	}
	bad := &Auth{PayloadHash: sha256Hex([]byte("other bytes"))}
	if _, err := readBody(t, plainRequest(data, nil), bad); code(err) != CodeXAmzContentSHA256Mismatch {
		t.Fatalf("wrong hash: %v, want XAmzContentSHA256Mismatch", err)
	}
}

// TestComputeAndDecodedLength: BodyOptions.Compute yields the values to
// store, and a body whose length is not x-amz-decoded-content-length is
// refused.
func TestComputeAndDecodedLength(t *testing.T) {
	data := []byte("0123456789")
	body := unsignedTrailerBody(data, 4, "x-amz-checksum-crc32:"+crc32Of(data), "\r\n")
	r, a := trailerRequest(body, len(data))
	b, err := OpenBody(r, a, BodyOptions{Compute: []Algorithm{SHA256, CRC64NVME}})
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := b.Sum(SHA256); ok {
		t.Fatalf("Sum before the end: %q", v)
	}
	if _, err := io.ReadAll(b); err != nil {
		t.Fatal(err)
	}
	for _, alg := range []Algorithm{SHA256, CRC64NVME, CRC32} {
		if v, ok := b.Sum(alg); !ok || v != sumOf(alg, data) {
			t.Errorf("Sum(%s) = %q, %v; want %q", alg, v, ok, sumOf(alg, data))
		}
	}
	for _, n := range []int{len(data) - 1, len(data) + 1} {
		r, a := trailerRequest(body, n)
		if _, err := readBody(t, r, a); code(err) != CodeIncompleteBody {
			t.Errorf("decoded length %d for %d bytes: %v, want IncompleteBody", n, len(data), err)
		}
	}
	r, a = trailerRequest(body, len(data))
	r.Header.Del("X-Amz-Decoded-Content-Length")
	if _, err := readBody(t, r, a); code(err) != CodeMissingContentLength {
		t.Errorf("no decoded length: %v, want MissingContentLength", err)
	}
}

func TestStoredContentEncoding(t *testing.T) {
	for in, want := range map[string]string{"aws-chunked": "", "aws-chunked,gzip": "gzip", "gzip, AWS-CHUNKED": "gzip", "": ""} {
		h := http.Header{}
		if in != "" {
			h.Set("Content-Encoding", in)
		}
		if got := StoredContentEncoding(h); got != want {
			t.Errorf("StoredContentEncoding(%q) = %q, want %q", in, got, want)
		}
	}
}
