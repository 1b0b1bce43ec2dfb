package wire

import (
	"errors"
	"net/url"
	"strconv"
	"time"
)

// Presigned is a parsed presigned query string.
type Presigned struct {
	Credential    Credential
	Date          time.Time
	Expires       time.Duration
	SignedHeaders []string
	Signature     string
}

func queryError(format string, args ...any) *Error {
	return errorf(CodeAuthorizationQueryParametersError, format, args...)
}

// ParsePresigned parses the SigV4 parameters of a presigned URL's query:
// X-Amz-Algorithm, X-Amz-Credential, X-Amz-Date, X-Amz-Expires (1 second
// to 7 days), X-Amz-SignedHeaders and X-Amz-Signature, each exactly once.
// It checks the form only; Verifier.Verify checks the signature and the
// expiry. Refusals are *Error (AuthorizationQueryParametersError) naming
// the parameter.
func ParsePresigned(q url.Values) (Presigned, error) {
	get := func(name string) (string, error) {
		v := q[name]
		if len(v) != 1 {
			return "", queryError("the presigned URL has %d %s parameters; SigV4 needs one", len(v), name)
		}
		if len(v[0]) > maxAuthLen {
			return "", queryError("the presigned URL's %s is %d bytes, more than %d", name, len(v[0]), maxAuthLen)
		}
		return v[0], nil
	}
	var p Presigned
	alg, err := get("X-Amz-Algorithm")
	if err != nil {
		return Presigned{}, err
	}
	if alg != algorithmV4 {
		return Presigned{}, queryError("X-Amz-Algorithm %q is not %s", clip(alg), algorithmV4)
	}
	cred, err := get("X-Amz-Credential")
	if err != nil {
		return Presigned{}, err
	}
	if p.Credential, err = parseCredential(cred, "X-Amz-Credential"); err != nil {
		return Presigned{}, asQueryError(err)
	}
	date, err := get("X-Amz-Date")
	if err != nil {
		return Presigned{}, err
	}
	if p.Date, err = parseAmzDate(date, "X-Amz-Date"); err != nil {
		return Presigned{}, asQueryError(err)
	}
	if got := p.Date.Format("20060102"); got != p.Credential.Scope.Date {
		return Presigned{}, queryError("X-Amz-Credential's date %s is not X-Amz-Date's day %s", p.Credential.Scope.Date, got)
	}
	exp, err := get("X-Amz-Expires")
	if err != nil {
		return Presigned{}, err
	}
	secs, err := strconv.ParseInt(exp, 10, 64)
	if err != nil || secs < 1 || time.Duration(secs)*time.Second > maxPresignedExpires || exp[0] == '+' {
		return Presigned{}, queryError("X-Amz-Expires %q is not a whole number of seconds from 1 to %d", clip(exp), int64(maxPresignedExpires/time.Second))
	}
	p.Expires = time.Duration(secs) * time.Second
	sh, err := get("X-Amz-SignedHeaders")
	if err != nil {
		return Presigned{}, err
	}
	if p.SignedHeaders, err = parseSignedHeaders(sh, "X-Amz-SignedHeaders"); err != nil {
		return Presigned{}, asQueryError(err)
	}
	sig, err := get("X-Amz-Signature")
	if err != nil {
		return Presigned{}, err
	}
	if p.Signature, err = parseSignature(sig, "X-Amz-Signature"); err != nil {
		return Presigned{}, asQueryError(err)
	}
	return p, nil
}

// asQueryError gives a parse error of a shared helper the code S3 uses for
// presigned query strings.
func asQueryError(err error) error {
	var e *Error
	if errors.As(err, &e) {
		return &Error{Code: CodeAuthorizationQueryParametersError, Message: e.Message, Status: statusOf(CodeAuthorizationQueryParametersError)}
	}
	return err
}
