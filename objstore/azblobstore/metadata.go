package azblobstore

import (
	"fmt"
	"strings"

	"github.com/fencedstore/fence/objstore/driver"
)

// Azure metadata names must be C# identifiers (letters, digits and '_',
// not starting with a digit), and are case-insensitive. fence's names
// are lower-case letters, digits and '-' (driver.PutOptions.Metadata),
// so each '-' is stored as '_' ("fence-seq" is stored as fence_seq) and
// read back as '-'. The mapping is reversible because fence's names
// never hold '_'. A name it cannot store (one that starts with a digit,
// or holds another character) fails the Put with driver.ErrPermanent,
// before any request.

// encodeMetadata returns m with Azure names, or an error naming the
// first name Azure cannot store.
func encodeMetadata(m map[string]string) (map[string]*string, error) {
	if len(m) == 0 {
		return nil, nil
	}
	out := make(map[string]*string, len(m))
	for k, v := range m {
		name, ok := metadataName(k)
		if !ok {
			return nil, fmt.Errorf("metadata name %q cannot be stored in Azure, whose metadata names are C# identifiers: want lower-case letters, digits and '-', not starting with a digit: %w", k, driver.ErrPermanent)
		}
		out[name] = &v
	}
	return out, nil
}

// metadataName maps a fence metadata name to its Azure name.
func metadataName(k string) (string, bool) {
	if k == "" || k[0] >= '0' && k[0] <= '9' {
		return "", false
	}
	for _, c := range []byte(k) {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return "", false
		}
	}
	return strings.ReplaceAll(k, "-", "_"), true
}

// decodeMetadata returns the metadata Azure reports with fence's names:
// lower-case (the SDK gives Go's canonical header case), '_' read as '-'.
func decodeMetadata(m map[string]*string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		if v != nil {
			out[strings.ReplaceAll(strings.ToLower(k), "_", "-")] = *v
		}
	}
	return out
}
