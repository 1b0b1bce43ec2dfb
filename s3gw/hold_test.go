package s3gw_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/memstore"
	"github.com/fencedstore/fence/s3gw"
	"github.com/fencedstore/fence/s3gw/internal/wiretest"
	"github.com/fencedstore/fence/s3gw/wire"
)

// countingMem is a memstore that counts the object writes sent to it.
type countingMem struct {
	*memstore.Backend
	puts atomic.Int64
}

func (c *countingMem) Put(ctx context.Context, key string, body io.Reader, size int64, opts driver.PutOptions) (driver.ObjectInfo, error) {
	c.puts.Add(1)
	return c.Backend.Put(ctx, key, body, size, opts)
}

// newHoldEnv is a gateway over a counting memstore whose Store keeps
// values of up to 4 KiB inline (the default), so that the gateway holds
// them; change, when not nil, changes the gateway's options.
func newHoldEnv(t *testing.T, mode s3gw.CommitMode, change ...func(*s3gw.Options)) (*env, *countingMem) {
	t.Helper()
	b := &countingMem{Backend: memstore.New()}
	e := newEnvOn(t, b, mode, false, change...)
	e.store = objstore.New(b, nil)
	o := s3gw.Options{Store: e.store, Domain: testDomain, Token: testToken, Bucket: testBucket, Credentials: staticCreds(), Commit: mode}
	for _, f := range change {
		f(&o)
	}
	gw, err := s3gw.New(o)
	if err != nil {
		t.Fatal(err)
	}
	e.gw = gw
	e.ts.Config.Handler = gw
	return e, b
}

func putSmall(t *testing.T, c *s3.Client, key string, body []byte) *s3.PutObjectOutput {
	t.Helper()
	out, err := c.PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String(testBucket), Key: s3key(key), Body: bytes.NewReader(body)})
	if err != nil {
		t.Fatalf("PutObject %s: %v", key, err)
	}
	return out
}

// TestSmallValuesHeldUntilCommit: a put of a value the commit keeps
// inline sends nothing to the store; the job reads it back, whole and by
// range, and lists it; its commit publishes it in one manifest write,
// with no version object, and the gateway's ETag and content type stay
// with it. (Fails when the gateway stages small values: each put is then
// a write to the store.)
func TestSmallValuesHeldUntilCommit(t *testing.T) {
	ctx := context.Background()
	e, b := newHoldEnv(t, s3gw.CommitAtEnd)
	c := e.client(testSecret, nil)
	src := payload(1 << 10)
	before := b.puts.Load()
	out := putSmall(t, c, "small", src)
	putSmall(t, c, "empty", nil)
	if n := b.puts.Load() - before; n != 0 {
		t.Fatalf("two small puts sent %d writes to the store, want 0", n)
	}
	if want := `"` + hex.EncodeToString(md5sum(src)) + `"`; aws.ToString(out.ETag) != want {
		t.Fatalf("ETag %s, want the MD5 %s", aws.ToString(out.ETag), want)
	}
	if got := get(t, c, "small", ""); !bytes.Equal(got, src) {
		t.Fatal("GetObject of the held value: wrong bytes")
	}
	if got := get(t, c, "small", "bytes=10-19"); !bytes.Equal(got, src[10:20]) {
		t.Fatalf("ranged GetObject of the held value: %x", got)
	}
	if got := get(t, c, "empty", ""); len(got) != 0 {
		t.Fatalf("GetObject of the empty value: %d bytes", len(got))
	}
	list, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(testBucket), Prefix: aws.String(testDomain + "/")})
	if err != nil || len(list.Contents) != 2 || aws.ToInt64(list.Contents[1].Size) != int64(len(src)) {
		t.Fatalf("listing: %+v, %v", list, err)
	}
	if _, _, err := e.store.ReadAll(ctx, testDomain, "small"); err == nil {
		t.Fatal("the held value is visible before the commit")
	}
	e.publish()
	got, _, err := e.store.ReadAll(ctx, testDomain, "small")
	if err != nil || !bytes.Equal(got, src) {
		t.Fatalf("after the commit: %v", err)
	}
	if objs := e.versionObjects(); len(objs) != 0 {
		t.Fatalf("version objects of values kept inline: %v", objs)
	}
}

// TestHoldBudget: past Options.HoldBytes the gateway stages small values
// as any other; a held value replaced or deleted gives its bytes back.
// (Fails when the budget is not kept, or not given back.)
func TestHoldBudget(t *testing.T) {
	e, b := newHoldEnv(t, s3gw.CommitAtEnd, func(o *s3gw.Options) { o.HoldBytes = 2 << 10 })
	c := e.client(testSecret, nil)
	v := payload(1 << 10)
	putSmall(t, c, "a", v)
	putSmall(t, c, "b", v)
	before := b.puts.Load()
	putSmall(t, c, "c", v)
	if b.puts.Load() == before || len(e.versionObjects()) != 1 {
		t.Fatalf("a put past the hold budget was not staged: %d writes, objects %v", b.puts.Load()-before, e.versionObjects())
	}
	if _, err := c.DeleteObject(context.Background(), &s3.DeleteObjectInput{Bucket: aws.String(testBucket), Key: s3key("a")}); err != nil {
		t.Fatal(err)
	}
	putSmall(t, c, "b", v[:100]) // replaces a held value
	before = b.puts.Load()
	putSmall(t, c, "d", v)
	putSmall(t, c, "e", v[:900])
	if n := b.puts.Load() - before; n != 0 {
		t.Fatalf("the budget freed by a delete and a replacement was not used again: %d writes", n)
	}
	e.publish()
	ctx := context.Background()
	for k, want := range map[string][]byte{"b": v[:100], "c": v, "d": v, "e": v[:900]} {
		got, _, err := e.store.ReadAll(ctx, testDomain, k)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s after the commit: %d bytes, %v", k, len(got), err)
		}
	}
	if _, _, err := e.store.ReadAll(ctx, testDomain, "a"); err == nil {
		t.Fatal("a deleted held value was published")
	}
}

// TestHeldRefusals: a small put is checked as a staged one: a body
// changed under its checksum or signed hash is refused and nothing is
// held; a key the store cannot take is refused at the put, not at the
// commit; a domain fenced by a newer token refuses it with
// FenceLeaseLost.
func TestHeldRefusals(t *testing.T) {
	ctx := context.Background()
	src := payload(2 << 10)
	for _, tc := range []struct {
		name     string
		key      string
		tls      bool
		change   func([]byte) []byte
		wantCode string
	}{
		{"a byte changed under a signed hash", "x", false, func(b []byte) []byte { b[len(b)/2] ^= 0x40; return b }, wire.CodeXAmzContentSHA256Mismatch},
		{"trailer checksum one bit off", "x", true, wiretest.FlipChecksumBit(t, "x-amz-checksum-crc32:"), wire.CodeBadDigest},
		{"a key too long for the store", strings.Repeat("k", 1000), false, nil, wire.CodeInvalidArgument},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := &countingMem{Backend: memstore.New()}
			e := newEnvOn(t, b, s3gw.CommitAtEnd, tc.tls)
			e.store = objstore.New(b, nil)
			gw, err := s3gw.New(s3gw.Options{Store: e.store, Domain: testDomain, Token: testToken, Bucket: testBucket, Credentials: staticCreds(), HoldBytes: 3 << 10})
			if err != nil {
				t.Fatal(err)
			}
			e.gw, e.ts.Config.Handler = gw, gw
			in := &s3.PutObjectInput{Bucket: aws.String(testBucket), Key: s3key(tc.key), ChecksumAlgorithm: types.ChecksumAlgorithmCrc32, Body: bytes.NewReader(src)}
			if tc.tls {
				in.Body, in.ContentLength = struct{ io.Reader }{bytes.NewReader(src)}, aws.Int64(int64(len(src)))
			}
			_, err = e.client(testSecret, tc.change).PutObject(ctx, in)
			if code := s3Code(err); code != tc.wantCode {
				t.Fatalf("PutObject: code %q (%v), want %s", code, err, tc.wantCode)
			}
			// Nothing held: the budget is whole (a 2 KiB value and a
			// second one fit in 3 KiB only if the first gave its bytes
			// back), and the commit publishes nothing.
			c := e.client(testSecret, nil)
			before := b.puts.Load()
			putSmall(t, c, "fits", src)
			if n := b.puts.Load() - before; n != 0 {
				t.Fatalf("the refused put kept its budget: the next put was staged (%d writes)", n)
			}
			changes, _, err := e.gw.Changes(ctx, e.store, testDomain)
			if err != nil || len(changes) != 1 || changes[0].Key != "fits" {
				t.Fatalf("changes after the refusal: %v, %v", changes, err)
			}
		})
	}
	t.Run("fenced", func(t *testing.T) {
		e, _ := newHoldEnv(t, s3gw.CommitAtEnd)
		c := e.client(testSecret, nil)
		putSmall(t, c, "before", src)
		if _, err := e.store.Fence(ctx, testDomain, testToken+1); err != nil {
			t.Fatal(err)
		}
		_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(testBucket), Key: s3key("after"), Body: bytes.NewReader(src)})
		if s3Code(err) != s3gw.CodeLeaseLost {
			t.Fatalf("a small put after a newer token's fence: %v, want %s", err, s3gw.CodeLeaseLost)
		}
	})
}

// TestHeldCommitEach: with CommitEach a small put is one commit that
// keeps the value inline (no version object), and HEAD after it gives
// the put's ETag; a small copy is held and published the same way.
func TestHeldCommitEach(t *testing.T) {
	ctx := context.Background()
	e, _ := newHoldEnv(t, s3gw.CommitEach)
	c := e.client(testSecret, nil)
	out := putSmall(t, c, "a", []byte("abc"))
	got, _, err := e.store.ReadAll(ctx, testDomain, "a")
	if err != nil || string(got) != "abc" {
		t.Fatalf("after the put: %q, %v", got, err)
	}
	head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(testBucket), Key: s3key("a")})
	if err != nil || aws.ToString(head.ETag) != aws.ToString(out.ETag) {
		t.Fatalf("HeadObject: %v (%v), want the put's ETag %s", head, err, aws.ToString(out.ETag))
	}
	if _, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(testBucket), Key: s3key("b"), CopySource: aws.String(testBucket + "/" + testDomain + "/a")}); err != nil {
		t.Fatal(err)
	}
	if got, _, err := e.store.ReadAll(ctx, testDomain, "b"); err != nil || string(got) != "abc" {
		t.Fatalf("after the copy: %q, %v", got, err)
	}
	if objs := e.versionObjects(); len(objs) != 0 {
		t.Fatalf("version objects of values kept inline: %v", objs)
	}
}

// TestManySmallValuesOneCommit: a job that writes more small values than
// one manifest keeps inline (Options.InlineBudget) publishes them all in
// its one commit, each readable with its bytes.
func TestManySmallValuesOneCommit(t *testing.T) {
	ctx := context.Background()
	e, _ := newHoldEnv(t, s3gw.CommitAtEnd)
	c := e.client(testSecret, nil)
	const n = 400 // 400 x 1 KiB: past the default 256 KiB budget
	for i := range n {
		putSmall(t, c, fmt.Sprintf("k%03d", i), payload(1<<10+i))
	}
	e.publish()
	for i := range n {
		got, _, err := e.store.ReadAll(ctx, testDomain, fmt.Sprintf("k%03d", i))
		if err != nil || !bytes.Equal(got, payload(1<<10+i)) {
			t.Fatalf("k%03d: %d bytes, %v", i, len(got), err)
		}
	}
}

// logCount counts the log records whose message contains what.
type logCount struct {
	what string
	n    atomic.Int64
}

func (l *logCount) Enabled(context.Context, slog.Level) bool { return true }
func (l *logCount) Handle(_ context.Context, r slog.Record) error {
	if strings.Contains(r.Message, l.what) {
		l.n.Add(1)
	}
	return nil
}
func (l *logCount) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logCount) WithGroup(string) slog.Handler      { return l }

// TestCommitEachKeepsWhatItPublished: with CommitEach, a staged value
// that its commit published is not then discarded (the store would
// refuse, after a manifest read, and the gateway would log it), and a
// held one gives its budget back. (Fails when the gateway discards what
// it just published.)
func TestCommitEachKeepsWhatItPublished(t *testing.T) {
	ctx := context.Background()
	logs := &logCount{what: "could not discard"}
	e, _ := newHoldEnv(t, s3gw.CommitEach, func(o *s3gw.Options) { o.Logger = slog.New(logs); o.HoldBytes = 1 << 10 })
	c := e.client(testSecret, nil)
	big := payload(64 << 10)
	putSmall(t, c, "big", big)
	putSmall(t, c, "small", []byte("abc"))
	putSmall(t, c, "small2", payload(1<<10)) // fits only if "small" gave its budget back
	if n := logs.n.Load(); n != 0 {
		t.Fatalf("%d published values were sent to be discarded", n)
	}
	if objs := e.versionObjects(); len(objs) != 1 {
		t.Fatalf("version objects %v, want the one of the staged value", objs)
	}
	for k, want := range map[string][]byte{"big": big, "small": []byte("abc"), "small2": payload(1 << 10)} {
		if got, _, err := e.store.ReadAll(ctx, testDomain, k); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s: %d bytes, %v", k, len(got), err)
		}
	}
}
