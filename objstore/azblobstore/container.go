package azblobstore

import (
	"context"
	"fmt"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"

	"github.com/fencedstore/fence/objstore/driver/netfail"
)

// ContainerExists reports whether the backend's container exists, with
// one Get Container Properties request. A missing container is (false,
// nil); any other failure (no connection, wrong credentials) is an error
// that keeps the SDK's error in the chain for errors.As.
func (b *Backend) ContainerExists(ctx context.Context) (bool, error) {
	_, err := b.client.GetProperties(ctx, nil)
	if err == nil {
		return true, nil
	}
	if bloberror.HasCode(err, bloberror.ContainerNotFound) {
		return false, nil
	}
	return false, b.containerErr("get properties of", err)
}

// EnsureContainer creates the backend's container unless it already
// exists; it is idempotent and safe to call concurrently. The container
// is private (no public access).
func (b *Backend) EnsureContainer(ctx context.Context) error {
	_, err := b.client.Create(ctx, nil)
	if err == nil || bloberror.HasCode(err, bloberror.ContainerAlreadyExists) {
		return nil
	}
	if bloberror.HasCode(err, bloberror.ContainerBeingDeleted) {
		return fmt.Errorf("azblobstore: create container %q: it is being deleted; try again in a minute: %w", b.container, err)
	}
	return b.containerErr("create", err)
}

func (b *Backend) containerErr(op string, err error) error {
	if ue := netfail.Unreachable(b.endpoint, err); ue != nil {
		return fmt.Errorf("azblobstore: %s container %q: %w", op, b.container, ue)
	}
	code, status := apiError(err)
	class := Class(code, status)
	err = service(err)
	switch {
	case status == http.StatusForbidden:
		return fmt.Errorf("azblobstore: %s container %q: %s: %w: %w", op, b.container, b.denied(code), class, err)
	case status == 0 && isTransport(err):
		return fmt.Errorf("azblobstore: %s container %q: cannot reach the blob service at %s: %w", op, b.container, b.endpoint, err)
	case class != nil:
		return fmt.Errorf("azblobstore: %s container %q at %s: %w: %w", op, b.container, b.endpoint, class, err)
	}
	return fmt.Errorf("azblobstore: %s container %q at %s: %w", op, b.container, b.endpoint, err)
}
