package s3gw_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/memstore"
	"github.com/fencedstore/fence/s3gw"
	"github.com/fencedstore/fence/s3gw/internal/wiretest"
	"github.com/fencedstore/fence/s3gw/wire"
)

const (
	testDomain = "reports/daily"
	testBucket = "bkt"
	testAccess = "AKIDFENCETEST"
	testSecret = "fence-test-secret"
	testToken  = 7
)

// env is a gateway over a memstore Store for testDomain at testToken,
// served by httptest (over TLS when asked), and an aws-sdk-go-v2 client
// of it.
type env struct {
	t     *testing.T
	store *objstore.Store
	gw    *s3gw.Gateway
	ts    *httptest.Server
}

func newEnv(t *testing.T, mode s3gw.CommitMode, tls bool) *env {
	t.Helper()
	return newEnvOn(t, memstore.New(), mode, tls)
}

// newEnvOn is newEnv over backend b; change, when not nil, changes the
// gateway's options.
func newEnvOn(t *testing.T, b driver.Backend, mode s3gw.CommitMode, tls bool, change ...func(*s3gw.Options)) *env {
	t.Helper()
	store := objstore.New(b, &objstore.Options{InlineMax: -1})
	o := s3gw.Options{Store: store, Domain: testDomain, Token: testToken, Bucket: testBucket,
		Credentials: staticCreds(), Commit: mode}
	for _, f := range change {
		f(&o)
	}
	gw, err := s3gw.New(o)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(gw)
	if tls {
		ts.StartTLS()
	} else {
		ts.Start()
	}
	t.Cleanup(ts.Close)
	return &env{t: t, store: store, gw: gw, ts: ts}
}

// client is an SDK client of the gateway with secret; change, when not
// nil, rewrites every request body on the wire.
func (e *env) client(secret string, change func([]byte) []byte) *s3.Client {
	hc := new(http.Client)
	*hc = *e.ts.Client() // a copy: the tampering is this client's alone
	if change != nil {
		hc.Transport = wiretest.Tamper{Next: hc.Transport, Change: change}
	}
	return s3.New(s3.Options{
		BaseEndpoint: aws.String(e.ts.URL), UsePathStyle: true, Region: s3gw.DefaultRegion,
		Credentials: credentials.NewStaticCredentialsProvider(testAccess, secret, ""),
		HTTPClient:  hc, RetryMaxAttempts: 1,
	})
}

// publish commits the gateway's changes, as fence exec does once the job
// exits 0.
func (e *env) publish() {
	e.t.Helper()
	ctx := context.Background()
	changes, done, err := e.gw.Changes(ctx, e.store, testDomain)
	if err != nil {
		e.t.Fatal(err)
	}
	defer done()
	if len(changes) == 0 {
		return
	}
	if _, err := e.store.Commit(ctx, testDomain, testToken, changes, nil); err != nil {
		e.t.Fatal(err)
	}
}

// versionObjects lists the store's version objects: staged or published
// values.
func (e *env) versionObjects() []string {
	e.t.Helper()
	var out []string
	err := e.store.Backend().List(context.Background(), testDomain+"/_fence/v/", func(o driver.ObjectInfo) error {
		out = append(out, o.Key)
		return nil
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return out
}

func staticCreds() wire.StaticCredentials { return wire.StaticCredentials{testAccess: testSecret} }

func payload(n int) []byte {
	b := make([]byte, n)
	r := rand.NewChaCha8([32]byte{byte(n), byte(n >> 8), byte(n >> 16)})
	_, _ = r.Read(b)
	return b
}

func s3key(k string) *string { return aws.String(testDomain + "/" + k) }

func s3Code(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

func get(t *testing.T, c *s3.Client, key string, rng string) []byte {
	t.Helper()
	in := &s3.GetObjectInput{Bucket: aws.String(testBucket), Key: s3key(key)}
	if rng != "" {
		in.Range = aws.String(rng)
	}
	out, err := c.GetObject(context.Background(), in)
	if err != nil {
		t.Fatalf("GetObject %q %s: %v", key, rng, err)
	}
	defer out.Body.Close()
	b, err := io.ReadAll(out.Body)
	if err != nil {
		t.Fatalf("GetObject %q: read: %v", key, err)
	}
	return b
}

// TestJobWritesPublishedAtEnd: a put, a copy and a delete through the
// gateway are the job's alone until its commit, which publishes them
// all at once; meanwhile the job reads its own writes, whole, by range
// and in a paged listing.
func TestJobWritesPublishedAtEnd(t *testing.T) {
	ctx := context.Background()
	for _, tls := range []bool{false, true} {
		t.Run(fmt.Sprintf("tls=%v", tls), func(t *testing.T) {
			e := newEnv(t, s3gw.CommitAtEnd, tls)
			if _, err := e.store.Put(ctx, testDomain, "old", testToken, strings.NewReader("old bytes"), 9); err != nil {
				t.Fatal(err)
			}
			c := e.client(testSecret, nil)
			src := payload(300 << 10)
			out, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(testBucket), Key: s3key("a.bin"), Body: bytes.NewReader(src)})
			if err != nil {
				t.Fatal(err)
			}
			if want := fmt.Sprintf(`"%x"`, md5sum(src)); aws.ToString(out.ETag) != want {
				t.Errorf("ETag %s, want the MD5 %s", aws.ToString(out.ETag), want)
			}
			for i := range 5 {
				if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(testBucket), Key: s3key(fmt.Sprintf("list/%d", i)), Body: strings.NewReader("x")}); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(testBucket), Key: s3key("copy.bin"), CopySource: aws.String(testBucket + "/" + testDomain + "/a.bin")}); err != nil {
				t.Fatal(err)
			}
			if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(testBucket), Key: s3key("old")}); err != nil {
				t.Fatal(err)
			}
			// The job sees its writes.
			if got := get(t, c, "a.bin", ""); !bytes.Equal(got, src) {
				t.Fatalf("get: %d bytes, want the %d put", len(got), len(src))
			}
			if got := get(t, c, "a.bin", "bytes=1000-1999"); !bytes.Equal(got, src[1000:2000]) {
				t.Fatalf("ranged get: wrong bytes")
			}
			if got := get(t, c, "copy.bin", ""); !bytes.Equal(got, src) {
				t.Fatalf("copy: wrong bytes")
			}
			if _, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(testBucket), Key: s3key("old")}); err == nil {
				t.Fatal("HeadObject of a deleted key succeeded")
			}
			var keys []string
			pages := 0
			p := s3.NewListObjectsV2Paginator(c, &s3.ListObjectsV2Input{Bucket: aws.String(testBucket), Prefix: aws.String(testDomain + "/list/"), MaxKeys: aws.Int32(2)})
			for p.HasMorePages() {
				page, err := p.NextPage(ctx)
				if err != nil {
					t.Fatal(err)
				}
				pages++
				for _, o := range page.Contents {
					keys = append(keys, aws.ToString(o.Key))
				}
			}
			if len(keys) != 5 || pages != 3 {
				t.Fatalf("listed %v in %d pages, want 5 keys in 3", keys, pages)
			}
			// Nobody else sees them yet.
			if _, _, err := e.store.ReadAll(ctx, testDomain, "a.bin"); !errors.Is(err, objstore.ErrNotFound) {
				t.Fatalf("before the commit, a.bin: %v, want ErrNotFound", err)
			}
			if _, _, err := e.store.ReadAll(ctx, testDomain, "old"); err != nil {
				t.Fatalf("before the commit, old: %v", err)
			}
			e.publish()
			for k, want := range map[string][]byte{"a.bin": src, "copy.bin": src, "list/4": []byte("x")} {
				got, _, err := e.store.ReadAll(ctx, testDomain, k)
				if err != nil || !bytes.Equal(got, want) {
					t.Fatalf("after the commit, %s: %d bytes, %v", k, len(got), err)
				}
			}
			if _, _, err := e.store.ReadAll(ctx, testDomain, "old"); !errors.Is(err, objstore.ErrNotFound) {
				t.Fatalf("after the commit, old: %v, want ErrNotFound", err)
			}
			// After the end, writes are refused.
			_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(testBucket), Key: s3key("late"), Body: strings.NewReader("x")})
			if err == nil {
				t.Fatal("a put after the end succeeded")
			}
		})
	}
}

func md5sum(b []byte) []byte {
	s := md5.Sum(b)
	return s[:]
}

// TestRefusedWritesStageNothing: a key outside the domain, another
// bucket, a wrong secret, a trailing checksum one bit off and a body
// changed under its signed hash are each refused with the code clients
// switch on, and nothing is staged.
func TestRefusedWritesStageNothing(t *testing.T) {
	refusals(t, func(t *testing.T, tls bool) *env { return newEnv(t, s3gw.CommitAtEnd, tls) })
}

func refusals(t *testing.T, newEnv func(t *testing.T, tls bool) *env) {
	ctx := context.Background()
	src := payload(100 << 10)
	for _, tc := range []struct {
		name     string
		tls      bool
		secret   string
		bucket   string
		key      string
		change   func([]byte) []byte
		wantCode string
	}{
		{"key outside the domain", false, testSecret, testBucket, "elsewhere/x", nil, wire.CodeAccessDenied},
		{"another bucket", false, testSecret, "other", testDomain + "/x", nil, wire.CodeAccessDenied},
		{"wrong secret", false, "not-the-secret", testBucket, testDomain + "/x", nil, wire.CodeSignatureDoesNotMatch},
		{"trailer checksum one bit off", true, testSecret, testBucket, testDomain + "/x", wiretest.FlipChecksumBit(t, "x-amz-checksum-crc32:"), wire.CodeBadDigest},
		{"a byte changed under a trailer", true, testSecret, testBucket, testDomain + "/x", func(b []byte) []byte { b[len(b)/2] ^= 0x40; return b }, wire.CodeBadDigest},
		{"a byte changed under a signed hash", false, testSecret, testBucket, testDomain + "/x", func(b []byte) []byte { b[len(b)/2] ^= 0x40; return b }, wire.CodeXAmzContentSHA256Mismatch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.tls)
			in := &s3.PutObjectInput{Bucket: aws.String(tc.bucket), Key: aws.String(tc.key), ChecksumAlgorithm: types.ChecksumAlgorithmCrc32, Body: bytes.NewReader(src)}
			if tc.tls { // a stream of known length: aws-chunked with a trailer
				in.Body, in.ContentLength = struct{ io.Reader }{bytes.NewReader(src)}, aws.Int64(int64(len(src)))
			}
			_, err := e.client(tc.secret, tc.change).PutObject(ctx, in)
			if code := s3Code(err); code != tc.wantCode {
				t.Fatalf("PutObject: code %q (%v), want %s", code, err, tc.wantCode)
			}
			if objs := e.versionObjects(); len(objs) != 0 {
				t.Fatalf("staged after a refused put: %v", objs)
			}
			e.publish()
			if v, err := e.store.List(ctx, testDomain, nil); err == nil && len(v) != 0 {
				t.Fatalf("published after a refused put: %v", v)
			}
		})
	}
}

// TestLeaseLostRefusesWrites: once the lease is lost, a write gets
// FenceLeaseLost (403), and nothing more is staged.
func TestLeaseLostRefusesWrites(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, s3gw.CommitAtEnd, false)
	c := e.client(testSecret, nil)
	e.gw.LeaseLost(errors.New("lease taken over by token 8"))
	_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(testBucket), Key: s3key("x"), Body: strings.NewReader("x")})
	var re interface{ HTTPStatusCode() int }
	if s3Code(err) != s3gw.CodeLeaseLost || !errors.As(err, &re) || re.HTTPStatusCode() != http.StatusForbidden || !strings.Contains(err.Error(), "lease") {
		t.Fatalf("PutObject after the loss: %v, want %s (403) naming the lease", err, s3gw.CodeLeaseLost)
	}
	if objs := e.versionObjects(); len(objs) != 0 {
		t.Fatalf("staged after the loss: %v", objs)
	}
}

// TestFencedStageSaysLeaseLost: a put staged after a newer token fenced
// the domain is refused with FenceLeaseLost, and the job's output can no
// longer be published.
func TestFencedStageSaysLeaseLost(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, s3gw.CommitAtEnd, false)
	c := e.client(testSecret, nil)
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(testBucket), Key: s3key("before"), Body: strings.NewReader("x")}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.Fence(ctx, testDomain, testToken+1); err != nil {
		t.Fatal(err)
	}
	_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(testBucket), Key: s3key("after"), Body: strings.NewReader("x")})
	if s3Code(err) != s3gw.CodeLeaseLost {
		t.Fatalf("PutObject after a newer token's fence: %v, want %s", err, s3gw.CodeLeaseLost)
	}
	_, _, err = e.gw.Changes(ctx, e.store, testDomain)
	if !errors.Is(err, objstore.ErrFenced) {
		t.Fatalf("Changes after the fence: %v, want ErrFenced", err)
	}
}

// TestCommitEach: with CommitEach every write is its own commit, visible
// at once.
func TestCommitEach(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, s3gw.CommitEach, false)
	c := e.client(testSecret, nil)
	out, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(testBucket), Key: s3key("a"), Body: strings.NewReader("abc")})
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := e.store.ReadAll(ctx, testDomain, "a")
	if err != nil || string(got) != "abc" {
		t.Fatalf("after the put: %q, %v", got, err)
	}
	head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(testBucket), Key: s3key("a")})
	if err != nil || aws.ToString(head.ETag) != aws.ToString(out.ETag) {
		t.Fatalf("HeadObject: ETag %v (%v), want the put's %s", head, err, aws.ToString(out.ETag))
	}
	if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(testBucket), Key: s3key("a")}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.store.ReadAll(ctx, testDomain, "a"); !errors.Is(err, objstore.ErrNotFound) {
		t.Fatalf("after the delete: %v", err)
	}
}

// TestCloseDiscardsUnpublished: a job that ends without publishing
// leaves no staged object behind; one that published leaves only what it
// published.
func TestCloseDiscardsUnpublished(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, s3gw.CommitAtEnd, false)
	c := e.client(testSecret, nil)
	for i := range 3 {
		if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(testBucket), Key: s3key(fmt.Sprint(i)), Body: bytes.NewReader(payload(1000))}); err != nil {
			t.Fatal(err)
		}
	}
	// A key staged again keeps its first object until Close: a write
	// sends no request to discard it.
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(testBucket), Key: s3key("0"), Body: strings.NewReader("again")}); err != nil {
		t.Fatal(err)
	}
	if objs := e.versionObjects(); len(objs) != 4 {
		t.Fatalf("staged %d objects, want 4: %v", len(objs), objs)
	}
	if err := e.gw.Close(ctx, false); err != nil {
		t.Fatal(err)
	}
	if objs := e.versionObjects(); len(objs) != 0 {
		t.Fatalf("left after Close: %v", objs)
	}
}

func sha(b []byte) string { return fmt.Sprintf("%x", sha256.Sum256(b)) }

// TestVirtualHostStyle: a client that addresses the bucket as
// BUCKET.localhost reaches the same keys as one that puts it in the path.
func TestVirtualHostStyle(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, s3gw.CommitAtEnd, false)
	addr := e.ts.Listener.Addr().String()
	_, port, _ := net.SplitHostPort(addr)
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, addr) // BUCKET.localhost is this server
	}}}
	vc := s3.New(s3.Options{BaseEndpoint: aws.String("http://localhost:" + port), Region: s3gw.DefaultRegion, HTTPClient: hc,
		Credentials: credentials.NewStaticCredentialsProvider(testAccess, testSecret, ""), RetryMaxAttempts: 1})
	var hosts []string
	vc = s3.New(vc.Options(), func(o *s3.Options) {
		o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
			return st.Finalize.Add(middleware.FinalizeMiddlewareFunc("host", func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
				if r, ok := in.Request.(*smithyhttp.Request); ok {
					hosts = append(hosts, r.URL.Host)
				}
				return next.HandleFinalize(ctx, in)
			}), middleware.After)
		})
	})
	if _, err := vc.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(testBucket), Key: s3key("v"), Body: strings.NewReader("virtual")}); err != nil {
		t.Fatal(err)
	}
	if len(hosts) != 1 || !strings.HasPrefix(hosts[0], testBucket+".localhost:") {
		t.Fatalf("the client sent to %v, want %s.localhost", hosts, testBucket)
	}
	if got := get(t, e.client(testSecret, nil), "v", ""); string(got) != "virtual" {
		t.Fatalf("path style read %q", got)
	}
}

// TestCloseAfterPublishKeepsOutput: after the job's commit, Close
// discards the values later writes replaced, and keeps the published
// ones.
func TestCloseAfterPublishKeepsOutput(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, s3gw.CommitAtEnd, false)
	c := e.client(testSecret, nil)
	for _, body := range []string{"first", "second"} {
		if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(testBucket), Key: s3key("k"), Body: strings.NewReader(body)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(testBucket), Key: s3key("gone"), Body: strings.NewReader("x")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(testBucket), Key: s3key("gone")}); err != nil {
		t.Fatal(err)
	}
	e.publish()
	if err := e.gw.Close(ctx, true); err != nil {
		t.Fatal(err)
	}
	if objs := e.versionObjects(); len(objs) != 1 {
		t.Fatalf("after the commit and Close: %v, want the published value alone", objs)
	}
	got, _, err := e.store.ReadAll(ctx, testDomain, "k")
	if err != nil || string(got) != "second" {
		t.Fatalf("k = %q, %v", got, err)
	}
}
