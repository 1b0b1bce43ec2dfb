package objstoretest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/faulty"
)

// logLimitSmall is the log bound of the stores that smallLog returns, so
// that a few commits move the log past an earlier one.
const logLimitSmall = 4

// smallLog returns a Store that writes through f's fault rules and an
// "other" Store that writes to the backend directly, both keeping a log of
// logLimitSmall commits.
func smallLog(f *faulty.Backend) (s, other *objstore.Store) {
	s = newStore(f, &objstore.Options{Holder: "suite", LogLimit: logLimitSmall})
	other = newStore(f.Unwrap(), &objstore.Options{Holder: "other", LogLimit: logLimitSmall})
	return s, other
}

// commitMany commits key k of domain logLimitSmall+2 times at token, with
// bodies "other 0", "other 1", ...: enough for the log to move past every
// commit before them.
func commitMany(t *testing.T, s *objstore.Store, domain string, token uint64) {
	for i := range logLimitSmall + 2 {
		if _, err := s.Commit(context.Background(), domain, token, []objstore.Change{objstore.PutBytes("k", []byte(fmt.Sprint("other ", i)))}, nil); err != nil {
			t.Errorf("competing commit at token %d: %v", token, err)
		}
	}
}

// landedUnknown commits "mine" as k of domain "d" at token 2; the manifest
// write lands but its reply is replaced by replyErr, and then runs before
// the reply returns. The commit must end unknown, never fenced.
func landedUnknown(t *testing.T, s *objstore.Store, f *faulty.Backend, replyErr error, then func()) *objstore.UnknownOutcomeError {
	t.Helper()
	f.Add(manifestPut("d", faulty.Fault{ErrAfter: replyErr, Then: then}))
	_, err := s.Commit(tctx(t), "d", 2, []objstore.Change{objstore.PutBytes("k", []byte("mine"))}, nil)
	var ue *objstore.UnknownOutcomeError
	if !errors.As(err, &ue) || ue.CommitID == "" || errors.Is(err, objstore.ErrFenced) {
		t.Fatalf("commit that landed, whose reply was %v, and whose record then left the log: %v; want outcome unknown, never fenced", replyErr, err)
	}
	return ue
}

// failManifestWrites makes every write of domain's manifest fail, without
// being applied, until f.Clear.
func failManifestWrites(f *faulty.Backend, domain string) {
	f.Add(faulty.Always(faulty.OpPut, format.ManifestKey(domain), faulty.Fault{Err: errInjected}))
}

// unknownCommit commits data as k in domain at token while every manifest
// write fails unapplied, so that the commit ends unknown; then it clears
// the faults.
func unknownCommit(t *testing.T, s *objstore.Store, f *faulty.Backend, domain string, token uint64, data string) *objstore.UnknownOutcomeError {
	t.Helper()
	failManifestWrites(f, domain)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := s.Commit(ctx, domain, token, []objstore.Change{objstore.PutBytes("k", []byte(data))}, nil)
	f.Clear()
	var ue *objstore.UnknownOutcomeError
	if !errors.As(err, &ue) {
		t.Fatalf("commit whose manifest writes all failed: %v; want outcome unknown", err)
	}
	return ue
}

// readFresh reads key through a Store with empty caches, so that a
// missing object cannot hide behind one.
func readFresh(t *testing.T, f *faulty.Backend, domain, key, want string) {
	t.Helper()
	mustRead(t, newStore(f.Unwrap(), &objstore.Options{VersionCacheBytes: -1}), domain, key, want)
}

// rawManifest returns the bytes of domain's manifest as stored.
func rawManifest(t *testing.T, f *faulty.Backend, domain string) string {
	t.Helper()
	rc, _, err := f.Unwrap().Get(tctx(t), format.ManifestKey(domain), driver.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// overwriteManifest writes data over domain's manifest unconditionally,
// behind every Store's back.
func overwriteManifest(t *testing.T, f *faulty.Backend, domain, data string) {
	t.Helper()
	if _, err := f.Unwrap().Put(tctx(t), format.ManifestKey(domain), strings.NewReader(data), int64(len(data)), driver.PutOptions{}); err != nil {
		t.Fatal(err)
	}
}

// listAll returns every object key in b.
func listAll(t *testing.T, b driver.Backend) []string {
	t.Helper()
	var keys []string
	if err := b.List(tctx(t), "", func(o driver.ObjectInfo) error {
		keys = append(keys, o.Key)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return keys
}

// counterIssuer is a TokenIssuer whose last tokens the test sets.
type counterIssuer struct {
	mu   sync.Mutex
	last map[string]uint64
}

func (c *counterIssuer) LastIssued(_ context.Context, domain string) (uint64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.last[domain], nil
}

func (c *counterIssuer) set(domain string, token uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.last[domain] = token
}
