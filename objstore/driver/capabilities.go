package driver

import (
	"errors"
	"strings"
)

// ErrUnsupported: the backend cannot do what the call asks (for example
// store metadata), and did nothing.
var ErrUnsupported = errors.New("objstore: not supported by this backend")

// Capabilities says what a backend can do beyond the Backend contract.
type Capabilities struct {
	// Metadata: Put stores PutOptions.Metadata, and Head and Get return
	// it in ObjectInfo.Metadata.
	Metadata bool
}

// Capable is implemented by backends that have Capabilities.
type Capable interface {
	Capabilities() Capabilities
}

// CapabilitiesOf returns b's capabilities; a backend that does not
// implement Capable has none.
func CapabilitiesOf(b Backend) Capabilities {
	if c, ok := b.(Capable); ok {
		return c.Capabilities()
	}
	return Capabilities{}
}

// NormalizeMetadata returns m with lower-case names, or nil when it is
// empty: how backends report ObjectInfo.Metadata, whatever case their
// store or SDK gives the names in.
func NormalizeMetadata(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[strings.ToLower(k)] = v
	}
	return out
}
