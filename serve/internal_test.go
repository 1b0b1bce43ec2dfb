package serve_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/fencedstore/fence/config"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/filestore"
	"github.com/fencedstore/fence/serve"
)

// fence doctor's scratch domain, written by a real run of doctor, is
// neither listed nor counted on the domains page, in the JSON or the
// HTML; the summary says one internal domain was left out, and its own
// page still answers.
func TestInternalDomainsHidden(t *testing.T) {
	dir := t.TempDir()
	checks, err := config.Doctor(ctx(t), "file://"+dir, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	scratch := ""
	for _, c := range checks {
		if c.Name == "test acquisition and release" {
			if c.Status != config.StatusOK {
				t.Fatalf("doctor's test acquisition: %+v", c)
			}
			_, rest, _ := strings.Cut(c.Detail, `domain "`)
			scratch, _, _ = strings.Cut(rest, `"`)
		}
	}
	if scratch == "" {
		t.Fatalf("doctor named no scratch domain: %+v", checks)
	}
	b, err := filestore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	store := objstore.New(b, nil)
	if _, err := store.Put(ctx(t), "app/reports", "k", 1, strings.NewReader("v"), 1); err != nil {
		t.Fatal(err)
	}
	srv := serveFixture(t, &fixture{b: b, store: store}, nil)
	p := decode[serve.DomainsPage](t, get(t, srv, "/?format=json", "", 200))
	if got := names(p.Domains); !slices.Equal(got, []string{"app/reports"}) {
		t.Errorf("domains %q, want app/reports alone (not doctor's %q)", got, scratch)
	}
	if p.Summary == nil || p.Summary.Domains != 1 || p.Summary.Counts[serve.StateHealthy] != 1 || p.Summary.Hidden != 1 {
		t.Errorf("summary %+v, want 1 domain, healthy, and 1 hidden", p.Summary)
	}
	html := get(t, srv, "/", "", 200)
	if strings.Contains(html, scratch) || !strings.Contains(html, "1 internal (fence doctor") {
		t.Errorf("the HTML lists %q, or does not say an internal domain is hidden", scratch)
	}
	get(t, srv, "/domain/"+scratch+"?format=json", "", 200)
}
