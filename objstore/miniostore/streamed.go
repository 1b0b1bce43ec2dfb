package miniostore

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/internal/s3part"
)

// putStreamed sends a body that can be rewound with one PutObject: it
// hashes it (and checks its length) in a first pass, rewinds it, and
// signs the request with that hash. Should the body change between the
// passes, the store refuses the request (the signature's payload hash no
// longer matches). With hashWhole the first pass also computes the
// body's CRCs.
func (b *Backend) putStreamed(ctx context.Context, key string, body io.ReadSeeker, size int64, opts driver.PutOptions, hashWhole bool) (driver.ObjectInfo, driver.Digest, error) {
	start, dg, err := s3part.HashSeekable(body, size, hashWhole)
	if err != nil {
		return driver.ObjectInfo{}, driver.Digest{}, b.fail("put", key, fmt.Errorf("reading body: %w", err))
	}
	sec := &section{r: body, start: start, size: size}
	info, err := b.putSingle(ctx, key, sec, size, &dg.SHA256, opts)
	if errors.Is(err, errHashRefused) {
		// Sent without the hash, the body could have changed since it was
		// hashed, and the digest would not be of what was stored. Parts
		// are each signed with their own hash, and the digest is of what
		// was sent.
		if _, err := sec.Seek(0, io.SeekStart); err != nil {
			return driver.ObjectInfo{}, driver.Digest{}, b.fail("put", key, fmt.Errorf("reading body: %w", err))
		}
		return b.putRead(ctx, key, sec, size, opts, hashWhole)
	}
	return info, s3part.ReadWhole(size, dg, err), err
}

// section is the size bytes of r from offset start, as an
// io.ReadSeeker whose offset 0 is start. minio-go rewinds a body with
// Seek(0, io.SeekStart) before every attempt, which would otherwise send
// a body that did not start at offset 0 from the wrong place; and reads
// end at size, so a body that grew after the first pass is not read
// further.
type section struct {
	r     io.ReadSeeker
	start int64
	size  int64
	pos   int64 // relative to start
}

func (s *section) Read(p []byte) (int, error) {
	if s.pos >= s.size {
		return 0, io.EOF
	}
	if rest := s.size - s.pos; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := s.r.Read(p)
	s.pos += int64(n)
	return n, err
}

func (s *section) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += s.pos
	case io.SeekEnd:
		offset += s.size
	default:
		return 0, errors.New("seek: invalid whence")
	}
	if offset < 0 {
		return 0, errors.New("seek: negative position")
	}
	if _, err := s.r.Seek(s.start+offset, io.SeekStart); err != nil {
		return 0, err
	}
	s.pos = offset
	return offset, nil
}
