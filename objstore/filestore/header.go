package filestore

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
)

// Every object file starts with a fixed-size header that records the
// SHA-256 of the content after it, so Get and Head never re-hash:
//
//	"FENCE1 " + 64 lower-case hex digits + "\n"
const (
	headerMagic = "FENCE1 "
	headerLen   = len(headerMagic) + 64 + 1
)

func formatHeader(sum []byte) []byte {
	h := make([]byte, 0, headerLen)
	h = append(h, headerMagic...)
	h = hex.AppendEncode(h, sum)
	return append(h, '\n')
}

// readHeader reads the header at r's current offset and returns the ETag
// it records. path names the file in errors.
func readHeader(r io.Reader, path string) (string, error) {
	var h [headerLen]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return "", fmt.Errorf("%s: bad object file: shorter than its %d-byte header", path, headerLen)
		}
		return "", fmt.Errorf("%s: reading header: %w", path, err)
	}
	etag := string(h[len(headerMagic) : headerLen-1])
	if string(h[:len(headerMagic)]) != headerMagic || h[headerLen-1] != '\n' || !isLowerHex(etag) {
		return "", fmt.Errorf("%s: bad object file: header is %q, want %q followed by 64 hex digits", path, h[:], headerMagic)
	}
	return etag, nil
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
