package wire

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash"
	"io"
	"strconv"
	"strings"
	"time"
)

// An aws-chunked body, as S3 clients send it:
//
//	<hex size>[;chunk-signature=<sig>]\r\n<size bytes>\r\n
//	... more chunks ...
//	0[;chunk-signature=<sig>]\r\n
//	[<trailer name>:<value>\r\n ... [x-amz-trailer-signature:<sig>\r\n]]
//	\r\n
//
// Signed modes chain the signatures: each chunk's is an HMAC over the one
// before it (the request's signature first) and the SHA-256 of the chunk's
// bytes; the trailer's signature follows the final chunk's. minio-go ends
// each trailer line with "\n" and adds an empty line before the trailer
// signature and after it, so trailer lines end at "\n", an optional "\r"
// before it is dropped, and empty lines between them are skipped.

const (
	maxChunkLine     = 1 << 10  // a chunk header line, signature included
	maxTrailerBytes  = 16 << 10 // every trailer line together
	maxTrailerLines  = 32
	chunkSigPrefix   = "chunk-signature="
	trailerSigHeader = "x-amz-trailer-signature"
	emptySHA256      = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
)

// Trailer is one trailing header of an aws-chunked body, its name in lower
// case, in the order the client sent them.
type Trailer struct {
	Name, Value string
}

// chainSigner verifies a chain of chunk and trailer signatures.
type chainSigner struct {
	key     []byte
	prefix  string // "\n<amz date>\n<scope>\n"
	prevSig string
}

func newChainSigner(key []byte, t time.Time, scope Scope, seed string) *chainSigner {
	return &chainSigner{key: key, prefix: "\n" + t.UTC().Format(amzDateLayout) + "\n" + scope.String() + "\n", prevSig: seed}
}

// next checks sig against the next link: a chunk whose SHA-256 is sum, or
// the trailer when trailer is true.
func (c *chainSigner) next(sig string, sum []byte, trailer bool) bool {
	var sts string
	if trailer {
		sts = "AWS4-HMAC-SHA256-TRAILER" + c.prefix + c.prevSig + "\n" + hex.EncodeToString(sum)
	} else {
		sts = "AWS4-HMAC-SHA256-PAYLOAD" + c.prefix + c.prevSig + "\n" + emptySHA256 + "\n" + hex.EncodeToString(sum)
	}
	want := signature(c.key, sts)
	if !hmac.Equal([]byte(want), []byte(sig)) {
		return false
	}
	c.prevSig = sig
	return true
}

// chunkReader decodes an aws-chunked body into the bytes the client meant,
// verifying its framing and, in signed modes, every signature. It returns
// io.EOF only once the whole body, trailers included, has been read and
// found well formed; every other end is an *Error.
type chunkReader struct {
	src      *bufio.Reader
	chain    *chainSigner // nil in unsigned modes
	trailers bool         // whether trailers may follow the final chunk
	maxChunk int64

	left      int64     // bytes of the current chunk not yet read
	sig       string    // the current chunk's signature
	chunkHash hash.Hash // SHA-256 of the current chunk, in signed modes
	got       []Trailer
	err       error
}

// newChunkReader decodes src. chain is nil for an unsigned body; trailers
// says whether the body may carry trailers; maxChunk bounds the size a
// chunk may declare.
func newChunkReader(src io.Reader, chain *chainSigner, trailers bool, maxChunk int64) *chunkReader {
	c := &chunkReader{src: bufio.NewReaderSize(src, 64<<10), chain: chain, trailers: trailers, maxChunk: maxChunk}
	if chain != nil {
		c.chunkHash = sha256.New()
	}
	return c
}

// Trailers returns the trailers read, once Read has returned io.EOF.
func (c *chunkReader) Trailers() []Trailer { return c.got }

func (c *chunkReader) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	if c.left == 0 {
		if err := c.startChunk(); err != nil {
			c.err = err
			return 0, err
		}
		if c.err != nil { // the final chunk: c.err is io.EOF
			return 0, c.err
		}
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.src.Read(p)
	c.left -= int64(n)
	if c.chunkHash != nil {
		c.chunkHash.Write(p[:n])
	}
	if err != nil && c.left > 0 {
		c.err = truncated(err, "in a chunk's data")
		return n, c.err
	}
	if c.left == 0 {
		if err := c.endChunk(); err != nil {
			c.err = err
			return n, err
		}
	}
	return n, nil
}

func truncated(err error, where string) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errorf(CodeIncompleteBody, "the aws-chunked body ends %s", where)
	}
	return errorf(CodeIncompleteBody, "reading the aws-chunked body %s: %v", where, err)
}

// startChunk reads a chunk header. For the final chunk it reads the rest
// of the body and sets c.err to io.EOF when all of it is well formed.
func (c *chunkReader) startChunk() error {
	line, err := readLine(c.src, maxChunkLine, true)
	if err != nil {
		return truncated(err, "in a chunk header")
	}
	sizeText, ext, hasExt := strings.Cut(line, ";")
	size, perr := strconv.ParseUint(sizeText, 16, 64)
	if perr != nil || sizeText == "" || len(sizeText) > 16 {
		return errorf(CodeIncompleteBody, "chunk header %q does not start with a hex size", clip(line))
	}
	if size > uint64(c.maxChunk) {
		return errorf(CodeInvalidRequest, "a chunk of %d bytes is more than the %d this endpoint takes", size, c.maxChunk)
	}
	switch {
	case c.chain == nil && hasExt:
		return errorf(CodeIncompleteBody, "chunk header %q has an extension; an unsigned aws-chunked body has none", clip(line))
	case c.chain != nil:
		sig, ok := strings.CutPrefix(ext, chunkSigPrefix)
		if !hasExt || !ok || !lowerHex(sig, 64) {
			return errorf(CodeIncompleteBody, "chunk header %q has no chunk-signature of 64 hex digits", clip(line))
		}
		c.sig = sig
		c.chunkHash.Reset()
	}
	c.left = int64(size)
	if size > 0 {
		return nil
	}
	if err := c.checkChunkSignature(); err != nil {
		return err
	}
	if err := c.readEnd(); err != nil {
		return err
	}
	c.err = io.EOF
	return nil
}

// endChunk reads the CRLF after a chunk's data and checks its signature.
func (c *chunkReader) endChunk() error {
	var crlf [2]byte
	if _, err := io.ReadFull(c.src, crlf[:]); err != nil {
		return truncated(err, "after a chunk's data")
	}
	if crlf != [2]byte{'\r', '\n'} {
		return errorf(CodeIncompleteBody, "a chunk's data is not followed by CRLF: the chunk is longer than its header says")
	}
	return c.checkChunkSignature()
}

func (c *chunkReader) checkChunkSignature() error {
	if c.chain == nil {
		return nil
	}
	if !c.chain.next(c.sig, c.chunkHash.Sum(nil), false) {
		return errorf(CodeSignatureDoesNotMatch, "a chunk's signature does not match its bytes: the body was changed or signed with another key")
	}
	return nil
}

// readEnd reads what follows the final chunk: the trailers, if any, and the
// closing empty line, then checks that nothing follows.
func (c *chunkReader) readEnd() error {
	if !c.trailers {
		line, err := readLine(c.src, 2, true)
		if err != nil || line != "" {
			return errorf(CodeIncompleteBody, "the final chunk is not followed by an empty line")
		}
		return c.expectEOF()
	}
	var canonical bytes.Buffer
	var trailerSig string
	total, lines := 0, 0
	lastEmpty := false
	for {
		line, err := readLine(c.src, maxTrailerBytes-total, false)
		if errors.Is(err, io.EOF) && line == "" {
			break
		}
		if err != nil {
			return truncated(err, "in its trailers")
		}
		total += len(line) + 1
		lines++
		if lines > maxTrailerLines {
			return errorf(CodeInvalidRequest, "the aws-chunked body has more than %d trailer lines", maxTrailerLines)
		}
		lastEmpty = line == ""
		if lastEmpty {
			continue
		}
		name, value, ok := strings.Cut(line, ":")
		name = strings.ToLower(strings.TrimSpace(name))
		value = strings.TrimSpace(value)
		switch {
		case !ok || !headerName(name):
			return errorf(CodeIncompleteBody, "trailer line %q is not NAME:VALUE", clip(line))
		case trailerSig != "":
			return errorf(CodeIncompleteBody, "trailer %q follows the trailer signature", clip(name))
		case name == trailerSigHeader:
			if c.chain == nil {
				return errorf(CodeIncompleteBody, "an unsigned aws-chunked body has a trailer signature")
			}
			if !lowerHex(value, 64) {
				return errorf(CodeIncompleteBody, "the trailer signature %q is not 64 hex digits", clip(value))
			}
			trailerSig = value
		default:
			c.got = append(c.got, Trailer{Name: name, Value: value})
			canonical.WriteString(name + ":" + value + "\n")
		}
	}
	if !lastEmpty {
		return errorf(CodeIncompleteBody, "the aws-chunked body's trailers do not end with an empty line")
	}
	if c.chain != nil {
		if trailerSig == "" {
			return errorf(CodeIncompleteBody, "a signed aws-chunked body with trailers has no x-amz-trailer-signature")
		}
		sum := sha256.Sum256(canonical.Bytes())
		if !c.chain.next(trailerSig, sum[:], true) {
			return errorf(CodeSignatureDoesNotMatch, "the trailer signature does not match the trailers: they were changed or signed with another key")
		}
	}
	return nil
}

func (c *chunkReader) expectEOF() error {
	if _, err := c.src.ReadByte(); !errors.Is(err, io.EOF) {
		if err != nil {
			return truncated(err, "after its final chunk")
		}
		return errorf(CodeIncompleteBody, "the aws-chunked body has bytes after its end")
	}
	return nil
}

// readLine reads a line of at most max bytes before its end. With crlf it
// must end in "\r\n"; else it ends at "\n" and a "\r" before it is dropped.
// At EOF with nothing read it returns "" and io.EOF.
func readLine(r *bufio.Reader, max int, crlf bool) (string, error) {
	var b []byte
	for {
		c, err := r.ReadByte()
		if err != nil {
			if errors.Is(err, io.EOF) && len(b) > 0 {
				err = io.ErrUnexpectedEOF
			}
			return "", err
		}
		if c == '\n' {
			break
		}
		if len(b) > max {
			return "", errorf(CodeIncompleteBody, "a line of the aws-chunked body is longer than %d bytes", max)
		}
		b = append(b, c)
	}
	if len(b) > 0 && b[len(b)-1] == '\r' {
		b = b[:len(b)-1]
	} else if crlf {
		return "", errorf(CodeIncompleteBody, "a line of the aws-chunked body ends in LF, not CRLF")
	}
	return string(b), nil
}
