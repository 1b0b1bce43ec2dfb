package objstoretest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"testing"

	"github.com/fencedstore/fence/internal/cost"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
)

// SmallPutSize is the body of SmallPutCost's puts.
const SmallPutSize = 1024

// SmallPutCost compares what the client spends (CPU, heap bytes and
// allocations, internal/cost) on a warm fenced put of SmallPutSize
// bytes, objstore.Store.Put on backend, with the backend's own SDK's
// PutObject of the same bytes through the same client, sdkPut (which
// overwrites key), the two interleaved in one loop. Warm: the probe has
// passed, the manifest is cached, and its commit log is full (Options.LogLimit
// commits), so a put is one conditional PutObject of the manifest with
// the value inline, as in a long-running job. It runs two cases: one key
// overwritten, and ten keys in turn (ten inline values in the manifest),
// the plain side likewise. It reports figures and asserts nothing.
func SmallPutCost(b *testing.B, backend driver.Backend, sdkPut func(ctx context.Context, key string, data []byte) error) {
	data := bytes.Repeat([]byte{'a'}, SmallPutSize)
	for _, keys := range []int{1, 10} {
		b.Run(fmt.Sprintf("keys=%d", keys), func(b *testing.B) {
			ctx := b.Context()
			s := objstore.New(backend, nil)
			var r [6]byte
			rand.Read(r[:])
			domain := "putcost-" + hex.EncodeToString(r[:])
			fencedKeys, plainKeys := make([]string, keys), make([]string, keys)
			for k := range keys {
				fencedKeys[k], plainKeys[k] = fmt.Sprintf("k%d", k), fmt.Sprintf("%s-plain/k%d", domain, k)
			}
			var nf, np int
			fenced := func() error {
				nf++
				_, err := s.Put(ctx, domain, fencedKeys[nf%keys], 1, bytes.NewReader(data), int64(len(data)))
				return err
			}
			plain := func() error {
				np++
				return sdkPut(ctx, plainKeys[np%keys], data)
			}
			for range 64 + keys { // the default LogLimit, and every key once
				if err := fenced(); err != nil {
					b.Fatal(err)
				}
				if err := plain(); err != nil {
					b.Fatal(err)
				}
			}
			cost.Pair(b, cost.Side{Name: "fence", Call: fenced}, cost.Side{Name: "sdk", Call: plain})
		})
	}
}
