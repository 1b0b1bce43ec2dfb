package objstore

import (
	"bytes"
	"io"
	"time"
)

// Change is one key's part of a commit: a put of new bytes or a delete.
// Build changes with PutBytes, PutReader, PutReceipt and DeleteKey.
type Change struct {
	Key    string
	Body   io.Reader // nil for a delete, or a put of a receipt
	Size   int64     // exact length of Body, or -1 when unknown
	Delete bool
	staged *Receipt // set by PutReceipt: publish this staged value
}

// PutBytes returns a change that sets key to data.
func PutBytes(key string, data []byte) Change {
	return Change{Key: key, Body: bytes.NewReader(data), Size: int64(len(data))}
}

// PutReader returns a change that sets key to r's bytes. size is the exact
// length, or -1 when unknown. If r is an io.Seeker, a failed upload is
// retried from the start; otherwise it fails the commit (nothing becomes
// visible).
func PutReader(key string, r io.Reader, size int64) Change {
	return Change{Key: key, Body: r, Size: size}
}

// DeleteKey returns a change that removes key from the domain.
func DeleteKey(key string) Change { return Change{Key: key, Delete: true} }

// CommitOptions tunes one commit. nil means defaults.
type CommitOptions struct {
	// ID, when set, makes the commit a retry of the commit with that id,
	// whose outcome is unknown: if an earlier attempt landed, the retry
	// reports it (Recovered) instead of applying it again; if the log no
	// longer reaches back far enough to tell, it fails with
	// ErrOutcomeUnknown again and applies nothing. Take ID and After from
	// the *UnknownOutcomeError (its Retry method). Default: a new commit
	// with a new random id.
	ID string
	// After, with ID, is the manifest seq that the earliest attempt was
	// based on: any attempt that landed did so at a later seq. 0 means
	// the commit may have landed at any seq, so only a log that holds the
	// domain's whole history can tell that it did not.
	After uint64
	// Holder overrides Options.Holder in the commit log.
	Holder string
}

// Version is the committed state of one key.
type Version struct {
	Key       string    `json:"key"`
	Object    string    `json:"object"` // the version's object key in the backend
	Size      int64     `json:"size"`
	SHA256    string    `json:"sha256"`
	Token     uint64    `json:"token"`
	Committed time.Time `json:"committed"`
	// Inline is true when the bytes are kept in the manifest itself
	// (Options.InlineMax): Object then names the version object they
	// would move to, which does not exist yet.
	Inline bool `json:"inline,omitempty"`
	// Pack, when set, names the object that holds the bytes, with the
	// values of other commits: they are the Size bytes at PackOffset in
	// it, and Object names no object. A commit moves small values out of
	// the manifest into one pack (see docs/manifest.md, "Packs").
	Pack       string `json:"pack,omitempty"`
	PackOffset int64  `json:"pack_offset,omitempty"`
	data       []byte
	// crc32c and crc32 are the entry's CRCs (format.Entry), "" when it
	// records none.
	crc32c, crc32 string
}

// CommitResult describes an applied commit.
type CommitResult struct {
	Domain  string    `json:"domain"`
	Token   uint64    `json:"token"`
	ID      string    `json:"id"`
	Seq     uint64    `json:"seq"`     // the manifest version this commit produced
	Highest uint64    `json:"highest"` // the domain's highest token after it
	Time    time.Time `json:"time"`
	// Versions holds the versions this commit published, in the order of
	// its changes (deletes excluded).
	Versions []Version `json:"versions"`
	// Recovered is true when a reply was lost and the commit was found
	// applied by reading the manifest back.
	Recovered bool `json:"recovered,omitempty"`
}
