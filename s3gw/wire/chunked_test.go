package wire

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// unsignedTrailerBody frames data as STREAMING-UNSIGNED-PAYLOAD-TRAILER in
// chunks of size chunk, with trailer (a whole "name:value" line or "")
// after the final chunk, each line ending in eol ("\r\n" as AWS writes it,
// "\n" as minio-go writes trailer lines).
func unsignedTrailerBody(data []byte, chunk int, trailer, eol string) []byte {
	var b bytes.Buffer
	for len(data) > 0 {
		n := min(chunk, len(data))
		fmt.Fprintf(&b, "%x\r\n", n)
		b.Write(data[:n])
		b.WriteString("\r\n")
		data = data[n:]
	}
	b.WriteString("0\r\n")
	if trailer != "" {
		b.WriteString(trailer + eol)
	}
	b.WriteString("\r\n")
	return b.Bytes()
}

// trailerRequest is a request carrying body, read as
// STREAMING-UNSIGNED-PAYLOAD-TRAILER with a CRC32 trailer declared.
func trailerRequest(body []byte, decodedLen int) (*http.Request, *Auth) {
	r, _ := http.NewRequest("PUT", "http://localhost/b/k", bytes.NewReader(body))
	r.Header.Set("X-Amz-Trailer", "x-amz-checksum-crc32")
	r.Header.Set("X-Amz-Decoded-Content-Length", fmt.Sprint(decodedLen))
	return r, &Auth{PayloadHash: StreamingUnsignedTrailer}
}

func crc32Of(data []byte) string {
	h := CRC32.New()
	h.Write(data)
	return b64(h.Sum(nil))
}

func readBody(t *testing.T, r *http.Request, a *Auth) ([]byte, error) {
	t.Helper()
	b, err := OpenBody(r, a, BodyOptions{MaxChunkSize: 1 << 10})
	if err != nil {
		return nil, err
	}
	// Like io.ReadAll, but a reader stuck returning nothing fails the test
	// instead of hanging it.
	var out []byte
	buf := make([]byte, 512)
	for stuck := 0; stuck < 100; {
		n, err := b.Read(buf)
		out = append(out, buf[:n]...)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		if n == 0 {
			stuck++
		} else {
			stuck = 0
		}
	}
	t.Fatalf("Read returned no bytes and no error 100 times in a row")
	return nil, nil
}

func TestUnsignedTrailerDecodes(t *testing.T) {
	data := []byte("Hello, fenced world! This is more than one chunk long.")
	for _, eol := range []string{"\r\n", "\n", "\n\r\n"} {
		body := unsignedTrailerBody(data, 7, "x-amz-checksum-crc32:"+crc32Of(data), eol)
		r, a := trailerRequest(body, len(data))
		got, err := readBody(t, r, a)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("trailer line ending %q: got %q, %v", eol, got, err)
		}
	}
}

// TestEveryTruncationRefused cuts a valid body at every length short of
// its end: each must end in an *Error, never in io.EOF, so a caller never
// stages a body that did not arrive whole.
func TestEveryTruncationRefused(t *testing.T) {
	data := []byte("0123456789abcdefghij")
	body := unsignedTrailerBody(data, 6, "x-amz-checksum-crc32:"+crc32Of(data), "\r\n")
	for n := 0; n < len(body); n++ {
		r, a := trailerRequest(body[:n], len(data))
		if _, err := readBody(t, r, a); code(err) == "" {
			t.Fatalf("the body cut at %d of %d bytes (%q) was accepted: %v", n, len(body), body[:n], err)
		}
	}
	r, a := trailerRequest(body, len(data))
	if _, err := readBody(t, r, a); err != nil {
		t.Fatalf("the whole body: %v", err)
	}
}

func TestMalformedChunkedRefused(t *testing.T) {
	data := []byte("0123456789")
	good := "x-amz-checksum-crc32:" + crc32Of(data)
	for _, tc := range []struct {
		name string
		body string
		code string
	}{
		{"bytes after the end", string(unsignedTrailerBody(data, 4, good, "\r\n")) + "x", CodeIncompleteBody},
		{"chunk longer than its header", "4\r\n01234\r\n0\r\n" + good + "\r\n\r\n", CodeIncompleteBody},
		{"chunk shorter than its header", "4\r\n012\r\n0\r\n" + good + "\r\n\r\n", CodeIncompleteBody},
		{"size not hex", "zz\r\n0123\r\n0\r\n" + good + "\r\n\r\n", CodeIncompleteBody},
		{"size too large", "401\r\n", CodeInvalidRequest},
		{"size of 17 hex digits", "00000000000000004\r\n0123\r\n", CodeIncompleteBody},
		{"extension on an unsigned chunk", "a;chunk-signature=" + strings.Repeat("0", 64) + "\r\n0123456789\r\n0\r\n" + good + "\r\n\r\n", CodeIncompleteBody},
		{"chunk header ends in LF", "a\n0123456789\r\n0\r\n" + good + "\r\n\r\n", CodeIncompleteBody},
		{"chunk header too long", strings.Repeat("0", 2000) + "a\r\n", CodeIncompleteBody},
		{"trailer not declared", "a\r\n0123456789\r\n0\r\nx-amz-checksum-sha1:" + b64(make([]byte, 20)) + "\r\n\r\n", CodeInvalidRequest},
		{"trailer missing", "a\r\n0123456789\r\n0\r\n\r\n", CodeIncompleteBody},
		{"trailer twice", "a\r\n0123456789\r\n0\r\n" + good + "\r\n" + good + "\r\n\r\n", CodeInvalidRequest},
		{"trailer one bit off", "a\r\n0123456789\r\n0\r\nx-amz-checksum-crc32:" + flipBase64(crc32Of(data)) + "\r\n\r\n", CodeBadDigest},
		{"trailer value not base64", "a\r\n0123456789\r\n0\r\nx-amz-checksum-crc32:!!!!\r\n\r\n", CodeInvalidRequest},
		{"trailer without a colon", "a\r\n0123456789\r\n0\r\nx-amz-checksum-crc32\r\n\r\n", CodeIncompleteBody},
		{"trailer signature in an unsigned body", "a\r\n0123456789\r\n0\r\n" + good + "\r\nx-amz-trailer-signature:" + strings.Repeat("0", 64) + "\r\n\r\n", CodeIncompleteBody},
		{"no empty line after the trailers", "a\r\n0123456789\r\n0\r\n" + good + "\r\n", CodeIncompleteBody},
		{"too many trailer lines", "a\r\n0123456789\r\n0\r\n" + strings.Repeat("\r\n", 40), CodeInvalidRequest},
	} {
		r, a := trailerRequest([]byte(tc.body), len(data))
		got, err := readBody(t, r, a)
		if code(err) != tc.code {
			t.Errorf("%s: got %q, %v; want %s", tc.name, got, err, tc.code)
		}
	}
}

func flipBase64(s string) string {
	raw, _ := decodeB64(s)
	raw[0] ^= 1
	return b64(raw)
}
