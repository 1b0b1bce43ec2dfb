package serve_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/memstore"
	"github.com/fencedstore/fence/serve"
)

func contains(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// With a token set, every page but /healthz asks for it, as a bearer
// token or a basic-auth password.
func TestAuth(t *testing.T) {
	f := newFixture(t, memstore.New())
	srv := serveFixture(t, f, &serve.Options{Token: "s3cret-token", Metrics: http.NotFoundHandler()})
	for _, path := range []string{"/", "/domain/reports", "/style.css", "/metrics"} {
		get(t, srv, path, "", 401)
	}
	get(t, srv, "/healthz", "", 200)
	for _, set := range []func(*http.Request){
		func(r *http.Request) { r.Header.Set("Authorization", "Bearer s3cret-token") },
		func(r *http.Request) { r.SetBasicAuth("ops", "s3cret-token") },
		func(r *http.Request) { r.Header.Set("Authorization", "Bearer wrong") },
	} {
		req, _ := http.NewRequestWithContext(ctx(t), "GET", srv.URL+"/", nil)
		set(req)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		want := 200
		if strings.HasSuffix(req.Header.Get("Authorization"), "wrong") {
			want = 401
		}
		if resp.StatusCode != want {
			t.Errorf("%v: status %d, want %d", req.Header.Get("Authorization"), resp.StatusCode, want)
		}
	}
}

// Pages of domains follow each other with no domain lost or repeated,
// and a page stops at the bound of objects it may scan.
func TestDomainsPaged(t *testing.T) {
	b := memstore.New()
	store := objstore.New(b, nil)
	var want []string
	for i := range 23 {
		d := fmt.Sprintf("team/d%02d", i)
		if i%5 == 0 {
			d += "/nested" // a nested domain sorts inside its parent's keys
		}
		if _, err := store.Put(ctx(t), d, "k", 1, strings.NewReader("v"), 1); err != nil {
			t.Fatal(err)
		}
		want = append(want, d)
	}
	srv := serveFixture(t, &fixture{b: b, store: store}, &serve.Options{PageSize: 5})
	var got []string
	after, pages := "", 0
	for {
		p := decode[serve.DomainsPage](t, get(t, srv, "/?format=json&after="+after, "", 200))
		pages++
		for _, r := range p.Domains {
			got = append(got, r.Domain)
		}
		if p.Next == "" {
			break
		}
		after = p.Next
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) || pages != 5 {
		t.Errorf("%d pages of %v, want 5 of %v", pages, got, want)
	}
	srv = serveFixture(t, &fixture{b: b, store: store}, &serve.Options{MaxScan: 3})
	p := decode[serve.DomainsPage](t, get(t, srv, "/?format=json", "", 200))
	if !p.Capped || p.Scanned != 3 || p.Next == "" {
		t.Errorf("page %+v, want capped at 3 objects with a cursor", p)
	}
}

// Every page forbids scripts and outside content, and a request that
// runs past the timeout ends with a page that says so.
func TestHeadersAndTimeout(t *testing.T) {
	f := newFixture(t, memstore.New())
	srv := serveFixture(t, f, nil)
	resp, err := srv.Client().Get(srv.URL + "/domain/reports")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.HasPrefix(csp, "default-src 'none';") || strings.Contains(csp, "script-src") {
		t.Errorf("Content-Security-Policy %q, want default-src 'none' and no script source", csp)
	}
	slow := serveFixture(t, f, &serve.Options{Timeout: time.Nanosecond})
	if body := get(t, slow, "/", "application/json", 502); !strings.Contains(body, "timed out") {
		t.Errorf("a request past its timeout: %s", body)
	}
}

// A domain whose manifest is gone while its versions remain is listed,
// and its row says what is wrong; the other domains still show.
func TestLostManifest(t *testing.T) {
	f := newFixture(t, memstore.New())
	if err := f.b.Delete(ctx(t), "reports/_fence/manifest.json"); err != nil {
		t.Fatal(err)
	}
	srv := serveFixture(t, f, nil)
	p := decode[serve.DomainsPage](t, get(t, srv, "/?format=json", "", 200))
	var lost *serve.DomainRow
	for i, r := range p.Domains {
		if r.Domain == "reports" {
			lost = &p.Domains[i]
		}
	}
	if lost == nil || !strings.Contains(lost.Error, "reports/_fence/manifest.json") || len(p.Domains) != 4 {
		t.Fatalf("domains %+v, want reports listed with an error naming its manifest", p.Domains)
	}
	t.Logf("reports: %s", lost.Error)
}

// The plot lays out a single point, and points at one time, inside
// its frame.
func TestDrawDegenerate(t *testing.T) {
	now := time.Now()
	f := newFixture(t, memstore.New())
	srv := serveFixture(t, f, &serve.Options{Now: func() time.Time { return now }})
	for _, path := range []string{"/domain/quiet", "/domain/stuck"} {
		html := get(t, srv, path, "", 200)
		if !strings.Contains(html, `<svg id="plot"`) || strings.Contains(html, "NaN") || strings.Contains(html, "Inf") {
			t.Errorf("%s: the plot is missing or has NaN or Inf coordinates", path)
		}
	}
}
