package driver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
)

// Some S3-compatible stores and proxies accept conditional headers and
// then ignore them. Fencing would then silently do nothing, so whoever
// writes to a backend (a Store, a bucket lease coordinator) first proves
// with Probe that it honours them, and refuses to write when it does not.

// ProbePrefix is where Probe writes its one object: a prefix no domain
// can use.
const ProbePrefix = "_fence/probe/"

// probes holds one *probeOnce per location.
var probes sync.Map

type probeOnce struct {
	mu     sync.Mutex
	passed bool

	// cache is the verdict cache the last ProbeWith of the location
	// used, which Distrust tells to forget the verdict; cmu guards it
	// (mu is held through a whole probe).
	cmu   sync.Mutex
	cache VerdictCache
}

// ProbeRacers is how many writes with If-None-Match: * Probe sends at
// once to one new key.
const ProbeRacers = 4

// Probe checks that b honours conditional writes, as fence relies on
// them:
//
//   - of ProbeRacers writes with If-None-Match: * sent at once to one new
//     key, exactly one succeeds, and the object holds its bytes (some
//     stores check the header only when nothing else writes the key);
//   - then Create on the existing object and Update with a stale ETag
//     both fail, and Update with the current ETag succeeds;
//   - when b is a MultipartPutter (its Put completes multipart uploads
//     under the put's precondition, as version uploads and plain copies
//     of large values do), on a second key, beside the checks above:
//     a multipart upload of one tiny part with If-None-Match: * creates
//     it, and then one with If-None-Match: * and one with a stale
//     If-Match both fail at CompleteMultipartUpload;
//   - when b asks the store to encrypt what it writes (an SSEReporter
//     with sse= set), the store reports the first object stored with
//     that encryption; otherwise Probe fails with ErrEncryptionIgnored.
//
// It writes and then deletes those objects under ProbePrefix. A backend
// that fails gets an error matching ErrUnsafeStore that names what the
// store did wrong.
//
// A probe that passed is remembered for b's Location for the life of the
// process, so every writer to one location probes it once; one that
// failed is run again next time. ProbeWith also keeps the verdict
// beyond the process.
func Probe(ctx context.Context, b Backend) error {
	_, err := ProbeWith(ctx, b, nil)
	return err
}

// Verdict says where the verdict that let a write go ahead came from.
type Verdict string

const (
	// VerdictProcess: an earlier probe in this process passed.
	VerdictProcess Verdict = "process"
	// VerdictCached: a verdict cache held one that passed.
	VerdictCached Verdict = "cached"
	// VerdictProbed: the probe ran now and passed.
	VerdictProbed Verdict = "probed"
)

// ProbeWith is Probe with a verdict cache (nil: none): a verdict that
// the cache holds for VerdictKey(b) stands for a probe, and a probe
// that passes is recorded in it, so that the processes of one machine
// (a CLI run from cron, say) probe a location once per the cache's
// lifetime instead of once each. A failed probe drops the cached
// verdict. Errors of the cache itself are not errors of the probe: a
// verdict that cannot be read or recorded costs a probe, nothing more.
// It returns where the verdict came from.
func ProbeWith(ctx context.Context, b Backend, cache VerdictCache) (Verdict, error) {
	v, _ := probes.LoadOrStore(b.Location(), &probeOnce{})
	p := v.(*probeOnce)
	p.mu.Lock()
	defer p.mu.Unlock()
	if cache != nil {
		p.cmu.Lock()
		p.cache = cache
		p.cmu.Unlock()
	}
	if p.passed {
		return VerdictProcess, nil
	}
	key := VerdictKey(b)
	if cache != nil && cache.Passed(key) {
		p.passed = true
		return VerdictCached, nil
	}
	if err := probe(ctx, b, true); err != nil {
		if cache != nil {
			_ = cache.Forget(key)
		}
		return "", err
	}
	p.passed = true
	if cache != nil {
		_ = cache.Pass(key)
	}
	return VerdictProbed, nil
}

// ProbeConditions makes Probe's checks of conditional writes, and not
// its encryption check, every time it is called: for fence doctor, which
// reports the encryption on a line of its own.
func ProbeConditions(ctx context.Context, b Backend) error {
	return probe(ctx, b, false)
}

func probe(ctx context.Context, b Backend, sse bool) error {
	var id [8]byte
	_, _ = rand.Read(id[:])
	key := ProbePrefix + hex.EncodeToString(id[:])
	// The multipart checks take another key, so that they run beside the
	// others without contending for one object (MinIO makes concurrent
	// writers of one key wait for each other).
	multipart := make(chan error, 1)
	go func() { multipart <- probeMultipart(ctx, b, key+"-multipart") }()
	err := probePut(ctx, b, key, sse)
	if merr := <-multipart; err == nil {
		err = merr
	}
	return err
}

// unsafeStore is the error of a probe that found the store ignoring a
// precondition: what it did, on the probe object key.
func unsafeStore(b Backend, key, what string) error {
	return fmt.Errorf("%w: %s (probe object %q at %s). Use %s, or opt out explicitly (SkipProbe / --unsafe-skip-probe) and accept that stale writers will NOT be fenced", ErrUnsafeStore, what, key, b.Location(), ConditionsOf(b).Needed)
}

// probePut makes the checks of single writes on key, and with sse the
// encryption check.
func probePut(ctx context.Context, b Backend, key string, sse bool) error {
	refused := false // every write was refused: there is nothing to delete
	defer func() {
		if !refused {
			b.Delete(context.WithoutCancel(ctx), key)
		}
	}()
	put := func(body string, mode PutMode) (ObjectInfo, error) {
		return b.Put(ctx, key, strings.NewReader(body), int64(len(body)), PutOptions{Mode: mode})
	}
	unsafe := func(what string) error { return unsafeStore(b, key, what) }
	c := ConditionsOf(b)
	first, err := probeRace(ctx, b, key, unsafe)
	if err != nil {
		refused = errors.As(err, new(allRefused))
		return err
	}
	if sse {
		if err := probeSSE(ctx, b, key); err != nil {
			return err
		}
	}
	_, err = put("2", Create{})
	switch {
	case err == nil:
		return unsafe("a write with " + c.Create + " replaced an existing object")
	case errors.Is(err, ErrPermanent):
		return cannotWrite(b, key, err)
	case !errors.Is(err, ErrPreconditionFailed):
		return fmt.Errorf("objstore: capability probe: %s on an existing object: want 412 Precondition Failed, got: %w", c.Create, err)
	}
	_, err = put("3", Update{ETag: staleETag(first.ETag)})
	switch {
	case err == nil:
		return unsafe("a write with a stale " + c.Update + " succeeded")
	case errors.Is(err, ErrPermanent):
		return cannotWrite(b, key, err)
	case !errors.Is(err, ErrPreconditionFailed):
		return fmt.Errorf("objstore: capability probe: stale %s: want 412 Precondition Failed, got: %w", c.Update, err)
	}
	if _, err := put("4", Update{ETag: first.ETag}); errors.Is(err, ErrPermanent) {
		return cannotWrite(b, key, err)
	} else if err != nil {
		return fmt.Errorf("objstore: capability probe: %s with the current %q failed, so no commit could ever succeed: %w", c.Update, first.ETag, err)
	}
	return nil
}

// allRefused is probeRace's error when the store refused every write
// (ErrPermanent): nothing was written.
type allRefused struct{ error }

func (e allRefused) Unwrap() error { return e.error }

// probeRace sends ProbeRacers writes with If-None-Match: * to the new
// key at once and returns the one that succeeded. The losers must fail
// with ErrPreconditionFailed or ErrConflict, and the object must be the
// winner's.
func probeRace(ctx context.Context, b Backend, key string, unsafe func(string) error) (ObjectInfo, error) {
	var (
		wg    sync.WaitGroup
		start = make(chan struct{})
		infos [ProbeRacers]ObjectInfo
		errs  [ProbeRacers]error
	)
	body := func(i int) string { return fmt.Sprintf("racer %d", i) }
	create := ConditionsOf(b).Create
	for i := range ProbeRacers {
		wg.Go(func() {
			<-start
			infos[i], errs[i] = b.Put(ctx, key, strings.NewReader(body(i)), int64(len(body(i))), PutOptions{Mode: Create{}})
		})
	}
	close(start)
	wg.Wait()
	refused := true
	for _, err := range errs {
		refused = refused && errors.Is(err, ErrPermanent)
	}
	if refused {
		// Nothing was written (ErrPermanent says so): no retry, and no
		// delete, can change the answer.
		return ObjectInfo{}, allRefused{cannotWrite(b, key, errs[0])}
	}
	winner, won := -1, 0
	for i, err := range errs {
		switch {
		case err == nil:
			winner, won = i, won+1
		case errors.Is(err, ErrPermanent):
			return ObjectInfo{}, cannotWrite(b, key, err)
		case !errors.Is(err, ErrPreconditionFailed) && !errors.Is(err, ErrConflict):
			return ObjectInfo{}, fmt.Errorf("objstore: capability probe: %d concurrent writes with %s to one new key: want one success and 412 Precondition Failed or 409 ConditionalRequestConflict for the others, got: %w", ProbeRacers, create, err)
		}
	}
	switch {
	case won > 1:
		return ObjectInfo{}, unsafe(fmt.Sprintf("%d of %d concurrent writes with %s to one new key succeeded; exactly one may (the store does not order concurrent conditional writes)", won, ProbeRacers, create))
	case won == 0:
		return ObjectInfo{}, fmt.Errorf("objstore: capability probe: none of %d concurrent writes with %s to a new key %q succeeded (first error: %w)", ProbeRacers, create, key, errs[0])
	}
	rc, info, err := b.Get(ctx, key, GetOptions{})
	if err != nil {
		return ObjectInfo{}, fmt.Errorf("objstore: capability probe: read back %q: %w", key, err)
	}
	got, err := io.ReadAll(io.LimitReader(rc, 64))
	rc.Close()
	if err != nil {
		return ObjectInfo{}, fmt.Errorf("objstore: capability probe: read back %q: %w", key, err)
	}
	if string(got) != body(winner) || info.ETag != infos[winner].ETag {
		return ObjectInfo{}, unsafe(fmt.Sprintf("of %d concurrent writes with %s to one new key, one succeeded but the object holds %q (ETag %s), not its bytes %q (ETag %s): a write that failed replaced it", ProbeRacers, create, got, info.ETag, body(winner), infos[winner].ETag))
	}
	return infos[winner], nil
}

// probeMultipart checks the precondition on CompleteMultipartUpload,
// when b's Put uses multipart uploads, on key: a multipart upload with
// If-None-Match: * creates the new key; then Create, and Update with a
// stale ETag, of the existing object must both fail.
func probeMultipart(ctx context.Context, b Backend, key string) error {
	put := func(body string, mode PutMode) (ObjectInfo, error) {
		return PutMultipart(ctx, b, key, strings.NewReader(body), int64(len(body)), PutOptions{Mode: mode})
	}
	commit := MultipartCommitName(b)
	c := ConditionsOf(b)
	unsafe := func(what string) error {
		return unsafeStore(b, key, what+" (the store ignores the precondition on "+commit+", so large writes would not be fenced)")
	}
	first, err := put("5", Create{})
	switch {
	case errors.Is(err, ErrUnsupported):
		return nil // Put never uses a multipart upload
	case errors.Is(err, ErrPermanent):
		return cannotWrite(b, key, err)
	case err != nil:
		return fmt.Errorf("objstore: capability probe: a multipart upload of a new key %q with %s on %s failed, so no large write could succeed: %w", key, c.Create, commit, err)
	}
	defer b.Delete(context.WithoutCancel(ctx), key)
	_, err = put("6", Create{})
	switch {
	case err == nil:
		return unsafe("a multipart upload whose " + commit + " carried " + c.Create + " replaced an existing object")
	case !errors.Is(err, ErrPreconditionFailed):
		return fmt.Errorf("objstore: capability probe: %s with %s on an existing object: want 412 Precondition Failed, got: %w", commit, c.Create, err)
	}
	_, err = put("7", Update{ETag: staleETag(first.ETag)})
	switch {
	case err == nil:
		return unsafe("a multipart upload whose " + commit + " carried a stale " + c.Update + " succeeded")
	case !errors.Is(err, ErrPreconditionFailed):
		return fmt.Errorf("objstore: capability probe: %s with a stale %s: want 412 Precondition Failed, got: %w", commit, c.Update, err)
	}
	return nil
}

// cannotWrite reports a probe write that the store refused for a reason
// of its own (permission denied, disk full, read-only, ...): the store
// could not be written at all, which says nothing about conditional
// writes.
func cannotWrite(b Backend, key string, err error) error {
	if errors.Is(err, ErrPermanent) {
		return fmt.Errorf("objstore: cannot write to %s (it refused a write of the capability probe's object %q; this is not about conditional writes): %w", b.Location(), key, err)
	}
	return fmt.Errorf("objstore: capability probe: create %q: %w", key, err)
}

// staleETag returns an ETag of the same shape as etag that differs from it.
func staleETag(etag string) string {
	if etag == "" {
		return `"0"`
	}
	b := []byte(etag)
	for i := len(b) - 1; i >= 0; i-- {
		if c := b[i]; c >= '0' && c <= '9' || c >= 'a' && c <= 'f' {
			if c == '0' {
				b[i] = '1'
			} else {
				b[i] = '0'
			}
			return string(b)
		}
	}
	return etag + "0"
}
