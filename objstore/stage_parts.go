package objstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/fencedstore/fence/objstore/driver"
)

// StageParts starts a staged value of key in domain under token whose
// bytes are uploaded in numbered parts, in any order and at the same
// time, as an S3 client's multipart upload: UploadPart for each part
// (a part uploaded again replaces the earlier one), then Complete with
// the ascending list of the parts that make the value, which returns its
// Receipt, as Stage does; or Abort. The receipt is published by a commit
// at token (PutReceipt), like any other.
//
// StageParts does Stage's checks before anything is uploaded: it fails
// with a *FencedError when the manifest shows a higher token, refuses a
// token the Issuer never issued, and writes the domain's first manifest
// when there is none.
//
// Parts stream to the store as they arrive; none is held in memory but
// those kept for hashing (below), and none on local disk (beyond the
// store's own, for file://); Azure's backend holds one block of a part
// (its block size) at a time. On a backend that is a
// driver.PartUploader (S3, MinIO, Azure, the file and memory stores) the
// parts are the parts of one upload of the store's own, which Complete
// completes into the version object. On any other (GCS) each part is
// staged as a version object of its own (a staged version of key, with
// its own stage id); Complete streams them, in order, into the value's
// version object and deletes them.
//
// The receipt's SHA-256 and CRCs are those of the whole value. They are
// computed in part order as the parts arrive: a part that continues the
// parts hashed so far (1, 2, 3, ...) is hashed as it streams; a part
// that arrives ahead of its turn is kept in memory until then, within
// Options.PartBufferBytes for the whole Store; and what was not hashed
// when Complete is called (a part that did not fit, or that was
// uploaded again after it was hashed) is read back from the completed
// object. On the backends without uploads in parts Complete reads every
// part back anyway, to write the value, and hashes them then.
//
// Abort, and a Complete that fails after its part list was accepted,
// leave nothing in the store: the upload is aborted, and the part
// objects and the version object deleted. A process that dies with an
// upload open leaves the store's incomplete upload behind (on S3, a
// bucket lifecycle rule AbortIncompleteMultipartUpload removes it; on
// file://, a directory "parts-<id>" in the store's .fence-tmp; on Azure,
// uncommitted blocks, which Azure drops after seven days), or, on the
// other backends, part objects, which Collect deletes, as any staged
// version, once the domain's highest token is above token.
//
// An upload that is neither completed nor aborted keeps the bytes it
// holds for hashing, out of the Store's budget, until it is: abort an
// upload given up on.
//
// A PartUpload is safe for concurrent use.
func (s *Store) StageParts(ctx context.Context, domain, key string, token uint64) (*PartUpload, error) {
	c, vk, err := s.prepareStage(ctx, domain, key, token)
	if err != nil {
		return nil, err
	}
	u := &PartUpload{s: s, c: c, key: key, object: vk, parts: make(map[int]*part), slots: make(map[int]chan struct{}), snaps: []hashState{emptyHashState()},
		inflight: make(map[int]bool)}
	u.turn = sync.NewCond(&u.mu)
	if pu, ok := s.b.(driver.PartUploader); ok {
		id, err := pu.CreateParts(ctx, vk, driver.PutOptions{})
		switch {
		case err == nil:
			u.pu, u.uploadID = pu, id
		case !errors.Is(err, driver.ErrUnsupported):
			return nil, fmt.Errorf("objstore: stage %q in parts in domain %q: %w", key, domain, err)
		}
	}
	return u, nil
}

// PartUpload is a value being staged in parts; see Store.StageParts.
type PartUpload struct {
	s        *Store
	c        *commit // the stage: domain, token, stage id
	key      string
	object   string
	pu       driver.PartUploader // nil: each part is an object of its own
	uploadID string

	// active counts the UploadPart calls past their state check;
	// Complete and Abort wait for them.
	active sync.WaitGroup

	mu     sync.Mutex
	state  uploadState
	parts  map[int]*part
	slots  map[int]chan struct{} // one UploadPart of a part number at a time
	hashed int                   // parts 1..hashed are hashed, in order
	snaps  []hashState           // snaps[i]: the state after parts 1..i; len hashed+1
	epoch  uint64                // counts the times hashed went back
	// inflight holds the part numbers being uploaded; turn is signalled
	// when one ends, when hashed moves and when the state changes: a part
	// ahead of its turn waits on it for room in the budget (waitForRoom).
	inflight map[int]bool
	turn     *sync.Cond
	hashing  bool // a hashKept call is hashing kept parts
}

type uploadState int

const (
	uploadOpen       uploadState = iota
	uploadCompleting             // a Complete is running
	uploadCompleted
	uploadAborted
)

// part is the last successful upload of one part number.
type part struct {
	size   int64
	etag   string
	object string // the part's own object, on a backend without uploads in parts
	buf    []byte // its bytes, kept to be hashed in turn; nil when not kept
	// hashing: hashKept is hashing buf with u.mu released; dropped: the
	// part was let go meanwhile, and hashKept releases buf.
	hashing, dropped bool
}

// PartInfo describes one uploaded part.
type PartInfo struct {
	N    int
	Size int64
	// ETag is the store's ETag of the part (of its object, on a backend
	// without uploads in parts).
	ETag string
}

// Object returns the key of the staged version object the upload
// writes: the Receipt's Object.
func (u *PartUpload) Object() string { return u.object }

// UploadPart uploads part n (1 to MaxParts) from body, whose length is
// exactly size: a body shorter or longer fails, and so does a body that
// fails to read. A part uploaded again replaces the earlier one once it
// succeeds; two uploads of one part number run one after the other. A
// failed upload leaves no trace in the value, and drops the part if it
// was uploaded before (some stores write a part in place, and a failure
// may hide a success): Complete refuses a list that names it
// (ErrInvalidPart) until it is uploaded again.
func (u *PartUpload) UploadPart(ctx context.Context, n int, body io.Reader, size int64) (PartInfo, error) {
	if err := driver.CheckPart(n, size); err != nil {
		return PartInfo{}, &InvalidError{What: "part", Value: fmt.Sprint(n), Reason: err.Error()}
	}
	if body == nil {
		return PartInfo{}, &InvalidError{What: "part", Value: fmt.Sprint(n), Reason: "no body"}
	}
	u.mu.Lock()
	if u.state != uploadOpen {
		st := u.state
		u.mu.Unlock()
		return PartInfo{}, u.closed(st)
	}
	u.active.Add(1)
	slot := u.slots[n]
	if slot == nil {
		slot = make(chan struct{}, 1)
		u.slots[n] = slot
	}
	u.mu.Unlock()
	defer u.active.Done()
	select {
	case slot <- struct{}{}:
	case <-ctx.Done():
		return PartInfo{}, fmt.Errorf("objstore: upload part %d of %q: %w", n, u.object, ctx.Err())
	}
	defer func() { <-slot }()

	var p *part
	var err error
	if u.pu == nil {
		p, err = u.uploadOwnObject(ctx, n, body, size)
	} else {
		p, err = u.uploadPart(ctx, n, body, size)
	}
	if err != nil {
		return PartInfo{}, fmt.Errorf("objstore: upload part %d of %q: %w", n, u.object, err)
	}
	return PartInfo{N: n, Size: p.size, ETag: p.etag}, nil
}

// closed returns the error of a call on an upload in state st.
func (u *PartUpload) closed(st uploadState) error {
	what := "aborted"
	switch st {
	case uploadCompleting:
		what = "being completed"
	case uploadCompleted:
		what = "completed"
	}
	return fmt.Errorf("objstore: upload in parts of %q was %s: %w", u.object, what, ErrNoSuchUpload)
}

// uploadPart uploads part n to the backend's upload, hashing it as it
// streams when it continues the parts hashed so far, or keeping its
// bytes when it arrives ahead of its turn and the Store's budget
// allows.
func (u *PartUpload) uploadPart(ctx context.Context, n int, body io.Reader, size int64) (*part, error) {
	u.mu.Lock()
	var h *partHash
	var epoch uint64
	var buf []byte
	keep := false
	stop := context.AfterFunc(ctx, u.signal)
	for {
		if n <= u.hashed+1 {
			h, epoch = u.snaps[n-1].resume(), u.epoch
			break
		}
		if buf, keep = u.s.takePartBuffer(size); keep || !u.waitForRoom(ctx) {
			break
		}
		u.turn.Wait()
	}
	stop()
	u.inflight[n] = true
	u.mu.Unlock()
	defer u.landed(n)

	r := driver.ExactReader(body, size)
	var kept *keeper
	switch {
	case h != nil:
		r = io.TeeReader(r, h)
	case keep:
		kept = &keeper{buf: buf}
		r = io.TeeReader(r, kept)
	}
	start := int64(0)
	if h != nil {
		start = h.n
	}
	etag, err := u.pu.UploadPart(ctx, u.object, u.uploadID, n, r, size)
	if err != nil {
		if keep {
			u.s.releasePartBuffer(kept.buf)
		}
		u.forget(n)
		return nil, err
	}
	p := &part{size: size, etag: etag}

	u.mu.Lock()
	defer u.mu.Unlock()
	if old := u.parts[n]; old != nil {
		u.dropBuf(old)
	}
	u.parts[n] = p
	// The backend read the body through r; h (or kept) saw every byte
	// it read, exactly once.
	streamed := h != nil && h.n-start == size && epoch == u.epoch && u.hashed >= n-1
	if n <= u.hashed {
		u.rewind(n - 1) // the part's old bytes were hashed
	}
	switch {
	case streamed:
		u.snaps = append(u.snaps, h.state())
		u.hashed = n
	case kept != nil && int64(len(kept.buf)) == size:
		p.buf = kept.buf
	case keep:
		u.s.releasePartBuffer(kept.buf)
	}
	u.hashKept()
	return p, nil
}

// waitForRoom reports whether a part ahead of its turn, for which the
// Store's budget has no room, should wait for some rather than stream
// without being kept (and be read back when the upload completes). It
// waits while the part whose turn it is is being uploaded, or kept parts
// are being hashed: that upload ends, hashing it, or hashing the parts
// kept after it, and letting their buffers go, or leaving the turn
// stuck, and the waiting ends.
// So the wait needs no clock, and a client that sends parts out of order
// (the part whose turn it is not sent) never waits. Without it, an
// upload manager's four parts at a time completing slightly out of order
// filled the budget with parts kept behind the one in flight, and a
// 256 MiB upload read 16 to 80 MiB back (bench's gateway rows). The
// caller holds u.mu.
func (u *PartUpload) waitForRoom(ctx context.Context) bool {
	return u.state == uploadOpen && ctx.Err() == nil && (u.inflight[u.hashed+1] || u.hashing)
}

// signal wakes the parts waiting for their turn or for room.
func (u *PartUpload) signal() {
	u.mu.Lock()
	u.turn.Broadcast()
	u.mu.Unlock()
}

// landed marks part n's upload over, and wakes the waiting parts.
func (u *PartUpload) landed(n int) {
	u.mu.Lock()
	delete(u.inflight, n)
	u.turn.Broadcast()
	u.mu.Unlock()
}

// forget drops part n after an upload of it failed: the store may
// hold the part as it was, or no usable part (versitygw writes a part
// in place, and an upload whose reply was lost may have replaced it), so
// Complete refuses it until it is uploaded again. It returns the
// object of the part's earlier upload, "" if none.
func (u *PartUpload) forget(n int) string {
	u.mu.Lock()
	defer u.mu.Unlock()
	old := u.parts[n]
	if old == nil {
		return ""
	}
	delete(u.parts, n)
	u.dropBuf(old)
	if n <= u.hashed {
		u.rewind(n - 1)
	}
	return old.object
}

// keeper keeps what is written to it, within its buffer's capacity.
type keeper struct{ buf []byte }

func (k *keeper) Write(p []byte) (int, error) {
	if len(k.buf)+len(p) > cap(k.buf) {
		return 0, errors.New("objstore: part longer than its size") // ExactReader stops it first
	}
	k.buf = append(k.buf, p...)
	return len(p), nil
}

// rewind makes parts 1..m the hashed ones. The caller holds u.mu.
func (u *PartUpload) rewind(m int) {
	u.snaps = u.snaps[:m+1]
	u.hashed = m
	u.epoch++
}

// hashKept hashes the kept parts that continue the hashed ones, in
// order, and lets their bytes go. It hashes with u.mu released, so that
// other parts land and start meanwhile (hashing three kept 16 MiB parts
// takes tens of milliseconds); one call at a time hashes (u.hashing),
// and a part dropped, replaced or rewound past while it was hashed is
// not taken. The caller holds u.mu, and holds it again on return.
func (u *PartUpload) hashKept() {
	if u.hashing {
		return // the call hashing now takes the parts that follow
	}
	u.hashing = true
	defer func() {
		u.hashing = false
		u.turn.Broadcast()
	}()
	for {
		n := u.hashed + 1
		p := u.parts[n]
		if p == nil || p.buf == nil {
			return
		}
		buf, st, epoch := p.buf, u.snaps[u.hashed], u.epoch
		p.hashing = true
		u.mu.Unlock()
		if hashingKept != nil {
			hashingKept(n)
		}
		h := st.resume()
		// In pieces: each piece's CRCs then read it from the cache its
		// SHA-256 brought it into, not from memory (a 16 MiB part does
		// not fit).
		for b := buf; len(b) > 0; {
			n := min(len(b), keptHashPiece)
			h.Write(b[:n])
			b = b[n:]
		}
		next := h.state()
		u.mu.Lock()
		p.hashing = false
		switch {
		case p.dropped: // its buffer was left to this call
			u.s.releasePartBuffer(buf)
		case epoch == u.epoch && u.parts[n] == p && u.hashed == n-1:
			u.snaps = append(u.snaps, next)
			u.hashed = n
			u.s.releasePartBuffer(buf)
			p.buf = nil
			u.turn.Broadcast()
		}
	}
}

// keptHashPiece is how much of a kept part hashKept hashes at a time.
const keptHashPiece = 256 << 10

// hashingKept, when a test sets it, is called as hashKept starts to hash
// part n, with u.mu released.
var hashingKept func(n int)

// dropBuf lets p's kept bytes go, now, or once hashKept, which is
// hashing them, is done with them. The caller holds u.mu.
func (u *PartUpload) dropBuf(p *part) {
	if p.buf == nil {
		return
	}
	if p.hashing {
		p.dropped = true
	} else {
		u.s.releasePartBuffer(p.buf)
	}
	p.buf = nil
}

// Abort discards the upload: the backend's upload is aborted, or the
// part objects deleted, so that nothing of it stays in the store. It
// waits for the UploadPart calls in flight to end (or for ctx), and
// UploadPart and Complete fail with ErrNoSuchUpload from its start. It
// may be called again after it failed. Aborting a completed upload fails
// with ErrNoSuchUpload.
func (u *PartUpload) Abort(ctx context.Context) error {
	u.mu.Lock()
	if u.state == uploadCompleting || u.state == uploadCompleted {
		st := u.state
		u.mu.Unlock()
		return u.closed(st)
	}
	u.state = uploadAborted
	u.turn.Broadcast()
	u.mu.Unlock()
	if err := u.idle(ctx); err != nil {
		return fmt.Errorf("objstore: abort upload in parts of %q: %w", u.object, err)
	}
	if err := u.discard(ctx); err != nil {
		return fmt.Errorf("objstore: abort upload in parts of %q: %w", u.object, err)
	}
	return nil
}

// idle waits until no UploadPart is in flight, or ctx is done.
func (u *PartUpload) idle(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		u.active.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// discard removes everything of the upload from the store (the
// backend's upload, or the part objects) and lets the kept bytes go.
// The upload is no longer open, and no UploadPart is in flight.
func (u *PartUpload) discard(ctx context.Context) error {
	u.mu.Lock()
	var objects []string
	for _, p := range u.parts {
		u.dropBuf(p)
		if p.object != "" {
			objects = append(objects, p.object)
		}
	}
	u.mu.Unlock()
	if u.pu != nil {
		return u.pu.AbortParts(ctx, u.object, u.uploadID)
	}
	var errs []error
	for _, o := range objects {
		if err := u.s.b.Delete(ctx, o); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
