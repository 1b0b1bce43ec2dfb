package objstore

import (
	"bytes"
	"context"
	"io"

	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore/driver"
)

// state returns manifest m with the Store's shard reader: the answer to
// which version each key has.
func (s *Store) state(m *format.Manifest) format.State {
	return format.State{M: m, Load: s.loadShard, Parallel: s.opts.UploadParallelism}
}

// fold merges next's overlay into shards named for c's attempt.
func (c *commit) fold(ctx context.Context, next *format.Manifest) (*format.Manifest, error) {
	return c.s.state(next).Fold(ctx, func(ctx context.Context, d *format.Shard) (format.ShardRef, error) {
		return c.s.putShard(ctx, d, c.token, c.attempt)
	})
}

// versionOf describes key's entry e to a user.
func versionOf(key string, e format.Entry) Version {
	return Version{Key: key, Object: e.Version, Size: e.Size, SHA256: e.SHA256, Token: e.Token, Committed: e.Committed, Inline: e.Inline, Pack: e.Pack, PackOffset: e.Offset, data: e.Data, crc32c: e.CRC32C, crc32: e.CRC32}
}

// source returns the object that holds v's bytes, and where in it they
// start: v's version object, or the pack its value was moved to.
func (v Version) source() (string, int64) {
	if v.Pack != "" {
		return v.Pack, v.PackOffset
	}
	return v.Object, 0
}

// getVersion opens n bytes of v's value from offset (n 0: to its end), in
// the object that holds it. info.Size is the object's size, which for a
// packed value is the pack's.
func (s *Store) getVersion(ctx context.Context, v Version, offset, n int64) (io.ReadCloser, driver.ObjectInfo, error) {
	obj, base := v.source()
	if v.Pack != "" {
		if n == 0 {
			n = v.Size - offset
		}
		if n == 0 {
			// Nothing to read (Length 0 would read the whole pack).
			return io.NopCloser(bytes.NewReader(nil)), driver.ObjectInfo{Key: obj}, nil
		}
		offset += base
	}
	return s.b.Get(ctx, obj, driver.GetOptions{Offset: offset, Length: n})
}
