package objstore

import (
	"errors"
	"fmt"
	"time"

	"github.com/fencedstore/fence/internal/format"
)

// ReceiptFormat is the format tag of the receipts this build writes and
// reads (Receipt.Format).
const ReceiptFormat = "fence-receipt/1"

// A Receipt describes one staged value: a version object that Stage
// uploaded and that no manifest names yet. It is small and travels as
// JSON (one line per receipt in the CLI), from the worker that staged it
// to the committer that publishes it with PutReceipt. The store is the
// source of truth: Commit checks each receipt against it before it
// publishes anything.
type Receipt struct {
	Format string `json:"format"` // ReceiptFormat
	Domain string `json:"domain"`
	Key    string `json:"key"`
	Token  uint64 `json:"token"`
	// Object is the staged version object's key:
	// <domain>/_fence/v/<key>@<token>-<stage id>.
	Object string `json:"object"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"` // lower-case hex
	// CRC32C and CRC32 are the value's CRCs, 8 lower-case hex digits
	// each, as a commit records them; "" when the backend's upload did
	// not compute them (readers then check the SHA-256).
	CRC32C string    `json:"crc32c,omitempty"`
	CRC32  string    `json:"crc32,omitempty"`
	Staged time.Time `json:"staged"` // when Stage returned, by the worker's clock
}

// PutReceipt returns a change that publishes the value r describes under
// r.Key: a commit at r.Token to r.Domain takes it beside any other puts
// and deletes. The commit checks r first (see Store.Commit and
// ReceiptError) and publishes nothing if any receipt is refused.
func PutReceipt(r Receipt) Change {
	return Change{Key: r.Key, Size: r.Size, staged: &r}
}

// ErrReceipt: a commit refused a receipt (PutReceipt) because it does
// not match the commit or the store; nothing was published. Its
// *ReceiptError names the receipt.
var ErrReceipt = errors.New("objstore: receipt refused")

// ReceiptError reports a receipt that a commit refused, and why: it is
// from another domain or token, its version object is gone (never
// uploaded, or garbage-collected after its token was fenced), or the
// object's size differs from the receipt's. The commit published
// nothing.
type ReceiptError struct {
	Domain string // the commit's domain
	Token  uint64 // the commit's token
	Key    string // the receipt's key
	Object string // the receipt's version object
	Reason string
	Err    error // the store's error, when there was one
}

func (e *ReceiptError) Error() string {
	s := fmt.Sprintf("objstore: commit to %q at token %d: receipt for key %q (object %q) refused: %s; nothing was published", e.Domain, e.Token, e.Key, e.Object, e.Reason)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *ReceiptError) Is(target error) bool { return target == ErrReceipt }
func (e *ReceiptError) Unwrap() error        { return e.Err }

// Validate reports, as an *InvalidError, whether r is well formed: a
// known format, a valid domain, key and token, and an object whose name
// is a staged version of that key at that token. It does not look at
// the store.
func (r Receipt) Validate() error {
	bad := func(reason string) error {
		return &InvalidError{What: "receipt", Value: r.Object, Reason: reason}
	}
	if r.Format != ReceiptFormat {
		return bad(fmt.Sprintf("unknown format %q (this build reads %q)", r.Format, ReceiptFormat))
	}
	if err := ValidateDomain(r.Domain); err != nil {
		return err
	}
	if err := ValidateKey(r.Key); err != nil {
		return err
	}
	if err := ValidateToken(r.Token); err != nil {
		return err
	}
	domain, key, token, suffix, err := format.ParseVersionKey(r.Object)
	switch {
	case err != nil:
		return bad("object is not a version object key: " + err.Error())
	case domain != r.Domain:
		return bad(fmt.Sprintf("object is in domain %q, the receipt says %q", domain, r.Domain))
	case key != r.Key:
		return bad(fmt.Sprintf("object is a version of key %q, the receipt says %q", key, r.Key))
	case token != r.Token:
		return bad(fmt.Sprintf("object is at token %d, the receipt says %d", token, r.Token))
	case !isStageID(suffix):
		return bad("object was not written by Stage (its suffix is not a stage id): a receipt may only name a staged version")
	case r.Size < 0:
		return bad(fmt.Sprintf("negative size %d", r.Size))
	case !isHex(r.SHA256, 64):
		return bad("sha256 is not 64 lower-case hex digits")
	case r.CRC32C != "" && !isHex(r.CRC32C, 8), r.CRC32 != "" && !isHex(r.CRC32, 8):
		return bad("a CRC is not 8 lower-case hex digits")
	}
	return nil
}

// entry is the manifest entry that publishes r.
func (r Receipt) entry() format.Entry {
	return format.Entry{Version: r.Object, Size: r.Size, SHA256: r.SHA256, CRC32C: r.CRC32C, CRC32: r.CRC32, Token: r.Token}
}

// stageIDPrefix starts every stage id: "s" and 32 hex digits. A commit
// attempt's id is 32 hex digits (newID), so no staged object is ever
// named for a commit attempt, and a receipt can never name an object
// that a commit attempt wrote: Collect's rule that an object of a landed
// attempt is dead holds for every object a receipt can name.
const stageIDPrefix = "s"

// newStageID returns a fresh stage id.
func newStageID() string { return stageIDPrefix + newID() }

// isStageID reports whether suffix is a stage id.
func isStageID(suffix string) bool {
	return len(suffix) == len(stageIDPrefix)+32 && suffix[:len(stageIDPrefix)] == stageIDPrefix && isHex(suffix[len(stageIDPrefix):], 32)
}

// isHex reports whether s is n lower-case hex digits.
func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
