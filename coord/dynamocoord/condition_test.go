package dynamocoord

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/internal/dynamotest"
	"github.com/fencedstore/fence/rules"
)

// TestAcquireCondition pins what the acquisition's conditional update
// accepts. It sends acquireInput's UpdateItem, as TryAcquire's first try
// does, over every item in a grid (each of the counter, the holder and
// the expiry absent, in range, at each boundary, or of the wrong type),
// in each of its six forms (no floor, a floor, a raise to the floor;
// each with and without Force), and checks that the update applied
// exactly when the rule below says so, and wrote what it should. Where it
// did not apply, the item must be unchanged.
//
// The rule, written out apart from the expression: the counter is
// absent or a number from 0 to MaxToken-1 (no floor), a number from the
// floor to MaxToken-1 (a floor), or absent or a number from 0 to the
// floor (a raise); and the holder is absent, or a string that is empty,
// ours, or (with Force) any, or whose numeric expiry is at or before now.
//
// dynalite differs from DynamoDB (and DynamoDB Local) in one place: its
// IN never matches an empty string (db/index.js, "if (!attrVal) return
// false"), so there a holder "" frees the lease only with Force or once
// its expiry has passed. fence never writes an empty holder (Release
// removes it).
func TestAcquireCondition(t *testing.T) { dynamotest.Run(t, testAcquireCondition) }

func testAcquireCondition(t *testing.T, endpoint string) {
	client := testClient(t, endpoint)
	ctx := testCtx(t)
	table := newTable(t, client)
	c := mustNew(t, client, table, nil)
	dynalite := strings.HasSuffix(t.Name(), "/dynalite")

	const floor = 5
	now := time.UnixMilli(1_800_000_000_000)
	nowMs := now.UnixMilli()
	n := func(v int64) types.AttributeValue {
		return &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)}
	}
	tokens := []types.AttributeValue{nil, n(0), n(floor - 1), n(floor), n(floor + 1), n(rules.MaxToken - 1), n(rules.MaxToken), n(-1), str("seven"), str("5")}
	holders := []types.AttributeValue{nil, str(""), str("B"), str("A"), n(1)}
	expiries := []types.AttributeValue{nil, n(nowMs - 1000), n(nowMs), n(nowMs + 1000), str("soon")}
	type form struct {
		floor uint64
		raise bool
		force bool
	}
	var forms []form
	for _, force := range []bool{false, true} {
		forms = append(forms, form{0, false, force}, form{floor, false, force}, form{floor, true, force})
	}

	type tc struct {
		f                 form
		token, holder, ex types.AttributeValue
		domain            string
	}
	var cases []tc
	for _, f := range forms {
		for _, tok := range tokens {
			for _, h := range holders {
				for _, ex := range expiries {
					cases = append(cases, tc{f, tok, h, ex, fmt.Sprintf("cond/%d", len(cases))})
				}
			}
		}
	}

	// number returns av's value if it is a number.
	number := func(av types.AttributeValue) (int64, bool) {
		nv, ok := av.(*types.AttributeValueMemberN)
		if !ok {
			return 0, false
		}
		v, err := strconv.ParseInt(nv.Value, 10, 64)
		return v, err == nil
	}
	// want says whether the update applies to the case's item, and the
	// token it then writes.
	want := func(k tc) (bool, uint64) {
		v, isNum := number(k.token)
		var counter bool
		var next uint64
		switch {
		case k.f.raise:
			counter, next = k.token == nil || isNum && v >= 0 && v <= floor, floor+1
		case k.f.floor > 0:
			counter, next = isNum && v >= floor && v <= rules.MaxToken-1, uint64(v)+1
		default:
			counter, next = k.token == nil || isNum && v >= 0 && v <= rules.MaxToken-1, uint64(v)+1
		}
		var free bool
		switch h := k.holder.(type) {
		case nil:
			free = true
		case *types.AttributeValueMemberS:
			e, eNum := number(k.ex)
			free = k.f.force || h.Value == "" && !dynalite || h.Value == "B" || eNum && e <= nowMs
		}
		return counter && free, next
	}

	var wg sync.WaitGroup
	work := make(chan tc)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range work {
				item := map[string]types.AttributeValue{attrDomain: str(k.domain)}
				for name, av := range map[string]types.AttributeValue{attrToken: k.token, attrHolder: k.holder, attrExpires: k.ex} {
					if av != nil {
						item[name] = av
					}
				}
				if len(item) > 1 { // else the item is missing
					if _, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item}); err != nil {
						t.Error(err)
						continue
					}
				}
				req := coord.Request{Domain: k.domain, Holder: "B", TTL: time.Second, Floor: k.f.floor, Force: k.f.force}
				_, uerr := client.UpdateItem(ctx, c.acquireInput(req, "attempt-1", now, k.f.raise))
				what := fmt.Sprintf("form %+v, token %s, holder %s, expires %s", k.f, show(k.token), show(k.holder), show(k.ex))
				applies, next := want(k)
				if uerr != nil && classify(uerr) != conditionFailed && !isValidation(uerr) {
					t.Errorf("%s: %v", what, uerr)
					continue
				}
				if applied := uerr == nil; applied != applies {
					t.Errorf("%s: the update applied: %v (%v); want %v", what, applied, uerr, applies)
					continue
				}
				out, err := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key(k.domain), ConsistentRead: aws.Bool(true)})
				if err != nil {
					t.Error(err)
					continue
				}
				if !applies {
					if len(item) == 1 {
						item = nil
					}
					if len(out.Item) != len(item) || len(item) > 0 && !reflect.DeepEqual(out.Item, item) {
						t.Errorf("%s: refused, but the item changed to %v", what, out.Item)
					}
					continue
				}
				it, err := decodeItem(table, k.domain, out.Item)
				if err != nil || it.Token != next || it.Holder != "B" || it.Attempt != "attempt-1" || !it.Expires.Equal(now.Add(time.Second)) {
					t.Errorf("%s: applied, and wrote %+v (%v); want token %d, holder B, expiry %s", what, it, err, next, now.Add(time.Second))
				}
			}
		}()
	}
	for _, k := range cases {
		work <- k
	}
	close(work)
	wg.Wait()
}

// show describes an attribute value in a test's messages.
func show(av types.AttributeValue) string {
	switch v := av.(type) {
	case nil:
		return "absent"
	case *types.AttributeValueMemberN:
		return "N " + v.Value
	case *types.AttributeValueMemberS:
		return strconv.Quote(v.Value)
	}
	return fmt.Sprintf("%T", av)
}
