package objstore_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/memstore"
)

// TestVersionKeyLength: a key whose version object's key would be
// longer than MaxKeyLen is refused before anything is written; one whose
// version key is exactly MaxKeyLen long is committed.
func TestVersionKeyLength(t *testing.T) {
	const domain = "d"
	// "d/_fence/v/<key>@<20-digit token>-<32-hex attempt>"
	room := objstore.MaxKeyLen - len(domain+"/_fence/v/"+"@"+strings.Repeat("0", 20)+"-"+strings.Repeat("0", 32))
	s := objstore.New(memstore.New(), &objstore.Options{InlineMax: -1}) // a version object for every value
	for _, c := range []struct {
		n    int
		fits bool
	}{{room, true}, {room + 1, false}} {
		key := strings.Repeat("k", c.n)
		_, err := s.Put(t.Context(), domain, key, 1, bytes.NewReader([]byte("x")), 1)
		var inv *objstore.InvalidError
		switch {
		case c.fits && err != nil:
			t.Errorf("Put of a key of %d bytes (version key of MaxKeyLen): %v", c.n, err)
		case !c.fits && !errors.As(err, &inv):
			t.Errorf("Put of a key of %d bytes (version key over MaxKeyLen): %v; want an *InvalidError", c.n, err)
		}
	}
}
