package serve_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/fencedstore/fence"
	"github.com/fencedstore/fence/serve"
)

func decode[T any](t *testing.T, body string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("%v:\n%s", err, body)
	}
	return v
}

// The domains page lists every domain with its lease and marks, and a
// corrupt manifest spoils only its own row, which names the object.
func TestDomainsPage(t *testing.T) {
	for name, open := range backends(t) {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, open(t))
			srv := serveFixture(t, f, nil)
			p := decode[serve.DomainsPage](t, get(t, srv, "/", "application/json", 200))
			rows := map[string]serve.DomainRow{}
			for _, r := range p.Domains {
				rows[r.Domain] = r
			}
			if len(rows) != 4 {
				t.Fatalf("domains %v, want broken, quiet, reports, stuck", rows)
			}
			if r := rows["broken"]; !strings.Contains(r.Error, "broken/_fence/manifest.json") || !strings.Contains(r.Error, "corrupt manifest") {
				t.Errorf("broken: error %q, want the corrupt manifest named", r.Error)
			}
			r := rows["reports"]
			if r.Error != "" || r.Lease == nil || r.Lease.Holder != "w2@host-b" || r.Lease.Token != f.new || !r.Lease.Live || r.Highest != f.new {
				t.Errorf("reports: %+v (lease %+v), want held by w2@host-b at token %d", r, r.Lease, f.new)
			}
			if !r.LastAttemptFenced || r.FencedAttempts != 1 {
				t.Errorf("reports: last attempt fenced %v, fenced attempts %d; want true, 1", r.LastAttemptFenced, r.FencedAttempts)
			}
			if q := rows["quiet"]; q.Lease == nil || q.Lease.Holder != "" || q.Lease.State() != "released" || q.ExpiredNotReleased || q.LastAttemptFenced {
				t.Errorf("quiet: %+v, want released, unmarked", q)
			}
			if s := rows["stuck"]; !s.ExpiredNotReleased || s.Lease == nil || s.Lease.TimeLeft == nil || *s.Lease.TimeLeft >= 0 {
				t.Errorf("stuck: %+v, want expired, not released", s)
			}
			html := get(t, srv, "/", "", 200)
			for _, want := range []string{"last attempt fenced", "expired, not released", "w2@host-b", "corrupt manifest", `href="/domain/reports"`} {
				if !strings.Contains(html, want) {
					t.Errorf("the HTML page lacks %q", want)
				}
			}
		})
	}
}

// A domain's page shows both tokens of the fenced attempt, the timeline
// and its table, and every key as text.
func TestDomainPage(t *testing.T) {
	for name, open := range backends(t) {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, open(t))
			srv := serveFixture(t, f, nil)
			p := decode[serve.DomainPage](t, get(t, srv, "/domain/reports?format=json", "", 200))
			if len(p.Attempts) != 1 || p.Attempts[0].Token != f.stale || p.Attempts[0].FencedBy != f.new || p.Attempts[0].Key != "late.csv" {
				t.Fatalf("fenced attempts %+v, want late.csv at token %d fenced by %d", p.Attempts, f.stale, f.new)
			}
			kinds := map[string]int{}
			for _, pt := range p.Timeline {
				kinds[pt.Kind]++
			}
			if kinds["takeover"] != 2 || kinds["commit"] != 3 || kinds["fenced"] != 1 || kinds["lease"] != 1 {
				t.Errorf("timeline kinds %v, want 2 takeovers, 3 commits, 1 fenced, 1 lease", kinds)
			}
			if len(p.Keys) != 2 || p.Keys[0].Key != evilKey {
				t.Errorf("keys %+v, want the evil key and monthly.csv", p.Keys)
			}
			html := get(t, srv, "/domain/reports", "text/html", 200)
			if strings.Contains(html, "<script") {
				t.Errorf("the page holds a script element: a key was not escaped")
			}
			if !strings.Contains(html, "&lt;script&gt;document.title=&#34;pwned&#34;") {
				t.Errorf("the page lacks the evil key, escaped")
			}
			for _, want := range []string{
				fmt.Sprintf(`<td class="num attempt-token">%d</td><td class="num fenced-by">%d</td>`, f.stale, f.new),
				`<svg id="plot"`, `data-kind="fenced"`, `data-kind="takeover"`, `<table id="events">`,
			} {
				if !strings.Contains(html, want) {
					t.Errorf("the page lacks %q", want)
				}
			}
		})
	}
}

// A page of keys ends with a link to the next.
func TestDomainKeysPaged(t *testing.T) {
	f := newFixture(t, backends(t)["memstore"](t))
	srv := serveFixture(t, f, nil)
	p := decode[serve.DomainPage](t, get(t, srv, "/domain/reports?format=json&limit=1", "", 200))
	if len(p.Keys) != 1 || p.KeysNext != evilKey {
		t.Fatalf("keys %+v next %q, want one key and a cursor", p.Keys, p.KeysNext)
	}
	p = decode[serve.DomainPage](t, get(t, srv, "/domain/reports?format=json&limit=1&after="+url.QueryEscape(p.KeysNext), "", 200))
	if len(p.Keys) != 1 || p.Keys[0].Key != "monthly.csv" || p.KeysNext != "" {
		t.Fatalf("second page %+v next %q, want monthly.csv and no cursor", p.Keys, p.KeysNext)
	}
}

// A commit's page is the event 'fence history --commit ID --json' prints.
func TestCommitPage(t *testing.T) {
	f := newFixture(t, backends(t)["memstore"](t))
	srv := serveFixture(t, f, nil)
	trail, err := fence.Audit(ctx(t), f.store, nil, "reports")
	if err != nil {
		t.Fatal(err)
	}
	want := trail.Events[len(trail.Events)-1]
	got := decode[fence.AuditEvent](t, get(t, srv, "/commit/"+want.CommitID+"/reports", "application/json", 200))
	wj, _ := json.Marshal(want)
	gj, _ := json.Marshal(got)
	if string(wj) != string(gj) {
		t.Errorf("commit\n got %s\nwant %s", gj, wj)
	}
	if html := get(t, srv, "/commit/"+want.CommitID+"/reports", "", 200); !strings.Contains(html, "still the domain's highest token") {
		t.Errorf("the commit page lacks its tenure:\n%s", html)
	}
	get(t, srv, "/commit/nosuchcommit/reports", "", 404)
	get(t, srv, "/domain/nosuchdomain", "", 404)
	if body := get(t, srv, "/domain/broken?format=json", "", 502); !strings.Contains(body, "broken/_fence/manifest.json") {
		t.Errorf("the broken domain's page does not name its manifest: %s", body)
	}
}
