package driver_test

import (
	"bytes"
	"crypto/rand"
	"testing"

	"github.com/fencedstore/fence/objstore/driver"
)

// TestDigestOfMatchesDigester: DigestOf, which hashes a whole slice at
// once, gives the Digest a Digester gives for the same bytes written in
// pieces: length, SHA-256 and both CRCs.
func TestDigestOfMatchesDigester(t *testing.T) {
	big := make([]byte, 100_000)
	rand.Read(big)
	for _, data := range [][]byte{nil, {}, []byte("a"), bytes.Repeat([]byte{0}, 64), big[:1024], big} {
		d := driver.NewDigester()
		for p := data; len(p) > 0; {
			n := min(len(p), 777)
			d.Write(p[:n])
			p = p[n:]
		}
		if got, want := driver.DigestOf(data), d.Digest(); got != want {
			t.Fatalf("DigestOf of %d bytes = %+v, the Digester's %+v", len(data), got, want)
		}
	}
}
