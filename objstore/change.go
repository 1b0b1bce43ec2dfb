package objstore

import (
	"bytes"
	"io"
	"time"
)

// Change is one key's part of a commit: a put of new bytes or a delete.
// Build changes with PutBytes, PutReader and DeleteKey.
type Change struct {
	Key    string
	Body   io.Reader // nil for a delete
	Size   int64     // exact length of Body, or -1 when unknown
	Delete bool
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
	// ID identifies the commit in the manifest's log. Set it to the
	// CommitID of an *UnknownOutcomeError to retry that commit safely:
	// if the first attempt landed, the retry reports it instead of
	// applying it again. Default: a new random id.
	ID string
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
}

// Commit describes an applied commit.
type Commit struct {
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
