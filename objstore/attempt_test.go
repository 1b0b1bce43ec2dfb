package objstore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/faulty"
	"github.com/fencedstore/fence/objstore/memstore"
)

// staleDomain returns a backend whose domain "d" was written at token 1
// and then fenced at token 2.
func staleDomain(t *testing.T) *faulty.Backend {
	t.Helper()
	ctx := context.Background()
	b := faulty.New(memstore.New())
	s := objstore.New(b, nil)
	if _, err := s.Put(ctx, "d", "k", 1, strings.NewReader("v1"), 2); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Fence(ctx, "d", 2); err != nil {
		t.Fatal(err)
	}
	return b
}

// records lists the object keys of domain's fenced-attempt records.
func records(t *testing.T, b driver.Backend, domain string) []string {
	t.Helper()
	var keys []string
	if err := b.List(context.Background(), format.FencedPrefix(domain), func(o driver.ObjectInfo) error {
		keys = append(keys, o.Key)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return keys
}

// A stale put of a small (inline) value and of a large one, a stale
// fence and a stale delete are each refused with a *FencedError and
// recorded: holder, both tokens, keys and sizes. The large value's writer
// fails before uploading anything, so the record is its only trace.
func TestFencedAttemptRecorded(t *testing.T) {
	ctx := context.Background()
	b := staleDomain(t)
	stale := objstore.New(b, &objstore.Options{Holder: "worker-a"})
	large := bytes.Repeat([]byte("x"), 1<<20)
	before := time.Now()
	for _, changes := range [][]objstore.Change{
		{objstore.PutBytes("small.txt", []byte("four"))},
		{objstore.PutBytes("large.bin", large)},
		nil,
		{objstore.DeleteKey("k")},
	} {
		_, err := stale.Commit(ctx, "d", 1, changes, nil)
		var fe *objstore.FencedError
		if !errors.As(err, &fe) || fe.Token != 1 || fe.Highest != 2 {
			t.Fatalf("stale commit of %d changes: %v, want a *FencedError of token 1 below 2", len(changes), err)
		}
	}
	if err := b.List(ctx, format.VersionPrefix("d"), func(o driver.ObjectInfo) error {
		if strings.Contains(o.Key, "large.bin") {
			t.Errorf("the stale writer uploaded %s", o.Key)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	got, more, err := objstore.New(b, nil).FencedAttempts(ctx, "d", nil)
	if err != nil || more || len(got) != 4 {
		t.Fatalf("FencedAttempts = %d records (more %v), %v; want 4", len(got), more, err)
	}
	seen := map[string]objstore.FencedAttempt{}
	for _, a := range got {
		if a.Token != 1 || a.FencedBy != 2 || a.Reason != "below" || a.Holder != "worker-a" || a.Domain != "d" || a.Error != "" || a.CommitID == "" {
			t.Errorf("record %+v, want worker-a's token 1 fenced by 2", a)
		}
		if a.Time.Before(before) || a.Recorded.IsZero() || !strings.HasPrefix(a.Object, format.FencedPrefix("d")) {
			t.Errorf("record %+v: time %v before the test began at %v, or no store time", a, a.Time, before)
		}
		switch {
		case a.Fence:
			seen["fence"] = a
		case a.Deletes == 1:
			seen["delete"] = a
		case len(a.PutKeys) == 1 && len(a.PutSizes) == 1:
			seen[a.PutKeys[0]] = a
		}
	}
	if a := seen["small.txt"]; a.Puts != 1 || a.PutSizes[0] != 4 {
		t.Errorf("small put recorded as %+v", a)
	}
	if a := seen["large.bin"]; a.Puts != 1 || a.PutSizes[0] != int64(len(large)) {
		t.Errorf("large put recorded as %+v", a)
	}
	if a := seen["fence"]; a.Puts != 0 || a.Deletes != 0 {
		t.Errorf("fence recorded as %+v", a)
	}
	if a := seen["delete"]; len(a.DeletedKeys) != 1 || a.DeletedKeys[0] != "k" {
		t.Errorf("delete recorded as %+v", a)
	}
}

// Commits that land, and a fence by the holder that already raised the
// domain, write no record: only the refused path writes one.
func TestFencedAttemptOnlyWhenRefused(t *testing.T) {
	ctx := context.Background()
	b := faulty.New(memstore.New())
	s := objstore.New(b, nil)
	for tok := uint64(1); tok <= 3; tok++ {
		if _, err := s.Fence(ctx, "d", tok); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Put(ctx, "d", "k", tok, strings.NewReader("v"), 1); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Put(ctx, "d", "big", tok, bytes.NewReader(make([]byte, 64<<10)), 64<<10); err != nil {
			t.Fatal(err)
		}
	}
	if keys := records(t, b, "d"); len(keys) != 0 {
		t.Fatalf("commits that landed left records %v", keys)
	}
}

// A commit refused because the coordinator issued a newer token is
// recorded too, before the domain has a manifest, and the record does
// not make the domain's missing manifest look lost: the new holder's
// commit lands.
func TestFencedAttemptIssued(t *testing.T) {
	ctx := context.Background()
	b := memstore.New()
	issuer := lastIssued(5)
	s := objstore.New(b, &objstore.Options{Issuer: issuer})
	_, err := s.Put(ctx, "d", "k", 4, strings.NewReader("late"), 4)
	var fe *objstore.FencedError
	if !errors.As(err, &fe) || fe.Issued != 5 {
		t.Fatalf("commit at token 4 after 5 was issued: %v", err)
	}
	got, _, err := s.FencedAttempts(ctx, "d", nil)
	if err != nil || len(got) != 1 || got[0].Reason != "issued" || got[0].Token != 4 || got[0].FencedBy != 5 {
		t.Fatalf("FencedAttempts = %+v, %v; want token 4 refused as issued by 5", got, err)
	}
	if _, err := s.Put(ctx, "d", "k", 5, strings.NewReader("new"), 3); err != nil {
		t.Fatalf("the new holder's first commit, beside a record: %v", err)
	}
}

type lastIssued uint64

func (l lastIssued) LastIssued(context.Context, string) (uint64, error) { return uint64(l), nil }

// Recording is best effort: when the record's write fails, or hangs, the
// commit returns the same *FencedError as when it lands, within
// FencedRecordTimeout, and the failure is logged at warn level.
func TestFencedAttemptBestEffort(t *testing.T) {
	ctx := context.Background()
	isRecord := func(c faulty.Call) bool { return strings.HasPrefix(c.Key, format.FencedPrefix("d")) }
	for _, tc := range []struct {
		name  string
		fault faulty.Fault
	}{
		{"fails", faulty.Fault{Err: fmt.Errorf("injected: %w", driver.ErrPermission)}},
		{"hangs", faulty.Fault{Pause: make(chan struct{})}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := staleDomain(t)
			var logs bytes.Buffer
			s := objstore.New(b, &objstore.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			_, want := s.Put(ctx, "d", "k", 1, strings.NewReader("x"), 1)
			b.Add(faulty.Rule{Op: faulty.OpPut, Match: isRecord, Every: true, Fault: tc.fault})
			start := time.Now()
			_, err := s.Put(ctx, "d", "k", 1, strings.NewReader("x"), 1)
			took := time.Since(start)
			var fe, wfe *objstore.FencedError
			if !errors.As(err, &fe) || !errors.As(want, &wfe) || fe.Token != wfe.Token || fe.Highest != wfe.Highest ||
				strings.Replace(err.Error(), fe.CommitID, "", 1) != strings.Replace(want.Error(), wfe.CommitID, "", 1) {
				t.Fatalf("with the record's write failing: %v; want %v", err, want)
			}
			if took > objstore.FencedRecordTimeout+time.Second {
				t.Errorf("the refused commit took %v, more than FencedRecordTimeout %v", took, objstore.FencedRecordTimeout)
			}
			if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "could not record a fenced attempt") {
				t.Errorf("no warning logged:\n%s", logs.String())
			}
			if n := len(records(t, b, "d")); n != 1 {
				t.Errorf("%d records, want the first one only", n)
			}
		})
	}
}

// Records are bounded: a reader reads at most the limit, newest refusing
// token first, and says there were more; a record of many keys names 16
// of each kind and keeps the counts.
func TestFencedAttemptsBounded(t *testing.T) {
	ctx := context.Background()
	b := memstore.New()
	s := objstore.New(b, nil)
	for tok := uint64(1); tok <= 5; tok++ {
		if _, err := s.Fence(ctx, "d", tok+1); err != nil {
			t.Fatal(err)
		}
		var changes []objstore.Change
		for i := range 20 {
			changes = append(changes, objstore.PutBytes(fmt.Sprintf("k%02d", i), []byte("v")), objstore.DeleteKey(fmt.Sprintf("old%02d", i)))
		}
		if _, err := s.Commit(ctx, "d", tok, changes, nil); !errors.Is(err, objstore.ErrFenced) {
			t.Fatalf("stale commit at %d: %v", tok, err)
		}
	}
	got, more, err := s.FencedAttempts(ctx, "d", &objstore.FencedOptions{Limit: 3})
	if err != nil || !more || len(got) != 3 {
		t.Fatalf("FencedAttempts(limit 3) = %d, more %v, %v; want 3 and more", len(got), more, err)
	}
	for i, a := range got {
		if want := uint64(6 - i); a.FencedBy != want {
			t.Errorf("record %d fenced by %d, want %d (newest first)", i, a.FencedBy, want)
		}
		if a.Puts != 20 || a.Deletes != 20 || len(a.PutKeys) != 16 || len(a.PutSizes) != 16 || len(a.DeletedKeys) != 16 || !a.KeysTruncated || a.PutKeys[0] != "k00" {
			t.Errorf("record %d: %d puts, %d deletes, %d and %d names, truncated %v", i, a.Puts, a.Deletes, len(a.PutKeys), len(a.DeletedKeys), a.KeysTruncated)
		}
	}
	if all, more, err := s.FencedAttempts(ctx, "d", nil); err != nil || more || len(all) != 5 {
		t.Errorf("FencedAttempts(default) = %d, more %v, %v; want all 5", len(all), more, err)
	}
	names, more, err := s.FencedAttempts(ctx, "d", &objstore.FencedOptions{Limit: 3, NamesOnly: true})
	if err != nil || !more || len(names) != 3 {
		t.Fatalf("FencedAttempts(names only) = %d, more %v, %v", len(names), more, err)
	}
	for i, a := range names {
		if a.Token != got[i].Token || a.FencedBy != got[i].FencedBy || a.Object != got[i].Object || a.Recorded.IsZero() || a.Holder != "" {
			t.Errorf("names only: %+v, want the key's part of %+v", a, got[i])
		}
	}
	if _, _, err := s.FencedAttempts(ctx, "d", &objstore.FencedOptions{Limit: -1}); !errors.Is(err, objstore.ErrInvalid) {
		t.Errorf("a negative limit: %v, want ErrInvalid", err)
	}
}

// fence gc collects records once its grace has passed since they were
// stored, and not before.
func TestCollectFencedRecords(t *testing.T) {
	ctx := context.Background()
	b := staleDomain(t)
	s := objstore.New(b, nil)
	if _, err := s.Put(ctx, "d", "k", 1, strings.NewReader("late"), 4); !errors.Is(err, objstore.ErrFenced) {
		t.Fatal(err)
	}
	res, err := s.Collect(ctx, "d", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(records(t, b, "d")); n != 1 || res.FencedRecords != 1 || res.FencedDeleted != 0 {
		t.Fatalf("within the grace period: %d records left (want 1), result %+v", n, res)
	}
	later := objstore.New(b, &objstore.Options{Now: func() time.Time { return time.Now().Add(time.Hour + time.Minute) }})
	res, err = later.Collect(ctx, "d", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(records(t, b, "d")); n != 0 || res.FencedRecords != 1 || res.FencedDeleted != 1 {
		t.Fatalf("after the grace period: %d records left (want 0), result %+v", n, res)
	}
	if got, _, err := s.FencedAttempts(ctx, "d", nil); err != nil || len(got) != 0 {
		t.Fatalf("FencedAttempts after gc = %+v, %v", got, err)
	}
}
