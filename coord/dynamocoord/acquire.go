package dynamocoord

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/fencedstore/fence/rules"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/internal/backoff"
)

// TryAcquire makes one acquisition: it fails with a *coord.HeldError when
// another holder's lease is live (unless req.Force), and otherwise sets the token to
// max(counter, req.Floor)+1, the holder to req.Holder and the expiry to
// now+TTL, in one conditional UpdateItem.
//
// An update cannot compute a maximum, so the update is written for one
// side of the floor, with a condition that the counter is on that side:
// first "counter >= floor: counter+1"; when that fails, a consistent read
// tells why: a live holder (the *coord.HeldError names it), or a counter
// below the floor, and then "counter <= floor: floor+1" is tried. Races
// lost this way are retried until ctx ends. So is an update whose outcome
// was ambiguous (no reply, a 5xx): every update carries a random attempt
// id, and a read that finds it in the item proves that the update
// applied.
func (c *Driver) TryAcquire(ctx context.Context, req coord.Request) (coord.Lease, error) {
	attempt := rand.Text()
	var (
		bo     backoff.Backoff
		raise  bool  // the counter is below the floor: write Floor+1
		unsure error // the last update error that may hide an update that applied
	)
	fail := func(err error) (coord.Lease, error) {
		if unsure != nil {
			return coord.Lease{}, &coord.UnknownOutcomeError{Op: "acquire", Domain: req.Domain, Ambiguous: unsure, Err: err}
		}
		return coord.Lease{}, err
	}
	for {
		if err := ctx.Err(); err != nil {
			return fail(fmt.Errorf("dynamocoord: acquire %q: %w", req.Domain, err))
		}
		out, err := c.api.UpdateItem(ctx, c.acquireInput(req, attempt, c.clock.Now(), raise))
		if err == nil {
			return c.acquired(req, attempt, out.Attributes)
		}
		switch classify(err) {
		case conditionFailed:
		case retryable:
			if werr := bo.Wait(ctx); werr != nil {
				return fail(fmt.Errorf("dynamocoord: acquire %q: %w while throttled: %w", req.Domain, werr, err))
			}
			continue
		case final:
			if isValidation(err) {
				// A corrupt item (a token that is not a number) fails
				// the update expression; say so if that is why.
				if _, rerr := c.get(ctx, req.Domain); errors.Is(rerr, coord.ErrCorruptRecord) {
					return fail(rerr)
				}
			}
			return fail(c.itemError(ctx, "acquire", req.Domain, err))
		default:
			unsure = err
		}

		it, err := c.get(ctx, req.Domain)
		if err != nil {
			if errors.Is(err, coord.ErrCorruptRecord) || classify(err) == final {
				return fail(err)
			}
			if werr := bo.Wait(ctx); werr != nil {
				return fail(fmt.Errorf("dynamocoord: acquire %q: %w (last error: %w)", req.Domain, werr, err))
			}
			continue
		}
		if it.Attempt == attempt && it.Holder == req.Holder {
			return it.lease(req.Domain), nil // an update whose reply was lost applied
		}
		if now := c.clock.Now(); !req.Force && it.held(now) && it.Holder != req.Holder {
			return coord.Lease{}, &coord.HeldError{Domain: req.Domain, Holder: it.Holder, Token: it.Token, Expires: it.Expires}
		}
		if base := max(it.Token, req.Floor); base >= rules.MaxToken {
			return fail(fmt.Errorf("dynamocoord: acquire %q: token %d is the maximum; no higher token can be issued", req.Domain, base))
		}
		// The lease is free (or ours) now. Retry at once if the update
		// was written for the wrong side of the floor; otherwise we lost
		// a race, or the reply: back off first.
		wasRaise := raise
		raise = it.Token < req.Floor
		if raise == wasRaise || unsure != nil {
			if werr := bo.Wait(ctx); werr != nil {
				return fail(fmt.Errorf("dynamocoord: acquire %q: %w", req.Domain, werr))
			}
		}
	}
}

// acquireInput is the UpdateItem of one acquisition attempt at now. With
// raise the counter must be at most the floor and becomes Floor+1;
// otherwise it must be at least the floor (and below the maximum token)
// and goes up by one. Either way there must be no live holder but
// req.Holder, unless req.Force.
//
// The condition is written as an OR of ANDs, without parentheses (see
// orOfAnds), and with as few function calls as its checks allow:
// dynalite's parser backtracks at every parenthesis and re-parses a
// function call at every alternative it tries, and parsing the condition
// was most of what an acquisition cost dynalite beyond a bare UpdateItem
// (docs/benchmarks.md, "lease acquire"). Comparisons do the checks that
// functions did: an operand of another type than the value it is
// compared with makes a comparison false, and so does an absent one.
// The same parser parses the last operand of every AND, and the last
// term of the OR, twice, so each AND starts with the check that has a
// function call: the holder's, except in a raise. In node, against
// dynalite 4.0.0's parser, that order took the condition without a floor
// from 73 to 61 us, and with a floor (and two comparisons for its
// BETWEEN) from 67 to 55 us. TestAcquireCondition pins what each form
// accepts.
func (c *Driver) acquireInput(req coord.Request, attempt string, now time.Time, raise bool) *dynamodb.UpdateItemInput {
	vals := map[string]types.AttributeValue{
		":me":      str(req.Holder),
		":exp":     millis(stamp(now, req.TTL)),
		":attempt": str(attempt),
		":empty":   str(""),
	}
	// The holder: absent, released or ours, or expired; with Force any.
	// The type checks keep the update off items it would misread (a
	// holder that is not a string, a negative or non-numeric counter):
	// the read after the failed condition reports them as corrupt. A
	// holder compared equal to a string is a string, and so is one at
	// least the empty string (#holder >= :empty, which every string is
	// and nothing else).
	free := []string{"attribute_not_exists(#holder)", "#holder IN (:empty, :me)", "#expires <= :now AND #holder >= :empty"}
	if req.Force {
		free = []string{"attribute_not_exists(#holder)", "#holder >= :empty"}
	} else {
		vals[":now"] = millis(now)
	}
	var set, cond string
	switch {
	case raise:
		// No arithmetic checks the counter's type here: the condition
		// must.
		set = "SET #token = :next"
		vals[":next"] = num(req.Floor + 1) // checked by coord.Coordinator: Floor < MaxToken
		vals[":zero"], vals[":floor"] = num(0), num(req.Floor)
		cond = orOfAnds([]string{"attribute_not_exists(#token)", "#token BETWEEN :zero AND :floor"}, free)
	case req.Floor == 0:
		// Absent (a new domain), or a number from 0 to the highest
		// token below the maximum: neither comparison holds for an
		// absent counter. One that is not a number passes both, and
		// fails the update's arithmetic instead (a ValidationException,
		// which TryAcquire reports as a corrupt record after a read).
		set = "SET #token = if_not_exists(#token, :zero) + :one"
		vals[":zero"], vals[":one"], vals[":top"] = num(0), num(1), num(rules.MaxToken-1)
		cond = orOfAnds(free, []string{"NOT #token < :zero AND NOT #token > :top"})
	default:
		// The counter must be there and at least the floor (below it,
		// raise writes Floor+1). Two comparisons: the BETWEEN they
		// equal cost dynalite's parser more.
		set = "SET #token = #token + :one"
		vals[":one"], vals[":floor"], vals[":top"] = num(1), num(req.Floor), num(rules.MaxToken-1)
		cond = orOfAnds(free, []string{"#token >= :floor AND #token <= :top"})
	}
	return &dynamodb.UpdateItemInput{
		TableName:                 aws.String(c.table),
		Key:                       key(req.Domain),
		UpdateExpression:          aws.String(set + ", #holder = :me, #expires = :exp, #attempt = :attempt"),
		ConditionExpression:       aws.String(cond),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: vals,
		ReturnValues:              types.ReturnValueAllNew,
	}
}

// orOfAnds returns the condition "(a[0] OR a[1] ...) AND (b[0] OR b[1]
// ...)" multiplied out, so that it needs no parentheses: AND binds more
// tightly than OR in a condition expression (and BETWEEN's AND is its
// own). Each term is "a[i] AND b[j]", a's operand first. dynalite's
// parser backtracks at every parenthesis, and its cost grew with their
// nesting far faster than with the expression's length.
func orOfAnds(a, b []string) string {
	var terms []string
	for _, x := range a {
		for _, y := range b {
			terms = append(terms, x+" AND "+y)
		}
	}
	return strings.Join(terms, " OR ")
}

// acquired turns the item an acquisition wrote into its lease.
func (c *Driver) acquired(req coord.Request, attempt string, av map[string]types.AttributeValue) (coord.Lease, error) {
	it, err := decodeItem(c.table, req.Domain, av)
	if err != nil {
		return coord.Lease{}, err
	}
	if it.Attempt != attempt || it.Holder != req.Holder || it.Token <= req.Floor {
		return coord.Lease{}, fmt.Errorf("dynamocoord: acquire %q: the update succeeded but returned an item that is not ours (holder %q, token %d): does the endpoint honour ReturnValues ALL_NEW?", req.Domain, it.Holder, it.Token)
	}
	return it.lease(req.Domain), nil
}

// get reads domain's item with a consistent read.
func (c *Driver) get(ctx context.Context, domain string) (item, error) {
	out, err := c.api.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(c.table),
		Key:            key(domain),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return item{}, c.itemError(ctx, "read", domain, err)
	}
	return decodeItem(c.table, domain, out.Item)
}
