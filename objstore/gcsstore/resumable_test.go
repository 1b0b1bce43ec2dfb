package gcsstore

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/fencedstore/fence/objstore/driver"
)

// chunkedBody is 4 chunks and a bit: Put sends it with a resumable upload
// of MinChunkSize chunks.
func chunkedBody(fill byte) []byte { return bytes.Repeat([]byte{fill}, 4*MinChunkSize+17) }

// gate is a body that blocks after its first chunk until release is
// closed: the resumable upload has started, with its precondition, and
// the last chunk is not sent yet.
type gate struct {
	r       io.Reader
	sent    int
	started chan struct{}
	release chan struct{}
}

func (g *gate) Read(p []byte) (int, error) {
	if g.sent >= 2*MinChunkSize && g.started != nil {
		close(g.started)
		g.started = nil
		<-g.release
	}
	n, err := g.r.Read(p[:min(len(p), MinChunkSize)])
	g.sent += n
	return n, err
}

// TestResumablePreconditions checks that the put modes hold on the
// resumable path, and that the precondition is checked when the object
// appears, at the upload's last request: a Create whose key is created,
// and an Update whose object is replaced, while the chunks upload must
// both fail with ErrPreconditionFailed and leave the other write's
// object.
func TestResumablePreconditions(t *testing.T) {
	b := newBucket(t, "", Options{ChunkSize: MinChunkSize})
	ctx := t.Context()
	put := func(key string, body []byte, mode driver.PutMode) (driver.ObjectInfo, error) {
		return b.Put(ctx, key, bytes.NewReader(body), int64(len(body)), driver.PutOptions{Mode: mode})
	}
	mustHold := func(key string, want []byte) {
		t.Helper()
		rc, _, err := b.Get(ctx, key, driver.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s holds %d bytes (%v), want the %d bytes of the write that won", key, len(got), err, len(want))
		}
	}
	first, err := put("k", chunkedBody('a'), driver.Create{})
	if err != nil {
		t.Fatalf("resumable Create of a new key: %v", err)
	}
	if _, err := put("k", chunkedBody('b'), driver.Create{}); !errors.Is(err, driver.ErrPreconditionFailed) {
		t.Fatalf("resumable Create of an existing key: %v; want ErrPreconditionFailed", err)
	}
	if _, err := put("k", chunkedBody('c'), driver.Update{ETag: staleGeneration(first.ETag)}); !errors.Is(err, driver.ErrPreconditionFailed) {
		t.Fatalf("resumable Update with a stale generation: %v; want ErrPreconditionFailed", err)
	}
	mustHold("k", chunkedBody('a'))
	if _, err := put("k", chunkedBody('d'), driver.Update{ETag: first.ETag}); err != nil {
		t.Fatalf("resumable Update with the current generation: %v", err)
	}
	mustHold("k", chunkedBody('d'))

	t.Run("ChangedWhileUploading", func(t *testing.T) {
		for _, tc := range []struct {
			name string
			mode func(key string) driver.PutMode
		}{
			{"Create", func(string) driver.PutMode { return driver.Create{} }},
			{"Update", func(key string) driver.PutMode {
				info, err := put(key, []byte("v1"), driver.Create{})
				if err != nil {
					t.Fatal(err)
				}
				return driver.Update{ETag: info.ETag}
			}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				key := "race-" + tc.name
				mode := tc.mode(key)
				g := &gate{r: bytes.NewReader(chunkedBody('s')), started: make(chan struct{}), release: make(chan struct{})}
				started := g.started
				done := make(chan error, 1)
				go func() {
					_, err := b.Put(ctx, key, g, int64(len(chunkedBody('s'))), driver.PutOptions{Mode: mode})
					done <- err
				}()
				<-started
				if _, err := put(key, []byte("winner"), nil); err != nil {
					t.Fatal(err)
				}
				close(g.release)
				if err := <-done; !errors.Is(err, driver.ErrPreconditionFailed) {
					t.Fatalf("resumable %s whose precondition stopped holding while its chunks uploaded: %v; want ErrPreconditionFailed (GCS checks ifGenerationMatch when the object appears)", tc.name, err)
				}
				mustHold(key, []byte("winner"))
			})
		}
	})
}

// staleGeneration returns a generation other than current's.
func staleGeneration(current string) string {
	gen, _ := generation(current)
	return etag(gen + 1)
}
