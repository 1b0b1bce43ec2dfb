package dynamocoord

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/internal/backoff"
)

// Renew extends l to now+ttl if l's holder still holds it with l's token
// and it has not expired; otherwise it fails with coord.ErrLeaseLost,
// saying who holds the lease now.
func (c *Driver) Renew(ctx context.Context, l coord.Lease, ttl time.Duration) (coord.Lease, error) {
	it, err := c.change(ctx, "renew", l, func(now time.Time, attempt string) *dynamodb.UpdateItemInput {
		return &dynamodb.UpdateItemInput{
			TableName:           aws.String(c.table),
			Key:                 key(l.Domain),
			UpdateExpression:    aws.String("SET #expires = :exp, #attempt = :attempt"),
			ConditionExpression: aws.String("#holder = :me AND #token = :t AND #expires > :now"),
			ExpressionAttributeNames: map[string]string{
				"#holder": attrHolder, "#token": attrToken, "#expires": attrExpires, "#attempt": attrAttempt,
			},
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":me": str(l.Holder), ":t": num(l.Token), ":now": millis(now),
				":exp": millis(stamp(now, ttl)), ":attempt": str(attempt),
			},
			ReturnValues: types.ReturnValueAllNew,
		}
	})
	if err != nil {
		return coord.Lease{}, err
	}
	l.Expires = it.Expires
	return l, nil
}

// Release clears l's holder and expiry and keeps the counter, so the next
// token is higher. A lease that expired but was not taken over is
// released too; one that was taken over or already released fails with
// coord.ErrLeaseLost.
func (c *Driver) Release(ctx context.Context, l coord.Lease) error {
	_, err := c.change(ctx, "release", l, func(_ time.Time, attempt string) *dynamodb.UpdateItemInput {
		return &dynamodb.UpdateItemInput{
			TableName:           aws.String(c.table),
			Key:                 key(l.Domain),
			UpdateExpression:    aws.String("SET #attempt = :attempt REMOVE #holder, #expires"),
			ConditionExpression: aws.String("#holder = :me AND #token = :t"),
			ExpressionAttributeNames: map[string]string{
				"#holder": attrHolder, "#token": attrToken, "#expires": attrExpires, "#attempt": attrAttempt,
			},
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":me": str(l.Holder), ":t": num(l.Token), ":attempt": str(attempt),
			},
			ReturnValues: types.ReturnValueAllNew,
		}
	})
	return err
}

// State reads domain's item with a consistent read. A domain without one
// has a zero Token.
func (c *Driver) State(ctx context.Context, domain string) (coord.State, error) {
	it, err := c.get(ctx, domain)
	if err != nil {
		return coord.State{}, err
	}
	return coord.State{Domain: domain, Holder: it.Holder, Token: it.Token, Expires: it.Expires}, nil
}

// change makes one conditional update of l's item on behalf of its
// holder: build returns the update for the clock's now. When the
// condition fails, a consistent read tells why: the item carries this
// change's attempt id (an earlier try whose reply was lost applied, so
// the change is done), or the lease is no longer l's (coord.ErrLeaseLost,
// naming who holds it). Ambiguous failures and throttling are retried
// until ctx ends.
func (c *Driver) change(ctx context.Context, op string, l coord.Lease, build func(now time.Time, attempt string) *dynamodb.UpdateItemInput) (item, error) {
	attempt := rand.Text()
	var (
		bo     backoff.Backoff
		unsure error // the last update error that may hide an update that applied
	)
	fail := func(err error) (item, error) {
		if unsure != nil {
			return item{}, &coord.UnknownOutcomeError{Op: op, Domain: l.Domain, Ambiguous: unsure, Err: err}
		}
		return item{}, err
	}
	wait := func(err error) error {
		if werr := bo.Wait(ctx); werr != nil {
			return fmt.Errorf("dynamocoord: %s %q (token %d): %w (last error: %w)", op, l.Domain, l.Token, werr, err)
		}
		return nil
	}
	for {
		if err := ctx.Err(); err != nil {
			return fail(fmt.Errorf("dynamocoord: %s %q (token %d): %w", op, l.Domain, l.Token, err))
		}
		now := c.clock.Now()
		out, err := c.api.UpdateItem(ctx, build(now, attempt))
		if err == nil {
			it, err := decodeItem(c.table, l.Domain, out.Attributes)
			if err != nil {
				return item{}, err
			}
			if it.Attempt != attempt {
				return item{}, fmt.Errorf("dynamocoord: %s %q (token %d): the update succeeded but returned an item that is not ours: does the endpoint honour ReturnValues ALL_NEW?", op, l.Domain, l.Token)
			}
			return it, nil
		}
		switch classify(err) {
		case conditionFailed:
		case final:
			return fail(c.itemError(ctx, op, l.Domain, err))
		case ambiguous:
			unsure = err
			fallthrough
		default: // retryable
			// Try the same update again: if the first one applied, its
			// condition fails and the read below recognises our attempt.
			if werr := wait(err); werr != nil {
				return fail(werr)
			}
			continue
		}

		it, err := c.get(ctx, l.Domain)
		if err != nil {
			if errors.Is(err, coord.ErrCorruptRecord) || classify(err) == final {
				return fail(err)
			}
			if werr := wait(err); werr != nil {
				return fail(werr)
			}
			continue
		}
		if it.Attempt == attempt {
			return it, nil // an update whose reply was lost applied
		}
		if it.Holder == l.Holder && it.Token == l.Token {
			if op == "renew" && !it.held(now) {
				return item{}, lost(l, fmt.Sprintf("it expired at %s", formatTime(it.Expires)))
			}
			// The condition failed but the item matches now: it changed
			// and changed back, or the clock went back. Try again.
			if werr := wait(errors.New("condition failed on a matching item")); werr != nil {
				return fail(werr)
			}
			continue
		}
		return item{}, lost(l, whoHolds(it))
	}
}

// whoHolds describes an item that is not the caller's lease.
func whoHolds(it item) string {
	switch {
	case it.Token == 0 && it.Holder == "":
		return "the domain has no lease item"
	case it.Holder == "":
		return fmt.Sprintf("it was released (last token %d)", it.Token)
	default:
		return fmt.Sprintf("it is held by %q with token %d until %s", it.Holder, it.Token, formatTime(it.Expires))
	}
}

func lost(l coord.Lease, detail string) error {
	return fmt.Errorf("dynamocoord: lease on %q (holder %q, token %d): %w: %s", l.Domain, l.Holder, l.Token, coord.ErrLeaseLost, detail)
}
