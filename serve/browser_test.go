package serve_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/fencedstore/fence/objstore/memstore"
)

// chromium returns the browser to drive: $FENCE_TEST_CHROMIUM, or
// Debian's chromium on the PATH. It skips the test when there is none.
func chromium(t *testing.T) string {
	if p := os.Getenv("FENCE_TEST_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no browser: chromium is not on the PATH (apt-get install -y chromium, as deploy/local/test.sh does) and FENCE_TEST_CHROMIUM names none")
	return ""
}

// artifacts is where the browser test saves its screenshots:
// $FENCE_TEST_ARTIFACTS, or the test's temporary directory.
func artifacts(t *testing.T) string {
	if d := os.Getenv("FENCE_TEST_ARTIFACTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

// In a real browser, the domains page and the page of a domain with a
// fenced attempt show the holder, both tokens of the attempt and the
// timeline's points, and a key named as a script is shown as text and
// runs nothing.
func TestBrowser(t *testing.T) {
	bin := chromium(t)
	dir := artifacts(t)
	f := newFixture(t, memstore.New())
	srv := serveFixture(t, f, nil)

	b := newBrowser(t, bin)
	b.do(chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(chromedp.CSS("#domains")))
	domains := run(b, chromedp.Text(chromedp.CSS("#domains")))
	save(t, dir, "domains.png", run(b, chromedp.FullScreenshot(100)))
	for _, want := range []string{"reports", "w2@host-b", "last attempt fenced", "expired, not released", "corrupt manifest"} {
		if !strings.Contains(domains, want) {
			t.Errorf("the domains table does not show %q:\n%s", want, domains)
		}
	}

	b.do(chromedp.Navigate(srv.URL+"/domain/reports"), chromedp.WaitVisible(chromedp.CSS("#plot")))
	title := run(b, chromedp.Title())
	pwned := run(b, chromedp.Evaluate[bool](`window.pwned !== undefined`))
	scripts := run(b, chromedp.Evaluate[int](`document.querySelectorAll("script").length`))
	keyAsText := run(b, chromedp.Evaluate[bool](fmt.Sprintf(`[...document.querySelectorAll("#keys td.key")].some(e => e.textContent === %q)`, evilKey)))
	attempt := run(b, chromedp.Text(chromedp.CSS("#attempts td.attempt-token")))
	fencedBy := run(b, chromedp.Text(chromedp.CSS("#attempts td.fenced-by")))
	lease := run(b, chromedp.Text(chromedp.CSS("#lease .holder")))
	points := run(b, chromedp.Evaluate[int](`document.querySelectorAll("#plot g.point").length`))
	fencedPoints := run(b, chromedp.Evaluate[int](`document.querySelectorAll("#plot g.point.fenced").length`))
	fencedMark := run(b, chromedp.Evaluate[string](`[...document.querySelectorAll("#plot g.point.fenced")].map(g => g.querySelectorAll("path, line").length + " marks, label " + g.querySelector("text")?.textContent).join()`))
	shot := run(b, chromedp.FullScreenshot(100))
	save(t, dir, "domain.png", shot)
	if title != "Domain reports · fence" || pwned || scripts != 0 {
		t.Errorf("the key named as a script ran or became an element: title %q, window.pwned set %v, %d script elements", title, pwned, scripts)
	}
	if !keyAsText {
		t.Errorf("the keys table does not show %q as text", evilKey)
	}
	if attempt != fmt.Sprint(f.stale) || fencedBy != fmt.Sprint(f.new) {
		t.Errorf("the fenced attempt shows token %q rejected by %q, want %d rejected by %d", attempt, fencedBy, f.stale, f.new)
	}
	if lease != "w2@host-b" {
		t.Errorf("the lease holder shows as %q, want w2@host-b", lease)
	}
	// 2 takeovers, 3 commits, the fenced attempt and the lease now.
	if points != 7 || fencedPoints != 1 {
		t.Errorf("the timeline has %d points (%d fenced), want 7 (1 fenced)", points, fencedPoints)
	}
	if want := fmt.Sprintf("2 marks, label %d", f.stale); fencedMark != want {
		t.Errorf("the fenced attempt is drawn as %q, want %q (a cross, a dashed line up to the token that rejected it)", fencedMark, want)
	}
}

// In a real browser, "Next page" leads from the first page of 500
// domains to the last, and "Next keys" from the first of a domain's 300
// keys to the last, each seen once; the last page has no such link
// (issue 34: the links were escaped twice and led to page 1 again).
func TestBrowserPaging(t *testing.T) {
	bin := chromium(t)
	dir := artifacts(t)
	domains, names := manyDomains(t, 500)
	keyed, keys := manyKeys(t, 300)
	b := newBrowser(t, bin)
	start := time.Now()
	for _, c := range []struct {
		what, start, items, next string
		want                     []string
		pages                    int
	}{
		{"domain", serveFixture(t, domains, nil).URL + "/", "#domains td.domain a", "next", names, 10},
		{"key", serveFixture(t, keyed, nil).URL + "/domain/tenants/big", "#keys td.key", "next-keys", keys, 6},
	} {
		b.do(chromedp.Navigate(c.start))
		var got, pages []string
		for len(pages) < 2*c.pages {
			pages = append(pages, run(b, chromedp.Location()))
			got = append(got, run(b, chromedp.Evaluate[[]string](fmt.Sprintf(`[...document.querySelectorAll(%q)].map(e => e.textContent)`, c.items)))...)
			if !run(b, chromedp.Evaluate[bool](fmt.Sprintf(`document.getElementById(%q) !== null`, c.next))) {
				break
			}
			if slices.ContainsFunc(got[:len(got)-1], func(s string) bool { return s == got[len(got)-1] }) {
				break // a page seen before: following the link again leads nowhere new
			}
			resp, err := chromedp.RunResponse(b.ctx, chromedp.Click(chromedp.ID(c.next)))
			if err != nil {
				t.Fatal(err)
			}
			if resp.Status != 200 {
				t.Fatalf("the %s link of %s led to %s, status %d", c.next, pages[len(pages)-1], resp.URL, resp.Status)
			}
		}
		save(t, dir, "paging-"+c.what+"s.png", run(b, chromedp.FullScreenshot(100)))
		once(t, c.what, got, c.want)
		if len(pages) != c.pages || run(b, chromedp.Evaluate[bool](fmt.Sprintf(`document.getElementById(%q) !== null`, c.next))) {
			t.Errorf("%d pages of %ss, want %d, the last without #%s: %q", len(pages), c.what, c.pages, c.next, pages)
		}
	}
	t.Logf("paged through 500 domains and 300 keys in %v", time.Since(start).Round(time.Millisecond))
}

func save(t *testing.T, dir, name string, png []byte) {
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot %s (%d bytes)", p, len(png))
}

// newBrowser starts the headless browser bin with one tab, closed when
// the test ends.
func newBrowser(t *testing.T, bin string) browser {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("headless", "new"), chromedp.WindowSize(1280, 900))
	// Chromium may start slowly on a busy machine: the browser's own
	// bound is longer than a request's.
	bounded, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	actx, cancel := chromedp.NewExecAllocator(bounded, opts...)
	t.Cleanup(cancel)
	bctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	return browser{t: t, ctx: bctx}
}

// browser runs actions in one tab, failing the test on an error.
type browser struct {
	t   *testing.T
	ctx context.Context
}

func (b browser) do(steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, steps...); err != nil {
		b.t.Fatal(err)
	}
}

func run[T any](b browser, a chromedp.Action[T]) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, a)
	if err != nil {
		b.t.Fatal(err)
	}
	return v
}
