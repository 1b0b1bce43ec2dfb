package format

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/fencedstore/fence/rules"
)

// Fenced-attempt records. When the Store refuses a commit or a fence as
// stale, it writes one small object describing the refused attempt:
//
//	<domain>/_fence/fenced/<20-digit newest-first>-<20-digit token>-<id>.json
//
// The first number is rules.MaxToken minus the token that refused the
// attempt, so that a listing, in lexical order, returns the attempts
// refused by the newest tokens first and a reader can stop after the
// first few. The second is the refused token; id is the record's own
// random id. No commit reads these objects: they are diagnostics.
const (
	// FencedV1 is the format tag of fenced-attempt records.
	FencedV1 = "fence.fenced/v1"
	// MaxFencedSize bounds the encoded size of one record. A record that
	// would be larger is written without its key names.
	MaxFencedSize = 64 << 10
	// MaxFencedHolder bounds the holder name a record keeps, in bytes.
	MaxFencedHolder = 256
	fencedDir       = SystemDir + "fenced/"
)

// The reasons a record gives for a refusal.
const (
	// FencedBelow: the domain had accepted a higher token.
	FencedBelow = "below"
	// FencedClaimed: the domain's highest token equalled the attempt's
	// but was raised there by another commit (one token, two holders).
	FencedClaimed = "claimed"
	// FencedIssued: the coordinator had issued a newer token, and the
	// attempt would have raised the domain with the older one.
	FencedIssued = "issued"
)

// FencedPrefix returns the prefix under which domain's fenced-attempt
// records live.
func FencedPrefix(domain string) string { return domain + fencedDir }

// FencedName is what a record's object key says.
type FencedName struct {
	Domain   string
	Token    uint64 // the refused token
	FencedBy uint64 // the token that refused it
	ID       string // the record's id
}

// FencedKey returns the object key of the record n names.
func FencedKey(n FencedName) string {
	return n.Domain + fencedDir + pad(rules.MaxToken-n.FencedBy) + "-" + pad(n.Token) + "-" + n.ID + ".json"
}

// pad writes v as tokenDigits decimal digits.
func pad(v uint64) string {
	s := strconv.FormatUint(v, 10)
	return strings.Repeat("0", max(0, tokenDigits-len(s))) + s
}

// ParseFencedKey parses a record's object key. It rejects anything
// FencedKey could not have produced.
func ParseFencedKey(objectKey string) (FencedName, error) {
	bad := func(reason string) (FencedName, error) {
		return FencedName{}, &rules.InvalidError{What: "fenced-attempt key", Value: objectKey, Reason: reason}
	}
	i := strings.Index(objectKey, fencedDir)
	if i <= 0 {
		return bad("no " + fencedDir + " segment after a domain")
	}
	n := FencedName{Domain: objectKey[:i]}
	name, ok := strings.CutSuffix(objectKey[i+len(fencedDir):], ".json")
	if !ok {
		return bad("no .json suffix")
	}
	if len(name) < 2*tokenDigits+3 || name[tokenDigits] != '-' || name[2*tokenDigits+1] != '-' {
		return bad("not <20 digits>-<20 digits>-<id>")
	}
	rev, err := digits(name[:tokenDigits])
	if err != nil || rev >= rules.MaxToken {
		return bad("the first number is not 20 digits below the maximum token")
	}
	n.FencedBy = rules.MaxToken - rev
	if n.Token, err = digits(name[tokenDigits+1 : 2*tokenDigits+1]); err != nil {
		return bad("the token is not 20 digits")
	}
	n.ID = name[2*tokenDigits+2:]
	if reason := ValidSuffix(n.ID); reason != "" {
		return bad("id: " + reason)
	}
	if err := rules.ValidateDomain(n.Domain); err != nil {
		return FencedName{}, err
	}
	if err := rules.ValidateToken(n.Token); err != nil {
		return FencedName{}, err
	}
	if n.FencedBy < n.Token {
		return bad("the refusing token is below the refused one")
	}
	return n, nil
}

// digits parses exactly tokenDigits decimal digits.
func digits(s string) (uint64, error) {
	if len(s) != tokenDigits || strings.Trim(s, "0123456789") != "" {
		return 0, fmt.Errorf("not %d digits", tokenDigits)
	}
	return strconv.ParseUint(s, 10, 64)
}

// FencedRecord is the content of a fenced-attempt record.
type FencedRecord struct {
	Format string `json:"format"`
	Domain string `json:"domain"`
	// Token is the refused attempt's token, FencedBy the token that
	// refused it (the domain's highest, or the coordinator's newer token
	// when Reason is FencedIssued), and ClaimedBy, for FencedClaimed, the
	// commit that raised the domain to Token.
	Token     uint64 `json:"token"`
	FencedBy  uint64 `json:"fenced_by"`
	Reason    string `json:"reason"`
	ClaimedBy string `json:"claimed_by,omitempty"`
	// Holder and CommitID are the refused commit's.
	Holder   string `json:"holder"`
	CommitID string `json:"commit_id,omitempty"`
	// Time is when the Store refused the attempt, by the refused
	// writer's clock (objstore.Options.Now).
	Time time.Time `json:"time"`
	// Puts and Deletes count the attempt's changes (both 0: a fence).
	// PutKeys and DeletedKeys name at most LogKeysLimit of each, in key
	// order; KeysTruncated says some were left out.
	Puts          int         `json:"puts"`
	Deletes       int         `json:"deletes"`
	PutKeys       []FencedPut `json:"put_keys,omitempty"`
	DeletedKeys   []string    `json:"deleted_keys,omitempty"`
	KeysTruncated bool        `json:"keys_truncated,omitempty"`
}

// FencedPut is one key a refused attempt put, with the size of its value
// (-1 when the writer did not know it).
type FencedPut struct {
	Key  string `json:"key"`
	Size int64  `json:"size"`
}

// EncodeFenced encodes r, first cutting its holder to MaxFencedHolder
// bytes, and, when the record would exceed MaxFencedSize, leaving out its
// key names (KeysTruncated). r is not modified.
func EncodeFenced(r FencedRecord) ([]byte, error) {
	r.Format = FencedV1
	if len(r.Holder) > MaxFencedHolder {
		r.Holder = strings.ToValidUTF8(r.Holder[:MaxFencedHolder], "")
	}
	b, err := json.Marshal(r)
	if err == nil && len(b) > MaxFencedSize {
		r.PutKeys, r.DeletedKeys, r.KeysTruncated = nil, nil, true
		b, err = json.Marshal(r)
	}
	if err != nil {
		return nil, err
	}
	if len(b) > MaxFencedSize {
		return nil, fmt.Errorf("format: fenced-attempt record of %q is %d bytes without its key names, over %d", r.Domain, len(b), MaxFencedSize)
	}
	return b, nil
}

// DecodeFenced decodes the record stored at key, the object key n names,
// and checks it against n. It refuses, with a *CorruptError, anything
// EncodeFenced could not have written for n.
func DecodeFenced(n FencedName, key string, data []byte) (FencedRecord, error) {
	bad := func(reason string, err error) (FencedRecord, error) {
		return FencedRecord{}, &CorruptError{Key: key, Reason: reason, Err: err}
	}
	if len(data) > MaxFencedSize {
		return bad(fmt.Sprintf("larger than %d bytes", MaxFencedSize), nil)
	}
	var r FencedRecord
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return bad("not a fenced-attempt record", err)
	}
	if dec.More() {
		return bad("data after the record", nil)
	}
	switch {
	case r.Format != FencedV1:
		return bad(fmt.Sprintf("format %q, want %q", r.Format, FencedV1), nil)
	case r.Domain != n.Domain:
		return bad(fmt.Sprintf("domain %q, but its key is in domain %q", r.Domain, n.Domain), nil)
	case r.Token != n.Token || r.FencedBy != n.FencedBy:
		return bad(fmt.Sprintf("tokens %d fenced by %d, but its key says %d fenced by %d", r.Token, r.FencedBy, n.Token, n.FencedBy), nil)
	case r.Reason != FencedBelow && r.Reason != FencedClaimed && r.Reason != FencedIssued:
		return bad(fmt.Sprintf("unknown reason %q", r.Reason), nil)
	case (r.Reason == FencedClaimed) != (r.FencedBy == r.Token):
		return bad(fmt.Sprintf("reason %q with token %d fenced by %d", r.Reason, r.Token, r.FencedBy), nil)
	case len(r.Holder) > MaxFencedHolder:
		return bad(fmt.Sprintf("holder longer than %d bytes", MaxFencedHolder), nil)
	case r.CommitID != "" && ValidSuffix(r.CommitID) != "":
		return bad("commit id: "+ValidSuffix(r.CommitID), nil)
	case r.Puts < 0 || r.Deletes < 0:
		return bad("negative counts", nil)
	case len(r.PutKeys) > min(r.Puts, LogKeysLimit) || len(r.DeletedKeys) > min(r.Deletes, LogKeysLimit):
		return bad(fmt.Sprintf("names more keys than its counts (%d, %d) or the limit %d", r.Puts, r.Deletes, LogKeysLimit), nil)
	}
	for _, p := range r.PutKeys {
		if err := rules.ValidateKey(p.Key); err != nil {
			return bad("put_keys", err)
		}
		if p.Size < -1 {
			return bad(fmt.Sprintf("size %d of %q", p.Size, p.Key), nil)
		}
	}
	for _, k := range r.DeletedKeys {
		if err := rules.ValidateKey(k); err != nil {
			return bad("deleted_keys", err)
		}
	}
	if len(r.PutKeys) == 0 {
		r.PutKeys = nil
	}
	if len(r.DeletedKeys) == 0 {
		r.DeletedKeys = nil
	}
	return r, nil
}
