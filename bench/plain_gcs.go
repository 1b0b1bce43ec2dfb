package bench

import (
	"context"
	"fmt"
	"io"
	"strconv"

	"cloud.google.com/go/storage"
)

// gcsPlain calls cloud.google.com/go/storage directly. A conditional put
// is ifGenerationMatch: 0 (DoesNotExist) to create, the object's
// generation to replace it; the ETag is the generation in decimal, as
// gcsstore's is.
type gcsPlain struct {
	c      *storage.Client
	bucket string
	prefix string
	// chunk is the backend's chunk size for a body of a size
	// (gcsstore.Backend.UploadChunk), so that the baseline sends a body in
	// as many requests as the backend does and allocates the same buffer.
	chunk func(size int64) int
}

func (p *gcsPlain) describe() string {
	return "cloud.google.com/go/storage Writer / Reader on the backend's own *storage.Client"
}

func (p *gcsPlain) putCall() string   { return "GCS upload" }
func (p *gcsPlain) getCall() string   { return "GCS read" }
func (p *gcsPlain) condition() string { return "ifGenerationMatch on the last generation" }

func (p *gcsPlain) object(key string) *storage.ObjectHandle {
	return p.c.Bucket(p.bucket).Object(p.prefix + key)
}

func (p *gcsPlain) put(ctx context.Context, key string, data []byte) error {
	_, err := p.write(ctx, key, p.object(key), data)
	return err
}

func (p *gcsPlain) putIfMatch(ctx context.Context, key string, data []byte, etag string) (string, error) {
	cond := storage.Conditions{DoesNotExist: true}
	if etag != "" {
		gen, err := strconv.ParseInt(etag, 10, 64)
		if err != nil || gen <= 0 {
			return "", fmt.Errorf("bench: plain conditional write %q: ETag %q is no GCS generation", key, etag)
		}
		cond = storage.Conditions{GenerationMatch: gen}
	}
	attrs, err := p.write(ctx, key, p.object(key).If(cond), data)
	if err != nil {
		return "", err
	}
	return strconv.FormatInt(attrs.Generation, 10), nil
}

// write uploads data to o with one Writer: one request when data fits in
// a chunk, a resumable upload otherwise.
func (p *gcsPlain) write(ctx context.Context, key string, o *storage.ObjectHandle, data []byte) (*storage.ObjectAttrs, error) {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w := o.NewWriter(wctx)
	w.ChunkSize = p.chunk(int64(len(data)))
	w.ContentType = "application/octet-stream"
	if _, err := w.Write(data); err != nil {
		cancel() // abandons the upload
		_ = w.Close()
		return nil, fmt.Errorf("bench: plain GCS write %q: %w", key, err)
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("bench: plain GCS write %q: %w", key, err)
	}
	return w.Attrs(), nil
}

func (p *gcsPlain) get(ctx context.Context, key string) (int64, error) {
	r, err := p.object(key).NewReader(ctx)
	if err != nil {
		return 0, fmt.Errorf("bench: plain GCS read %q: %w", key, err)
	}
	defer r.Close()
	n, err := io.Copy(io.Discard, r)
	if err != nil {
		return n, fmt.Errorf("bench: plain GCS read %q: %w", key, err)
	}
	return n, nil
}

// abortUploads has nothing to do: a resumable upload that is never
// finished leaves no object, and GCS has no call that lists unfinished
// ones.
func (p *gcsPlain) abortUploads(context.Context, string) (int, error) { return 0, nil }
