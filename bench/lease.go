package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/fencedstore/fence"
	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/coord/bucketlease"
	"github.com/fencedstore/fence/coord/dynamocoord"
)

// leaseHolder is the holder name of the lease case's leases.
const leaseHolder = "fence-bench"

// bareWrite is the baseline of the lease case: one bare conditional
// write to the coordinator's storage.
type bareWrite struct {
	// describe names the write in full, short in a few words.
	describe, short string
	write           func(ctx context.Context) error
}

// leaseCase measures, against one bare conditional write:
//   - a lease acquisition (Coordinator.TakeLease, one attempt);
//   - an acquisition plus its release;
//   - the takeover fence.Acquire does (read the store's highest token,
//     acquire above it, fence the store, start the session), with its
//     release untimed.
func (r *runner) leaseCase(ctx context.Context) []Row {
	domain := r.domain("lease")
	rows := []Row{
		{ID: "lease/acquire", Name: "lease acquire", Metric: metricP50},
		{ID: "lease/acquire+release", Name: "lease acquire + release", Metric: metricP50},
		{ID: "lease/takeover", Name: "takeover (fence.Acquire)", Metric: metricP50},
	}
	if _, ok := r.coord.Driver().(*dynamocoord.Driver); ok {
		r.dynamoItems = append(r.dynamoItems, domain)
	}
	bare, skip := r.bareWrite("lease-bare")
	acquire := func(ctx context.Context) (coord.Lease, error) {
		return r.coord.TakeLease(ctx, domain, &coord.TakeOptions{Holder: leaseHolder, TTL: coord.DefaultTTL})
	}
	var acq, acqRel, takeover, plain, floorAcqRel, floorTakeover []time.Duration
	mf := r.manifestFloor(domain, "lease")
	n := r.cfg.Iterations
	var o *order              // the steps run in the order interleaveSides runs sides
	for i := -1; i < n; i++ { // -1: the untimed warm-up
		if err := ctx.Err(); err != nil {
			return errRows(err, rows...)
		}
		steps := []func() error{
			func() error {
				t0 := r.now()
				l, err := acquire(ctx)
				t1 := r.now()
				if err != nil {
					return err
				}
				err = r.coord.Release(ctx, l)
				t2 := r.now()
				if err != nil {
					return fmt.Errorf("release: %w", err)
				}
				if i >= 0 {
					acq = append(acq, t1.Sub(t0))
					acqRel = append(acqRel, t2.Sub(t0))
				}
				return nil
			},
			func() error {
				t0 := r.now()
				sess, err := fence.Acquire(ctx, r.store, r.coord, domain, &fence.AcquireOptions{Holder: leaseHolder})
				t1 := r.now()
				if err != nil {
					return fmt.Errorf("fence.Acquire: %w", err)
				}
				if err := sess.Release(ctx); err != nil {
					return fmt.Errorf("release: %w", err)
				}
				if i >= 0 {
					takeover = append(takeover, t1.Sub(t0))
				}
				return nil
			},
		}
		if bare.write != nil {
			steps = append(steps,
				func() error {
					t0 := r.now()
					err := bare.write(ctx)
					if err == nil && i >= 0 {
						plain = append(plain, r.now().Sub(t0))
					}
					return err
				},
				// The floor of an acquisition and its release: two
				// conditional writes, one after the other.
				func() error {
					t0 := r.now()
					err := bare.write(ctx)
					if err == nil {
						err = bare.write(ctx)
					}
					if err == nil && i >= 0 {
						floorAcqRel = append(floorAcqRel, r.now().Sub(t0))
					}
					return err
				},
				// The floor of a takeover: the manifest's GET beside the
				// conditional write to the coordinator, then the
				// conditional manifest write (the fence).
				func() error {
					if err := mf.refresh(ctx); err != nil {
						return err
					}
					t0 := r.now()
					err := parallel(ctx, mf.get, bare.write)
					if err == nil {
						err = mf.write(ctx)
					}
					if err == nil && i >= 0 {
						floorTakeover = append(floorTakeover, r.now().Sub(t0))
					}
					return err
				},
			)
		}
		if o == nil {
			o = newOrder(len(steps))
		}
		for _, k := range o.next(i) {
			if err := steps[k](); err != nil {
				return errRows(err, rows...)
			}
		}
	}
	rows[0] = latencyRow(rows[0].ID, rows[0].Name, bare.describe, acq, plain)
	rows[1] = latencyRow(rows[1].ID, rows[1].Name, bare.describe, acqRel, plain)
	rows[2] = latencyRow(rows[2].ID, rows[2].Name, bare.describe, takeover, plain)
	if bare.write != nil {
		rows[0] = rows[0].withFloor("the plain side's call: "+bare.describe, rows[0].Plain)
		rows[1] = rows[1].withFloor("two such conditional writes, one after the other (acquire, release)", summarize(floorAcqRel))
		rows[2] = rows[2].withFloor(fmt.Sprintf("one plain %s of the domain's manifest beside one such conditional write, then %s (%s at the end)",
			r.plain.getCall(), r.manifestWriteDesc(), mf.size()), summarize(floorTakeover))
	}
	for i := range rows {
		rows[i].Skipped = skip
	}
	return rows
}

// bareWrite returns one bare conditional write to the coordinator's
// storage, on a scratch item or object of its own named name, or
// why there is none.
func (r *runner) bareWrite(name string) (bareWrite, string) {
	switch c := r.coord.Driver().(type) {
	case *dynamocoord.Driver:
		if r.cfg.DynamoDB == nil {
			return bareWrite{}, "no baseline: Config.DynamoDB is not set"
		}
		item := r.domain(name)
		r.dynamoItems = append(r.dynamoItems, item)
		return bareWrite{
			describe: "one conditional UpdateItem (counter increment, ALL_NEW) on a scratch item of the same table",
			short:    "one conditional UpdateItem",
			write:    func(ctx context.Context) error { return bareUpdate(ctx, r.cfg.DynamoDB, c.Table(), item) },
		}, ""
	case *bucketlease.Driver:
		p := r.plain
		if c.Backend() != r.cfg.Backend {
			p = plainFor(c.Backend())
		}
		key := r.domain(name, "record.json")
		body := []byte(`{"format":"fence.lease/v1","token":1,"holder":"` + leaseHolder + `","expires":"2000-01-01T00:00:00Z"}` + "\n")
		etag := ""
		return bareWrite{
			describe: fmt.Sprintf("one conditional %s (%s) of a lease-sized object", p.putCall(), p.condition()),
			short:    fmt.Sprintf("one conditional %s of a lease-sized object", p.putCall()),
			write: func(ctx context.Context) error {
				next, err := p.putIfMatch(ctx, key, body, etag)
				if err == nil {
					etag = next
				}
				return err
			},
		}, ""
	}
	return bareWrite{}, fmt.Sprintf("no baseline for a coordinator of type %T", r.coord)
}

// bareUpdate increments a counter on item with one conditional
// UpdateItem, the shape of a lease acquisition without its checks. The
// item is keyed like a lease item (partition key "domain", see
// dynamocoord.CreateTable) but its counter is an attribute no
// coordinator reads.
func bareUpdate(ctx context.Context, client *dynamodb.Client, table, item string) error {
	_, err := client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(table),
		Key:                       map[string]types.AttributeValue{"domain": &types.AttributeValueMemberS{Value: item}},
		UpdateExpression:          aws.String("SET #n = if_not_exists(#n, :zero) + :one"),
		ConditionExpression:       aws.String("attribute_not_exists(#n) OR #n >= :zero"),
		ExpressionAttributeNames:  map[string]string{"#n": "bench_counter"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":zero": &types.AttributeValueMemberN{Value: "0"}, ":one": &types.AttributeValueMemberN{Value: "1"}},
		ReturnValues:              types.ReturnValueAllNew,
	})
	if err != nil {
		return fmt.Errorf("bench: bare UpdateItem on %s: %w", table, err)
	}
	return nil
}

// deleteItem deletes a scratch item of the lease table.
func deleteItem(ctx context.Context, client *dynamodb.Client, table, item string) error {
	_, err := client.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: aws.String(table),
		Key:       map[string]types.AttributeValue{"domain": &types.AttributeValueMemberS{Value: item}},
	})
	if err != nil {
		return fmt.Errorf("bench: cleanup: delete DynamoDB item %s: %w", item, err)
	}
	return nil
}
