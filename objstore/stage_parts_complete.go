package objstore

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore/driver"
)

// Complete makes the value from the parts listed, in ascending order,
// and returns its Receipt; parts uploaded but not listed are discarded.
// It waits for the UploadPart calls in flight to end first.
//
// A list that is empty, names a part never uploaded, is not ascending,
// or has a part other than the last smaller than MinPartSize fails with
// a *PartError (ErrInvalidPart, ErrInvalidPartOrder, ErrPartTooSmall)
// before anything is written, and the upload stays open, as S3's does.
// Any later failure (the backend's, or reading back what was not hashed)
// removes everything the upload wrote, and the upload is over, as after
// Abort.
func (u *PartUpload) Complete(ctx context.Context, parts []int) (Receipt, error) {
	u.mu.Lock()
	if u.state != uploadOpen {
		st := u.state
		u.mu.Unlock()
		return Receipt{}, u.closed(st)
	}
	u.state = uploadCompleting
	u.turn.Broadcast()
	u.mu.Unlock()
	if err := u.idle(ctx); err != nil {
		u.reopen()
		return Receipt{}, fmt.Errorf("objstore: complete upload in parts of %q: %w", u.object, err)
	}

	u.mu.Lock()
	listed, err := u.checkList(parts)
	if err != nil {
		u.state = uploadOpen
		u.mu.Unlock()
		return Receipt{}, err
	}
	u.state = uploadCompleted
	var total int64
	for _, p := range listed {
		total += p.size
	}
	// The hashed parts that begin the list are hashed already.
	from := 0
	for from < len(parts) && from < u.hashed && parts[from] == from+1 {
		from++
	}
	start := u.snaps[from]
	u.mu.Unlock()

	var e format.Entry
	if u.pu == nil {
		e, err = u.completeOwnObjects(ctx, listed, total)
	} else {
		e, err = u.completeParts(ctx, parts, listed, total, from, start)
	}
	if err != nil {
		if derr := u.removeAll(ctx); derr != nil {
			err = fmt.Errorf("%w (and removing what the upload wrote failed: %v)", err, derr)
		}
		return Receipt{}, fmt.Errorf("objstore: complete upload in parts of %q: %w", u.object, err)
	}
	u.releaseKept()
	return Receipt{
		Format: ReceiptFormat, Domain: u.c.domain, Key: u.key, Token: u.c.token, Object: u.object,
		Size: e.Size, SHA256: e.SHA256, CRC32C: e.CRC32C, CRC32: e.CRC32, Staged: u.s.opts.Now().UTC(),
	}, nil
}

// reopen makes a Complete that did not start writing leave the upload
// open.
func (u *PartUpload) reopen() {
	u.mu.Lock()
	if u.state == uploadCompleting {
		u.state = uploadOpen
	}
	u.mu.Unlock()
}

// checkList returns the parts that parts lists, or a *PartError. The
// caller holds u.mu.
func (u *PartUpload) checkList(parts []int) ([]*part, error) {
	bad := func(n int, class error, reason string) error {
		return &PartError{Object: u.object, N: n, Reason: reason, class: class}
	}
	if len(parts) == 0 {
		return nil, bad(0, ErrInvalidPart, "the list of parts is empty")
	}
	listed := make([]*part, len(parts))
	for i, n := range parts {
		if i > 0 && n <= parts[i-1] {
			return nil, bad(n, ErrInvalidPartOrder, fmt.Sprintf("listed after part %d: parts must be listed in ascending order", parts[i-1]))
		}
		p := u.parts[n]
		if p == nil {
			return nil, bad(n, ErrInvalidPart, "it was not uploaded")
		}
		listed[i] = p
	}
	for i, p := range listed[:len(listed)-1] {
		if p.size < MinPartSize {
			return nil, bad(parts[i], ErrPartTooSmall, fmt.Sprintf("it has %d bytes and is not the last part: the minimum is %d", p.size, MinPartSize))
		}
	}
	return listed, nil
}

// completeParts completes the backend's upload with the listed parts
// and hashes what was not hashed yet, from start (the state after
// listed[:from]): kept parts from memory, the others read back from
// the completed object, one ranged Get per run of them.
func (u *PartUpload) completeParts(ctx context.Context, parts []int, listed []*part, total int64, from int, start hashState) (format.Entry, error) {
	cps := make([]driver.CompletedPart, len(parts))
	for i, n := range parts {
		cps[i] = driver.CompletedPart{N: n, ETag: listed[i].etag}
	}
	info, err := u.pu.CompleteParts(ctx, u.object, u.uploadID, cps, driver.Create{})
	if err != nil {
		return format.Entry{}, err
	}
	if info.Size != total {
		return format.Entry{}, fmt.Errorf("the completed object has %d bytes, its parts %d", info.Size, total)
	}
	h := start.resume()
	for i := from; i < len(listed); {
		if listed[i].buf != nil {
			h.Write(listed[i].buf)
			i++
			continue
		}
		j := i
		var n int64
		for ; j < len(listed) && listed[j].buf == nil; j++ {
			n += listed[j].size
		}
		if err := u.readBack(ctx, h, n); err != nil {
			return format.Entry{}, err
		}
		i = j
	}
	if h.n != total {
		return format.Entry{}, fmt.Errorf("hashed %d bytes of a value of %d", h.n, total)
	}
	return entryOf(u.object, h.digest(), u.c.token), nil
}

// readBack hashes n bytes of the completed object from h's length on.
func (u *PartUpload) readBack(ctx context.Context, h *partHash, n int64) error {
	if n == 0 {
		return nil
	}
	off := h.n
	rc, _, err := u.s.b.Get(ctx, u.object, driver.GetOptions{Offset: off, Length: n})
	if err != nil {
		return fmt.Errorf("reading back bytes %d to %d to hash them: %w", off, off+n-1, err)
	}
	defer rc.Close()
	got, err := io.Copy(h, io.LimitReader(rc, n))
	if err == nil && got != n {
		err = fmt.Errorf("got %d bytes: %w", got, io.ErrUnexpectedEOF)
	}
	if err != nil {
		return fmt.Errorf("reading back bytes %d to %d to hash them: %w", off, off+n-1, err)
	}
	return nil
}

// removeAll removes what a Complete that failed may have written: the
// version object, and the backend's upload or the part objects.
func (u *PartUpload) removeAll(ctx context.Context) error {
	ctx = context.WithoutCancel(ctx)
	err := u.discard(ctx)
	return errors.Join(err, u.s.b.Delete(ctx, u.object))
}

// releaseKept lets the kept bytes of every part go.
func (u *PartUpload) releaseKept() {
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, p := range u.parts {
		u.dropBuf(p)
	}
}
