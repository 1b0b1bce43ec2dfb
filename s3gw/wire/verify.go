package wire

import (
	"crypto/hmac"
	"errors"
	"net/http"
	"net/url"
	"time"
)

// The values of x-amz-content-sha256 other than a hex SHA-256: how the body
// is sent and what of it is signed.
const (
	UnsignedPayload          = "UNSIGNED-PAYLOAD"
	StreamingSigned          = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD"
	StreamingSignedTrailer   = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER"
	StreamingUnsignedTrailer = "STREAMING-UNSIGNED-PAYLOAD-TRAILER"
	defaultMaxSkew           = 15 * time.Minute
	maxPresignedExpires      = 7 * 24 * time.Hour
)

// CredentialStore gives the secret key of an access key.
type CredentialStore interface {
	SecretKey(accessKey string) (secret string, ok bool)
}

// StaticCredentials is a CredentialStore of fixed access key -> secret
// pairs.
type StaticCredentials map[string]string

// SecretKey returns the secret of accessKey.
func (c StaticCredentials) SecretKey(accessKey string) (string, bool) {
	s, ok := c[accessKey]
	return s, ok
}

// Options tune a Verifier. The zero value accepts any region and 15
// minutes of clock skew, as S3 does.
type Options struct {
	// Region, when not empty, is the only region a signature's scope may
	// name.
	Region string
	// MaxSkew bounds how far a header-signed request's X-Amz-Date may be
	// from the verifier's clock, and how far in the future a presigned
	// URL's may be. Zero means 15 minutes. It rejects replays of old
	// requests; nothing fence keeps safe depends on it.
	MaxSkew time.Duration
	// Now is the verifier's clock; nil means time.Now.
	Now func() time.Time
}

// Verifier checks SigV4 signatures against a CredentialStore.
type Verifier struct {
	creds CredentialStore
	opts  Options
}

// NewVerifier returns a Verifier of the keys in creds.
func NewVerifier(creds CredentialStore, opts Options) (*Verifier, error) {
	if creds == nil {
		return nil, errors.New("s3gw: NewVerifier: no credential store")
	}
	if opts.MaxSkew < 0 {
		return nil, errors.New("s3gw: NewVerifier: MaxSkew is negative")
	}
	if opts.MaxSkew == 0 {
		opts.MaxSkew = defaultMaxSkew
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Verifier{creds: creds, opts: opts}, nil
}

// Auth is a request whose signature verified: who signed it, when, and
// what of its body the signature covers.
type Auth struct {
	AccessKey string
	Scope     Scope
	Time      time.Time // X-Amz-Date
	// PayloadHash is how the body is sent: UnsignedPayload, one of the
	// Streaming* modes, or the hex SHA-256 of the body.
	PayloadHash string
	Presigned   bool
	// Signature is the request's signature, the seed of a streaming
	// body's chain of chunk signatures.
	Signature string
	key       []byte
}

// Verify checks r's signature, from its Authorization header or from a
// presigned query string, and returns who signed it. It reads headers and
// the query only; OpenBody checks the body. Refusals are *Error:
// AccessDenied for an unsigned request or an expired presigned URL,
// InvalidAccessKeyId, SignatureDoesNotMatch, RequestTimeTooSkewed, and
// AuthorizationHeaderMalformed, AuthorizationQueryParametersError or
// InvalidRequest for a request that is not well formed.
func (v *Verifier) Verify(r *http.Request) (*Auth, error) {
	query, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, errorf(CodeInvalidArgument, "the query string is not valid: %v", err)
	}
	header := r.Header.Values("Authorization")
	presigned := query.Has("X-Amz-Algorithm") || query.Has("X-Amz-Signature") || query.Has("X-Amz-Credential")
	switch {
	case len(header) > 0 && presigned:
		return nil, errorf(CodeInvalidArgument, "only one auth mechanism allowed: the request has an Authorization header and a presigned query string")
	case len(header) > 1:
		return nil, malformed("the request has %d Authorization headers", len(header))
	case len(header) == 1:
		return v.verifyHeader(r, query, header[0])
	case presigned:
		return v.verifyPresigned(r, query)
	}
	return nil, errorf(CodeAccessDenied, "the request is not signed; this endpoint takes only SigV4-signed requests")
}

func (v *Verifier) verifyHeader(r *http.Request, query url.Values, header string) (*Auth, error) {
	a, err := ParseAuthorization(header)
	if err != nil {
		return nil, err
	}
	if err := v.checkScope(a.Credential.Scope, malformed); err != nil {
		return nil, err
	}
	dates := r.Header.Values("X-Amz-Date")
	if len(dates) != 1 {
		return nil, errorf(CodeAccessDenied, "the request has %d X-Amz-Date headers; SigV4 needs one", len(dates))
	}
	t, err := parseAmzDate(dates[0], "header X-Amz-Date")
	if err != nil {
		return nil, err
	}
	if got := t.Format("20060102"); got != a.Credential.Scope.Date {
		return nil, malformed("the credential's date %s is not X-Amz-Date's day %s", a.Credential.Scope.Date, got)
	}
	if skew := v.opts.Now().Sub(t); skew > v.opts.MaxSkew || -skew > v.opts.MaxSkew {
		return nil, errorf(CodeRequestTimeTooSkewed, "the difference between the request time %s and the server's time %s is more than %s",
			t.Format(amzDateLayout), v.opts.Now().UTC().Format(amzDateLayout), v.opts.MaxSkew)
	}
	hashes := r.Header.Values("X-Amz-Content-Sha256")
	if len(hashes) != 1 {
		return nil, errorf(CodeInvalidRequest, "missing required header for this request: x-amz-content-sha256 (the request has %d)", len(hashes))
	}
	if err := checkPayloadHash(hashes[0]); err != nil {
		return nil, err
	}
	secret, ok := v.creds.SecretKey(a.Credential.AccessKey)
	if !ok {
		return nil, errorf(CodeInvalidAccessKeyID, "the access key %q is not known here", clip(a.Credential.AccessKey))
	}
	key := signingKey(secret, a.Credential.Scope)
	canonical, err := canonicalRequest(r, query, a.SignedHeaders, hashes[0])
	if err != nil {
		return nil, err
	}
	if !hmac.Equal([]byte(signature(key, stringToSign(t, a.Credential.Scope, canonical))), []byte(a.Signature)) {
		return nil, errorf(CodeSignatureDoesNotMatch, "the request signature we calculated does not match the signature you provided; check your key and signing method")
	}
	return &Auth{AccessKey: a.Credential.AccessKey, Scope: a.Credential.Scope, Time: t, PayloadHash: hashes[0], Signature: a.Signature, key: key}, nil
}

func (v *Verifier) verifyPresigned(r *http.Request, query url.Values) (*Auth, error) {
	p, err := ParsePresigned(query)
	if err != nil {
		return nil, err
	}
	if err := v.checkScope(p.Credential.Scope, queryError); err != nil {
		return nil, err
	}
	now := v.opts.Now()
	if now.After(p.Date.Add(p.Expires)) {
		return nil, errorf(CodeAccessDenied, "Request has expired: it was signed at %s for %s", p.Date.Format(amzDateLayout), p.Expires)
	}
	if p.Date.Sub(now) > v.opts.MaxSkew {
		return nil, errorf(CodeAccessDenied, "Request is not valid yet: it was signed for %s", p.Date.Format(amzDateLayout))
	}
	secret, ok := v.creds.SecretKey(p.Credential.AccessKey)
	if !ok {
		return nil, errorf(CodeInvalidAccessKeyID, "the access key %q is not known here", clip(p.Credential.AccessKey))
	}
	payload := UnsignedPayload
	if h := query.Get("X-Amz-Content-Sha256"); h != "" {
		payload = h
	}
	for _, name := range p.SignedHeaders {
		if name == "x-amz-content-sha256" {
			payload = r.Header.Get("X-Amz-Content-Sha256")
		}
	}
	if err := checkPayloadHash(payload); err != nil {
		return nil, err
	}
	unsigned := make(url.Values, len(query))
	for k, vs := range query {
		if k != "X-Amz-Signature" {
			unsigned[k] = vs
		}
	}
	key := signingKey(secret, p.Credential.Scope)
	canonical, err := canonicalRequest(r, unsigned, p.SignedHeaders, payload)
	if err != nil {
		return nil, err
	}
	if !hmac.Equal([]byte(signature(key, stringToSign(p.Date, p.Credential.Scope, canonical))), []byte(p.Signature)) {
		return nil, errorf(CodeSignatureDoesNotMatch, "the request signature we calculated does not match the signature you provided; check your key and signing method")
	}
	return &Auth{AccessKey: p.Credential.AccessKey, Scope: p.Credential.Scope, Time: p.Date, PayloadHash: payload, Presigned: true, Signature: p.Signature, key: key}, nil
}

// checkScope checks a signature's service and region.
func (v *Verifier) checkScope(s Scope, fail func(string, ...any) *Error) error {
	if s.Service != "s3" {
		return fail("the credential's service is %q, not s3", clip(s.Service))
	}
	if v.opts.Region != "" && s.Region != v.opts.Region {
		return fail("the credential's region %q is wrong; expecting %q", clip(s.Region), v.opts.Region)
	}
	return nil
}

// checkPayloadHash checks an x-amz-content-sha256 value.
func checkPayloadHash(h string) error {
	switch h {
	case UnsignedPayload, StreamingSigned, StreamingSignedTrailer, StreamingUnsignedTrailer:
		return nil
	}
	if lowerHex(h, 64) {
		return nil
	}
	return errorf(CodeInvalidArgument, "x-amz-content-sha256 %q is not %s, %s, %s, %s or a lower-case hex SHA-256",
		clip(h), UnsignedPayload, StreamingSigned, StreamingSignedTrailer, StreamingUnsignedTrailer)
}
