package observe_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/fencedstore/fence/observe"
)

// TestLog: each event becomes one record at its level, with the
// attributes an operator searches by.
func TestLog(t *testing.T) {
	var buf bytes.Buffer
	o := observe.Log(slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	ctx := context.Background()
	o.Commit(ctx, observe.Commit{Domain: "reports/monthly", ID: "C1", Token: 7, Holder: "h", Outcome: observe.Fenced, Highest: 9, Puts: 2, Err: errors.New("objstore: fenced")})
	o.Commit(ctx, observe.Commit{Domain: "reports/monthly", ID: "C2", Token: 9, Holder: "h2", Outcome: observe.Accepted, Seq: 4, Fence: true})
	o.Lease(ctx, observe.Lease{Event: observe.Lost, Domain: "reports/monthly", Holder: "h", Token: 7, OtherHolder: "h2", OtherToken: 9, Err: errors.New("lost")})
	o.Lease(ctx, observe.Lease{Event: observe.Renewed, Domain: "reports/monthly", Holder: "h", Token: 7, Expires: time.Unix(100, 0)})
	o.Collect(ctx, observe.Collect{Domain: "reports/monthly", Deleted: 2, DeletedBytes: 10})
	o.Call(ctx, observe.Call{System: observe.Store, Op: "put", Duration: time.Millisecond})

	var recs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		recs = append(recs, m)
	}
	want := []map[string]any{
		{"level": "WARN", "domain": "reports/monthly", "commit_id": "C1", "token": 7.0, "highest": 9.0, "outcome": "fenced", "holder": "h", "puts": 2.0, "err": "objstore: fenced"},
		{"level": "INFO", "commit_id": "C2", "token": 9.0, "seq": 4.0, "fence": true, "outcome": "accepted"},
		{"level": "WARN", "msg": "fence: lease lost", "token": 7.0, "other_token": 9.0, "other_holder": "h2"},
		{"level": "DEBUG", "msg": "fence: lease renewed", "token": 7.0},
		{"level": "INFO", "msg": "fence: gc", "deleted": 2.0, "deleted_bytes": 10.0},
		{"level": "DEBUG", "msg": "fence: call", "system": "store", "op": "put"},
	}
	if len(recs) != len(want) {
		t.Fatalf("%d records, want %d:\n%s", len(recs), len(want), buf.String())
	}
	for i, w := range want {
		for k, v := range w {
			if recs[i][k] != v {
				t.Errorf("record %d: %s = %v, want %v\n%v", i, k, recs[i][k], v, recs[i])
			}
		}
	}
}
