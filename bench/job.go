package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/fencedstore/fence"
	"github.com/fencedstore/fence/coord/bucketlease"
	"github.com/fencedstore/fence/coord/dynamocoord"
)

// jobCase measures a batch job's whole cycle on one domain, as a cron
// job runs it: fence.Acquire, one put of CommitKeySize bytes with the
// lease's token, Release. One row takes the lease as fence.Acquire does
// by default (fencing the domain at the new token), the other with
// AcquireOptions.NoFence (the put at the new token fences it). Both are
// measured against the cycle a user writes without fence (take a lock
// with one conditional write, one plain put, free the lock with one
// conditional write) and against their floors, interleaved.
//
// The floors, from fence.go's acquire and the commit:
//   - default: the manifest's GET (the store's highest token) beside one
//     conditional write to the coordinator (the acquisition), then two
//     conditional manifest writes (the fence, then the put with its value
//     inline), then one conditional write to the coordinator (the
//     release);
//   - NoFence: the manifest's GET beside the acquisition, one
//     conditional manifest write (the put, which fences the domain and
//     claims the token), the release: the plain cycle's three steps, the
//     GET beside its first.
func (r *runner) jobCase(ctx context.Context) []Row {
	size := r.cfg.CommitKeySize
	rows := []Row{
		{ID: "job/" + sizeID(size), Name: fmt.Sprintf("job: acquire, put %s, release", sizeName(size)), Metric: metricP50},
		{ID: "job/" + sizeID(size) + "/nofence", Name: fmt.Sprintf("job with NoFence: acquire, put %s, release", sizeName(size)), Metric: metricP50},
	}
	var data payloads
	body := data.get(size)
	domains := []string{r.domain("job", "fence"), r.domain("job", "nofence")}
	if _, ok := r.coord.Driver().(*dynamocoord.Driver); ok {
		r.dynamoItems = append(r.dynamoItems, domains...)
	}
	cycle := func(domain string, noFence bool) func(context.Context, int) error {
		return func(ctx context.Context, _ int) error {
			sess, err := fence.Acquire(ctx, r.store, r.coord, domain, &fence.AcquireOptions{Holder: leaseHolder, NoFence: noFence})
			if err != nil {
				return fmt.Errorf("fence.Acquire: %w", err)
			}
			_, err = r.store.Put(ctx, domain, "out", sess.Lease().Token, bytes.NewReader(body), size)
			if rerr := sess.Release(ctx); rerr != nil {
				err = errors.Join(err, fmt.Errorf("release: %w", rerr))
			}
			return err
		}
	}
	sides := []side{{op: cycle(domains[0], false)}, {op: cycle(domains[1], true)}}

	bare, skip := r.bareWrite("job-bare")
	lock, lskip := r.plainLock("job-lock")
	if skip == "" {
		skip = lskip
	}
	pkey := r.plainKey("job", "out")
	mfs := []*manifestFloor{r.manifestFloor(domains[0], "job", "fence"), r.manifestFloor(domains[1], "job", "nofence")}
	if skip == "" {
		sides = append(sides,
			side{op: func(ctx context.Context, _ int) error {
				if err := lock.lock(ctx); err != nil {
					return err
				}
				err := r.plain.put(ctx, pkey, body)
				if uerr := lock.unlock(ctx); uerr != nil {
					err = errors.Join(err, uerr)
				}
				return err
			}},
			side{prep: mfs[0].prep, op: func(ctx context.Context, _ int) error {
				return sequence(ctx,
					func(ctx context.Context) error { return parallel(ctx, mfs[0].get, bare.write) },
					mfs[0].write, mfs[0].write, bare.write)
			}},
			side{prep: mfs[1].prep, op: func(ctx context.Context, _ int) error {
				return sequence(ctx,
					func(ctx context.Context) error { return parallel(ctx, mfs[1].get, bare.write) },
					mfs[1].write, bare.write)
			}},
		)
	}
	res, err := r.interleaveSides(ctx, r.cfg.Iterations, sides...)
	if err != nil {
		return errRows(err, rows...)
	}
	if skip != "" {
		for i := range rows {
			rows[i] = latencyStatsRow(rows[i].ID, rows[i].Name, "", res[i].stats(), Stats{})
			rows[i].Skipped = skip
		}
		return rows
	}
	base := fmt.Sprintf("%s, one plain %s of the same bytes, %s", lock.lockDesc, r.plain.putCall(), lock.unlockDesc)
	get := "one plain " + r.plain.getCall() + " of the manifest"
	put := fmt.Sprintf("conditional %s (%s) of the manifest bytes", r.plain.putCall(), r.plain.condition())
	rows[0] = latencyStatsRow(rows[0].ID, rows[0].Name, base, res[0].stats(), res[2].stats()).withFloor(
		fmt.Sprintf("%s beside %s (the acquisition); the fence's %s; the put's; %s (the release); the manifest %s at the end",
			get, bare.short, put, bare.short, mfs[0].size()), res[3].stats())
	rows[1] = latencyStatsRow(rows[1].ID, rows[1].Name, base, res[1].stats(), res[2].stats()).withFloor(
		fmt.Sprintf("%s beside %s (the acquisition); the put's %s, which claims the token; %s (the release); the manifest %s at the end",
			get, bare.short, put, bare.short, mfs[1].size()), res[4].stats())
	return rows
}

// sequence runs steps one after the other, stopping at the first error.
func sequence(ctx context.Context, steps ...func(context.Context) error) error {
	for _, s := range steps {
		if err := s(ctx); err != nil {
			return err
		}
	}
	return nil
}

// plainLock is the lock a batch job takes without fence, in the
// coordinator's own storage: one conditional write takes it, one frees
// it, and nothing hands out a token.
type plainLock struct {
	lockDesc, unlockDesc string
	lock, unlock         func(ctx context.Context) error
}

// plainLock returns the lock a user would write without fence for the
// run's coordinator, on a scratch item or object named name, or why there
// is none.
func (r *runner) plainLock(name string) (plainLock, string) {
	switch c := r.coord.Driver().(type) {
	case *dynamocoord.Driver:
		if r.cfg.DynamoDB == nil {
			return plainLock{}, "no baseline: Config.DynamoDB is not set"
		}
		item := r.domain(name)
		r.dynamoItems = append(r.dynamoItems, item)
		client, table := r.cfg.DynamoDB, c.Table()
		return plainLock{
			lockDesc:   "one conditional UpdateItem taking a lock item (free or expired)",
			unlockDesc: "one conditional UpdateItem freeing it (held by us)",
			lock:       func(ctx context.Context) error { return lockItem(ctx, client, table, item) },
			unlock:     func(ctx context.Context) error { return unlockItem(ctx, client, table, item) },
		}, ""
	case *bucketlease.Driver:
		p := r.plain
		if c.Backend() != r.cfg.Backend {
			p = plainFor(c.Backend())
		}
		key := r.domain(name, "lock.json")
		etag := ""
		put := func(ctx context.Context, held bool) error {
			body := []byte(`{"holder":"","expires":""}` + "\n")
			if held {
				body = []byte(`{"holder":"` + leaseHolder + `","expires":"` + time.Now().Add(time.Minute).UTC().Format(time.RFC3339) + `"}` + "\n")
			}
			next, err := p.putIfMatch(ctx, key, body, etag)
			if err == nil {
				etag = next
			}
			return err
		}
		return plainLock{
			lockDesc:   fmt.Sprintf("one conditional %s (%s) taking a lock object", p.putCall(), p.condition()),
			unlockDesc: "one more freeing it",
			lock:       func(ctx context.Context) error { return put(ctx, true) },
			unlock:     func(ctx context.Context) error { return put(ctx, false) },
		}, ""
	}
	return plainLock{}, fmt.Sprintf("no baseline for a coordinator of type %T", r.coord)
}

// lockItem takes item as a lock for a minute with one conditional
// UpdateItem: it must be free or expired. The item is keyed like a lease
// item, but its attributes are none a coordinator reads.
func lockItem(ctx context.Context, client *dynamodb.Client, table, item string) error {
	now := time.Now()
	_, err := client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(table),
		Key:                       map[string]types.AttributeValue{"domain": &types.AttributeValueMemberS{Value: item}},
		UpdateExpression:          aws.String("SET #h = :me, #u = :until"),
		ConditionExpression:       aws.String("attribute_not_exists(#h) OR #u < :now"),
		ExpressionAttributeNames:  map[string]string{"#h": "bench_lock_holder", "#u": "bench_lock_until"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":me": &types.AttributeValueMemberS{Value: leaseHolder}, ":until": unixMilli(now.Add(time.Minute)), ":now": unixMilli(now)},
	})
	if err != nil {
		return fmt.Errorf("bench: plain lock UpdateItem on %s: %w", table, err)
	}
	return nil
}

// unlockItem frees the lock lockItem took, if we hold it.
func unlockItem(ctx context.Context, client *dynamodb.Client, table, item string) error {
	_, err := client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(table),
		Key:                       map[string]types.AttributeValue{"domain": &types.AttributeValueMemberS{Value: item}},
		UpdateExpression:          aws.String("REMOVE #h, #u"),
		ConditionExpression:       aws.String("#h = :me"),
		ExpressionAttributeNames:  map[string]string{"#h": "bench_lock_holder", "#u": "bench_lock_until"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":me": &types.AttributeValueMemberS{Value: leaseHolder}},
	})
	if err != nil {
		return fmt.Errorf("bench: plain unlock UpdateItem on %s: %w", table, err)
	}
	return nil
}

func unixMilli(t time.Time) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(t.UnixMilli(), 10)}
}
