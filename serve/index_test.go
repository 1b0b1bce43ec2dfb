package serve_test

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/memstore"
	"github.com/fencedstore/fence/serve"
)

// names are the domains of rows.
func names(rows []serve.DomainRow) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r.Domain)
	}
	return out
}

// tableDomains are the domains of the HTML table with id, in order.
func tableDomains(t *testing.T, html, id string) []string {
	t.Helper()
	start := strings.Index(html, `<table id="`+id+`">`)
	if start < 0 {
		t.Fatalf("the page has no table %q", id)
	}
	end := start + strings.Index(html[start:], "</table>")
	var out []string
	for _, m := range domainLink.FindAllStringSubmatch(html[start:end], -1) {
		out = append(out, m[2])
	}
	return out
}

// The first page of domains names the store and its render time,
// counts the domains by state and lists those in trouble first, most
// severe first (corrupt, fenced, expired), in the JSON and in the HTML,
// before the table of all the domains in key order.
func TestIndexProblemsFirst(t *testing.T) {
	f := newFixture(t, memstore.New())
	// zzz is corrupt too: last by name, among the first by state.
	if _, err := f.store.Put(ctx(t), "zzz", "k", 1, strings.NewReader("v"), 1); err != nil {
		t.Fatal(err)
	}
	if _, err := f.b.Put(ctx(t), "zzz/_fence/manifest.json", strings.NewReader("[]"), 2, driverPut); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	srv := serveFixture(t, f, &serve.Options{Store: "file:///srv/fence", Coordinator: "file:///srv/leases", Now: func() time.Time { return now }})
	p := decode[serve.DomainsPage](t, get(t, srv, "/?format=json", "", 200))
	if p.Store != "file:///srv/fence" || p.Coordinator != "file:///srv/leases" || !p.Rendered.Equal(now.UTC()) || p.Order == "" {
		t.Errorf("page names store %q, coordinator %q, rendered %v, order %q; want both URLs, %v and an order", p.Store, p.Coordinator, p.Rendered, p.Order, now.UTC())
	}
	if p.Summary == nil {
		t.Fatal("the first page has no summary")
	}
	want := map[string]int{serve.StateCorrupt: 2, serve.StateUnreadable: 0, serve.StateFenced: 1, serve.StateExpired: 1, serve.StateCoordUnreachable: 0, serve.StateHealthy: 1}
	if fmt.Sprint(p.Summary.Counts) != fmt.Sprint(want) || p.Summary.Domains != 5 {
		t.Errorf("counts %v of %d domains, want %v of 5", p.Summary.Counts, p.Summary.Domains, want)
	}
	problems := []string{"broken", "zzz", "reports", "stuck"}
	if got := names(p.Summary.Problems); !slices.Equal(got, problems) {
		t.Errorf("problems %q, want broken and zzz (corrupt), reports (fenced), stuck (expired)", got)
	}
	if got := names(p.Domains); !slices.Equal(got, []string{"broken", "quiet", "reports", "stuck", "zzz"}) {
		t.Errorf("domains %q, want all five in key order", got)
	}
	for _, r := range p.Domains {
		if r.Domain == "quiet" && r.State != serve.StateHealthy {
			t.Errorf("quiet is %q, want healthy", r.State)
		}
	}

	html := get(t, srv, "/", "", 200)
	// broken and zzz are in both tables; the advice that ends their
	// errors is on the page once.
	if n := strings.Count(html, "restore the object from a backup"); n != 1 || strings.Count(html, `corrupt manifest &#34;broken/_fence/manifest.json&#34;`) != 2 {
		t.Errorf("the corrupt manifests' advice is on the page %d times, want once, and broken's object named in both tables", n)
	}
	if got := tableDomains(t, html, "problems"); !slices.Equal(got, problems) {
		t.Errorf("the HTML's problems table lists %q, want %q", got, problems)
	}
	if strings.Index(html, `<table id="problems">`) > strings.Index(html, `<table id="domains">`) {
		t.Error("the problems table comes after the table of all domains")
	}
	for _, want := range []string{`<code class="store">file:///srv/fence</code>`, "file:///srv/leases", `<time id="rendered">` + now.UTC().Format("2006-01-02 15:04:05.000Z"),
		`data-state="corrupt"><span class="n">2</span> corrupt manifest`, `data-state="healthy"><span class="n">1</span> healthy`, "5 domains, 4 in trouble", "in the 24 hours before"} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// A fenced attempt older than Options.Recent no longer puts its domain
// among those in trouble; its row still carries the attempt.
func TestIndexFencedRecent(t *testing.T) {
	f := newFixture(t, memstore.New())
	later := time.Now().Add(30 * time.Minute) // reports' lease (an hour) still runs
	for recent, want := range map[time.Duration]string{time.Hour: serve.StateFenced, 10 * time.Minute: serve.StateHealthy} {
		srv := serveFixture(t, f, &serve.Options{Recent: recent, Now: func() time.Time { return later }})
		p := decode[serve.DomainsPage](t, get(t, srv, "/?format=json", "", 200))
		for _, r := range p.Domains {
			if r.Domain == "reports" && (r.State != want || r.LastFenced == nil || r.FencedAttempts != 1) {
				t.Errorf("recent %v, half an hour after the attempt: reports is %q (last fenced %v, %d attempts), want %q", recent, r.State, r.LastFenced, r.FencedAttempts, want)
			}
		}
		if inProblems := slices.Contains(names(p.Summary.Problems), "reports"); inProblems != (want == serve.StateFenced) {
			t.Errorf("recent %v: reports among the problems: %v", recent, inProblems)
		}
	}
}

// The summary covers the whole store, not the page: a corrupt domain
// whose page is the last is counted and listed on the first page, and
// following next from the first page still visits every domain once,
// in key order; later pages carry no summary.
func TestIndexProblemsAcrossPages(t *testing.T) {
	b := memstore.New()
	store := objstore.New(b, nil)
	var want []string
	for i := range 23 {
		d := fmt.Sprintf("team/d%02d", i)
		if _, err := store.Put(ctx(t), d, "k", 1, strings.NewReader("v"), 1); err != nil {
			t.Fatal(err)
		}
		want = append(want, d)
	}
	if _, err := b.Put(ctx(t), "team/d21/_fence/manifest.json", strings.NewReader("{not json"), 9, driverPut); err != nil {
		t.Fatal(err)
	}
	srv := serveFixture(t, &fixture{b: b, store: store}, &serve.Options{PageSize: 5})
	var got []string
	after, pages := "", 0
	for {
		p := decode[serve.DomainsPage](t, get(t, srv, "/?format=json&after="+after, "", 200))
		pages++
		switch {
		case pages == 1 && (p.Summary == nil || p.Summary.Domains != 23 || p.Summary.Counts[serve.StateCorrupt] != 1 || !slices.Equal(names(p.Summary.Problems), []string{"team/d21"})):
			t.Errorf("the first page's summary is %+v, want 23 domains and team/d21 corrupt", p.Summary)
		case pages > 1 && p.Summary != nil:
			t.Errorf("page %d has a summary", pages)
		}
		got = append(got, names(p.Domains)...)
		if p.Next == "" {
			break
		}
		after = p.Next
	}
	if !slices.Equal(got, want) || pages != 5 {
		t.Errorf("%d pages of %q, want 5 of %q", pages, got, want)
	}
	html := get(t, srv, "/", "", 200)
	if got := tableDomains(t, html, "problems"); !slices.Equal(got, []string{"team/d21"}) {
		t.Errorf("the first page's problems table lists %q, want team/d21", got)
	}
	if got := tableDomains(t, html, "domains"); !slices.Equal(got, want[:5]) {
		t.Errorf("the first page's table of domains lists %q, want %q", got, want[:5])
	}
}

// The coordinator's error is shown once, in a banner, however many rows
// it spoils: each row says only that its lease was not read.
func TestIndexOneBanner(t *testing.T) {
	f := newFixture(t, memstore.New())
	f.c = coordDown(longError)
	srv := serveFixture(t, f, nil)
	p := decode[serve.DomainsPage](t, get(t, srv, "/?format=json", "", 200))
	if p.Banner == nil || p.Banner.Error != "coordinator: "+longError || !p.Banner.All() || p.Banner.Of != 3 {
		t.Fatalf("banner %+v, want the coordinator's error, all 3 readable domains affected", p.Banner)
	}
	for _, r := range p.Domains {
		if r.Domain != "broken" && (r.LeaseError == "" || strings.Contains(r.LeaseError, "connection refused")) {
			t.Errorf("%s: lease error %q, want a short note that it is affected", r.Domain, r.LeaseError)
		}
	}
	// quiet and stuck (whose expiry is unknown without the lease) are
	// counted as such, and left to the banner.
	if p.Summary.Counts[serve.StateCoordUnreachable] != 2 || !slices.Equal(names(p.Summary.Problems), []string{"broken", "reports"}) {
		t.Errorf("counts %v, problems %q: want quiet and stuck counted as coordinator_unreachable, and not listed", p.Summary.Counts, names(p.Summary.Problems))
	}
	html := get(t, srv, "/", "", 200)
	if n := strings.Count(html, "connection refused"); n != 1 {
		t.Errorf("the coordinator's error is on the page %d times, want once", n)
	}
	if !contains(html, `id="coord-error"`, "The coordinator is unreachable") {
		t.Errorf("the page has no banner:\n%s", html)
	}
}

// longError is an SDK's error as it comes, over several lines.
const longError = "operation error DynamoDB: GetItem, https response error StatusCode: 0, RequestID: ,\n" +
	"exceeded maximum number of attempts, 3,\n" +
	"request send failed, Post \"http://127.0.0.1:1/\":\n" +
	"dial tcp 127.0.0.1:1:\n" +
	"connect: connection refused"

// The last commit is attributed to the lease holder it was made under
// (from its token's takeover, or from the lease now), with the
// committing process's own name beside it when it differs.
func TestIndexAttribution(t *testing.T) {
	f := newAttributionFixture(t)
	srv := serveFixture(t, f, nil)
	p := decode[serve.DomainsPage](t, get(t, srv, "/?format=json", "", 200))
	rows := map[string]serve.DomainRow{}
	for _, r := range p.Domains {
		rows[r.Domain] = r
	}
	for domain, want := range map[string]*serve.Attribution{
		"fenced":  {LeaseHolder: "worker-b", From: "takeover"},
		"nofence": {LeaseHolder: "worker-c", From: "lease"},
		"old":     nil,
	} {
		r := rows[domain]
		if r.LastCommit == nil || r.LastCommit.Holder != "root@vm" {
			t.Errorf("%s: last commit %+v, want one by the process root@vm", domain, r.LastCommit)
		}
		if fmt.Sprint(r.LastCommitBy) != fmt.Sprint(want) {
			t.Errorf("%s: attributed to %+v, want %+v", domain, r.LastCommitBy, want)
		}
	}
	html := get(t, srv, "/", "", 200)
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`href="/domain/fenced">fenced</a>(?s:.)*?by <b class="lease-holder"[^>]*>worker-b</b> <span class="dim process"[^>]*>\(root@vm\)</span>`),
		regexp.MustCompile(`href="/domain/nofence">nofence</a>(?s:.)*?by <b class="lease-holder"[^>]*>worker-c</b>`),
		regexp.MustCompile(`href="/domain/old">old</a>(?s:.)*?by <span class="process"[^>]*>root@vm</span>`),
	} {
		if !want.MatchString(html) {
			t.Errorf("the page does not match %s", want)
		}
	}
	// The domain's page says the same in its timeline and its history.
	d := decode[serve.DomainPage](t, get(t, srv, "/domain/fenced?format=json", "", 200))
	var whats []string
	for _, pt := range d.Timeline {
		whats = append(whats, pt.What)
	}
	if !slices.Contains(whats, "commit by worker-b (process root@vm): 1 put, 0 deleted") {
		t.Errorf("the timeline of fenced says %q, want its commit by worker-b (process root@vm)", whats)
	}
	if html := get(t, srv, "/domain/fenced", "", 200); !regexp.MustCompile(`<td class="by"><b class="lease-holder"[^>]*>worker-b</b> <span class="dim process"[^>]*>\(root@vm\)</span></td>`).MatchString(html) {
		t.Errorf("the history of fenced does not attribute its commit to worker-b (root@vm)")
	}
}

// A survey stopped at Options.MaxSurvey says so: its counts cover only
// the domains it read.
func TestIndexSurveyCapped(t *testing.T) {
	f, _ := manyDomains(t, 12)
	srv := serveFixture(t, f, &serve.Options{MaxSurvey: 5})
	p := decode[serve.DomainsPage](t, get(t, srv, "/?format=json", "", 200))
	if p.Summary == nil || !p.Summary.Capped || p.Summary.Domains != 5 || p.Summary.Counts[serve.StateHealthy] != 5 {
		t.Errorf("summary %+v, want capped at 5 domains", p.Summary)
	}
	if html := get(t, srv, "/", "", 200); !contains(html, `id="capped"`, "cover only the first 5 domains") {
		t.Errorf("the page does not say its counts cover only the first 5 domains")
	}
	srv = serveFixture(t, f, &serve.Options{MaxSurvey: 12})
	if p := decode[serve.DomainsPage](t, get(t, srv, "/?format=json", "", 200)); p.Summary.Capped || p.Summary.Domains != 12 {
		t.Errorf("summary %+v, want all 12 domains, not capped", p.Summary)
	}
}
