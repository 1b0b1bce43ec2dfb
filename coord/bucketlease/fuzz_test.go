package bucketlease

import (
	"errors"
	"testing"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/objstore"
)

// FuzzDecodeRecord: decoding a lease record never panics, refuses with a
// *coord.CorruptRecordError naming the object, never accepts a holder
// with token 0 or a token past the range, and whatever it accepts
// re-encodes to a record that decodes the same.
func FuzzDecodeRecord(f *testing.F) {
	for _, s := range []string{
		`{"format":"fence.lease/v1","domain":"d","token":7,"holder":"host-1","expires":"2026-11-29T10:00:00.123456789Z","attempt":"a1"}`,
		`{"format":"fence.lease/v1","domain":"d","token":7,"holder":"","expires":"","attempt":"a2"}`,
		`{"format":"fence.lease/v1","domain":"d","token":0,"holder":"h","expires":"2026-11-29T10:00:00Z","attempt":"a"}`,
		`{"format":"fence.lease/v1","domain":"d","token":18446744073709551615,"holder":"h","expires":"2026-11-29T10:00:00Z","attempt":"a"}`,
		`{"format":"fence.lease/v1","domain":"d","token":7,"holder":"h","expires":"tomorrow","attempt":"a"}`,
		`{"format":"fence.lease/v1","domain":"d","token":7,"holder":"h","expires":"2026-11-29T10:00:00Z","attempt":"a","extra":1}`,
		`{"format":"fence.lease/v1","domain":"d","token":7} {}`,
		`{"format":"fence.lease/v2"}`, ``, `null`, `[]`,
	} {
		f.Add([]byte(s))
	}
	const key = "d/_fence/lease.json"
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := decodeRecord("d", key, data)
		if err != nil {
			var ce *coord.CorruptRecordError
			if !errors.As(err, &ce) || ce.Key != key {
				t.Fatalf("error %v is not a corrupt-record error naming the object", err)
			}
			return
		}
		if r.Domain != "d" || r.Token > objstore.MaxToken || (r.Holder != "" && r.Token == 0) {
			t.Fatalf("accepted a record it cannot trust: %+v", r)
		}
		enc, err := encodeRecord(r)
		if err != nil {
			t.Fatal(err)
		}
		r2, err := decodeRecord("d", key, enc)
		if err != nil {
			t.Fatalf("re-encoded record refused: %v\n%s", err, enc)
		}
		if r2.Domain != r.Domain || r2.Token != r.Token || r2.Holder != r.Holder || r2.Attempt != r.Attempt || !r2.Expires.Equal(r.Expires) {
			t.Fatalf("round trip changed the record:\n%+v\n%+v", r, r2)
		}
	})
}
