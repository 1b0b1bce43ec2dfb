package bucketlease

import (
	"errors"
	"sync"
)

// A Driver remembers, per record, the record and ETag of its last write
// (or read), so that its next change of the record writes at once, with
// If-Match on that ETag, instead of reading the record first: in a
// process that acquires, renews and releases a domain's lease, each
// change is then one request, the conditional PUT, as long as no other
// process writes the record in between.
//
// That is safe because the write is conditional: it lands only if the
// record is still the one remembered (its ETag unchanged; every write's
// content, and so its ETag, differs, see record.Attempt), and otherwise
// fails with a 412 (also when the record was deleted, see
// driver.Update), after which the update reads the record and decides
// again, as after any lost race. A decision that ends a change without a
// write (a live holder's *coord.HeldError, a lost lease) is never taken
// on the remembered record: the change reads the record and decides
// again on what it finds (errStale).

// maxRemembered bounds how many records a Driver remembers; past it,
// it forgets them all.
const maxRemembered = 4096

// remembered is a record and its ETag.
type remembered struct {
	r    record
	etag string
}

// memory is a Driver's remembered records, by key.
type memory struct {
	mu sync.Mutex
	m  map[string]remembered
}

func (m *memory) get(key string) (record, string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.m[key]
	return e.r, e.etag, ok
}

func (m *memory) put(key string, r record, etag string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil || len(m.m) >= maxRemembered {
		m.m = make(map[string]remembered)
	}
	m.m[key] = remembered{r, etag}
}

func (m *memory) forget(key string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.m, key)
}

// errStale ends an update decided on a remembered record without a
// write: the caller reads the record and decides again.
var errStale = errors.New("bucketlease: decided on a remembered record")
