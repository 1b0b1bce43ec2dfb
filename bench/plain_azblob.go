package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"

	"github.com/fencedstore/fence/objstore/azblobstore"
)

// azblobPlain calls azure-sdk-for-go's azblob directly: one Put Blob per
// put, whatever the size (as the S3 baseline is one PutObject), and one
// Get Blob per get. A conditional put is If-None-Match: * to create,
// If-Match: <ETag> to replace.
type azblobPlain struct {
	c      *container.Client
	prefix string
}

func (p *azblobPlain) describe() string {
	return "azure-sdk-for-go azblob Put Blob / Get Blob on the backend's own *container.Client"
}

func (p *azblobPlain) putCall() string   { return "Put Blob" }
func (p *azblobPlain) getCall() string   { return "Get Blob" }
func (p *azblobPlain) condition() string { return "If-Match on the last ETag" }

func (p *azblobPlain) put(ctx context.Context, key string, data []byte) error {
	_, err := p.putIfMatch(ctx, key, data, "-")
	return err
}

func (p *azblobPlain) putIfMatch(ctx context.Context, key string, data []byte, etag string) (string, error) {
	if len(data) > azblobstore.MaxSinglePut {
		return "", fmt.Errorf("bench: plain Put Blob %q: %d bytes, over Azure's largest Put Blob of %d", key, len(data), int64(azblobstore.MaxSinglePut))
	}
	var opts blockblob.UploadOptions
	switch etag {
	case "-": // unconditional
	case "":
		star := azcore.ETagAny
		opts.AccessConditions = &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfNoneMatch: &star}}
	default:
		match := azcore.ETag(etag)
		opts.AccessConditions = &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: &match}}
	}
	out, err := p.c.NewBlockBlobClient(p.prefix+key).Upload(ctx, streaming.NopCloser(bytes.NewReader(data)), &opts)
	if err != nil {
		return "", fmt.Errorf("bench: plain Put Blob %q: %w", key, err)
	}
	if out.ETag == nil {
		return "", fmt.Errorf("bench: plain Put Blob %q: no ETag in the answer", key)
	}
	return string(*out.ETag), nil
}

func (p *azblobPlain) get(ctx context.Context, key string) (int64, error) {
	out, err := p.c.NewBlobClient(p.prefix+key).DownloadStream(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("bench: plain Get Blob %q: %w", key, err)
	}
	defer out.Body.Close()
	n, err := io.Copy(io.Discard, out.Body)
	if err != nil {
		return n, fmt.Errorf("bench: plain Get Blob %q: %w", key, err)
	}
	return n, nil
}

// abortUploads has nothing to do: Azure has no call that discards staged
// blocks; those never committed stay invisible to Get and List and expire
// on their own.
func (p *azblobPlain) abortUploads(context.Context, string) (int, error) { return 0, nil }
