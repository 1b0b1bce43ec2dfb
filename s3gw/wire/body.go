package wire

import (
	"crypto/md5"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"hash"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// DefaultMaxChunkSize is the largest aws-chunked chunk OpenBody accepts
// unless told otherwise. SDKs send chunks of 8 KiB to 1 MiB; the decoder
// never holds a chunk in memory, so the bound only refuses absurd sizes.
const DefaultMaxChunkSize = 64 << 20

// BodyOptions tune OpenBody. The zero value is ready to use.
type BodyOptions struct {
	// MaxChunkSize bounds the size an aws-chunked chunk may declare; zero
	// means DefaultMaxChunkSize.
	MaxChunkSize int64
	// Compute lists checksum algorithms to compute over the body besides
	// the one the client declared, so that the caller can store them.
	Compute []Algorithm
	// NoMD5 skips the body's MD5 (S3's ETag of a single PUT, and of a
	// part) when the request has no Content-MD5 to check, for a caller
	// that has the MD5 from elsewhere: Body.MD5 then reports none.
	NoMD5 bool
}

// Body is a request body being read: Read yields exactly the bytes the
// client meant (never aws-chunked framing), and returns io.EOF only once
// every signature, length and checksum the request declared has been
// checked against them. Any mismatch is an *Error returned at or before
// the end, never io.EOF, so a caller that stages what it reads and commits
// only after io.EOF never keeps bytes the client did not send.
type Body struct {
	src     io.Reader
	chunked *chunkReader // nil unless the body is aws-chunked

	size        int64
	decodedLen  int64 // X-Amz-Decoded-Content-Length, or -1
	md5         hash.Hash
	contentMD5  []byte // Content-MD5, or nil
	sha256      hash.Hash
	payloadHash string // the signed hex SHA-256, or ""
	declared    Checksum
	trailerAlg  Algorithm // the checksum the trailer declares, or ""
	hashes      map[Algorithm]hash.Hash
	sums        map[Algorithm]string
	done        bool
	err         error
}

// OpenBody checks r's body-related headers against how a says the body
// was signed and returns the Body to read r.Body through. a comes from
// Verifier.Verify on the same request. Headers that cannot be honoured are
// refused at once, before any byte is read, with an *Error.
func OpenBody(r *http.Request, a *Auth, opts BodyOptions) (*Body, error) {
	if opts.MaxChunkSize <= 0 {
		opts.MaxChunkSize = DefaultMaxChunkSize
	}
	b := &Body{decodedLen: -1, hashes: map[Algorithm]hash.Hash{}}
	var err error
	if b.declared, err = headerChecksum(r.Header); err != nil {
		return nil, err
	}
	if v := r.Header.Values("Content-Md5"); len(v) > 0 {
		raw, derr := base64.StdEncoding.DecodeString(v[0])
		if len(v) > 1 || derr != nil || len(raw) != md5.Size {
			return nil, errorf(CodeInvalidDigest, "the Content-MD5 you specified is not the base64 of a 16-byte MD5")
		}
		b.contentMD5 = raw
	}
	if b.contentMD5 != nil || !opts.NoMD5 {
		b.md5 = md5.New()
	}
	streaming, signed, trailers := false, false, false
	switch a.PayloadHash {
	case UnsignedPayload:
	case StreamingSigned:
		streaming, signed = true, true
	case StreamingSignedTrailer:
		streaming, signed, trailers = true, true, true
	case StreamingUnsignedTrailer:
		streaming, trailers = true, true
	default:
		if err := checkPayloadHash(a.PayloadHash); err != nil {
			return nil, err
		}
		b.payloadHash = a.PayloadHash
		b.sha256 = sha256.New()
	}
	if err := b.readTrailerHeader(r.Header, trailers); err != nil {
		return nil, err
	}
	if alg := r.Header.Get("X-Amz-Sdk-Checksum-Algorithm"); alg != "" {
		named, err := ParseAlgorithm(alg)
		if err != nil {
			return nil, err
		}
		if d := b.declaredAlgorithm(); d != "" && d != named {
			return nil, errorf(CodeInvalidRequest, "x-amz-sdk-checksum-algorithm says %s but the request carries a %s checksum", named, d)
		}
		b.hashes[named] = named.New()
	}
	if d := b.declaredAlgorithm(); d != "" {
		b.hashes[d] = d.New()
	}
	for _, alg := range opts.Compute {
		if alg.New() == nil {
			return nil, errorf(CodeInvalidRequest, "checksum algorithm %q is not one of CRC32, CRC32C, CRC64NVME, SHA1, SHA256", alg)
		}
		b.hashes[alg] = alg.New()
	}
	b.src = r.Body
	if r.Body == nil {
		b.src = http.NoBody
	}
	if streaming {
		v := r.Header.Values("X-Amz-Decoded-Content-Length")
		if len(v) != 1 {
			return nil, errorf(CodeMissingContentLength, "an aws-chunked body needs one x-amz-decoded-content-length header (the request has %d)", len(v))
		}
		n, err := strconv.ParseInt(v[0], 10, 64)
		if err != nil || n < 0 || v[0][0] == '+' {
			return nil, errorf(CodeInvalidArgument, "x-amz-decoded-content-length %q is not a byte count", clip(v[0]))
		}
		b.decodedLen = n
		var chain *chainSigner
		if signed {
			chain = newChainSigner(a.key, a.Time, a.Scope, a.Signature)
		}
		b.chunked = newChunkReader(b.src, chain, trailers, opts.MaxChunkSize)
		b.src = b.chunked
	}
	return b, nil
}

// readTrailerHeader reads x-amz-trailer: the one checksum a trailing body
// carries.
func (b *Body) readTrailerHeader(h http.Header, trailers bool) error {
	values := h.Values("X-Amz-Trailer")
	if !trailers {
		if len(values) > 0 {
			return errorf(CodeInvalidRequest, "x-amz-trailer is set but x-amz-content-sha256 does not name a mode with trailers")
		}
		return nil
	}
	var names []string
	for _, v := range values {
		for _, n := range strings.Split(v, ",") {
			if n = strings.TrimSpace(n); n != "" {
				names = append(names, n)
			}
		}
	}
	if len(names) != 1 {
		return errorf(CodeInvalidRequest, "x-amz-trailer must name one x-amz-checksum-* trailer (it names %d)", len(names))
	}
	alg, ok := algorithmOfHeader(names[0])
	if !ok {
		return errorf(CodeInvalidRequest, "x-amz-trailer %q is not an x-amz-checksum-* header", clip(names[0]))
	}
	if b.declared.Algorithm != "" {
		return errorf(CodeInvalidRequest, "the request has a %s header and a %s trailer; S3 accepts one checksum", b.declared.Algorithm, alg)
	}
	b.trailerAlg = alg
	return nil
}

func (b *Body) declaredAlgorithm() Algorithm {
	if b.trailerAlg != "" {
		return b.trailerAlg
	}
	return b.declared.Algorithm
}

// Read reads the client's bytes; see Body.
func (b *Body) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.src.Read(p)
	if n > 0 {
		b.size += int64(n)
		if b.md5 != nil {
			b.md5.Write(p[:n])
		}
		if b.sha256 != nil {
			b.sha256.Write(p[:n])
		}
		for _, h := range b.hashes {
			h.Write(p[:n])
		}
		if b.decodedLen >= 0 && b.size > b.decodedLen {
			b.err = errorf(CodeIncompleteBody, "the body is longer than its x-amz-decoded-content-length %d", b.decodedLen)
			return n, b.err
		}
	}
	switch {
	case errors.Is(err, io.EOF):
		b.err = b.finish()
		return n, b.err
	case err != nil:
		var e *Error
		if !errors.As(err, &e) {
			err = errorf(CodeIncompleteBody, "reading the body: %v", err)
		}
		b.err = err
	}
	return n, err
}

// finish checks everything the request declared about its bytes, once all
// of them have been read, and returns io.EOF when all holds.
func (b *Body) finish() error {
	if b.decodedLen >= 0 && b.size != b.decodedLen {
		return errorf(CodeIncompleteBody, "the body has %d bytes but x-amz-decoded-content-length says %d", b.size, b.decodedLen)
	}
	if b.contentMD5 != nil && string(b.md5.Sum(nil)) != string(b.contentMD5) {
		return errorf(CodeBadDigest, "the Content-MD5 you specified did not match what we received")
	}
	if b.payloadHash != "" && hex.EncodeToString(b.sha256.Sum(nil)) != b.payloadHash {
		return errorf(CodeXAmzContentSHA256Mismatch, "the provided x-amz-content-sha256 header does not match what was computed")
	}
	b.sums = make(map[Algorithm]string, len(b.hashes))
	for alg, h := range b.hashes {
		b.sums[alg] = base64.StdEncoding.EncodeToString(h.Sum(nil))
	}
	if b.trailerAlg != "" {
		if err := b.takeTrailer(); err != nil {
			return err
		}
	}
	if d := b.declared; d.Algorithm != "" && b.sums[d.Algorithm] != d.Value {
		return errorf(CodeBadDigest, "the %s you specified did not match the calculated checksum", d.Algorithm)
	}
	b.done = true
	return io.EOF
}

// takeTrailer finds the declared checksum among the trailers read.
func (b *Body) takeTrailer() error {
	want := b.trailerAlg.Header()
	for _, t := range b.chunked.Trailers() {
		if t.Name != want {
			return errorf(CodeInvalidRequest, "trailer %q was not declared in x-amz-trailer", clip(t.Name))
		}
		if b.declared.Algorithm != "" {
			return errorf(CodeInvalidRequest, "trailer %q is sent twice", want)
		}
		if err := decodeChecksum(b.trailerAlg, t.Value, "trailer "+want); err != nil {
			return err
		}
		b.declared = Checksum{Algorithm: b.trailerAlg, Value: t.Value}
	}
	if b.declared.Algorithm == "" {
		return errorf(CodeIncompleteBody, "the body ends without the %s trailer that x-amz-trailer declares", want)
	}
	return nil
}

// Size is the number of the client's bytes read so far.
func (b *Body) Size() int64 { return b.size }

// MD5 is the MD5 of the body, S3's ETag of a single PUT; ok is false until
// Read has returned io.EOF, and when BodyOptions.NoMD5 skipped it.
func (b *Body) MD5() (sum []byte, ok bool) {
	if !b.done || b.md5 == nil {
		return nil, false
	}
	return b.md5.Sum(nil), true
}

// Checksum is the checksum the client sent, in a header or a trailer, now
// verified; ok is false until Read has returned io.EOF, or when the client
// sent none.
func (b *Body) Checksum() (c Checksum, ok bool) {
	if !b.done || b.declared.Algorithm == "" {
		return Checksum{}, false
	}
	return b.declared, true
}

// Sum is the base64 value of alg computed over the body, for the declared
// algorithm, the one x-amz-sdk-checksum-algorithm names and those in
// BodyOptions.Compute; ok is false until Read has returned io.EOF, or for
// an algorithm not computed.
func (b *Body) Sum(alg Algorithm) (value string, ok bool) {
	if !b.done {
		return "", false
	}
	value, ok = b.sums[alg]
	return value, ok
}

// StoredContentEncoding is the Content-Encoding to store with an object
// uploaded with header h: the client's, without "aws-chunked", which names
// the upload's framing and not the object's bytes.
func StoredContentEncoding(h http.Header) string {
	var kept []string
	for _, v := range h.Values("Content-Encoding") {
		for _, e := range strings.Split(v, ",") {
			if e = strings.TrimSpace(e); e != "" && !strings.EqualFold(e, "aws-chunked") {
				kept = append(kept, e)
			}
		}
	}
	return strings.Join(kept, ",")
}

// Err is the error that ended the body: nil while it is being read and
// once it ended in io.EOF with every check held, else the *Error (or the
// read error) a Read returned. A caller whose consumer of the body failed
// asks it whether the body was the cause.
func (b *Body) Err() error {
	if errors.Is(b.err, io.EOF) {
		return nil
	}
	return b.err
}
