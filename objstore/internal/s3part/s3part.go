// Package s3part reads the body of an S3 PutObject into bounded part
// buffers: it decides between one PutObject and a multipart upload, feeds
// the parts of a multipart upload one at a time, checks the body against
// its declared size, reads the next part while the current one is sent,
// and aborts a failed upload. It sends no request
// itself; s3store (aws-sdk-go-v2) and miniostore (minio-go) make the SDK
// calls, and azblobstore stages its parts as Azure blocks with it.
//
// Errors it returns carry no package prefix: the backends wrap them.
package s3part

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/fencedstore/fence/objstore/driver"
)

// MaxParts is the largest number of parts of one multipart upload.
const MaxParts = 10000

// AbortTimeout bounds the AbortMultipartUpload sent after a failed
// multipart upload, which runs even when the caller's context is done.
const AbortTimeout = time.Minute

// Body is a body being read for a Put: either whole, for one PutObject,
// or as the parts of a multipart upload.
type Body struct {
	r        io.Reader
	size     int64 // declared size, or -1
	partSize int64
	buf      []byte // the whole body, or the first part
	eof      bool   // r ended within buf
	single   bool
	whole    *driver.Digester // with HashWhole: the digest of every part sent
}

// Read reads the start of body, whose declared size is size (-1 for
// unknown), for a Put with parts of partSize bytes and a multipart
// threshold of threshold bytes.
//
// A body of known size up to threshold, or of unknown size that ends
// within one part, is read whole: Single reports true and Data returns
// it. Anything else is read up to its first part, for Upload. For a known
// size the part size grows so that the body fits in MaxParts parts, and
// the body is never read more than one byte past size. A negative
// threshold makes every body of known size a multipart upload, of one
// part when it fits in one (the backends' PutMultipart). Read holds one
// part, or one body of up to threshold bytes, in memory.
//
// Read fails if the body fails, or if it ends and its length differs
// from size.
func Read(body io.Reader, size, partSize, threshold int64) (*Body, error) {
	if size >= 0 {
		// Never read more than one byte past the declared size.
		body = io.LimitReader(body, size+1)
		partSize = max(partSize, (size+MaxParts-1)/MaxParts)
	}
	limit := partSize
	if size >= 0 && size <= threshold {
		limit = size + 1
	}
	var buf []byte
	if size >= 0 {
		buf = make([]byte, 0, min(limit, size+1))
	}
	first, eof, err := fill(body, buf, limit)
	if err != nil {
		return nil, fmt.Errorf("reading body: %w", err)
	}
	b := &Body{r: body, size: size, partSize: partSize, buf: first, eof: eof}
	b.single = size >= 0 && size <= threshold || size < 0 && eof
	if b.single || eof {
		// The whole body is in first: check its length before any upload
		// starts.
		if err := checkSize(int64(len(first)), size); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// Single reports whether the whole body was read, for one PutObject.
func (b *Body) Single() bool { return b.single }

// Data returns the whole body when Single reports true.
func (b *Body) Data() []byte { return b.buf }

// Upload reads the rest of the body part by part, after the first one
// Read read, and calls put with each part, its number (from 1) and its
// SHA-256, in order, one call at a time. While put sends a part, Upload
// reads and hashes the next one into a second buffer, so that reading the
// body (and whatever the body's reader does, such as hashing it whole)
// and hashing the part overlap the upload; Upload thus holds at most two
// parts. The backends sign each part with its SHA-256 (SigV4's payload
// hash), which the SDKs would otherwise compute in series with the send.
// put must not keep the part: its buffer is reused two parts later.
//
// Upload returns the body's length, or the first error of put (as is),
// of the body, or of a length that differs from the declared size (once
// the body is longer than declared, before putting the part that makes it
// so), or of a body longer than MaxParts parts. When put fails, Upload
// returns once the read it overlapped has finished: it never leaves the
// body being read after it returns.
func (b *Body) Upload(put func(n int, part []byte, sum [sha256.Size]byte) error) (total int64, err error) {
	cur, eof := b.buf, b.eof
	sum := sha256.Sum256(cur)
	var spare []byte
	for n := 1; ; n++ {
		if n > MaxParts {
			return total, fmt.Errorf("body exceeds %d parts of %d bytes", MaxParts, b.partSize)
		}
		total += int64(len(cur))
		if b.size >= 0 && total > b.size {
			return total, checkSize(total, b.size)
		}
		hashed := b.hashWhole(cur)
		last := eof || int64(len(cur)) < b.partSize
		if last {
			err := put(n, cur, sum)
			<-hashed
			if err != nil {
				return total, err
			}
			break
		}
		sent := make(chan error, 1)
		go func(n int, part []byte, sum [sha256.Size]byte) { sent <- put(n, part, sum) }(n, cur, sum)
		next, nextEOF, rerr := fill(b.r, spare, b.partSize)
		if rerr == nil {
			sum = sha256.Sum256(next)
		}
		perr := <-sent
		<-hashed
		if perr != nil {
			return total, perr
		}
		if rerr != nil {
			return total, fmt.Errorf("reading body: %w", rerr)
		}
		if len(next) == 0 {
			break
		}
		spare, cur, eof = cur, next, nextEOF
	}
	return total, checkSize(total, b.size)
}

// HashWhole makes Upload also compute the digest (SHA-256 and CRCs) of
// the whole body, on a goroutine of its own beside each part's send and
// the next part's read; Digest returns it.
func (b *Body) HashWhole() { b.whole = driver.NewDigester() }

// Sum returns the SHA-256 of the single body.
func (b *Body) Sum() [sha256.Size]byte { return sha256.Sum256(b.buf) }

// Digest returns the digest of the whole body after an Upload with
// HashWhole, or of the single body.
func (b *Body) Digest() driver.Digest {
	if b.single || b.whole == nil {
		return driver.DigestOf(b.buf)
	}
	return b.whole.Digest()
}

// Send sends the body read by Read as the S3 backends do: a single body
// with one request through single, given its bytes and their SHA-256
// (which signs the request); a larger one through multipart, which
// uploads its parts (Upload) and returns how many bytes it sent. With
// hashWhole it returns the whole body's digest, as a HashingPutter does
// (ReadWhole); otherwise the zero Digest.
func (b *Body) Send(hashWhole bool, single func(data []byte, sum [sha256.Size]byte) (driver.ObjectInfo, error),
	multipart func() (driver.ObjectInfo, int64, error)) (driver.ObjectInfo, driver.Digest, error) {
	if b.single {
		var dg driver.Digest
		if hashWhole {
			dg = b.Digest()
		} else {
			dg.SHA256 = b.Sum()
		}
		info, err := single(b.buf, dg.SHA256)
		return info, ReadWhole(int64(len(b.buf)), dg, err), err
	}
	if hashWhole {
		b.HashWhole()
	}
	info, total, err := multipart()
	if !hashWhole {
		return info, driver.Digest{}, err
	}
	return info, ReadWhole(total, b.Digest(), err), err
}

// ReadWhole is dg, the digest of a put of size bytes, marked known when
// err says the put read the whole body (it succeeded, or its
// precondition failed); else the zero Digest. A HashingPutter returns it.
func ReadWhole(size int64, dg driver.Digest, err error) driver.Digest {
	if err != nil && !errors.Is(err, driver.ErrPreconditionFailed) {
		return driver.Digest{}
	}
	dg.Known, dg.Size = true, size
	return dg
}

// hashWhole adds part to the whole body's hash, if one is kept, and
// returns a channel closed when it is done with part.
func (b *Body) hashWhole(part []byte) <-chan struct{} {
	done := make(chan struct{})
	if b.whole == nil {
		close(done)
		return done
	}
	go func() {
		defer close(done)
		b.whole.Write(part)
	}()
	return done
}

// AbortOnError is deferred after a multipart upload starts. If *err is
// set, it calls abort with a context that survives ctx's cancellation,
// bounded by AbortTimeout, and adds abort's failure to *err.
func AbortOnError(ctx context.Context, err *error, uploadID string, abort func(context.Context) error) {
	if *err == nil {
		return
	}
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), AbortTimeout)
	defer cancel()
	if aerr := abort(actx); aerr != nil {
		*err = fmt.Errorf("%w (and aborting multipart upload %s failed: %v)", *err, uploadID, aerr)
	}
}

func checkSize(n, size int64) error {
	if size >= 0 && n != size {
		if n > size {
			return fmt.Errorf("body is longer than the declared size %d", size)
		}
		return fmt.Errorf("body has %d bytes, size says %d", n, size)
	}
	return nil
}

// fill reads r into buf[:0] until it holds limit bytes or r ends, growing
// buf as needed but never beyond limit. eof reports that r ended. Small
// bodies get small buffers: buf doubles from 64 KiB to 1 MiB, then
// jumps to limit.
func fill(r io.Reader, buf []byte, limit int64) (_ []byte, eof bool, _ error) {
	buf = buf[:0]
	for int64(len(buf)) < limit {
		if len(buf) == cap(buf) {
			c := max(2*int64(cap(buf)), 64<<10)
			if c > 1<<20 {
				c = limit
			}
			c = min(c, limit)
			nb := make([]byte, len(buf), c)
			copy(nb, buf)
			buf = nb
		}
		n, err := r.Read(buf[len(buf):min(int64(cap(buf)), limit)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, true, nil
		}
		if err != nil {
			return buf, false, err
		}
	}
	return buf, false, nil
}
