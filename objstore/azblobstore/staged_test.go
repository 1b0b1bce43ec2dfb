package azblobstore

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"

	"github.com/fencedstore/fence/objstore/driver"
)

// gate reads r and blocks, once n bytes have been read, until open is
// closed, closing reached first.
type gate struct {
	r       io.Reader
	n       int64
	reached chan struct{}
	open    chan struct{}
}

func (g *gate) Read(p []byte) (int, error) {
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

// TestConcurrentStagedUploads: two staged uploads of one key, both with
// blocks staged before either commits. Azure keeps one uncommitted block
// list per blob, so uploads that named their blocks alike would commit
// each other's bytes; with the upload id in every block ID, the blob
// holds one writer's body whole, and the last writer to succeed is the
// one it holds.
func TestConcurrentStagedUploads(t *testing.T) {
	const part, size = 5 << 20, 12 << 20
	b := newContainer(t, "", &Options{PartSize: part})
	ctx := t.Context()
	bodies := [2][]byte{bytes.Repeat([]byte("a"), size), bytes.Repeat([]byte("b"), size)}
	var gates [2]*gate
	var reached [2]chan struct{}
	errs := [2]chan error{make(chan error, 1), make(chan error, 1)}
	for i := range 2 {
		gates[i] = &gate{r: bytes.NewReader(bodies[i]), n: 2 * part, reached: make(chan struct{}), open: make(chan struct{})}
		reached[i] = gates[i].reached
		go func() {
			// Unknown size: staged, two blocks out before the gate.
			_, err := b.Put(ctx, "k", struct{ io.Reader }{gates[i]}, -1, driver.PutOptions{})
			errs[i] <- err
		}()
	}
	<-reached[0]
	<-reached[1]
	time.Sleep(500 * time.Millisecond) // the second blocks are staged while the third is read
	close(gates[0].open)
	err0 := <-errs[0]
	close(gates[1].open)
	err1 := <-errs[1]
	t.Logf("first upload: %v; second upload: %v", err0, err1)
	rc, _, err := b.Get(ctx, "k", driver.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(rc)
	rc.Close()
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case err1 == nil && !bytes.Equal(got, bodies[1]), err1 != nil && err0 == nil && !bytes.Equal(got, bodies[0]):
		t.Fatalf("the blob holds %d bytes, %d of them 'a' and %d 'b': the uploads mixed their blocks", len(got), bytes.Count(got, []byte("a")), bytes.Count(got, []byte("b")))
	case err0 != nil && err1 != nil:
		t.Fatalf("both uploads failed: %v; %v", err0, err1)
	}
	for _, err := range []error{err0, err1} {
		if errors.Is(err, driver.ErrPreconditionFailed) {
			t.Fatalf("an unconditional upload failed its precondition: %v", err)
		}
	}
}

// TestServerBusy: a service that answers 503 ServerBusy to every request
// is retried by the SDK, and then reported without an error class (the
// Store settles an ambiguous write by reading), never as a failed
// precondition, whatever the put mode.
func TestServerBusy(t *testing.T) {
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		io.Copy(io.Discard, r.Body)
		w.Header().Set("x-ms-error-code", "ServerBusy")
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	c, err := container.NewClientWithNoCredential(srv.URL+"/devstoreaccount1/box", &container.ClientOptions{ClientOptions: policy.ClientOptions{
		Retry: policy.RetryOptions{MaxRetries: 2, RetryDelay: time.Millisecond, MaxRetryDelay: time.Millisecond},
	}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(c, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []driver.PutMode{driver.Create{}, driver.Update{ETag: `"0x1"`}, driver.Overwrite{}} {
		requests.Store(0)
		_, err := b.Put(t.Context(), "k", strings.NewReader("x"), 1, driver.PutOptions{Mode: mode})
		for _, class := range []error{driver.ErrPreconditionFailed, driver.ErrConflict, driver.ErrNotFound, driver.ErrPermanent} {
			if errors.Is(err, class) {
				t.Errorf("%T: %v matches %v", mode, err, class)
			}
		}
		if err == nil || !strings.Contains(err.Error(), "ServerBusy") {
			t.Errorf("%T: %v; want the 503 ServerBusy", mode, err)
		}
		if n := requests.Load(); n != 3 {
			t.Errorf("%T: %d requests; want 3 (the SDK's 2 retries)", mode, n)
		}
	}
}
