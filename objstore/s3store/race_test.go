package s3store

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/fencedstore/fence/objstore"
)

// gated reads r, but blocks once n bytes have been read until open is
// closed, telling reached first.
type gated struct {
	r       io.Reader
	n       int64
	reached chan struct{}
	open    chan struct{}
}

func (g *gated) Read(p []byte) (int, error) {
	if g.n == 0 {
		if g.reached != nil {
			close(g.reached)
			g.reached = nil
		}
		<-g.open
		return g.r.Read(p)
	}
	n, err := g.r.Read(p[:min(int64(len(p)), g.n)])
	g.n -= int64(n)
	return n, err
}

// TestMultipartPreconditionAtComplete: the object appears while a
// multipart upload with If-None-Match: * is under way. The precondition
// must be checked when the upload completes, not only when it starts, so
// the upload fails and the other writer's object stays.
func TestMultipartPreconditionAtComplete(t *testing.T) {
	opts := testOptions(t)
	opts.PartSize, opts.MultipartThreshold = MinPartSize, MinPartSize
	b := newBucket(t, "", opts)
	ctx := t.Context()
	const size = 12 << 20
	body := &gated{r: &pattern{n: size}, n: 7 << 20, reached: make(chan struct{}), open: make(chan struct{})}
	reached := body.reached
	done := make(chan error, 1)
	go func() {
		_, err := b.Put(ctx, "k", body, -1, objstore.PutOptions{IfNoneMatch: true})
		done <- err
	}()
	<-reached // the first part is uploaded, the second is being read
	if _, err := b.Put(ctx, "k", strings.NewReader("other"), 5, objstore.PutOptions{IfNoneMatch: true}); err != nil {
		t.Fatalf("competing Put: %v", err)
	}
	close(body.open)
	if err := <-done; !errors.Is(err, objstore.ErrPreconditionFailed) {
		t.Fatalf("multipart Put that lost the race: %v, want ErrPreconditionFailed", err)
	}
	mustGet(t, b, "k", 5, sumOf("other"))
	mustHaveNoUploads(t, b)
}
