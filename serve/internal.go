package serve

import "strings"

// doctorPrefix starts the scratch domains of 'fence doctor': its test
// acquisition takes and fences "fence-doctor/<hostname>" unless told
// another domain (config.DoctorOptions.Domain).
const doctorPrefix = "fence-doctor/"

// internal reports whether domain is fence's own, not an application's:
// the domains page neither lists nor counts it. Its page is still at
// /domain/DOMAIN.
func internal(domain string) bool { return strings.HasPrefix(domain, doctorPrefix) }
