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

// listChunk is how many committed keys a listing reads from its
// snapshot at a time.
var listChunk = 1000

// keySource yields the domain's keys as the job sees them, as S3 keys
// that start with a prefix and come after a position, in order: the
// committed ones, read from the domain's snapshot listChunk at a time
// (each read starts with a binary search in objstore's sorted keys),
// less those the job deleted or staged again, merged with those it
// staged. Keys of other domains are not in it: the gateway's bucket holds
// the job's domain only. A page of a listing therefore costs what it
// returns and what it skips, not the whole domain's key list.
type keySource struct {
	g         *Gateway
	q         *request
	sn        *objstore.Snapshot // nil: nothing to read (or nothing committed)
	keyPrefix string             // the domain keys' prefix the request's prefix selects
	after     string             // the committed chunks read so far end here (a domain key)
	buf       []listed           // committed keys read and not yet taken
	done      bool               // no committed key is left to read
	staged    []listed           // the job's staged keys, sorted
	masked    map[string]bool    // committed keys the job deleted or staged again
	err       *wire.Error
}

// keys returns the source of the keys with S3 prefix prefix after the S3
// key after.
func (g *Gateway) keys(q *request, prefix, after string) *keySource {
	src := &keySource{g: g, q: q, done: true}
	// The domain's keys that can start with prefix: all of them when
	// prefix is shorter than the domain's S3 prefix and leads to it,
	// those under the rest when it is longer, none otherwise.
	switch {
	case strings.HasPrefix(prefix, g.o.KeyPrefix):
		src.keyPrefix = prefix[len(g.o.KeyPrefix):]
	case strings.HasPrefix(g.o.KeyPrefix, prefix):
	default:
		return src
	}
	// after, as a domain key: every S3 key of the domain starts with
	// KeyPrefix, so an S3 key before KeyPrefix is before all of them, and
	// one after it and not under it is after all of them.
	switch {
	case strings.HasPrefix(after, g.o.KeyPrefix):
		src.after = after[len(g.o.KeyPrefix):]
	case after < g.o.KeyPrefix:
	default:
		return src
	}
	sn, err := g.o.Store.Snapshot(q.r.Context(), g.o.Domain)
	switch {
	case errors.Is(err, objstore.ErrNotFound):
	case err != nil:
		src.err = g.storeError("list", err)
		return src
	default:
		src.sn, src.done = sn, false
	}
	g.mu.Lock()
	src.masked = make(map[string]bool)
	for k := range g.deleted {
		if strings.HasPrefix(k, src.keyPrefix) {
			src.masked[k] = true
		}
	}
	for k, o := range g.staged {
		if strings.HasPrefix(k, src.keyPrefix) {
			src.masked[k] = true
			if k > src.after {
				src.staged = append(src.staged, listed{s3key: g.o.KeyPrefix + k, size: o.n, etag: o.etag, modified: o.modified})
			}
		}
	}
	g.mu.Unlock()
	slices.SortFunc(src.staged, func(a, b listed) int { return strings.Compare(a.s3key, b.s3key) })
	return src
}

// fill reads committed keys until one is buffered or none is left.
func (s *keySource) fill() {
	for len(s.buf) == 0 && !s.done && s.err == nil {
		p, err := s.sn.ListPage(s.q.r.Context(), &objstore.ListOptions{Prefix: s.keyPrefix, After: s.after, Limit: listChunk})
		if err != nil {
			s.err = s.g.storeError("list", err)
			return
		}
		s.done = p.Next == ""
		if n := len(p.Versions); n > 0 {
			s.after = p.Versions[n-1].Key
		}
		s.g.mu.Lock()
		for _, ver := range p.Versions {
			if s.masked[ver.Key] {
				continue
			}
			v := committedView(ver, s.g.known[ver.Key], s.g.o.Token)
			s.buf = append(s.buf, listed{s3key: s.g.o.KeyPrefix + ver.Key, size: v.size, etag: v.etag, modified: v.modified})
		}
		s.g.mu.Unlock()
	}
}

// peek returns the next key without taking it; false when none is left
// or s failed (s.err).
func (s *keySource) peek() (listed, bool) {
	s.fill()
	switch {
	case s.err != nil:
		return listed{}, false
	case len(s.buf) == 0 && len(s.staged) == 0:
		return listed{}, false
	case len(s.staged) == 0 || len(s.buf) > 0 && s.buf[0].s3key < s.staged[0].s3key:
		return s.buf[0], true
	}
	return s.staged[0], true
}

// pop takes the key peek returned.
func (s *keySource) pop() {
	if len(s.staged) > 0 && (len(s.buf) == 0 || s.staged[0].s3key < s.buf[0].s3key) {
		s.staged = s.staged[1:]
		return
	}
	s.buf = s.buf[1:]
}

// skip takes every key that starts with the S3 prefix p: those of a
// common prefix a page has shown. Committed keys under it are not read:
// the next read starts after them.
func (s *keySource) skip(p string) {
	for len(s.staged) > 0 && strings.HasPrefix(s.staged[0].s3key, p) {
		s.staged = s.staged[1:]
	}
	for len(s.buf) > 0 && strings.HasPrefix(s.buf[0].s3key, p) {
		s.buf = s.buf[1:]
	}
	if len(s.buf) > 0 || s.done {
		return
	}
	switch {
	case strings.HasPrefix(s.g.o.KeyPrefix, p):
		s.done = true // every key of the domain is under p
	case strings.HasPrefix(p, s.g.o.KeyPrefix):
		// Keys are UTF-8, which never has the byte 0xff: every key under
		// p sorts before p + "\xff".
		if after := p[len(s.g.o.KeyPrefix):] + "\xff"; after > s.after {
			s.after = after
		}
	}
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

// paginate takes one page from src, whose keys start with prefix and
// come after after.
func paginate(src *keySource, prefix, delim, after string, max int) (page, *wire.Error) {
	var p page
	if after != "" && delim != "" && strings.HasSuffix(after, delim) {
		src.skip(after) // inside the common prefix the last page ended with
	}
	n := 0
	for {
		it, ok := src.peek()
		if !ok {
			break
		}
		k := it.s3key
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
			src.skip(item)
			continue
		}
		p.contents = append(p.contents, it)
		src.pop()
	}
	if src.err != nil {
		return page{}, src.err
	}
	if p.truncated {
		p.nextMarker = p.last
	}
	return p, nil
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
	p, e := paginate(g.keys(q, prefix, after), prefix, delim, after, max)
	if e != nil {
		q.fail(e)
		return
	}
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
