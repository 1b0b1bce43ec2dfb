package s3gw

import (
	"encoding/base64"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/s3gw/wire"
)

// listed is one key of a listing, by its S3 key.
type listed struct {
	s3key    string
	size     int64
	etag     string
	modified time.Time
}

// listing returns the domain's keys as the job sees them (the committed
// ones, less those it deleted, with those it staged), as S3 keys that
// start with prefix, sorted. Keys of other domains are not in it: the
// gateway's bucket holds the job's domain only.
func (g *Gateway) listing(q *request, prefix string) ([]listed, *wire.Error) {
	// The domain's keys that can start with prefix: all of them when
	// prefix is shorter than the domain's S3 prefix and leads to it,
	// those under the rest when it is longer, none otherwise.
	var keyPrefix string
	switch {
	case strings.HasPrefix(prefix, g.o.KeyPrefix):
		keyPrefix = prefix[len(g.o.KeyPrefix):]
	case strings.HasPrefix(g.o.KeyPrefix, prefix):
	default:
		return nil, nil
	}
	ctx := q.r.Context()
	var committed []objstore.Version
	sn, err := g.o.Store.Snapshot(ctx, g.o.Domain)
	switch {
	case errors.Is(err, objstore.ErrNotFound):
	case err != nil:
		return nil, g.storeError("list", err)
	default:
		if committed, err = sn.List(ctx, &objstore.ListOptions{Prefix: keyPrefix}); err != nil {
			return nil, g.storeError("list", err)
		}
	}
	g.mu.Lock()
	out := make([]listed, 0, len(committed)+len(g.staged))
	for _, ver := range committed {
		if _, gone := g.deleted[ver.Key]; gone {
			continue
		}
		if _, st := g.staged[ver.Key]; st {
			continue
		}
		v := committedView(ver, g.known[ver.Key], g.o.Token)
		out = append(out, listed{s3key: g.o.KeyPrefix + ver.Key, size: v.size, etag: v.etag, modified: v.modified})
	}
	for k, o := range g.staged {
		if strings.HasPrefix(k, keyPrefix) {
			out = append(out, listed{s3key: g.o.KeyPrefix + k, size: o.n, etag: o.etag, modified: o.modified})
		}
	}
	g.mu.Unlock()
	slices.SortFunc(out, func(a, b listed) int { return strings.Compare(a.s3key, b.s3key) })
	return out, nil
}

// page is one page of a listing: keys and common prefixes, in key order,
// at most max of them in all, after the position after.
type page struct {
	contents   []listed
	prefixes   []string
	truncated  bool
	last       string // the last key or common prefix in the page
	nextMarker string
}

func paginate(all []listed, prefix, delim, after string, max int) page {
	var p page
	n := 0
	for i := 0; i < len(all); i++ {
		k := all[i].s3key
		if k <= after || !strings.HasPrefix(k, prefix) {
			continue
		}
		if after != "" && delim != "" && strings.HasSuffix(after, delim) && strings.HasPrefix(k, after) {
			continue // inside the common prefix the last page ended with
		}
		item, isPrefix := k, false
		if delim != "" {
			if j := strings.Index(k[len(prefix):], delim); j >= 0 {
				item, isPrefix = k[:len(prefix)+j+len(delim)], true
			}
		}
		if n == max {
			p.truncated = true
			break
		}
		n++
		p.last = item
		if isPrefix {
			p.prefixes = append(p.prefixes, item)
			for i+1 < len(all) && strings.HasPrefix(all[i+1].s3key, item) {
				i++
			}
			continue
		}
		p.contents = append(p.contents, all[i])
	}
	if p.truncated {
		p.nextMarker = p.last
	}
	return p
}

// listObjects answers ListObjects (v1) and ListObjectsV2.
func (g *Gateway) listObjects(q *request, version int) {
	qs := q.t.query
	prefix, delim := qs.Get("prefix"), qs.Get("delimiter")
	max := 1000
	if s := qs.Get("max-keys"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			q.fail(wire.Errorf(wire.CodeInvalidArgument, "max-keys %q must be a whole number of 0 or more", s))
			return
		}
		max = min(n, 1000)
	}
	encode := qs.Get("encoding-type")
	if encode != "" && encode != "url" {
		q.fail(wire.Errorf(wire.CodeInvalidArgument, "Invalid Encoding Method specified in Request: %q", encode))
		return
	}
	after := qs.Get("marker")
	if version == 2 {
		after = qs.Get("start-after")
		if tok := qs.Get("continuation-token"); tok != "" {
			raw, err := base64.RawURLEncoding.DecodeString(tok)
			if err != nil {
				q.fail(wire.Errorf(wire.CodeInvalidArgument, "The continuation token provided is incorrect"))
				return
			}
			after = string(raw)
		}
	}
	all, e := g.listing(q, prefix)
	if e != nil {
		q.fail(e)
		return
	}
	p := paginate(all, prefix, delim, after, max)
	enc := func(s string) string {
		if encode == "url" {
			return urlEncode(s)
		}
		return s
	}
	contents := make([]listEntry, len(p.contents))
	for i, o := range p.contents {
		contents[i] = listEntry{Key: enc(o.s3key), LastModified: o.modified.UTC().Format(timeFormat), ETag: `"` + o.etag + `"`, Size: o.size, StorageClass: "STANDARD"}
		if version == 1 || qs.Get("fetch-owner") == "true" {
			contents[i].Owner = &owner
		}
	}
	prefixes := make([]commonPrefix, len(p.prefixes))
	for i, cp := range p.prefixes {
		prefixes[i] = commonPrefix{Prefix: enc(cp)}
	}
	if version == 1 {
		r := listBucketResult{NS: s3NS, Name: g.o.Bucket, Prefix: enc(prefix), Marker: enc(after), MaxKeys: max, Delimiter: enc(delim),
			IsTruncated: p.truncated, Contents: contents, CommonPrefixes: prefixes, EncodingType: encode}
		if p.truncated && delim != "" {
			r.NextMarker = enc(p.nextMarker)
		}
		q.xml(r)
		return
	}
	r := listBucketResultV2{NS: s3NS, Name: g.o.Bucket, Prefix: enc(prefix), MaxKeys: max, Delimiter: enc(delim), IsTruncated: p.truncated,
		Contents: contents, CommonPrefixes: prefixes, KeyCount: len(contents) + len(prefixes), EncodingType: encode,
		ContinuationToken: qs.Get("continuation-token"), StartAfter: enc(qs.Get("start-after"))}
	if p.truncated {
		r.NextContinuationToken = base64.RawURLEncoding.EncodeToString([]byte(p.nextMarker))
	}
	q.xml(r)
}

// timeFormat is S3's format of times in XML bodies.
const timeFormat = "2006-01-02T15:04:05.000Z"

// urlEncode encodes a key as S3 does with encoding-type=url: every byte
// but letters, digits, "-", "_", ".", "~" and "/" as %XX.
func urlEncode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_.~/", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteString("%" + strings.ToUpper(strconv.FormatUint(uint64(c)>>4, 16)+strconv.FormatUint(uint64(c)&15, 16)))
	}
	return b.String()
}
