package wire

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"hash"
	"hash/crc32"
	"net/http"
	"strings"

	"github.com/minio/crc64nvme"
)

// Algorithm is one of the checksum algorithms S3 clients send in an
// x-amz-checksum-* header or trailer.
type Algorithm string

// The algorithms S3 accepts, named as in x-amz-sdk-checksum-algorithm.
const (
	CRC32     Algorithm = "CRC32"
	CRC32C    Algorithm = "CRC32C"
	CRC64NVME Algorithm = "CRC64NVME"
	SHA1      Algorithm = "SHA1"
	SHA256    Algorithm = "SHA256"
)

// Algorithms lists every Algorithm, in the order S3's documentation does.
var Algorithms = []Algorithm{CRC32, CRC32C, CRC64NVME, SHA1, SHA256}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// New returns a fresh hash for a. CRC64NVME is the CRC-64 with the NVMe
// polynomial (0xad93d23594c93659), computed by github.com/minio/crc64nvme.
func (a Algorithm) New() hash.Hash {
	switch a {
	case CRC32:
		return crc32.NewIEEE()
	case CRC32C:
		return crc32.New(castagnoli)
	case CRC64NVME:
		return crc64nvme.New()
	case SHA1:
		return sha1.New()
	case SHA256:
		return sha256.New()
	}
	return nil
}

// Header is the header (and trailer) name that carries a's value, in lower
// case as clients write it in x-amz-trailer: "x-amz-checksum-crc32".
func (a Algorithm) Header() string {
	return "x-amz-checksum-" + strings.ToLower(string(a))
}

// size is the length in bytes of a's digest.
func (a Algorithm) size() int {
	switch a {
	case CRC32, CRC32C:
		return 4
	case CRC64NVME:
		return 8
	case SHA1:
		return sha1.Size
	case SHA256:
		return sha256.Size
	}
	return 0
}

// algorithmOfHeader returns the Algorithm whose header is name (any case),
// or false.
func algorithmOfHeader(name string) (Algorithm, bool) {
	for _, a := range Algorithms {
		if strings.EqualFold(name, a.Header()) {
			return a, true
		}
	}
	return "", false
}

// ParseAlgorithm returns the Algorithm named s (any case), as clients send
// it in x-amz-sdk-checksum-algorithm and x-amz-checksum-algorithm.
func ParseAlgorithm(s string) (Algorithm, error) {
	for _, a := range Algorithms {
		if strings.EqualFold(s, string(a)) {
			return a, nil
		}
	}
	return "", errorf(CodeInvalidRequest, "checksum algorithm %q is not one of CRC32, CRC32C, CRC64NVME, SHA1, SHA256", s)
}

// Checksum is a checksum of an object's bytes: its algorithm and its value
// as S3 sends it, the base64 of the big-endian digest.
type Checksum struct {
	Algorithm Algorithm
	Value     string
}

// decodeChecksum checks that value is the base64 of a digest of a's size,
// as in header or trailer where (the header or trailer's name) names it.
func decodeChecksum(a Algorithm, value, where string) error {
	raw, err := base64.StdEncoding.DecodeString(value)
	if err != nil || len(raw) != a.size() {
		return errorf(CodeInvalidRequest, "%s %q is not the base64 of a %d-byte %s digest", where, value, a.size(), a)
	}
	return nil
}

// headerChecksum returns the one x-amz-checksum-* value h declares, or a
// zero Checksum when it declares none. More than one, or a value that is
// not the base64 of a digest of the right size, is refused.
func headerChecksum(h http.Header) (Checksum, error) {
	var found Checksum
	for _, a := range Algorithms {
		v := h.Values(a.Header())
		if len(v) == 0 {
			continue
		}
		if found.Algorithm != "" || len(v) > 1 {
			return Checksum{}, errorf(CodeInvalidRequest, "more than one x-amz-checksum-* header; S3 accepts one")
		}
		if err := decodeChecksum(a, v[0], "header "+a.Header()); err != nil {
			return Checksum{}, err
		}
		found = Checksum{Algorithm: a, Value: v[0]}
	}
	return found, nil
}
