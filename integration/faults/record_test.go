package faults

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"golang.org/x/sync/errgroup"

	"github.com/fencedstore/fence/internal/format"
)

// The store's own record of a domain: every version of its manifest
// (the bucket keeps versions, so each manifest write that ever applied is
// there, across server restarts and including any a broken writer
// overwrote), and every object version under its version prefix.

// manifestWrite is one applied manifest write.
type manifestWrite struct {
	versionID string
	modified  time.Time        // the server's time of the write (ms)
	m         *format.Manifest // nil when it does not decode
	err       error
	// commits are the commits the write applied (indexes into
	// domainRecord.commits), oldest first: one, or with group commit
	// (objstore/group.go) several, each with its own log entry and seq.
	commits []int
}

// appliedCommit is one commit in the store's record: the log entry a
// manifest write added for it.
type appliedCommit struct {
	e     format.LogEntry
	write int // the index in writes of the manifest write that applied it
	// before is the domain's highest token just before the commit: that
	// of the manifest before its write, raised by the commits its write
	// applied before it.
	before uint64
}

type domainRecord struct {
	domain string
	writes []manifestWrite // in write order, oldest first
	// commits are the commits the writes applied, in write order and, in
	// a write, in log order (see index).
	commits []appliedCommit
	// versions counts the object versions of each version object key;
	// write-once means exactly one each.
	versions map[string]int
	// versionTimes holds the server's time of each object version of
	// each version object key.
	versionTimes map[string][]time.Time
	// deleted maps every version object that was deleted (it has a
	// delete marker: the bucket keeps versions) to the server's time of
	// its first delete marker.
	deleted map[string]time.Time
	// byID maps a commit id to the index in commits of the commit it
	// names; byAttempt maps the attempt id that landed (the suffix of the
	// version objects that commit published) the same way. They differ
	// for a commit that landed on a retry.
	byID      map[string]int
	byAttempt map[string]int
	// byStaged maps each staged version object a manifest names to the
	// commit that published it (indexStaged, staged_record_test.go).
	byStaged map[string]int
}

// attemptOf returns the suffix of the objects that the landed attempt of
// log entry e wrote.
func attemptOf(e format.LogEntry) string {
	if e.Attempt != "" {
		return e.Attempt
	}
	return e.ID
}

// prevHighest returns the highest token of the manifest written before
// writes[i] (0 for the first).
func (d *domainRecord) prevHighest(i int) uint64 {
	for j := i - 1; j >= 0; j-- {
		if d.writes[j].m != nil {
			return d.writes[j].m.Highest
		}
	}
	return 0
}

// last returns the latest decodable manifest, or nil.
func (d *domainRecord) last() *format.Manifest {
	for i := len(d.writes) - 1; i >= 0; i-- {
		if d.writes[i].m != nil {
			return d.writes[i].m
		}
	}
	return nil
}

// entry returns the commit whose landed attempt wrote the objects with
// suffix attempt.
func (d *domainRecord) entry(attempt string) (appliedCommit, bool) {
	i, ok := d.byAttempt[attempt]
	if !ok {
		return appliedCommit{}, false
	}
	return d.commits[i], true
}

// attempts returns the attempt ids of the commits writes[i] applied.
func (d *domainRecord) attempts(i int) map[string]bool {
	out := map[string]bool{}
	for _, c := range d.writes[i].commits {
		out[attemptOf(d.commits[c].e)] = true
	}
	return out
}

// findHolder returns the commits (indexes into commits) that recorded
// holder (and token, when token is not 0).
func (d *domainRecord) findHolder(holder string, token uint64) []int {
	var out []int
	for i, c := range d.commits {
		if c.e.Holder == holder && (token == 0 || c.e.Token == token) {
			out = append(out, i)
		}
	}
	return out
}

func newDomainRecord(domain string) *domainRecord {
	return &domainRecord{domain: domain, versions: map[string]int{}, deleted: map[string]time.Time{}, versionTimes: map[string][]time.Time{}, byID: map[string]int{}, byAttempt: map[string]int{}}
}

// index finds the commits each write applied, and fills commits, byID
// and byAttempt. A write applied the entries at the end of its log that
// come after the last entry (by commit id and seq) that an earlier write
// in the record already had: the manifest it was written on top of is in
// the record, and its log holds that manifest's entries. For a write on
// top of the one before it those are the entries above that one's seq:
// one, or several when the store merged concurrent commits into one
// write (group commit). A write on top of an older manifest (an
// overwrite, which I4 reports) applied only its own; a commit applied
// again by another write, at another seq, counts again (I11).
func (d *domainRecord) index() {
	type idSeq struct {
		id  string
		seq uint64
	}
	seen := map[idSeq]bool{}
	d.commits = nil
	for i := range d.writes {
		w := &d.writes[i]
		w.commits = nil
		if w.m == nil {
			continue
		}
		log := w.m.Log
		if n := len(log); n == 0 || log[n-1].ID != w.m.Last.ID || log[n-1].Seq != w.m.Last.Seq {
			// A log that does not end with the write's own last commit:
			// count that one as the write's.
			log = append(slices.Clip(log), w.m.Last)
		}
		start := 0
		for j := len(log) - 1; j >= 0; j-- {
			if seen[idSeq{log[j].ID, log[j].Seq}] {
				start = j + 1
				break
			}
		}
		before := d.prevHighest(i)
		for _, e := range log[start:] {
			c := len(d.commits)
			d.commits = append(d.commits, appliedCommit{e: e, write: i, before: before})
			w.commits = append(w.commits, c)
			d.byID[e.ID] = c
			d.byAttempt[attemptOf(e)] = c
			before = max(before, e.Token)
		}
		for _, e := range log {
			seen[idSeq{e.ID, e.Seq}] = true
		}
	}
	d.indexStaged()
}

// readS3Record lists and reads domain's record from a versioned S3
// bucket.
func readS3Record(ctx context.Context, c *s3.Client, bucket, domain string) (*domainRecord, error) {
	d := newDomainRecord(domain)
	mkey := format.ManifestKey(domain)
	type mv struct {
		id  string
		mod time.Time
	}
	var ids []mv
	p := s3.NewListObjectVersionsPaginator(c, &s3.ListObjectVersionsInput{Bucket: aws.String(bucket), Prefix: aws.String(domain + "/_fence/")})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("list versions of %s: %w", domain, err)
		}
		for _, v := range page.Versions {
			k := aws.ToString(v.Key)
			switch {
			case k == mkey:
				ids = append(ids, mv{aws.ToString(v.VersionId), aws.ToTime(v.LastModified)})
			case dataObject(domain, k):
				d.versions[k]++
				d.versionTimes[k] = append(d.versionTimes[k], aws.ToTime(v.LastModified))
			}
		}
		for _, m := range page.DeleteMarkers {
			// Only version objects and packs: the manifest is deleted by
			// I7 and overwritten by a forgetful store, and lease records
			// by the coordinator-wipe kind; the checks look at those
			// apart.
			if k := aws.ToString(m.Key); dataObject(domain, k) {
				t := aws.ToTime(m.LastModified)
				if old, ok := d.deleted[k]; !ok || t.Before(old) {
					d.deleted[k] = t
				}
			}
		}
	}
	// Listed newest first: reverse into write order.
	slices.Reverse(ids)
	d.writes = make([]manifestWrite, len(ids))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	var mu sync.Mutex
	for i, v := range ids {
		id := v.id
		g.Go(func() error {
			out, err := c.GetObject(gctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(mkey), VersionId: aws.String(id)})
			if err != nil {
				return fmt.Errorf("get %s version %s: %w", mkey, id, err)
			}
			data, err := io.ReadAll(out.Body)
			out.Body.Close()
			if err != nil {
				return err
			}
			m, derr := format.Decode(domain, mkey, data)
			mu.Lock()
			d.writes[i] = manifestWrite{versionID: id, modified: v.mod, m: m, err: derr}
			mu.Unlock()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	d.index()
	return d, nil
}
