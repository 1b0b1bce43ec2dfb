package bucketlease_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/coord/bucketlease"
	"github.com/fencedstore/fence/coord/coordtest"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/drivertest"
	"github.com/fencedstore/fence/objstore/driver/faulty"
	"github.com/fencedstore/fence/objstore/filestore"
	"github.com/fencedstore/fence/objstore/memstore"
	"github.com/fencedstore/fence/rules"
)

const (
	domain = "reports/monthly"
	ttl    = 10 * time.Second
)

var key = rules.SystemKey(domain, bucketlease.RecordName)

func newDriver(t *testing.T) (*bucketlease.Driver, *faulty.Backend, *coordtest.FakeClock) {
	t.Helper()
	b := faulty.New(memstore.New())
	clk := coordtest.NewFakeClock(coordtest.FakeStart)
	// The probe's writes would be counted and hooked like the record's;
	// TestProbesBeforeTheFirstWrite covers it.
	return bucketlease.New(b, &bucketlease.Options{Clock: clk, SkipProbe: true}), b, clk
}

// corrupt overwrites key in newDriver's backend, unseen by its rules and
// call counts.
func corrupt(b *faulty.Backend, key string, data []byte) {
	b.Unwrap().(*memstore.Backend).Corrupt(key, data)
}

// TestProbesBeforeTheFirstWrite: over a store that ignores conditional
// writes, every write is refused with ErrUnsafeStore and nothing, a lease
// record least of all, is written; over an honest store the probe leaves
// nothing behind.
func TestProbesBeforeTheFirstWrite(t *testing.T) {
	mem := memstore.New()
	c := bucketlease.New(drivertest.IgnoreConditions(mem), nil)
	_, err := c.TryAcquire(ctx(t), coord.Request{Domain: domain, Holder: "A", TTL: time.Second})
	if !errors.Is(err, driver.ErrUnsafeStore) {
		t.Fatalf("TryAcquire over a store that ignores conditions: %v, want ErrUnsafeStore", err)
	}
	if keys := mem.Keys(); len(keys) != 0 {
		t.Fatalf("refused store was written to: %v", keys)
	}
	c = bucketlease.New(mem, nil)
	if _, err := c.TryAcquire(ctx(t), coord.Request{Domain: domain, Holder: "A", TTL: time.Second}); err != nil {
		t.Fatal(err)
	}
	if keys := mem.Keys(); len(keys) != 1 || keys[0] != key {
		t.Fatalf("objects after one acquisition: %v, want only %q", keys, key)
	}
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

func acquire(t *testing.T, c coord.Driver, holder string) coord.Lease {
	t.Helper()
	l, err := c.TryAcquire(ctx(t), coord.Request{Domain: domain, Holder: holder, TTL: ttl})
	if err != nil {
		t.Fatalf("TryAcquire(%q): %v", holder, err)
	}
	return l
}

func readRecord(t *testing.T, b driver.Backend) []byte {
	t.Helper()
	rc, _, err := b.Get(t.Context(), key, driver.GetOptions{})
	if err != nil {
		t.Fatalf("get %q: %v", key, err)
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestRecordFormat(t *testing.T) {
	c, b, clk := newDriver(t)
	l := acquire(t, c, "host-1/42")
	var rec map[string]any
	data := readRecord(t, b)
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatalf("record is not JSON: %v\n%s", err, data)
	}
	want := map[string]any{
		"format":  "fence.lease/v1",
		"domain":  domain,
		"token":   float64(1),
		"holder":  "host-1/42",
		"expires": clk.Now().Add(ttl).UTC().Format(time.RFC3339Nano),
	}
	for k, v := range want {
		if rec[k] != v {
			t.Errorf("record field %q = %v; want %v\n%s", k, rec[k], v, data)
		}
	}
	if a, _ := rec["attempt"].(string); a == "" {
		t.Errorf("record has no attempt id\n%s", data)
	}
	if len(rec) != len(want)+1 {
		t.Errorf("record has unexpected fields\n%s", data)
	}
	if err := c.Release(ctx(t), l); err != nil {
		t.Fatal(err)
	}
	rec = nil
	if err := json.Unmarshal(readRecord(t, b), &rec); err != nil {
		t.Fatal(err)
	}
	if rec["holder"] != "" || rec["token"] != float64(1) || rec["expires"] != "" {
		t.Errorf("released record = %v; want no holder or expiry, token 1", rec)
	}
}

// ambiguousFaults apply the put, then fail: the caller cannot tell.
var ambiguousFaults = map[string]faulty.Fault{
	"DropReply": {DropReply: true},
	"503After":  {ErrAfter: &faulty.HTTPError{Status: http.StatusServiceUnavailable}},
}

func TestAcquireLostReply(t *testing.T) {
	for name, f := range ambiguousFaults {
		t.Run(name, func(t *testing.T) {
			c, b, _ := newDriver(t)
			b.Add(faulty.Once(faulty.OpPut, key, f))
			l := acquire(t, c, "A")
			if l.Token != 1 || l.Holder != "A" {
				t.Fatalf("lease after a lost reply = %+v; want token 1 for A", l)
			}
			if n := b.Calls(faulty.OpPut); n != 1 {
				t.Fatalf("%d puts; want exactly 1 (the lost reply was recognised, not retried)", n)
			}
			st, err := c.State(ctx(t), domain)
			if err != nil || st.Holder != "A" || st.Token != 1 || !st.Expires.Equal(l.Expires) {
				t.Fatalf("State = %+v, %v; want A with token 1", st, err)
			}
			if err := c.Release(ctx(t), l); err != nil {
				t.Fatal(err)
			}
			if l2 := acquire(t, c, "B"); l2.Token != 2 {
				t.Fatalf("next acquisition got token %d; want 2 (one acquisition so far)", l2.Token)
			}
		})
	}
}

func TestRenewAndReleaseLostReply(t *testing.T) {
	for name, f := range ambiguousFaults {
		t.Run(name, func(t *testing.T) {
			c, b, clk := newDriver(t)
			l := acquire(t, c, "A")
			clk.Advance(time.Second)
			b.Add(faulty.Once(faulty.OpPut, key, f))
			r, err := c.Renew(ctx(t), l, ttl)
			if err != nil || !r.Expires.Equal(clk.Now().Add(ttl)) || r.Token != l.Token {
				t.Fatalf("Renew after a lost reply = %+v, %v; want expiry %s", r, err, clk.Now().Add(ttl))
			}
			b.Add(faulty.Once(faulty.OpPut, key, f))
			if err := c.Release(ctx(t), r); err != nil {
				t.Fatalf("Release after a lost reply: %v", err)
			}
			if n := b.Calls(faulty.OpPut); n != 3 {
				t.Fatalf("%d puts; want 3", n)
			}
			st, _ := c.State(ctx(t), domain)
			if st.Holder != "" || st.Token != 1 {
				t.Fatalf("State = %+v; want released, token 1", st)
			}
		})
	}
}

func TestWriteFailuresRetried(t *testing.T) {
	for name, f := range map[string]faulty.Fault{
		"Conflict409":    {Err: &faulty.HTTPError{Status: http.StatusConflict, Code: "ConditionalRequestConflict"}},
		"Unavailable503": {Err: &faulty.HTTPError{Status: http.StatusServiceUnavailable}},
		"Reset":          {Err: errors.New("connection reset by peer")},
	} {
		t.Run(name, func(t *testing.T) {
			c, b, _ := newDriver(t)
			b.Add(faulty.Once(faulty.OpPut, key, f))
			if l := acquire(t, c, "A"); l.Token != 1 {
				t.Fatalf("token %d; want 1", l.Token)
			}
			if n := b.Calls(faulty.OpPut); n != 2 {
				t.Fatalf("%d puts; want 2 (one failed, one retried)", n)
			}
		})
	}
}

func TestReadFailuresRetried(t *testing.T) {
	c, b, _ := newDriver(t)
	b.Add(faulty.FailNext(faulty.OpGet, key, &faulty.HTTPError{Status: http.StatusInternalServerError}))
	if l := acquire(t, c, "A"); l.Token != 1 {
		t.Fatalf("token %d; want 1", l.Token)
	}
}

// TestLostRace pauses A's write until B has acquired: A's conditional
// write then fails, and A decides again and sees B's lease.
func TestLostRace(t *testing.T) {
	c, b, _ := newDriver(t)
	pause, reached := make(chan struct{}), make(chan struct{})
	b.Add(faulty.Rule{Op: faulty.OpPut, Func: func(context.Context, faulty.Call) faulty.Fault {
		close(reached)
		return faulty.Fault{Pause: pause}
	}})
	errc := make(chan error, 1)
	go func() {
		_, err := c.TryAcquire(ctx(t), coord.Request{Domain: domain, Holder: "A", TTL: ttl})
		errc <- err
	}()
	<-reached // A decided the domain is free; its write is paused
	lb := acquire(t, c, "B")
	close(pause)
	err := <-errc
	var he *coord.HeldError
	if !errors.As(err, &he) || he.Holder != "B" || he.Token != lb.Token {
		t.Fatalf("A after losing the race: %v; want a HeldError naming B with token %d", err, lb.Token)
	}
}

// TestRecordDeletedMidWrite makes If-Match fail with not found: the
// record was deleted between read and write. The write is decided again
// against the missing record.
func TestRecordDeletedMidWrite(t *testing.T) {
	c, b, _ := newDriver(t)
	l := acquire(t, c, "A")
	if err := c.Release(ctx(t), l); err != nil {
		t.Fatal(err)
	}
	b.Add(faulty.Rule{Op: faulty.OpPut, Mode: driver.Update{}, Func: func(ctx context.Context, _ faulty.Call) faulty.Fault {
		if err := b.Delete(ctx, key); err != nil {
			t.Error(err)
		}
		return faulty.Fault{}
	}})
	l2, err := c.TryAcquire(ctx(t), coord.Request{Domain: domain, Holder: "B", TTL: ttl, Floor: l.Token})
	if err != nil || l2.Token != l.Token+1 {
		t.Fatalf("TryAcquire after the record vanished = %+v, %v; want token %d from the floor", l2, err, l.Token+1)
	}
}

func TestOutcomeUnknownIsBounded(t *testing.T) {
	c, b, _ := newDriver(t)
	b.Add(faulty.Always("", "", faulty.Fault{Err: &faulty.HTTPError{Status: http.StatusServiceUnavailable}}))
	cctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.TryAcquire(cctx, coord.Request{Domain: domain, Holder: "A", TTL: ttl})
	if err == nil || errors.Is(err, coord.ErrLeaseHeld) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("TryAcquire with a failing store = %v; want a deadline error", err)
	}
	if d := time.Since(start); d > 10*time.Second { // bounded, generously for a loaded machine
		t.Fatalf("TryAcquire took %s with a 300ms deadline", d)
	}
}

func TestPutsOutcomeUnknown(t *testing.T) {
	c, b, _ := newDriver(t)
	// Every put fails ambiguously, and then every read fails too.
	b.Add(faulty.Rule{Op: faulty.OpPut, Func: func(context.Context, faulty.Call) faulty.Fault {
		b.Add(faulty.Always("", "", faulty.Fault{Err: errors.New("network down")}))
		return faulty.Fault{Err: errors.New("timeout")}
	}})
	cctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	_, err := c.TryAcquire(cctx, coord.Request{Domain: domain, Holder: "A", TTL: ttl})
	if !errors.Is(err, coord.ErrOutcomeUnknown) {
		t.Fatalf("TryAcquire = %v; want outcome unknown", err)
	}
}

func TestCorruptRecordFailsClosed(t *testing.T) {
	valid := `{"format":"fence.lease/v1","domain":"reports/monthly","token":3,"holder":"A","expires":"2026-01-01T00:00:10Z","attempt":"x"}`
	cases := map[string]string{
		"Empty":          "",
		"Whitespace":     " \n",
		"NotJSON":        "lease",
		"Truncated":      valid[:40],
		"UnknownFormat":  strings.Replace(valid, "fence.lease/v1", "fence.lease/v2", 1),
		"NoFormat":       `{"domain":"reports/monthly","token":3}`,
		"WrongDomain":    strings.Replace(valid, "reports/monthly", "reports/daily", 1),
		"TokenZeroHeld":  strings.Replace(valid, `"token":3`, `"token":0`, 1),
		"NegativeToken":  strings.Replace(valid, `"token":3`, `"token":-3`, 1),
		"TokenTooLarge":  strings.Replace(valid, `"token":3`, `"token":9223372036854775808`, 1),
		"BadExpiry":      strings.Replace(valid, "2026-01-01T00:00:10Z", "tomorrow", 1),
		"UnknownField":   strings.Replace(valid, `"attempt"`, `"owner":"B","attempt"`, 1),
		"TrailingData":   valid + `{}`,
		"HolderControls": strings.Replace(valid, `"holder":"A"`, `"holder":"A\u0000"`, 1),
	}
	for name, content := range cases {
		t.Run(name, func(t *testing.T) {
			c, b, clk := newDriver(t)
			corrupt(b, key, []byte(content))
			lease := coord.Lease{Domain: domain, Holder: "A", Token: 3, Expires: clk.Now().Add(ttl)}
			check := func(op string, err error) {
				t.Helper()
				var ce *coord.CorruptRecordError
				if !errors.Is(err, coord.ErrCorruptRecord) || !errors.As(err, &ce) || ce.Key != key || !strings.Contains(err.Error(), key) {
					t.Fatalf("%s over a corrupt record: %v; want a CorruptRecordError naming %q", op, err, key)
				}
			}
			_, err := c.TryAcquire(ctx(t), coord.Request{Domain: domain, Holder: "B", TTL: ttl, Floor: 100})
			check("TryAcquire", err)
			_, err = c.Renew(ctx(t), lease, ttl)
			check("Renew", err)
			check("Release", c.Release(ctx(t), lease))
			_, err = c.State(ctx(t), domain)
			check("State", err)
			if n := b.Calls(faulty.OpPut); n != 0 {
				t.Fatalf("%d writes over a corrupt record", n)
			}
			if got := string(readRecord(t, b)); got != content {
				t.Fatalf("record changed to %q", got)
			}
		})
	}
	t.Run("ValidRecordReads", func(t *testing.T) {
		c, b, _ := newDriver(t)
		corrupt(b, key, []byte(valid))
		st, err := c.State(ctx(t), domain)
		if err != nil || st.Token != 3 || st.Holder != "A" {
			t.Fatalf("State of the valid template = %+v, %v", st, err)
		}
	})
}

func TestOversizedRecord(t *testing.T) {
	c, b, _ := newDriver(t)
	corrupt(b, key, []byte(`{"format":"fence.lease/v1","pad":"`+strings.Repeat("x", 70<<10)+`"}`))
	_, err := c.State(ctx(t), domain)
	if !errors.Is(err, coord.ErrCorruptRecord) {
		t.Fatalf("State of a 70KiB record: %v; want ErrCorruptRecord", err)
	}
}

func TestLostErrorNamesHolder(t *testing.T) {
	c, _, clk := newDriver(t)
	a := acquire(t, c, "A")
	clk.Advance(ttl)
	bl := acquire(t, c, "B")
	_, err := c.Renew(ctx(t), a, ttl)
	if !errors.Is(err, coord.ErrLeaseLost) || !strings.Contains(err.Error(), `"B"`) || !strings.Contains(err.Error(), "token 2") {
		t.Fatalf("Renew after takeover: %v; want ErrLeaseLost naming B and token %d", err, bl.Token)
	}
}

func TestUnicodeHolder(t *testing.T) {
	c, _, _ := newDriver(t)
	l := acquire(t, c, "wörker/東京/1")
	if _, err := c.Renew(ctx(t), l, ttl); err != nil {
		t.Fatalf("Renew of a non-ASCII holder: %v", err)
	}
}

// TestSharedDirectory races coordinators over two backends opened on one
// directory, as two processes would.
func TestSharedDirectory(t *testing.T) {
	dir := t.TempDir()
	var coords []*bucketlease.Driver
	for range 2 {
		b, err := filestore.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		coords = append(coords, bucketlease.New(b, nil))
	}
	var (
		wg      sync.WaitGroup
		winners atomic.Int32
		start   = make(chan struct{})
	)
	for i := range 16 {
		wg.Go(func() {
			<-start
			_, err := coords[i%2].TryAcquire(ctx(t), coord.Request{Domain: domain, Holder: fmt.Sprintf("w%d", i), TTL: ttl})
			switch {
			case err == nil:
				winners.Add(1)
			case !errors.Is(err, coord.ErrLeaseHeld):
				t.Errorf("w%d: %v", i, err)
			}
		})
	}
	close(start)
	wg.Wait()
	if n := winners.Load(); n != 1 {
		t.Fatalf("%d winners; want 1", n)
	}
}
