package objstore

import (
	"context"
	"errors"
)

// transient reports whether a read error is worth retrying: anything but a
// definite answer (not found, or a refusal that will be repeated: access
// denied, disk full, read-only, a missing bucket, an endpoint no request
// can reach), a caller's cancellation, or bad data. The backends' SDKs
// do not retry an unreachable endpoint either, so it costs one request.
func transient(ctx context.Context, err error) bool {
	switch {
	case err == nil, ctx.Err() != nil:
		return false
	case errors.Is(err, ErrNotFound), errors.Is(err, ErrCorruptManifest), errors.Is(err, ErrInvalid), errors.Is(err, ErrIntegrity),
		errors.Is(err, ErrPermanent):
		return false
	}
	return true
}
