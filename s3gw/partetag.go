package s3gw

import (
	"bytes"
	"encoding/hex"
	"strings"
	"sync/atomic"

	"github.com/fencedstore/fence/s3gw/wire"
)

// Part ETags. The gateway answers UploadPart with the part's ETag, the
// MD5 of its bytes, as S3 does: the client sends it back in
// CompleteMultipartUpload, and s3cmd compares it with its own MD5. S3
// and MinIO give the parts of the store's own upload the same ETag, the
// MD5 of their bytes, unless the bucket encrypts with SSE-KMS or SSE-C.
// Hashing every byte with MD5 once more cost the gateway 34% of its CPU
// in a 256 MiB upload (a profile of bench's gateway rows), so the gateway
// learns whether the store's part ETags are MD5s: it computes the MD5 of
// each part until one has been uploaded, and compares it with the
// store's ETag of that part. When they are equal, it takes the store's
// ETags as the parts' MD5s from then on; when not (GCS, Azure, an
// encrypting bucket), it computes every part's. A part whose
// Content-MD5 must be checked is hashed whatever was learnt.
//
// The ETag is no check of the bytes: the client's checksums and signed
// payload hashes are verified as the part streams, and fence's SHA-256
// and CRCs of the whole value are computed whatever the ETag. An ETag
// taken from the store is S3's own answer for those bytes.
type partETags struct {
	state atomic.Int32 // etagsUnknown, etagsStore or etagsOwn
}

const (
	etagsUnknown = iota
	etagsStore   // the store's part ETags are the parts' MD5s
	etagsOwn     // they are not: the gateway computes each part's MD5
)

// bodyOptions returns the options a part's body is read with.
func (p *partETags) bodyOptions() wire.BodyOptions {
	return wire.BodyOptions{NoMD5: p.state.Load() == etagsStore}
}

// md5Of returns the part's MD5: computed (computed, ok) or, when it was
// not, the store's ETag of the part (storeETag), which has been an MD5.
// It learns from a computed one whether the store's ETags are MD5s. ok
// is false when the part has no MD5 to answer with: the store's ETag of
// this part is not one, and later parts are hashed.
func (p *partETags) md5Of(computed []byte, hashed bool, storeETag string) (sum []byte, ok bool) {
	store, isMD5 := parseMD5(storeETag)
	if hashed {
		switch {
		case isMD5 && bytes.Equal(store, computed):
			p.state.CompareAndSwap(etagsUnknown, etagsStore)
		default:
			p.state.Store(etagsOwn)
		}
		return computed, true
	}
	if !isMD5 {
		p.state.Store(etagsOwn)
		return nil, false
	}
	return store, true
}

// parseMD5 reads an ETag ("hex", quoted or not) as an MD5.
func parseMD5(etag string) ([]byte, bool) {
	b, err := hex.DecodeString(strings.Trim(etag, `"`))
	return b, err == nil && len(b) == 16
}
