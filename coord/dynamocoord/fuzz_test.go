package dynamocoord

import (
	"errors"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/objstore"
)

// FuzzDecodeItem: decoding a lease item never panics, refuses with a
// *coord.CorruptRecordError naming the table and item, and never accepts
// a token past the range, a holder with token 0 or without an expiry, or
// an item of another domain. Each attribute is fuzzed as present or
// absent, and as a string or a number.
func FuzzDecodeItem(f *testing.F) {
	f.Add(uint8(0x1f), uint8(0x0a), "d", "7", "host-1", "1795600000000", "a1")
	f.Add(uint8(0x03), uint8(0x02), "d", "7", "", "", "")
	f.Add(uint8(0x1f), uint8(0x0a), "d", "0", "h", "1795600000000", "a")
	f.Add(uint8(0x1f), uint8(0x0a), "d", "18446744073709551615", "h", "1", "a")
	f.Add(uint8(0x1f), uint8(0x0a), "d", "99999999999999999999", "h", "1", "a")
	f.Add(uint8(0x1f), uint8(0x0a), "d", "-1", "h", "1", "a")
	f.Add(uint8(0x1f), uint8(0x0a), "d", "7", "h", "soon", "a")
	f.Add(uint8(0x0f), uint8(0x0a), "d", "7", "h", "", "a")
	f.Add(uint8(0x1f), uint8(0x0a), "e", "7", "h", "1", "a")
	f.Add(uint8(0x1f), uint8(0x1f), "d", "7", "h", "1", "a")
	f.Fuzz(func(t *testing.T, present, asNumber uint8, domain, token, holder, expires, attempt string) {
		av := map[string]types.AttributeValue{}
		for i, a := range []struct{ name, value string }{
			{attrDomain, domain}, {attrToken, token}, {attrHolder, holder}, {attrAttempt, attempt}, {attrExpires, expires},
		} {
			if present&(1<<i) == 0 {
				continue
			}
			if asNumber&(1<<i) != 0 {
				av[a.name] = &types.AttributeValueMemberN{Value: a.value}
			} else {
				av[a.name] = &types.AttributeValueMemberS{Value: a.value}
			}
		}
		it, err := decodeItem("leases", "d", av)
		if err != nil {
			var ce *coord.CorruptRecordError
			if !errors.As(err, &ce) || ce.Key != itemName("leases", "d") {
				t.Fatalf("error %v is not a corrupt-record error naming the item", err)
			}
			return
		}
		if it.Token > objstore.MaxToken {
			t.Fatalf("accepted token %d past the range", it.Token)
		}
		if d, ok := av[attrDomain].(*types.AttributeValueMemberS); (ok && d.Value != "d") || (av[attrDomain] != nil && !ok) {
			t.Fatalf("accepted the item of another domain: %+v", av)
		}
		if it.Holder == "" {
			return
		}
		if it.Token == 0 || it.Expires.IsZero() || coord.ValidateHolder(it.Holder) != nil {
			t.Fatalf("accepted a holder it cannot trust: %+v", it)
		}
		n, ok := av[attrToken].(*types.AttributeValueMemberN)
		if !ok {
			t.Fatalf("token %d decoded from %+v", it.Token, av[attrToken])
		}
		if v, err := strconv.ParseUint(n.Value, 10, 64); err != nil || v != it.Token {
			t.Fatalf("token %d decoded from %+v", it.Token, av[attrToken])
		}
	})
}
