package filestore

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/fencedstore/fence/rules"
)

const (
	dirPrefix  = "d." // a non-final key segment
	filePrefix = "f." // the final key segment: the object itself
	lockDir    = ".fence-locks"
	tmpDir     = ".fence-tmp"

	// MaxSegmentLen is the longest a key segment may be once escaped, in
	// bytes. With its two-byte "d." or "f." prefix the file name stays
	// under the 255-byte limit of common filesystems.
	MaxSegmentLen = 240
)

// safe reports whether c is stored as itself in a file name. Upper-case
// letters are escaped so that keys differing only in case stay distinct
// on case-insensitive filesystems.
func safe(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
}

const hexDigits = "0123456789ABCDEF"

// escape encodes one key segment as a file name body: every byte outside
// [a-z0-9._-] becomes %XX (upper-case hex).
func escape(seg string) string {
	var sb strings.Builder
	sb.Grow(len(seg))
	for i := 0; i < len(seg); i++ {
		c := seg[i]
		if safe(c) {
			sb.WriteByte(c)
			continue
		}
		sb.WriteByte('%')
		sb.WriteByte(hexDigits[c>>4])
		sb.WriteByte(hexDigits[c&15])
	}
	return sb.String()
}

// unescape inverts escape. It accepts only what escape produces, so every
// file name decodes to at most one key segment.
func unescape(s string) (string, bool) {
	var sb strings.Builder
	sb.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '%' {
			if !safe(c) {
				return "", false
			}
			sb.WriteByte(c)
			continue
		}
		if i+2 >= len(s) {
			return "", false
		}
		hi, lo := strings.IndexByte(hexDigits, s[i+1]), strings.IndexByte(hexDigits, s[i+2])
		if hi < 0 || lo < 0 || safe(byte(hi<<4|lo)) {
			return "", false
		}
		sb.WriteByte(byte(hi<<4 | lo))
		i += 2
	}
	return sb.String(), true
}

// objectPath returns the file that holds key, and the directory that
// holds the file.
func (b *Backend) objectPath(key string) (file, dir string, err error) {
	if key == "" {
		return "", "", &rules.InvalidError{What: "key", Value: key, Reason: "empty"}
	}
	segs := strings.Split(key, "/")
	parts := make([]string, 0, len(segs)+1)
	parts = append(parts, b.root)
	for i, seg := range segs {
		e := escape(seg)
		if len(e) > MaxSegmentLen {
			return "", "", &rules.InvalidError{What: "key", Value: key, Reason: fmt.Sprintf(
				"segment %d is %d bytes once escaped for a file name, over filestore's limit of %d", i+1, len(e), MaxSegmentLen)}
		}
		if i < len(segs)-1 {
			parts = append(parts, dirPrefix+e)
		} else {
			parts = append(parts, filePrefix+e)
		}
	}
	file = filepath.Join(parts...)
	return file, filepath.Dir(file), nil
}

// CheckKey refuses a key that cannot be a file path in the directory:
// one with a segment longer than MaxSegmentLen once escaped.
func (b *Backend) CheckKey(key string) error {
	_, _, err := b.objectPath(key)
	return err
}
