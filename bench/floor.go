package bench

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore/driver"
)

// A row's floor is the bare calls the protocol cannot avoid for its
// fenced operation (docs/design.md, "A commit, step by step"; fence.go's
// acquire), made through the plain side's SDK client, on the same
// server, as a side of the same interleaved run. A floor's manifest
// write is a conditional PUT of the domain's manifest as it is at that
// moment (its bytes re-read, untimed, before each call) to a scratch key
// beside it, so that it sends what fence's manifest write sends. The
// floors of the rows are listed in doc.go and docs/benchmarks.md.

// Objstore's defaults for the values it keeps in the manifest
// (objstore.Options.InlineMax and InlineBudget), which decide whether a
// floor includes a version upload. TestInlineRule checks them against
// what a Store does.
const (
	defaultInlineMax    = 4096
	defaultInlineBudget = 256 * KiB
)

// inlined reports whether a commit of n values of size bytes through the
// run's Store keeps them all in the manifest: then the protocol uploads
// nothing before the manifest write.
func (r *runner) inlined(n int, size int64) bool {
	limit, budget := r.so.InlineMax, r.so.InlineBudget
	switch {
	case limit == 0:
		limit = defaultInlineMax
	case limit < 0:
		return false
	}
	if budget <= 0 {
		budget = defaultInlineBudget
	}
	return size <= limit && int64(n)*size <= budget
}

// manifestFloor makes a floor's calls on one domain's manifest.
type manifestFloor struct {
	r      *runner
	domain string
	// body is the domain's manifest as last read by refresh.
	body []byte
	// key is the scratch key the floor's manifest writes go to; etag is
	// its current ETag ("" until the first write creates it).
	key, etag string
}

// manifestFloor returns the floor calls on domain's manifest; name
// tells its scratch key from other rows'.
func (r *runner) manifestFloor(domain string, name ...string) *manifestFloor {
	return &manifestFloor{r: r, domain: domain, key: r.plainKey(append([]string{"floor"}, append(name, "manifest")...)...)}
}

// refresh re-reads the domain's manifest, through the backend: untimed.
func (m *manifestFloor) refresh(ctx context.Context) error {
	rc, _, err := m.r.cfg.Backend.Get(ctx, format.ManifestKey(m.domain), driver.GetOptions{})
	if err != nil {
		return fmt.Errorf("bench: floor: read the manifest of %s: %w", m.domain, err)
	}
	defer rc.Close()
	if m.body, err = io.ReadAll(rc); err != nil {
		return fmt.Errorf("bench: floor: read the manifest of %s: %w", m.domain, err)
	}
	return nil
}

// prep is refresh as a side's prep.
func (m *manifestFloor) prep(ctx context.Context, _ int) error { return m.refresh(ctx) }

// get reads the domain's manifest with one plain GET.
func (m *manifestFloor) get(ctx context.Context) error {
	_, err := m.r.plain.get(ctx, format.ManifestKey(m.domain))
	return err
}

// write sends the manifest's bytes with one conditional PUT: If-Match on
// the scratch key's last ETag, as fence's manifest write carries.
func (m *manifestFloor) write(ctx context.Context) error {
	if m.body == nil {
		return errors.New("bench: floor: manifest write before its bytes were read")
	}
	etag, err := m.r.plain.putIfMatch(ctx, m.key, m.body, m.etag)
	if err != nil {
		return err
	}
	m.etag = etag
	return nil
}

// size describes the manifest's last size, for a floor's description.
func (m *manifestFloor) size() string {
	return formatBytes(int64(len(m.body)))
}

// manifestWriteDesc describes one floor manifest write.
func (r *runner) manifestWriteDesc() string {
	return fmt.Sprintf("one conditional %s (%s) of the domain's manifest bytes", r.plain.putCall(), r.plain.condition())
}

// createDesc describes one floor version upload.
func (r *runner) createDesc(size int64) string {
	return fmt.Sprintf("one %s of %s to a new key (If-None-Match: *, as a version upload)", r.plain.putCall(), sizeName(size))
}

// create writes data to key with one conditional PUT that only creates
// (If-None-Match: *), as fence uploads a version.
func (r *runner) create(ctx context.Context, key string, data []byte) error {
	_, err := r.plain.putIfMatch(ctx, key, data, "")
	return err
}

// deleteScratch deletes key, untimed, ignoring a key that is not there.
func (r *runner) deleteScratch(ctx context.Context, key string) error {
	if err := r.cfg.Backend.Delete(ctx, key); err != nil && !errors.Is(err, driver.ErrNotFound) {
		return fmt.Errorf("bench: floor: delete %s: %w", key, err)
	}
	return nil
}

// parallel runs fns at once and returns the first error.
func parallel(ctx context.Context, fns ...func(context.Context) error) error {
	errs := make(chan error, len(fns))
	for _, f := range fns {
		go func() { errs <- f(ctx) }()
	}
	var first error
	for range fns {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}
