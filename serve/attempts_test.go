package serve_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver/faulty"
	"github.com/fencedstore/fence/objstore/memstore"
	"github.com/fencedstore/fence/serve"
)

// A stale commit of an inline value and one of a large value upload
// nothing, yet each shows on the domain page, in its JSON and in the
// domains page's count, with both tokens, its holder, key and size.
func TestRecordedAttempts(t *testing.T) {
	ctx := ctx(t)
	b := memstore.New()
	store := objstore.New(b, nil)
	if _, err := store.Put(ctx, "d", "k", 1, strings.NewReader("v1"), 2); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Fence(ctx, "d", 2); err != nil {
		t.Fatal(err)
	}
	stale := objstore.New(b, &objstore.Options{Holder: "worker-a"})
	big := bytes.Repeat([]byte("x"), 2<<20)
	for key, v := range map[string][]byte{"small.txt": []byte("four"), "big.bin": big} {
		if _, err := stale.Put(ctx, "d", key, 1, bytes.NewReader(v), int64(len(v))); !errors.Is(err, objstore.ErrFenced) {
			t.Fatalf("stale put of %s: %v", key, err)
		}
	}
	srv := serveFixture(t, &fixture{b: b, store: store}, nil)
	var p serve.DomainPage
	if err := json.Unmarshal([]byte(get(t, srv, "/domain/d?format=json", "", 200)), &p); err != nil {
		t.Fatal(err)
	}
	sizes := map[string]int64{}
	for _, a := range p.Attempts {
		if a.Token != 1 || a.FencedBy != 2 || a.Source != "record" || a.Record == nil || a.Record.Holder != "worker-a" || len(a.Record.PutSizes) != 1 {
			t.Fatalf("attempt %+v, want worker-a's token 1 refused by 2, on record", a)
		}
		sizes[a.Key] = a.Record.PutSizes[0]
	}
	if len(p.Attempts) != 2 || sizes["small.txt"] != 4 || sizes["big.bin"] != int64(len(big)) {
		t.Fatalf("attempts %+v, want small.txt (4 bytes) and big.bin (%d bytes)", p.Attempts, len(big))
	}
	html := get(t, srv, "/domain/d", "", 200)
	for _, want := range []string{
		`<td class="num attempt-token">1</td><td class="num fenced-by">2</td><td class="holder">worker-a</td>`,
		`put &#34;small.txt&#34; (4 B)`,
		`put &#34;big.bin&#34; (2.0 MiB)`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the domain page lacks %s", want)
		}
	}
	var d serve.DomainsPage
	if err := json.Unmarshal([]byte(get(t, srv, "/?format=json", "", 200)), &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Domains) != 1 || d.Domains[0].FencedAttempts != 2 {
		t.Errorf("domains page %+v, want d with 2 fenced attempts", d.Domains)
	}
}

// The collector exports the records in the store and the newest one's
// tokens, lists the store at most once per cacheFor, and exports nothing
// when the listing fails.
func TestFencedCollector(t *testing.T) {
	ctx := ctx(t)
	b := faulty.New(memstore.New())
	store := objstore.New(b, nil)
	now := time.Now()
	c := serve.FencedCollector(b, &serve.Options{Now: func() time.Time { return now }}, time.Minute)
	want := func(n int, newest string) {
		t.Helper()
		exp := fmt.Sprintf("# HELP fence_fenced_attempts_recorded Records of commits and fences refused as stale, in the store (fence gc deletes them after its grace period).\n# TYPE fence_fenced_attempts_recorded gauge\nfence_fenced_attempts_recorded %d\n", n)
		names := []string{"fence_fenced_attempts_recorded"}
		if newest != "" {
			exp += newest
			names = append(names, "fence_fenced_attempt_newest_token", "fence_fenced_attempt_newest_fenced_by")
		}
		if err := testutil.CollectAndCompare(c, strings.NewReader(exp), names...); err != nil {
			t.Error(err)
		}
	}
	want(0, "")
	for tok := uint64(1); tok <= 3; tok++ {
		if _, err := store.Fence(ctx, "d", tok+1); err != nil {
			t.Fatal(err)
		}
		if _, err := store.Put(ctx, "d", "k", tok, strings.NewReader("v"), 1); !errors.Is(err, objstore.ErrFenced) {
			t.Fatal(err)
		}
	}
	want(0, "") // cached
	now = now.Add(time.Minute)
	want(3, "# HELP fence_fenced_attempt_newest_fenced_by The token that refused the newest fenced attempt.\n# TYPE fence_fenced_attempt_newest_fenced_by gauge\nfence_fenced_attempt_newest_fenced_by 4\n"+
		"# HELP fence_fenced_attempt_newest_token The refused token of the newest fenced-attempt record.\n# TYPE fence_fenced_attempt_newest_token gauge\nfence_fenced_attempt_newest_token 3\n")
	if n := testutil.CollectAndCount(c, "fence_fenced_attempt_newest_timestamp_seconds"); n != 1 {
		t.Errorf("%d newest-time metrics, want 1", n)
	}
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(c); err != nil {
		t.Fatal(err)
	}
	b.Add(faulty.FailNext(faulty.OpList, "", errors.New("injected")))
	now = now.Add(time.Minute)
	if n := testutil.CollectAndCount(c); n != 0 {
		t.Errorf("%d metrics after a failed listing, want none", n)
	}
}
