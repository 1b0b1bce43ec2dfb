package dynamocoord

import (
	"fmt"
	"strconv"
	"time"

	"github.com/fencedstore/fence/rules"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/fencedstore/fence/coord"
)

// The attributes of a lease item. The item of a domain is never deleted
// and carries no DynamoDB TTL: its counter must survive release and
// expiry.
const (
	attrDomain  = "domain"  // S: the partition key, the domain's name
	attrToken   = "token"   // N: the counter, the last token issued
	attrHolder  = "holder"  // S: the holder; absent (or "") when released
	attrExpires = "expires" // N: the holder's expiry, unix milliseconds by the coordinator's clock; absent when released
	attrAttempt = "attempt" // S: a random id of the last write, so a writer whose reply was lost can recognise its write
)

// names maps the placeholders of every expression to attribute names
// (some, like "domain" and "token", may be DynamoDB reserved words).
var names = map[string]string{
	"#token":   attrToken,
	"#holder":  attrHolder,
	"#expires": attrExpires,
	"#attempt": attrAttempt,
}

// item is a decoded lease item. The zero item is a domain never acquired.
type item struct {
	Token   uint64
	Holder  string    // "" when released
	Expires time.Time // zero when released
	Attempt string
}

// held reports whether the item has a live holder at now.
func (it item) held(now time.Time) bool { return it.Holder != "" && now.Before(it.Expires) }

func (it item) lease(domain string) coord.Lease {
	return coord.Lease{Domain: domain, Holder: it.Holder, Token: it.Token, Expires: it.Expires}
}

// key returns the item's key attribute.
func key(domain string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{attrDomain: str(domain)}
}

func str(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }
func num(n uint64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatUint(n, 10)}
}
func millis(t time.Time) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(t.UnixMilli(), 10)}
}

// stamp returns now+ttl as it is stored: whole milliseconds, UTC. Leases
// carry this value, so that they say exactly what was recorded.
func stamp(now time.Time, ttl time.Duration) time.Time {
	return time.UnixMilli(now.Add(ttl).UnixMilli()).UTC()
}

// itemName names domain's item in errors.
func itemName(table, domain string) string {
	return fmt.Sprintf("table %s, item domain=%s", table, domain)
}

// decodeItem decodes domain's item, nil or empty when there is none.
// Anything it cannot fully trust is a *coord.CorruptRecordError; nothing
// is written over such an item.
func decodeItem(table, domain string, av map[string]types.AttributeValue) (item, error) {
	bad := func(reason string, err error) (item, error) {
		return item{}, &coord.CorruptRecordError{Key: itemName(table, domain), Reason: reason, Err: err}
	}
	var it item
	if len(av) == 0 {
		return it, nil
	}
	if v, ok := av[attrDomain]; ok {
		if s, ok := v.(*types.AttributeValueMemberS); !ok || s.Value != domain {
			return bad(fmt.Sprintf("attribute %q does not hold the string %q", attrDomain, domain), nil)
		}
	}
	if v, ok := av[attrToken]; ok {
		n, ok := v.(*types.AttributeValueMemberN)
		if !ok {
			return bad(fmt.Sprintf("attribute %q is not a number", attrToken), nil)
		}
		t, err := strconv.ParseUint(n.Value, 10, 64)
		if err != nil {
			return bad(fmt.Sprintf("attribute %q is not a whole number from 0 to %d", attrToken, uint64(rules.MaxToken)), err)
		}
		if t > rules.MaxToken {
			return bad(fmt.Sprintf("token %d is above the maximum %d", t, uint64(rules.MaxToken)), nil)
		}
		it.Token = t
	}
	if v, ok := av[attrAttempt]; ok {
		s, ok := v.(*types.AttributeValueMemberS)
		if !ok {
			return bad(fmt.Sprintf("attribute %q is not a string", attrAttempt), nil)
		}
		it.Attempt = s.Value
	}
	if v, ok := av[attrHolder]; ok {
		s, ok := v.(*types.AttributeValueMemberS)
		if !ok {
			return bad(fmt.Sprintf("attribute %q is not a string", attrHolder), nil)
		}
		it.Holder = s.Value
	}
	if it.Holder == "" {
		return it, nil // released; a leftover expiry means nothing
	}
	if err := coord.ValidateHolder(it.Holder); err != nil {
		return bad("invalid holder", err)
	}
	if it.Token == 0 {
		return bad(fmt.Sprintf("holder %q has token 0", it.Holder), nil)
	}
	v, ok := av[attrExpires].(*types.AttributeValueMemberN)
	if !ok {
		return bad(fmt.Sprintf("holder %q has no numeric %q attribute", it.Holder, attrExpires), nil)
	}
	ms, err := strconv.ParseInt(v.Value, 10, 64)
	if err != nil {
		return bad(fmt.Sprintf("attribute %q is not whole unix milliseconds", attrExpires), err)
	}
	it.Expires = time.UnixMilli(ms).UTC()
	return it, nil
}

func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
