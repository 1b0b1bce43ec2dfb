package main

import "strings"

// tidy returns an error message, which the caller prints after
// "fence: ", without the prefixes it would say twice: a word repeated
// ("policy: policy: ..." is "policy: ..."), the fence package's own
// "fence: " inside, and a prefix that the one before it ends with
// ("lease acquire "d": fence: acquire "d": ..." is "lease acquire "d":
// ...").
func tidy(msg string) string {
	parts := strings.Split(msg, ": ")
	out := parts[:0:0]
	for i, p := range parts {
		last := i == len(parts)-1
		switch {
		case !last && p == "fence":
			continue // "fence: " is printed once, first
		case !last && len(out) > 0 && p == out[len(out)-1] && isWord(p):
			continue
		case !last && len(out) > 0 && strings.Contains(p, " ") && strings.HasSuffix(out[len(out)-1], " "+p):
			continue
		}
		out = append(out, p)
	}
	return strings.Join(out, ": ")
}

// isWord reports whether s is one word of a prefix: letters, digits and
// '-'.
func isWord(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}
