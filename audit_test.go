package fence_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/fencedstore/fence"
	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/coord/bucketlease"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/memstore"
)

// TestAudit: a takeover mid-run shows in the trail as the end of the old
// holder's tenure; the old holder's fenced commit is not in it, and Find
// says so; the lease comes last.
func TestAudit(t *testing.T) {
	ctx := context.Background()
	b := memstore.New()
	c := coord.New(bucketlease.New(b, nil))
	store := objstore.New(b, &objstore.Options{Issuer: fence.Issuer(c)})
	a, err := fence.Acquire(ctx, store, c, "d", &fence.AcquireOptions{Holder: "a"})
	if err != nil {
		t.Fatal(err)
	}
	ha := fence.NewHolder(a, store)
	c1, err := ha.Put(ctx, "k", strings.NewReader("v1"), 2)
	if err != nil {
		t.Fatal(err)
	}
	br, err := fence.Break(ctx, store, c, "d", &fence.BreakOptions{Holder: "b"})
	if err != nil {
		t.Fatal(err)
	}
	_, ferr := store.Put(ctx, "d", "k", a.Lease().Token, strings.NewReader("late"), 4)
	var fenced *objstore.FencedError
	if !errors.As(ferr, &fenced) || fenced.CommitID == "" {
		t.Fatalf("the old holder's put = %v; want fenced, with its commit id", ferr)
	}
	bs, err := fence.Acquire(ctx, store, c, "d", &fence.AcquireOptions{Holder: "b2"})
	if err != nil {
		t.Fatal(err)
	}
	c2, err := fence.NewHolder(bs, store).Put(ctx, "k", strings.NewReader("v2"), 2)
	if err != nil {
		t.Fatal(err)
	}

	trail, err := fence.Audit(ctx, store, c, "d")
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range trail.Events {
		kinds = append(kinds, e.Kind)
	}
	if got := strings.Join(kinds, ","); got != "takeover,commit,takeover,takeover,commit,lease" {
		t.Fatalf("kinds = %s", got)
	}
	e1, err := trail.Find(c1.ID)
	if err != nil {
		t.Fatal(err)
	}
	if e1.Tenure == nil || e1.Tenure.Since == nil || e1.Tenure.Since.Holder != "a" || e1.Tenure.EndedBy == nil || e1.Tenure.EndedBy.Token != br.Token || e1.Tenure.EndedBy.Kind != "takeover" {
		t.Errorf("the first commit's tenure = %+v; want opened by a's takeover and ended by the break at token %d", e1.Tenure, br.Token)
	}
	e2, err := trail.Find(c2.ID)
	if err != nil || e2.Tenure.EndedBy != nil || e2.Tenure.Since.Holder != "b2" {
		t.Errorf("the last commit = %+v, %v; want its tenure open, since b2's takeover", e2, err)
	}
	if _, err := trail.Find(fenced.CommitID); !errors.Is(err, fence.ErrNotInLog) || !strings.Contains(err.Error(), "did not land") {
		t.Errorf("Find of the fenced commit = %v; want ErrNotInLog", err)
	}
	last := trail.Events[len(trail.Events)-1]
	if last.Token != bs.Lease().Token || last.Holder != "b2" || last.Expires.IsZero() {
		t.Errorf("lease event = %+v", last)
	}
}
