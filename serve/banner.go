package serve

import "strings"

// affected is what a row says of its lease when the page's banner holds
// the error: the row's own copy of it would repeat the banner.
const affected = "not read: the coordinator did not answer (see the banner)"

// Banner is one error shared by the domains' rows: the coordinator's
// answer to the lease reads that failed, shown once above the rows.
type Banner struct {
	Error string `json:"error"`
	// Affected counts the rows whose lease it left unread, and Of the
	// rows whose lease was asked for; Affected == Of when no lease could
	// be read.
	Affected int `json:"affected"`
	Of       int `json:"of"`
}

// All reports whether no lease could be read.
func (b *Banner) All() bool { return b != nil && b.Affected == b.Of }

// hoist moves the lease error shared by rows into one banner: the
// commonest error of a failed lease read becomes the banner's, and each
// row that failed with it, or was not asked because a read had already
// failed, says only that it is affected. A row that failed otherwise
// keeps its own error. nil when every lease was read.
func hoist(rows []*DomainRow) *Banner {
	count := map[string]int{}
	for _, r := range rows {
		if r.LeaseError != "" && !strings.HasPrefix(r.LeaseError, notAsked) {
			count[r.LeaseError]++
		}
	}
	shared := ""
	for e, n := range count {
		if n > count[shared] || n == count[shared] && e < shared {
			shared = e
		}
	}
	b := &Banner{}
	for _, r := range rows {
		if r.Error != "" {
			continue // its manifest was not read: its lease was not asked for
		}
		b.Of++
		if r.LeaseError != "" && (r.LeaseError == shared || strings.HasPrefix(r.LeaseError, notAsked)) {
			b.Affected++
			r.LeaseError = affected
		}
	}
	if shared == "" && b.Affected > 0 {
		// Every failed row was "not asked": name the cause as they do.
		shared = notAsked
	}
	if b.Affected == 0 {
		return nil
	}
	b.Error = shared
	return b
}
