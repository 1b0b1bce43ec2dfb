package config

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/fencedstore/fence"
	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/coord/bucketlease"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/policy"
)

// Status is the outcome of one Doctor check.
type Status string

// Check outcomes.
const (
	StatusOK   Status = "ok"
	StatusFail Status = "fail"
	// StatusSkip: not run, because an earlier check it depends on failed.
	StatusSkip Status = "skip"
	// StatusWarn: fence works, but something it recommends is missing.
	// It does not make Doctor's report a failure.
	StatusWarn Status = "warn"
)

// Check is one line of Doctor's report.
type Check struct {
	Name   string `json:"name"`
	Status Status `json:"status"`
	// Detail is what was checked (for ok) or what went wrong (for fail
	// and skip). It never holds credentials.
	Detail string `json:"detail,omitempty"`
}

// Defaults of DoctorOptions.
const (
	DefaultDoctorTTL     = 5 * time.Second
	DefaultDoctorTimeout = 30 * time.Second
)

// DoctorOptions tunes Doctor. nil or zero fields mean defaults.
type DoctorOptions struct {
	// Domain is the scratch domain of the test acquisition. Default
	// "fence-doctor/<hostname>". Use a domain that no application uses:
	// Doctor acquires its lease and fences it.
	Domain string
	// TTL is the test lease's duration. Default DefaultDoctorTTL.
	TTL time.Duration
	// SkipProbe runs the test acquisition even when the store fails the
	// conditional-write check (which still runs and fails), as
	// objstore.Options.SkipProbe does for writes.
	SkipProbe bool
	// ProbeCache, when set, forgets the verdict on a store that fails
	// the conditional-write check, so that no process trusts it after
	// Doctor saw it fail.
	ProbeCache driver.VerdictCache
	// Timeout bounds each check. Default DefaultDoctorTimeout.
	Timeout time.Duration
	// OnCheck, when set, is called with each check as it completes.
	OnCheck func(Check)
}

// Doctor checks that the store and the coordinator work, and returns one
// Check per line of its report, in order:
//
//   - store reachable: the server (or the file system) answers;
//   - bucket exists (directory exists for file://);
//   - server-side encryption, when the URL sets sse=: an object written
//     with it is reported stored with it (see checkSSE);
//   - conditional writes honoured: driver.Probe, which writes and then
//     deletes one object under "_fence/probe/";
//   - coordinator reachable; for a dynamodb:// coordinator, table exists
//     with the right schema (dynamocoord's CheckTable: key, ACTIVE, no
//     TTL); for a store URL as the coordinator, the bucket and
//     conditional-write checks again, on that store;
//   - test acquisition and release: fence.Acquire on the scratch domain
//     (which fences it at the store), then Release.
//
// A check whose prerequisite failed is reported as skipped. Doctor
// creates nothing that Init would (a missing directory stays missing).
// It fails only for a bad URL or option (ErrBadURL, objstore.ErrInvalid);
// failed checks are in the report.
func Doctor(ctx context.Context, storeURL, coordURL string, opts *DoctorOptions) ([]Check, error) {
	locs, err := parsePair(storeURL, coordURL)
	if err != nil {
		return nil, err
	}
	d := &doctor{open: open}
	if opts != nil {
		d.opts = *opts
	}
	if d.opts.Domain == "" {
		d.opts.Domain = defaultDoctorDomain()
	}
	if err := objstore.ValidateDomain(d.opts.Domain); err != nil {
		return nil, fmt.Errorf("config: doctor: %w", err)
	}
	if d.opts.TTL <= 0 {
		d.opts.TTL = DefaultDoctorTTL
	}
	if d.opts.Timeout <= 0 {
		d.opts.Timeout = DefaultDoctorTimeout
	}
	var coordLoc *Location
	if len(locs) > 1 {
		coordLoc = &locs[1]
	}
	d.run(ctx, locs[0], coordLoc)
	return d.checks, nil
}

// doctor runs Doctor's checks and collects them.
type doctor struct {
	opts   DoctorOptions
	checks []Check
	// open opens a backend; tests replace it.
	open func(context.Context, Location) (driver.Backend, error)
}

func (d *doctor) add(name string, st Status, format string, args ...any) {
	// One line per check: an SDK's error in its one-line form
	// (driver.Brief).
	brief := make([]any, len(args))
	for i, a := range args {
		brief[i] = a
		if err, ok := a.(error); ok {
			brief[i] = driver.Brief(err)
		}
	}
	c := Check{Name: name, Status: st, Detail: fmt.Sprintf(format, brief...)}
	if st == StatusFail {
		// A refused key or signature says which settings to check.
		for _, a := range args {
			if err, ok := a.(error); ok {
				c.Detail += credentialHint(err)
				break
			}
		}
	}
	d.checks = append(d.checks, c)
	if d.opts.OnCheck != nil {
		d.opts.OnCheck(c)
	}
}

// timeout returns a context for one check.
func (d *doctor) timeout(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, d.opts.Timeout)
}

func (d *doctor) run(ctx context.Context, storeLoc Location, coordLoc *Location) {
	store := d.checkStore(ctx, storeLoc, false)
	if store != nil {
		defer store.Close()
	}
	var c *coord.Coordinator
	switch {
	case coordLoc == nil && store != nil:
		d.add("coordinator reachable", StatusOK, "lease records kept in the store")
		c = coord.New(bucketlease.New(store, &bucketlease.Options{SkipProbe: d.opts.SkipProbe}))
	case coordLoc == nil:
		d.add("coordinator reachable", StatusSkip, "lease records are kept in the store, which is not usable")
	case coordLoc.Scheme == "dynamodb":
		c = d.checkTable(ctx, *coordLoc)
	default:
		if lb := d.checkStore(ctx, *coordLoc, true); lb != nil {
			defer lb.Close()
			c = coord.New(bucketlease.New(lb, &bucketlease.Options{SkipProbe: d.opts.SkipProbe}))
		}
	}
	const name = "test acquisition and release"
	switch {
	case store == nil:
		d.add(name, StatusSkip, "the store is not usable")
	case c == nil:
		d.add(name, StatusSkip, "the coordinator is not usable")
	default:
		d.acquire(ctx, name, store, c)
	}
}

// checkStore runs the reachable, exists and conditional-write checks on
// the store loc names, and returns its backend when fence can use it.
func (d *doctor) checkStore(ctx context.Context, loc Location, lease bool) driver.Backend {
	names := [3]string{"store reachable", "%s exists", "conditional writes honoured"}
	if lease {
		names = [3]string{"coordinator reachable", "lease %s exists", "conditional writes honoured by the lease store"}
	}
	cctx, cancel := d.timeout(ctx)
	defer cancel()
	r, err := newResource(cctx, loc)
	if err != nil {
		d.add(names[0], StatusFail, "%s: %v", loc.String(), err)
		d.add(fmt.Sprintf(names[1], kindOf(loc.Scheme)), StatusSkip, "not reachable")
		d.add(names[2], StatusSkip, "not reachable")
		return nil
	}
	existsName := fmt.Sprintf(names[1], r.kind)
	where := r.location
	if r.store != "" {
		where = r.store
	}
	exists, err := r.exists(cctx)
	switch {
	case err != nil && loc.Scheme != "file" && !r.answered(err):
		d.add(names[0], StatusFail, "%s: %v", where, err)
		d.add(existsName, StatusSkip, "not reachable")
		d.add(names[2], StatusSkip, "not reachable")
		return nil
	case err != nil:
		d.add(names[0], StatusOK, "%s", where)
		d.add(existsName, StatusFail, "%s %q: %v", r.kind, r.name, err)
		d.add(names[2], StatusSkip, "the %s check failed", r.kind)
		return nil
	case !exists:
		d.add(names[0], StatusOK, "%s", where)
		d.add(existsName, StatusFail, "%s %q does not exist; create it with `fence init`", r.kind, r.name)
		d.add(names[2], StatusSkip, "no %s", r.kind)
		return nil
	}
	d.add(names[0], StatusOK, "%s", where)
	d.add(existsName, StatusOK, "%s", r.name)
	b, err := d.open(cctx, loc)
	if err != nil {
		d.add(names[2], StatusFail, "open %s: %v", r.location, err)
		return nil
	}
	sseName := "server-side encryption"
	if lease {
		sseName += " of the lease store"
	}
	if !d.checkSSE(cctx, sseName, b) {
		d.add(names[2], StatusSkip, "the store refuses the writes the URL's sse= asks for")
		if !d.opts.SkipProbe {
			b.Close()
			return nil
		}
		return b
	}
	err = driver.ProbeConditions(cctx, b)
	if d.opts.ProbeCache != nil {
		// The checks of a probe, encryption's included (above), ran
		// now: their verdict replaces a cached one.
		if err != nil {
			_ = d.opts.ProbeCache.Forget(driver.VerdictKey(b))
		} else {
			_ = d.opts.ProbeCache.Pass(driver.VerdictKey(b))
		}
	}
	if err != nil {
		if errors.Is(err, driver.ErrPermanent) {
			// Refused outright (permission, a full disk, read-only):
			// nothing is known about conditional writes yet.
			d.add(strings.TrimSuffix(names[0], " reachable")+" writable", StatusFail, "%v", err)
			d.add(names[2], StatusSkip, "cannot write")
		} else {
			d.add(names[2], StatusFail, "%v", err)
		}
		if !d.opts.SkipProbe {
			b.Close()
			return nil
		}
		return b
	}
	c := driver.ConditionsOf(b)
	d.add(names[2], StatusOK, "one of 4 concurrent %s creates won; %s and a stale %s were refused%s, a current %s accepted", c.Create, c.Create, c.Update, multipartNote(b), c.Update)
	if !lease {
		d.checkPolicy(cctx, b)
	}
	return b
}

// multipartNote says where else the probe checked the conditions: on
// the request that completes a multipart upload (S3's
// CompleteMultipartUpload, Azure's Put Block List), for backends that
// make them.
func multipartNote(b driver.Backend) string {
	if _, ok := b.(driver.MultipartPutter); !ok {
		return ""
	}
	return " (also on " + driver.MultipartCommitName(b) + ")"
}

// checkSSE, when the URL sets sse=, writes one object under the probe's
// prefix, reads back the server-side encryption the store reports for
// it, and deletes it. It fails when the store refused the write (MinIO
// without a KMS), and when it accepted it but reports the object stored
// without the encryption asked for (versitygw's POSIX backend stores it
// in plaintext). It returns false only when the store refused the write,
// which the capability probe's writes would meet as well.
func (d *doctor) checkSSE(ctx context.Context, name string, b driver.Backend) bool {
	want, wantKey := driver.SSEOf(b)
	if want == "" {
		return true
	}
	asked := driver.SSEAsked(want, wantKey)
	key := fmt.Sprintf("%ssse-%d-%s", driver.ProbePrefix, os.Getpid(), rand.Text())
	// Unconditional, so that a refusal is about the encryption alone.
	const body = "fence doctor: server-side encryption"
	if _, err := b.Put(ctx, key, strings.NewReader(body), int64(len(body)), driver.PutOptions{}); err != nil {
		d.add(name, StatusFail, "the store refused a write with %s, which the URL's sse= asks for: %v", asked, err)
		return false
	}
	defer b.Delete(context.WithoutCancel(ctx), key)
	got, gotKey, err := driver.StoredSSE(ctx, b, key)
	if err != nil {
		d.add(name, StatusFail, "cannot read back the encryption of %q: %v", key, err)
	} else if what := driver.SSEMismatch(key, want, wantKey, got, gotKey); what != "" {
		d.add(name, StatusFail, "%s", what)
	} else {
		d.add(name, StatusOK, "a probe object written with %s is reported stored with %s", asked, got)
	}
	return true
}

// checkPolicy reports whether an S3 bucket's policy requires fence's
// conditional writes (package policy): a warning, not a failure, when it
// does not.
func (d *doctor) checkPolicy(ctx context.Context, b driver.Backend) {
	const name = "bucket policy requires conditional writes"
	s3b, ok := b.(policyBucket)
	if !ok {
		if strings.HasPrefix(b.Location(), "minio://") || strings.HasPrefix(b.Location(), "s3://") {
			d.add(name, StatusSkip, "checked for s3:// stores only")
		}
		return
	}
	raw, err := s3b.BucketPolicy(ctx)
	if err != nil {
		d.add(name, StatusWarn, "cannot read the bucket policy: %v", err)
		return
	}
	if err := policy.Check(raw, policy.Bucket("", s3b.Bucket(), s3b.Prefix())); err != nil {
		d.add(name, StatusWarn, "not in force, so a client with write access can still overwrite a manifest without a condition; on AWS S3, `fence policy --apply` adds fence's statements (%v)", err)
		return
	}
	d.add(name, StatusOK, "S3 refuses unconditional writes to fence's objects under %s", s3b.Location())
}

// checkTable runs the coordinator checks of a dynamodb:// URL and returns
// the coordinator when its table is usable.
func (d *doctor) checkTable(ctx context.Context, loc Location) *coord.Coordinator {
	const reach, table = "coordinator reachable", "table exists with the right schema"
	cctx, cancel := d.timeout(ctx)
	defer cancel()
	r, err := newResource(cctx, loc)
	if err != nil {
		d.add(reach, StatusFail, "%s: %v", loc.String(), err)
		d.add(table, StatusSkip, "not reachable")
		return nil
	}
	// A consistent read of the scratch domain's item: any answer from
	// the server, even "no such table", shows it is reachable.
	c := coord.New(r.table.Driver())
	if _, err := c.State(cctx, d.opts.Domain); err != nil && !r.answered(err) {
		d.add(reach, StatusFail, "%s: %v", r.location, err)
		d.add(table, StatusSkip, "not reachable")
		return nil
	}
	d.add(reach, StatusOK, "%s", r.location)
	if err := r.table.Check(cctx); err != nil {
		d.add(table, StatusFail, "%v", err)
		return nil
	}
	d.add(table, StatusOK, "%s: partition key \"domain\" (S), ACTIVE, no TTL", r.name)
	return c
}

// acquire takes the scratch domain's lease, fencing the domain, and
// releases it.
func (d *doctor) acquire(ctx context.Context, name string, b driver.Backend, c *coord.Coordinator) {
	holder := fmt.Sprintf("fence-doctor@%s/%d", hostname(), os.Getpid())
	store := objstore.New(b, &objstore.Options{Holder: holder, SkipProbe: d.opts.SkipProbe})
	cctx, cancel := d.timeout(ctx)
	defer cancel()
	// Wait: another doctor on this host may hold the scratch lease.
	sess, err := fence.Acquire(cctx, store, c, d.opts.Domain, &fence.AcquireOptions{Holder: holder, TTL: d.opts.TTL, Wait: true})
	if err != nil {
		d.add(name, StatusFail, "domain %q: %v", d.opts.Domain, err)
		return
	}
	l := sess.Lease()
	if err := sess.Release(cctx); err != nil {
		d.add(name, StatusFail, "domain %q: acquired token %d, then release failed: %v", d.opts.Domain, l.Token, err)
		return
	}
	d.add(name, StatusOK, "domain %q, token %d, released", d.opts.Domain, l.Token)
}

// defaultDoctorDomain is "fence-doctor/<hostname>".
func defaultDoctorDomain() string {
	domain := "fence-doctor/" + hostname()
	if objstore.ValidateDomain(domain) != nil {
		return "fence-doctor/host"
	}
	return domain
}

// hostname returns this machine's name, reduced to letters, digits, '.',
// '-' and '_'.
func hostname() string {
	h, _ := os.Hostname()
	h = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_' {
			return r
		}
		return '-'
	}, h)
	if h == "" {
		return "localhost"
	}
	return h
}
