package objstore

import (
	"context"

	"github.com/fencedstore/fence/internal/format"
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
	return Version{Key: key, Object: e.Version, Size: e.Size, SHA256: e.SHA256, Token: e.Token, Committed: e.Committed, Inline: e.Inline, data: e.Data, crc32c: e.CRC32C, crc32: e.CRC32}
}
