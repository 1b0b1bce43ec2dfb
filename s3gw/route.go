package s3gw

import (
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/s3gw/wire"
)

// target is what a request addresses: a bucket (empty for the service),
// an S3 key (empty for the bucket), and the domain's key that S3 key is.
type target struct {
	bucket string
	s3key  string
	key    string // the domain's key; "" when s3key is ""
	query  url.Values
}

// parseTarget reads the bucket and key from a virtual-host-style Host
// (BUCKET.localhost, or BUCKET.<anything> whose first label is the
// gateway's bucket) or, otherwise, from the path (/BUCKET/KEY).
func (g *Gateway) parseTarget(r *http.Request) (target, *wire.Error) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return target{}, wire.Errorf(wire.CodeInvalidArgument, "the query string is not well formed: %v", err)
	}
	p, err := url.PathUnescape(r.URL.EscapedPath())
	if err != nil {
		return target{}, wire.Errorf(wire.CodeInvalidArgument, "the path is not well formed: %v", err)
	}
	t := target{query: q}
	p = strings.TrimPrefix(p, "/")
	if b, ok := g.virtualHost(r.Host); ok {
		t.bucket, t.s3key = b, p
	} else {
		t.bucket, t.s3key, _ = strings.Cut(p, "/")
	}
	return t, nil
}

// virtualHost returns the bucket a virtual-host-style Host names: the
// first label of BUCKET.localhost, or of any name whose first label is
// the gateway's bucket. An IP address or a bare name is path style.
func (g *Gateway) virtualHost(host string) (string, bool) {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if net.ParseIP(host) != nil {
		return "", false
	}
	b, rest, ok := strings.Cut(host, ".")
	if !ok || b == "" {
		return "", false
	}
	if rest == "localhost" || b == g.o.Bucket {
		return b, true
	}
	return "", false
}

// domainKey maps an S3 key of the gateway's bucket to the domain's key,
// or refuses it: AccessDenied outside the domain's prefix, and the rule
// a key inside it breaks.
func (g *Gateway) domainKey(s3key string) (string, *wire.Error) {
	k, ok := strings.CutPrefix(s3key, g.o.KeyPrefix)
	if !ok {
		return "", &wire.Error{Code: wire.CodeAccessDenied, Status: http.StatusForbidden,
			Message: "fence: key " + quote(s3key) + " is outside this job's domain " + quote(g.o.Domain) + ": this endpoint serves keys under " + quote(g.o.KeyPrefix) + " only"}
	}
	if err := objstore.ValidateKey(k); err != nil {
		code := wire.CodeInvalidArgument
		var ie *objstore.InvalidError
		if errors.As(err, &ie) && strings.Contains(ie.Reason, "bytes") {
			code = wire.CodeKeyTooLong
		}
		return "", wire.Errorf(code, "fence: key %s cannot be a key of domain %q: %v", quote(s3key), g.o.Domain, err)
	}
	return k, nil
}

// checkBucket refuses every bucket but the gateway's.
func (g *Gateway) checkBucket(b string) *wire.Error {
	if b == g.o.Bucket {
		return nil
	}
	return &wire.Error{Code: wire.CodeAccessDenied, Status: http.StatusForbidden,
		Message: "fence: this endpoint serves bucket " + quote(g.o.Bucket) + " only, not " + quote(b)}
}

func quote(s string) string {
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return `"` + s + `"`
}
