package azblobstore

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/drivertest"
)

// TestUncommittedBlocks records how the service treats a blob that has
// staged, uncommitted blocks and no committed content: whether it
// exists for Head and for If-None-Match: *, and what a staged upload's
// conditional commit gets once another writer has put the blob.
func TestUncommittedBlocks(t *testing.T) {
	b := newContainer(t, "", nil)
	ctx := t.Context()
	id := base64.StdEncoding.EncodeToString([]byte("upload-0001"))
	stage := func(name string) *blockblob.Client {
		t.Helper()
		c := b.client.NewBlockBlobClient(name)
		if _, err := c.StageBlock(ctx, id, streaming.NopCloser(strings.NewReader("staged")), nil); err != nil {
			t.Fatalf("StageBlock(%s): %v", name, err)
		}
		return c
	}
	anyETag := azcore.ETagAny
	create := &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfNoneMatch: &anyETag}}
	answer := func(err error) string {
		if err == nil {
			return "accepted"
		}
		code, status := apiError(err)
		return fmt.Sprintf("%d %s", status, code)
	}

	// Azure's documentation has such a blob not exist; Azurite 3.37.0
	// agrees for Head, and refuses If-None-Match: * on Put Blob with 409
	// BlobAlreadyExists. Either answer fails closed: a refusal is a failed
	// precondition, never a write.
	stage("u")
	if _, err := b.Head(ctx, "u"); !errors.Is(err, driver.ErrNotFound) {
		t.Errorf("Head of a blob with only uncommitted blocks: %v; want ErrNotFound", err)
	}
	_, err := b.client.NewBlockBlobClient("u").Upload(ctx, streaming.NopCloser(strings.NewReader("other")), &blockblob.UploadOptions{AccessConditions: create})
	t.Logf("Put Blob with If-None-Match: * on a blob with only uncommitted blocks: %s", answer(err))
	if err != nil && !errors.Is(b.failPut("u", err, driver.Create{}), driver.ErrPreconditionFailed) {
		t.Errorf("that refusal is not a failed precondition: %v", err)
	}

	// A staged upload whose blob another writer put meanwhile: the
	// condition is checked first, so the commit fails its precondition
	// (not InvalidBlockList, though the put discarded the staged blocks).
	c := stage("w")
	if _, err := b.Put(ctx, "w", strings.NewReader("other"), 5, driver.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = c.CommitBlockList(ctx, []string{id}, &blockblob.CommitBlockListOptions{AccessConditions: create})
	t.Logf("Put Block List with If-None-Match: * after another writer put the blob: %s", answer(err))
	if !errors.Is(b.failPut("w", err, driver.Create{}), driver.ErrPreconditionFailed) {
		t.Errorf("Put Block List with If-None-Match: * after another writer put the blob: %v; want a failed precondition", err)
	}
	if got := drivertest.ReadString(t, b, "w"); got != "other" {
		t.Fatalf("w = %q; want the other writer's", got)
	}
}
