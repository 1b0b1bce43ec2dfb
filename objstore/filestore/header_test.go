package filestore

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzReadHeader: reading an object file's header never panics; it
// accepts exactly the magic, 64 lower-case hex digits and a newline,
// returns those digits as the ETag, and names the file in every error.
func FuzzReadHeader(f *testing.F) {
	good := string(formatHeader(bytes.Repeat([]byte{0xab}, 32)))
	for _, s := range []string{good, good + "content", good[:10], "", "FENCE1 " + strings.Repeat("G", 64) + "\n", "FENCE2 " + strings.Repeat("a", 64) + "\n", "FENCE1 " + strings.Repeat("A", 64) + "\n", strings.TrimSuffix(good, "\n") + " "} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		etag, err := readHeader(bytes.NewReader(data), "x/obj")
		if err != nil {
			if !strings.Contains(err.Error(), "x/obj") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		if len(etag) != 64 || !isLowerHex(etag) {
			t.Fatalf("accepted ETag %q", etag)
		}
		if want := string(data[:headerLen]); want != headerMagic+etag+"\n" {
			t.Fatalf("accepted header %q", want)
		}
	})
}
