// Package wire reads S3 requests as current clients send them: it verifies
// SigV4 signatures and decodes request bodies into exactly the bytes the
// client meant, for the S3 gateway that turns an unchanged job's S3 writes
// into fenced commits. It knows nothing of fence's store; the gateway
// built on it does.
//
// A handler verifies a request, opens its body, and stages what it reads
// only once the read ends in io.EOF:
//
//	v, _ := wire.NewVerifier(wire.StaticCredentials{key: secret}, wire.Options{Region: "us-east-1"})
//	...
//	auth, err := v.Verify(r)
//	if err != nil {
//		wire.WriteError(w, r, wire.AsError(err), requestID)
//		return
//	}
//	body, err := wire.OpenBody(r, auth, wire.BodyOptions{})
//	if err != nil { ... }
//	_, err = io.Copy(staging, body) // nil only when every check held
//
// # Signatures
//
// Verifier checks SigV4 in the Authorization header and in presigned query
// strings (X-Amz-Algorithm, -Credential, -Date, -Expires, -SignedHeaders,
// -Signature), against a CredentialStore of access key -> secret. It
// rebuilds the canonical request from exactly the headers the client
// lists as signed. A header-signed request more than 15 minutes from the
// verifier's clock is refused, as S3 does; that bound stops replays of old
// requests and nothing fence keeps safe depends on it.
//
// # Bodies
//
// OpenBody handles every payload mode named by x-amz-content-sha256:
// UNSIGNED-PAYLOAD, a signed hex SHA-256, STREAMING-AWS4-HMAC-SHA256-PAYLOAD
// (each chunk's signature checked in the chain),
// STREAMING-UNSIGNED-PAYLOAD-TRAILER and
// STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER (the trailer's signature
// checked). aws-chunked framing never reaches the caller. It checks
// Content-MD5 and the x-amz-checksum-* value of any of CRC32, CRC32C,
// CRC64NVME, SHA1 and SHA256, in a header or a trailer, and gives the
// computed values (Body.MD5, Body.Checksum, Body.Sum) so that they can be
// stored and returned. Memory is bounded: the decoder keeps one 64 KiB
// read buffer and never a whole chunk, and chunk header and trailer lines
// have fixed limits.
//
// # Errors
//
// Every refusal is an *Error carrying the S3 code clients switch on and
// its HTTP status; WriteError sends it as S3's XML body. A body's read
// fails, never with io.EOF, when its bytes do not match what the request
// declared: SignatureDoesNotMatch for a chunk or trailer signature,
// XAmzContentSHA256Mismatch for a signed payload hash, BadDigest for
// Content-MD5 or a checksum, IncompleteBody for framing that is truncated
// or malformed or a length that differs from x-amz-decoded-content-length.
// Checks that need the whole body end its last Read: a caller may have
// consumed bytes of a body that then fails, and must stage nothing of it.
package wire
