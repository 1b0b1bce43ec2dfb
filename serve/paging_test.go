package serve_test

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http/httptest"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fencedstore/fence"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/memstore"
	"github.com/fencedstore/fence/serve"
)

// odd are name endings that need escaping in a URL's path or query.
var odd = map[int]string{7: " a+b&c=d", 31: "/100% ?#x", 77: "/ключ"}

// manyDomains is a store of n domains named tenants/tNNN (a few with odd
// endings), one key each, and their names in order.
func manyDomains(t *testing.T, n int) (*fixture, []string) {
	t.Helper()
	b := memstore.New()
	store := objstore.New(b, nil)
	var names []string
	for i := range n {
		d := fmt.Sprintf("tenants/t%03d%s", i, odd[i%100])
		if _, err := store.Put(ctx(t), d, "k", 1, strings.NewReader("v"), 1); err != nil {
			t.Fatal(err)
		}
		names = append(names, d)
	}
	return &fixture{b: b, store: store}, names
}

// manyKeys is a store whose domain tenants/big holds n keys (a few with
// odd endings), committed at once, and their names.
func manyKeys(t *testing.T, n int) (*fixture, []string) {
	t.Helper()
	b := memstore.New()
	store := objstore.New(b, nil)
	var (
		keys    []string
		changes []objstore.Change
	)
	for i := range n {
		k := fmt.Sprintf("dir/k%03d%s", i, odd[i%100])
		keys = append(keys, k)
		changes = append(changes, objstore.PutBytes(k, []byte("v")))
	}
	if _, err := store.Commit(ctx(t), "tenants/big", 1, changes, nil); err != nil {
		t.Fatal(err)
	}
	return &fixture{b: b, store: store}, keys
}

// once fails unless got holds each of want exactly once.
func once(t *testing.T, what string, got, want []string) {
	t.Helper()
	seen := map[string]int{}
	for _, g := range got {
		seen[g]++
	}
	var missing, twice, stranger []string
	for _, w := range want {
		switch n := seen[w]; {
		case n == 0:
			missing = append(missing, w)
		case n > 1:
			twice = append(twice, w)
		}
		delete(seen, w)
	}
	for g := range seen {
		stranger = append(stranger, g)
	}
	if len(missing)+len(twice)+len(stranger) > 0 {
		t.Errorf("%d %ss seen of %d: %d missing (%s), %d seen more than once (%s), %d not wanted (%s)", len(got), what, len(want),
			len(missing), head(missing), len(twice), head(twice), len(stranger), head(stranger))
	}
}

// head is the start of a list, for a message.
func head(s []string) string {
	if len(s) > 3 {
		return fmt.Sprintf("%q...", s[:3])
	}
	return fmt.Sprintf("%q", s)
}

var (
	domainLink = regexp.MustCompile(`<td class="domain"><a href="([^"]*)">([^<]*)</a>`)
	nextPage   = regexp.MustCompile(`<a id="next" href="([^"]*)"`)
	keyCell    = regexp.MustCompile(`<td class="key">([^<]*)</td>`)
	nextKeys   = regexp.MustCompile(`<a id="next-keys" href="([^"]*)"`)
)

// follow fetches start's HTML and each page its "Next" link (next's
// first group) leads to, as a browser would resolve it, and returns the
// items on the pages (items' last group, unescaped) and the addresses
// of the pages. It stops at a page without the link, or at a page that
// repeats an item, or after max pages.
func follow(t *testing.T, srv *httptest.Server, start string, items, next *regexp.Regexp, section string, max int) (got, pages []string) {
	t.Helper()
	seen := map[string]bool{}
	at, err := url.Parse(srv.URL + start)
	if err != nil {
		t.Fatal(err)
	}
	for range max {
		pages = append(pages, at.RequestURI())
		body := get(t, srv, at.RequestURI(), "text/html", 200)
		part := body
		if i := strings.Index(body, section); i >= 0 {
			part = body[i:]
		}
		for _, m := range items.FindAllStringSubmatch(part, -1) {
			item := html.UnescapeString(m[len(m)-1])
			if seen[item] {
				t.Fatalf("page %d (%s) repeats %q: the pages followed were %q", len(pages), at.RequestURI(), item, pages)
			}
			seen[item] = true
			got = append(got, item)
		}
		m := next.FindStringSubmatch(part)
		if m == nil {
			return got, pages
		}
		ref, err := url.Parse(html.UnescapeString(m[1]))
		if err != nil {
			t.Fatal(err)
		}
		at = at.ResolveReference(ref)
	}
	t.Fatalf("still a next link after %d pages: %q", max, pages)
	return nil, nil
}

// The HTML's "Next page" links lead through every domain once, as the
// JSON's cursors do, keeping the page size asked for; "Next keys" does
// the same through a domain's keys. The links are followed as a browser
// follows them (issue 34: escaped twice, page 1 led to page 1 again).
func TestHTMLPaging(t *testing.T) {
	t.Run("domains", func(t *testing.T) {
		f, names := manyDomains(t, 500)
		srv := serveFixture(t, f, nil)
		got, pages := follow(t, srv, "/", domainLink, nextPage, `<table id="domains">`, 20)
		once(t, "domain", got, names)
		if len(pages) != 10 {
			t.Errorf("%d pages of the default 50 domains, want 10: %q", len(pages), pages)
		}
		if want := "/?after=" + url.QueryEscape("tenants/t049/_fence/manifest.json"); len(pages) > 1 && pages[1] != want {
			t.Errorf("page 2 is %s, want %s", pages[1], want)
		}
		got, pages = follow(t, srv, "/?limit=120", domainLink, nextPage, `<table id="domains">`, 20)
		once(t, "domain", got, names)
		if len(pages) != 5 || !strings.HasSuffix(pages[len(pages)-1], "&limit=120") {
			t.Errorf("pages %q, want 5 of 120 domains, each link keeping limit=120", pages)
		}
		// A domain's link leads to its page, whatever its name holds.
		body := get(t, srv, "/", "", 200)
		for _, m := range domainLink.FindAllStringSubmatch(body, -1) {
			if name := html.UnescapeString(m[2]); strings.ContainsAny(name, " %ю") {
				p := decode[serve.DomainPage](t, get(t, srv, html.UnescapeString(m[1])+"?format=json", "", 200))
				if p.Domain != name {
					t.Errorf("the link %s leads to domain %q, want %q", m[1], p.Domain, name)
				}
			}
		}
	})
	t.Run("keys", func(t *testing.T) {
		f, keys := manyKeys(t, 300)
		srv := serveFixture(t, f, nil)
		got, pages := follow(t, srv, "/domain/tenants/big", keyCell, nextKeys, `<section id="keys">`, 20)
		once(t, "key", got, keys)
		if len(pages) != 6 {
			t.Errorf("%d pages of the default 50 keys, want 6: %q", len(pages), pages)
		}
	})
}

// A domain's page, and a commit's, are the same with a trailing slash
// as without it.
func TestTrailingSlash(t *testing.T) {
	f := newFixture(t, memstore.New())
	now := time.Now() // the lease's time left is the same on both
	srv := serveFixture(t, f, &serve.Options{Now: func() time.Time { return now }})
	for _, path := range []string{"/domain/reports", "/domain/quiet"} {
		want := get(t, srv, path+"?format=json", "", 200)
		if got := get(t, srv, path+"/?format=json", "", 200); got != want {
			t.Errorf("%s/ differs from %s:\n%s\nwant\n%s", path, path, got, want)
		}
		if got, want := get(t, srv, path+"/", "", 200), get(t, srv, path, "", 200); got != want {
			t.Errorf("the HTML of %s/ differs from that of %s", path, path)
		}
	}
	trail, err := fence.Audit(ctx(t), f.store, nil, "reports")
	if err != nil {
		t.Fatal(err)
	}
	path := "/commit/" + trail.Events[0].CommitID + "/reports"
	if got, want := get(t, srv, path+"/?format=json", "", 200), get(t, srv, path+"?format=json", "", 200); got != want {
		t.Errorf("%s/ differs from %s:\n%s\nwant\n%s", path, path, got, want)
	}
	get(t, srv, "/domain/nosuchdomain/", "", 404)
}

// listFields adds to out the JSON paths of the slice fields reachable
// from t that are written even when empty (no omitempty). in holds the
// types being walked, so a type that holds itself ends the walk.
func listFields(t reflect.Type, path string, out map[string]bool, in map[reflect.Type]bool) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || t.PkgPath() == "time" {
		return
	}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if tag == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		p := path + "." + name
		if f.Anonymous && tag == "" {
			p = path
		}
		if f.Type.Kind() == reflect.Slice && !slices.Contains(strings.Split(opts, ","), "omitempty") {
			out[p] = true
		}
		if !in[f.Type] {
			in[f.Type] = true
			listFields(f.Type, p, out, in)
			delete(in, f.Type)
		}
	}
}

// nulls returns the paths of the nulls in a JSON document.
func nulls(t *testing.T, body string) []string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("%v:\n%s", err, body)
	}
	var out []string
	var walk func(string, any)
	walk = func(p string, v any) {
		switch v := v.(type) {
		case nil:
			out = append(out, p)
		case map[string]any:
			for k, e := range v {
				walk(p+"."+k, e)
			}
		case []any:
			for i, e := range v {
				walk(fmt.Sprintf("%s[%d]", p, i), e)
			}
		}
	}
	walk("", v)
	return out
}

// Every list of the JSON API is [] when empty, never null: each list
// field is known and written as [] in an empty page, and the pages of a
// store have no null anywhere.
func TestJSONEmptyLists(t *testing.T) {
	fields := map[string]bool{}
	for _, v := range []any{serve.DomainsPage{}, serve.DomainPage{}, fence.AuditEvent{}} {
		listFields(reflect.TypeOf(v), "", fields, map[reflect.Type]bool{})
	}
	known := []string{".domains", ".summary.problems", ".keys", ".history.events", ".fenced_attempts", ".timeline"}
	if got := slices.Sorted(func(yield func(string) bool) {
		for f := range fields {
			if !yield(f) {
				return
			}
		}
	}); !slices.Equal(got, slices.Sorted(slices.Values(known))) {
		t.Errorf("the JSON API's list fields are %q, want %q: a new one must be written as [] when empty (see DomainPage.MarshalJSON) and added here", got, known)
	}
	for _, v := range []any{serve.DomainsPage{}, serve.DomainPage{}, &serve.DomainPage{}} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if n := nulls(t, string(b)); len(n) > 0 {
			t.Errorf("an empty %T is written with nulls at %q: %s", v, n, b)
		}
	}

	eb := memstore.New()
	empty := serveFixture(t, &fixture{b: eb, store: objstore.New(eb, nil)}, nil)
	if n := nulls(t, get(t, empty, "/?format=json", "", 200)); len(n) > 0 {
		t.Errorf("the domains of an empty store have nulls at %q", n)
	}
	f := newFixture(t, memstore.New())
	srv := serveFixture(t, f, nil)
	trail, err := fence.Audit(ctx(t), f.store, nil, "quiet")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/", "/domain/quiet", "/domain/stuck", "/domain/reports", "/commit/" + trail.Events[0].CommitID + "/quiet"} {
		body := get(t, srv, path+"?format=json", "", 200)
		if n := nulls(t, body); len(n) > 0 {
			t.Errorf("%s has nulls at %q:\n%s", path, n, body)
		}
		if path == "/domain/quiet" && !strings.Contains(body, `"fenced_attempts": []`) {
			t.Errorf("%s: fenced_attempts is not []:\n%s", path, body)
		}
	}
}
