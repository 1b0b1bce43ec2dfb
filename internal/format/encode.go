package format

import (
	"encoding/base64"
	"encoding/json"
	"slices"
	"strconv"
	"sync"
	"time"
)

// The manifest's encoder. Every commit encodes the whole manifest, with
// its commit log of up to 64 entries, and encoding/json spends most of a
// small put's CPU on it (reflection, and an allocation for every
// timestamp). appendManifest writes the same bytes as json.Marshal
// directly: the fields in declaration order, map keys sorted, the same
// omitempty and omitzero rules, timestamps as time.Time.MarshalJSON
// writes them, byte slices in standard base64. It handles only what fence
// writes: strings of printable ASCII without the characters encoding/json
// escapes, and UTC timestamps of years 0 to 9999. For anything else it
// reports false, and Encode falls back to json.Marshal, so the encoding
// never differs (TestEncodeMatchesJSON, FuzzDecodeManifest).

// encodeBufs holds scratch buffers for Encode: the manifest is encoded
// into one, then copied out at its exact size.
var encodeBufs = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledBuf is the largest scratch buffer kept for the next Encode.
const maxPooledBuf = 1 << 20

// appendEncoding appends m's encoding and a newline to b.
func appendEncoding(b []byte, m *Manifest) ([]byte, error) {
	if est := len(b) + estimateSize(m); cap(b) < est {
		// Grow once rather than by doubling.
		b = append(make([]byte, 0, est), b...)
	}
	n := len(b)
	b, ok := appendManifest(b, m)
	if !ok {
		data, err := json.Marshal(m)
		if err != nil {
			return nil, err
		}
		b = append(b[:n], data...)
	}
	return append(b, '\n'), nil
}

// estimateSize returns about the length of m's encoding, a little more
// for a manifest of usual keys and holders, so that encoding it needs one
// buffer.
func estimateSize(m *Manifest) int {
	n := 256 + (len(m.Log)+2)*logEntrySize + len(m.Shards)*160
	for k, e := range m.Keys {
		n += len(k) + len(e.Version) + len(e.SHA256) + len(e.CRC32C) + len(e.CRC32) + 160 + base64.StdEncoding.EncodedLen(len(e.Data))
	}
	return n
}

// logEntrySize is about the length of one encoded log entry with a
// 40-byte holder and one key name of 20 bytes.
const logEntrySize = 256

func appendManifest(b []byte, m *Manifest) ([]byte, bool) {
	ok := true
	b = append(b, `{"format":`...)
	b = appendStr(b, m.Format, &ok)
	b = append(b, `,"domain":`...)
	b = appendStr(b, m.Domain, &ok)
	b = append(b, `,"highest_token":`...)
	b = strconv.AppendUint(b, m.Highest, 10)
	b = append(b, `,"seq":`...)
	b = strconv.AppendUint(b, m.Seq, 10)
	b = append(b, `,"last_commit":`...)
	b = appendLogEntry(b, &m.Last, &ok)
	if !logEntryIsZero(&m.Raised) {
		b = append(b, `,"raised_by":`...)
		b = appendLogEntry(b, &m.Raised, &ok)
	}
	b = append(b, `,"keys":`...)
	b = appendEntries(b, m.Keys, &ok)
	if len(m.Shards) > 0 {
		b = append(b, `,"shards":[`...)
		for i := range m.Shards {
			if i > 0 {
				b = append(b, ',')
			}
			r := &m.Shards[i]
			b = append(b, `{"prefix":`...)
			b = appendStr(b, r.Prefix, &ok)
			b = append(b, `,"object":`...)
			b = appendStr(b, r.Object, &ok)
			b = append(b, `,"count":`...)
			b = strconv.AppendInt(b, int64(r.Count), 10)
			if r.Packed {
				b = append(b, `,"packed":true`...)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `,"log":`...)
	if m.Log == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range m.Log {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendLogEntry(b, &m.Log[i], &ok)
		}
		b = append(b, ']')
	}
	return append(b, '}'), ok
}

func appendLogEntry(b []byte, e *LogEntry, ok *bool) []byte {
	b = append(b, `{"seq":`...)
	b = strconv.AppendUint(b, e.Seq, 10)
	b = append(b, `,"id":`...)
	b = appendStr(b, e.ID, ok)
	b = append(b, `,"token":`...)
	b = strconv.AppendUint(b, e.Token, 10)
	b = append(b, `,"holder":`...)
	b = appendStr(b, e.Holder, ok)
	b = append(b, `,"time":`...)
	b = appendTime(b, e.Time, ok)
	b = append(b, `,"puts":`...)
	b = strconv.AppendInt(b, int64(e.Puts), 10)
	b = append(b, `,"deletes":`...)
	b = strconv.AppendInt(b, int64(e.Deletes), 10)
	if len(e.PutKeys) > 0 {
		b = append(b, `,"put_keys":`...)
		b = appendStrs(b, e.PutKeys, ok)
	}
	if len(e.DeletedKeys) > 0 {
		b = append(b, `,"deleted_keys":`...)
		b = appendStrs(b, e.DeletedKeys, ok)
	}
	if e.KeysTruncated {
		b = append(b, `,"keys_truncated":true`...)
	}
	if e.Attempt != "" {
		b = append(b, `,"attempt":`...)
		b = appendStr(b, e.Attempt, ok)
	}
	return append(b, '}')
}

// logEntryIsZero is omitzero's test: every field is its zero value (a
// nil slice, not an empty one).
func logEntryIsZero(e *LogEntry) bool {
	return e.Seq == 0 && e.ID == "" && e.Token == 0 && e.Holder == "" && e.Time == (time.Time{}) &&
		e.Puts == 0 && e.Deletes == 0 && e.PutKeys == nil && e.DeletedKeys == nil && !e.KeysTruncated && e.Attempt == ""
}

func appendEntries(b []byte, keys map[string]Entry, ok *bool) []byte {
	if keys == nil {
		return append(b, "null"...)
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	slices.Sort(sorted)
	b = append(b, '{')
	// The entries a commit puts share its time: its encoding is copied
	// from the last entry's when the time is the same (==: the same
	// instant, location and monotonic reading, so the same encoding).
	var lastTime time.Time
	lastAt, lastEnd := -1, -1
	for i, k := range sorted {
		if i > 0 {
			b = append(b, ',')
		}
		e := keys[k]
		b = appendStr(b, k, ok)
		b = append(b, `:{"version":`...)
		b = appendStr(b, e.Version, ok)
		b = append(b, `,"size":`...)
		b = strconv.AppendInt(b, e.Size, 10)
		b = append(b, `,"sha256":`...)
		b = appendStr(b, e.SHA256, ok)
		if e.CRC32C != "" {
			b = append(b, `,"crc32c":`...)
			b = appendStr(b, e.CRC32C, ok)
		}
		if e.CRC32 != "" {
			b = append(b, `,"crc32":`...)
			b = appendStr(b, e.CRC32, ok)
		}
		b = append(b, `,"token":`...)
		b = strconv.AppendUint(b, e.Token, 10)
		b = append(b, `,"committed":`...)
		if lastAt >= 0 && e.Committed == lastTime {
			b = append(b, b[lastAt:lastEnd]...)
		} else {
			lastTime, lastAt = e.Committed, len(b)
			b = appendTime(b, e.Committed, ok)
			lastEnd = len(b)
		}
		if e.Deleted {
			b = append(b, `,"deleted":true`...)
		}
		if e.Inline {
			b = append(b, `,"inline":true`...)
		}
		if len(e.Data) > 0 {
			b = append(b, `,"data":"`...)
			b = base64.StdEncoding.AppendEncode(b, e.Data)
			b = append(b, '"')
		}
		if e.Pack != "" {
			b = append(b, `,"pack":`...)
			b = appendStr(b, e.Pack, ok)
			if e.Offset != 0 {
				b = append(b, `,"offset":`...)
				b = strconv.AppendInt(b, e.Offset, 10)
			}
		}
		b = append(b, '}')
	}
	return append(b, '}')
}

func appendStrs(b []byte, ss []string, ok *bool) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendStr(b, s, ok)
	}
	return append(b, ']')
}

// appendStr appends s as a JSON string, when encoding/json would write
// it unescaped: printable ASCII other than '"', '\\', '<', '>' and '&'.
// Otherwise it clears *ok.
func appendStr(b []byte, s string, ok *bool) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			*ok = false
			return b
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendTime appends t as time.Time.MarshalJSON writes it (RFC 3339 with
// nanoseconds, trailing zeros trimmed), for a UTC time of a year from 0
// to 9999. Otherwise it clears *ok.
func appendTime(b []byte, t time.Time, ok *bool) []byte {
	if t.Location() != time.UTC || t.Year() < 0 || t.Year() > 9999 {
		*ok = false
		return b
	}
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}
