package format

import (
	"fmt"
	"math"
	"testing"
)

// TestVersionKeyMatchesSprintf: VersionKey writes what the format string
// it replaced writes, for tokens of every width, and VersionKeyLen is its
// length.
func TestVersionKeyMatchesSprintf(t *testing.T) {
	for _, token := range []uint64{0, 1, 9, 10, 42, 1e9, 1<<63 - 1, 1 << 63, math.MaxUint64} {
		for _, c := range []struct{ domain, key, suffix string }{
			{"d", "k", "0123456789abcdef0123456789abcdef"},
			{"jobs/nightly", "out/part-1.csv", "ab"},
			{"a/b/c", "x@y-z", ""},
		} {
			want := fmt.Sprintf("%s%s%s@%0*d-%s", c.domain, versionDir, c.key, tokenDigits, token, c.suffix)
			if got := VersionKey(c.domain, c.key, token, c.suffix); got != want {
				t.Errorf("VersionKey(%q, %q, %d, %q) = %q; want %q", c.domain, c.key, token, c.suffix, got, want)
			}
			if n := VersionKeyLen(c.domain, c.key, token, len(c.suffix)); n != len(want) {
				t.Errorf("VersionKeyLen(%q, %q, %d, %d) = %d; want %d", c.domain, c.key, token, len(c.suffix), n, len(want))
			}
		}
	}
}
