package integration

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/fencedstore/fence"
	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/coord/bucketlease"
	"github.com/fencedstore/fence/coord/coordtest"
	"github.com/fencedstore/fence/coord/dynamocoord"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/rules"
)

// On every store and coordinator pair against the real servers: a token
// the coordinator never issued is refused with nothing written; the real
// holder still commits; and a coordinator whose record is wiped between an
// acquisition and its fence, so that it issues that token twice, lets only
// one of the two holders in.
func TestTokensOnlyFromTheCoordinator(t *testing.T) {
	s3URL, dynURL := servers(t)
	for _, c := range []struct{ backend, coord string }{
		{"s3", "dynamodb"},
		{"s3", "bucket"},
		{"minio", "bucket"},
		{"minio", "dynamodb"},
	} {
		t.Run(c.backend+"+"+c.coord, func(t *testing.T) {
			t.Parallel()
			s := setup{
				Backend: c.backend, Coord: c.coord, S3: s3URL, Dynamo: dynURL,
				Bucket: uniqueName("tokens"), Table: uniqueName("leases"),
				Domain: "reports/monthly", TTLMilli: 2000,
			}
			provision(t, s)
			runTokens(t, s)
		})
	}
}

func runTokens(t *testing.T, s setup) {
	ctx := context.Background()
	store, c, err := s.open(ctx, "A")
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	put := func(token uint64, data string) error {
		_, err := store.Put(ctx, s.Domain, "k", token, strings.NewReader(data), -1)
		return err
	}
	objects := func() string {
		var keys []string
		if err := store.Backend().List(ctx, s.Domain+"/", func(o driver.ObjectInfo) error {
			keys = append(keys, o.Key)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return strings.Join(keys, "\n")
	}
	if err := put(1, "before any lease"); !errors.Is(err, objstore.ErrInvalid) {
		t.Fatalf("put before any lease: %v, want refused", err)
	}
	if got := objects(); got != "" {
		t.Fatalf("a refused put wrote:\n%s", got)
	}
	sa, err := fence.Acquire(ctx, store, c, s.Domain, &fence.AcquireOptions{Holder: "A", TTL: s.ttl()})
	if err != nil {
		t.Fatal(err)
	}
	a := sa.Lease()
	if err := put(a.Token, "A"); err != nil {
		t.Fatal(err)
	}
	before := objects()
	for _, tok := range []uint64{a.Token + 1, 1000, objstore.MaxToken} {
		var ie *objstore.InvalidError
		if err := put(tok, "typo"); !errors.As(err, &ie) || ie.What != "token" {
			t.Fatalf("put with token %d, never issued: %v, want refused", tok, err)
		}
	}
	if after := objects(); after != before {
		t.Fatalf("refused puts wrote objects:\nbefore\n%s\nafter\n%s", before, after)
	}
	if err := put(a.Token, "A again"); err != nil {
		t.Fatalf("the real holder after the refused puts: %v", err)
	}
	if err := sa.Release(ctx); err != nil {
		t.Fatal(err)
	}

	// The wipe, mid-takeover: B acquires after A2's acquisition and before
	// A2's fence, from the same floor, and gets A2's token.
	var b coord.Lease
	w := coordtest.WipeAfterAcquire(c.Driver(), func() error { return wipeRecord(ctx, s, c, store) }, func() {
		bStore, bc, err := s.open(ctx, "B")
		if err != nil {
			t.Error(err)
			return
		}
		defer bStore.Close()
		sb, err := fence.Acquire(ctx, bStore, bc, s.Domain, &fence.AcquireOptions{Holder: "B", TTL: s.ttl()})
		if err != nil {
			t.Errorf("B's acquisition: %v", err)
			return
		}
		b = sb.Orphan()
	})
	_, err = fence.Acquire(ctx, store, coord.New(w), s.Domain, &fence.AcquireOptions{Holder: "A2", TTL: s.ttl()})
	var fe *objstore.FencedError
	if !errors.As(err, &fe) || fe.ClaimedBy == "" {
		t.Fatalf("A2's acquisition, whose token B took after the wipe: %v; want refused as claimed", err)
	}
	if b.Token != fe.Token {
		t.Fatalf("B got token %d, A2 %d: the wipe did not make the coordinator issue one token twice", b.Token, fe.Token)
	}
	if err := put(b.Token, "B"); err != nil {
		t.Fatalf("B's put: %v", err)
	}
	got, _, err := store.ReadAll(ctx, s.Domain, "k")
	if err != nil || string(got) != "B" {
		t.Fatalf("read %q, %v; want B", got, err)
	}
}

// wipeRecord deletes s.Domain's lease record: the bucket-lease object, or
// the DynamoDB item.
func wipeRecord(ctx context.Context, s setup, c *coord.Coordinator, store *objstore.Store) error {
	if dd, ok := c.Driver().(*dynamocoord.Driver); ok {
		_, err := dd.Client().DeleteItem(ctx, &dynamodb.DeleteItemInput{
			TableName: aws.String(s.Table),
			Key:       map[string]types.AttributeValue{"domain": &types.AttributeValueMemberS{Value: s.Domain}},
		})
		return err
	}
	return store.Backend().Delete(ctx, rules.SystemKey(s.Domain, bucketlease.RecordName))
}
