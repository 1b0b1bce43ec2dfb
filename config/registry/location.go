package registry

import (
	"fmt"
	"strings"
)

// Location is a parsed store or coordinator URL. It is comparable, and
// String returns a URL that parses back to the same Location. It never
// holds credentials: config.ParseURL refuses URLs that carry them.
type Location struct {
	// Scheme is "file", "mem", "s3", "minio", "dynamodb" or a
	// registered scheme ("gs", "azblob"), lower case.
	Scheme string
	// Path is the directory of a file URL, taken literally (relative to
	// the working directory unless it starts with '/'), or the name of a
	// mem URL ("" for a fresh, unshared store).
	Path string
	// Bucket is the bucket of an s3, minio or registered scheme's URL
	// (an azblob URL's container).
	Bucket string
	// Prefix is the key prefix of a bucket URL, without leading or
	// trailing '/'; "" for the whole bucket.
	Prefix string
	// Table is the table of a dynamodb URL.
	Table string
	// Endpoint is the server's base URL, http(s)://HOST[:PORT] (s3,
	// minio, dynamodb; a registered scheme's CheckEndpoint may allow
	// more, as azblob allows the account's path). Empty means the AWS configuration decides (s3,
	// dynamodb); a minio URL always has one.
	Endpoint string
	// Region is the AWS region (s3, minio, dynamodb); empty means the
	// AWS configuration decides.
	Region string
	// PathStyle addresses the bucket as ENDPOINT/BUCKET (s3).
	PathStyle bool
	// SSE is the server-side encryption of written objects: "",
	// "AES256" or "aws:kms" (s3, minio).
	SSE string
	// KMSKeyID is the KMS key of SSE "aws:kms" (s3, minio).
	KMSKeyID string
	// Account is the Azure storage account (azblob); empty means the
	// environment or the endpoint names it (Azurite's endpoint ends in
	// it: http://127.0.0.1:10000/devstoreaccount1).
	Account string
}

// String returns the URL that parses back to l.
func (l Location) String() string {
	switch l.Scheme {
	case "s3", "minio":
		return l.bucketURL()
	case "dynamodb":
		return "dynamodb://" + l.Table + l.query()
	}
	if _, ok := Lookup(l.Scheme); ok {
		return l.bucketURL()
	}
	return l.Scheme + "://" + l.Path
}

// bucketURL returns SCHEME://BUCKET[/PREFIX][?QUERY].
func (l Location) bucketURL() string {
	s := l.Scheme + "://" + l.Bucket
	if l.Prefix != "" {
		s += "/" + l.Prefix
	}
	return s + l.query()
}

// query returns l's query parameters in a fixed order, "" when none.
func (l Location) query() string {
	var q []string
	add := func(name, value string) {
		if value != "" {
			q = append(q, name+"="+escapeValue(value))
		}
	}
	add("endpoint", l.Endpoint)
	add("account", l.Account)
	add("region", l.Region)
	if l.PathStyle {
		add("path_style", "true")
	}
	add("sse", l.SSE)
	add("kms_key_id", l.KMSKeyID)
	if len(q) == 0 {
		return ""
	}
	return "?" + strings.Join(q, "&")
}

// escapeValue percent-encodes a query value, keeping ':' and '/' so that
// endpoints stay readable.
func escapeValue(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~:/", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}
