// Package plain reads a key's plain copy (objstore.Options.PlainCopies)
// the way a client that does not speak fence does, with one plain GET of
// <domain>/<key>, and records the read in the fault suite's history. The
// reader processes and the suite itself use it.
package plain

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/fencedstore/fence/integration/faults/internal/hist"
	"github.com/fencedstore/fence/objstore/driver"
)

// The metadata a plain copy carries (docs/design.md, "Plain copies").
const (
	MetaDomain = "fence-domain"
	MetaSeq    = "fence-seq"
	MetaToken  = "fence-token"
	MetaCommit = "fence-commit"
)

// Key returns the object key of key's plain copy in domain.
func Key(domain, key string) string { return domain + "/" + key }

// Copy is what one plain GET found.
type Copy struct {
	Exists bool
	Data   []byte
	Domain string
	Seq    uint64
	Token  uint64
	Commit string
}

// Get reads key's plain copy in domain. A copy without fence metadata,
// or with a seq that does not parse, is an error: every plain object the
// suite's domains hold was written by fence.
func Get(ctx context.Context, b driver.Backend, domain, key string) (Copy, error) {
	rc, info, err := b.Get(ctx, Key(domain, key), driver.GetOptions{})
	if errors.Is(err, driver.ErrNotFound) {
		return Copy{}, nil
	}
	if err != nil {
		return Copy{}, err
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		return Copy{}, err
	}
	c := Copy{Exists: true, Data: data, Domain: info.Metadata[MetaDomain], Commit: info.Metadata[MetaCommit]}
	if c.Seq, err = strconv.ParseUint(info.Metadata[MetaSeq], 10, 64); err != nil {
		return c, fmt.Errorf("plain copy %q: metadata %s=%q (all metadata: %v): %w", Key(domain, key), MetaSeq, info.Metadata[MetaSeq], info.Metadata, err)
	}
	c.Token, _ = strconv.ParseUint(info.Metadata[MetaToken], 10, 64)
	return c, nil
}

// Read reads key's plain copy in domain and records it as one OpPlain
// operation of c: NotFound when there is none, OK with its bytes and
// metadata, Fail on an error.
func Read(c *hist.Client, b driver.Backend, domain, key string, timeout time.Duration) {
	rec := c.Start(hist.OpPlain, hist.Input{Domain: domain, Key: key})
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cp, err := Get(ctx, b, domain, key)
	switch {
	case err != nil:
		c.End(rec, hist.Fail, hist.Output{}, err)
	case !cp.Exists:
		c.End(rec, hist.NotFound, hist.Output{}, nil)
	default:
		out := hist.Output{Seq: cp.Seq, Token: cp.Token, CommitID: cp.Commit, Values: map[string]string{key: string(cp.Data)}}
		if cp.Domain != domain {
			err = fmt.Errorf("plain copy %q is tagged with domain %q", Key(domain, key), cp.Domain)
		}
		c.End(rec, hist.OK, out, err)
	}
}
