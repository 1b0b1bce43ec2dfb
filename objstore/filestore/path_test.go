package filestore

import (
	"strings"
	"testing"
)

func TestEscape(t *testing.T) {
	for seg, want := range map[string]string{
		"plain-name_1.txt": "plain-name_1.txt",
		"":                 "",
		"A":                "%41",
		"a b":              "a%20b",
		"%":                "%25",
		"%41":              "%2541",
		"@:/":              "%40%3A%2F",
		"é":                "%C3%A9",
		"..":               "..",
	} {
		if got := escape(seg); got != want {
			t.Errorf("escape(%q) = %q, want %q", seg, got, want)
		}
		if got, ok := unescape(want); !ok || got != seg {
			t.Errorf("unescape(%q) = %q, %v; want %q", want, got, ok, seg)
		}
	}
}

func TestUnescapeRejectsWhatEscapeNeverWrites(t *testing.T) {
	for _, s := range []string{"A", "a b", "%", "%4", "%4g", "%4a", "%61", "%2e", "é"} {
		if got, ok := unescape(s); ok {
			t.Errorf("unescape(%q) = %q, want rejection", s, got)
		}
	}
}

// FuzzEscape checks that escape is injective (unescape inverts it) and
// writes only [a-z0-9._-], '%' and the upper-case hex digits of escapes:
// no separator, and no upper-case letter that a case-insensitive
// filesystem could fold into another name.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"", "a", "A", "a/b", "%41", "日本語", "con", ".fence-tmp", "\x00\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, seg string) {
		e := escape(seg)
		if got, ok := unescape(e); !ok || got != seg {
			t.Fatalf("unescape(escape(%q)) = %q, %v", seg, got, ok)
		}
		if i := strings.IndexFunc(e, func(r rune) bool {
			return !(r < 0x80 && safe(byte(r)) || r == '%' || r >= 'A' && r <= 'F')
		}); i >= 0 {
			t.Fatalf("escape(%q) = %q: unexpected byte at %d", seg, e, i)
		}
	})
}
