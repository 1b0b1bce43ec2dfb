package bucketlease

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/fencedstore/fence/rules"

	"github.com/fencedstore/fence/coord"
)

// Format is the format version written into every lease record.
const Format = "fence.lease/v1"

// RecordName is the lease record's name among a domain's system objects:
// its key is rules.SystemKey(domain, RecordName).
const RecordName = "lease.json"

// maxRecordSize bounds how much of a lease record is read.
const maxRecordSize = 64 << 10

// record is a decoded lease record. Token is the domain's counter: the
// last token issued. Holder "" means released (Expires is then zero).
// Attempt is a random id unique to each write, so that a writer whose
// reply was lost can recognise its write, and so that no two writes have
// the same content (and the same ETag).
type record struct {
	Domain  string
	Token   uint64
	Holder  string
	Expires time.Time
	Attempt string
}

// wire is a record as stored.
type wire struct {
	Format  string `json:"format"`
	Domain  string `json:"domain"`
	Token   uint64 `json:"token"`
	Holder  string `json:"holder"`
	Expires string `json:"expires"` // RFC 3339 with nanoseconds, UTC; "" when released
	Attempt string `json:"attempt"`
}

func encodeRecord(r record) ([]byte, error) {
	w := wire{Format: Format, Domain: r.Domain, Token: r.Token, Holder: r.Holder, Attempt: r.Attempt}
	if r.Holder != "" {
		w.Expires = r.Expires.UTC().Format(time.RFC3339Nano)
	}
	data, err := json.Marshal(w)
	if err != nil {
		return nil, fmt.Errorf("bucketlease: encode lease record of %q: %w", r.Domain, err)
	}
	return append(data, '\n'), nil
}

// decodeRecord decodes and checks the record stored at key for domain.
// Anything it cannot fully trust is a *coord.CorruptRecordError.
func decodeRecord(domain, key string, data []byte) (record, error) {
	bad := func(reason string, err error) (record, error) {
		return record{}, &coord.CorruptRecordError{Key: key, Reason: reason, Err: err}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return bad("object is empty", nil)
	}
	var probe struct {
		Format string `json:"format"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return bad("not a JSON lease record", err)
	}
	if probe.Format != Format {
		return bad(fmt.Sprintf("unknown format %q (this build reads %q)", probe.Format, Format), nil)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var w wire
	if err := dec.Decode(&w); err != nil {
		return bad("fields do not match format "+Format, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return bad("data after the JSON object", err)
	}
	r := record{Domain: w.Domain, Token: w.Token, Holder: w.Holder, Attempt: w.Attempt}
	switch {
	case w.Domain != domain:
		return bad(fmt.Sprintf("records domain %q, expected %q", w.Domain, domain), nil)
	case w.Token > rules.MaxToken:
		return bad(fmt.Sprintf("token %d is above the maximum %d", w.Token, uint64(rules.MaxToken)), nil)
	case w.Holder != "" && w.Token == 0:
		return bad(fmt.Sprintf("holder %q has token 0", w.Holder), nil)
	case w.Holder == "":
		return r, nil
	}
	if err := coord.ValidateHolder(w.Holder); err != nil {
		return bad("invalid holder", err)
	}
	exp, err := time.Parse(time.RFC3339Nano, w.Expires)
	if err != nil {
		return bad(fmt.Sprintf("holder %q has no valid expiry", w.Holder), err)
	}
	r.Expires = exp.UTC()
	return r, nil
}
