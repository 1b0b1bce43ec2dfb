package outbox

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/rules"
)

// The key prefixes of the outbox in a domain.
const (
	PendingPrefix   = "_outbox/pending/"
	DeliveredPrefix = "_outbox/delivered/"
)

const (
	recordFormat    = "fence.outbox/v1"
	deliveredFormat = "fence.outbox.delivered/v1"
)

// Record is one side effect to deliver.
type Record struct {
	// Destination says where: for HTTPDeliverer an http:// or https://
	// URL.
	Destination string `json:"destination"`
	// ContentType of the payload, for HTTP; default application/json.
	ContentType string `json:"content_type,omitempty"`
	Payload     []byte `json:"payload"`
	// Token is the token of the commit that added the record.
	Token uint64 `json:"token"`
	// Name is the record's key under PendingPrefix.
	Name string `json:"-"`
	// Key is the idempotency key: the same for every delivery of the
	// record, different for every record. It is derived from the domain,
	// the token and the record's name, which sorts in the order records
	// were added within a token.
	Key string `json:"-"`
}

type stored struct {
	Format string `json:"format"`
	Record
}

// IdempotencyKey returns the idempotency key of the record named name,
// added with token in domain.
func IdempotencyKey(domain string, token uint64, name string) string {
	sum := sha256.Sum256([]byte(domain + "\x00" + fmt.Sprint(token) + "\x00" + name))
	return hex.EncodeToString(sum[:16])
}

// last keeps names unique and ordered within a process.
var last atomic.Int64

// Add returns the change that adds a record to the domain's outbox, to
// commit with token in the same commit as the data it goes with.
func Add(token uint64, destination, contentType string, payload []byte) (objstore.Change, error) {
	if err := rules.ValidateToken(token); err != nil {
		return objstore.Change{}, err
	}
	if destination == "" {
		return objstore.Change{}, &rules.InvalidError{What: "outbox destination", Value: "", Reason: "empty"}
	}
	now := time.Now().UnixNano()
	for {
		prev := last.Load()
		if now <= prev {
			now = prev + 1
		}
		if last.CompareAndSwap(prev, now) {
			break
		}
	}
	var r [4]byte
	rand.Read(r[:])
	name := fmt.Sprintf("%020d-%020d-%s", token, now, hex.EncodeToString(r[:]))
	data, err := json.Marshal(stored{Format: recordFormat, Record: Record{Destination: destination, ContentType: contentType, Payload: payload, Token: token}})
	if err != nil {
		return objstore.Change{}, err
	}
	return objstore.PutBytes(PendingPrefix+name, data), nil
}

// decode reads the record stored at pending key name of domain.
func decode(domain, name string, data []byte) (Record, error) {
	var s stored
	if err := json.Unmarshal(data, &s); err != nil {
		return Record{}, fmt.Errorf("outbox: record %s%s in %q is not JSON: %w", PendingPrefix, name, domain, err)
	}
	if s.Format != recordFormat {
		return Record{}, fmt.Errorf("outbox: record %s%s in %q has format %q, want %q", PendingPrefix, name, domain, s.Format, recordFormat)
	}
	tok, _, ok := strings.Cut(name, "-")
	if !ok || tok != fmt.Sprintf("%020d", s.Token) {
		return Record{}, fmt.Errorf("outbox: record %s%s in %q: its name does not carry its token %d", PendingPrefix, name, domain, s.Token)
	}
	s.Record.Name = name
	s.Record.Key = IdempotencyKey(domain, s.Token, name)
	return s.Record, nil
}

// Delivery is what the outbox keeps of a delivered record.
type Delivery struct {
	Format      string    `json:"format"`
	Key         string    `json:"key"`
	Destination string    `json:"destination"`
	Token       uint64    `json:"token"`        // the record's
	DeliveredAt time.Time `json:"delivered_at"` // by the dispatcher's clock
	ByToken     uint64    `json:"by_token"`     // the dispatcher's
}
