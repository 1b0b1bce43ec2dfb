package faults

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"cloud.google.com/go/storage"
	"golang.org/x/sync/errgroup"
	"google.golang.org/api/iterator"

	"github.com/fencedstore/fence/integration/faults/internal/spec"
	"github.com/fencedstore/fence/internal/format"
)

// The store's own record on the emulators of the other clouds.
//
// fake-gcs-server keeps every generation of an object in a bucket with
// versioning on, as GCS does: a generation replaced by a write, or
// deleted, stays listable with the time it stopped being live
// (timeDeleted). That is the record, read the way readS3Record reads a
// versioned S3 bucket.
//
// Azurite keeps no versions (3.37.0 has no blob versioning), so there
// the record is the fault proxy's wire record (spec.WireWrite): every
// write of a manifest or version object, and every delete, that went
// through the proxy, with Azurite's answer, in the order Azurite applied
// them. Every client of the run reaches Azurite through the proxy, the
// suite's own reads and writes included (the direct route), and the
// record is checked against the store at the end: its last manifest
// write of each domain must carry the ETag the manifest has.

// readGCSRecord lists and reads domain's record from a bucket with
// versioning on.
func readGCSRecord(ctx context.Context, bk *storage.BucketHandle, domain string) (*domainRecord, error) {
	d := newDomainRecord(domain)
	mkey := format.ManifestKey(domain)
	var manifests []*storage.ObjectAttrs
	gens := map[string][]*storage.ObjectAttrs{}
	it := bk.Objects(ctx, &storage.Query{Prefix: domain + "/_fence/", Versions: true})
	for {
		a, err := it.Next()
		if errors.Is(err, iterator.Done) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("list generations of %s: %w", domain, err)
		}
		switch {
		case a.Name == mkey:
			manifests = append(manifests, a)
		case dataObject(domain, a.Name):
			gens[a.Name] = append(gens[a.Name], a)
		}
	}
	for k, gs := range gens {
		d.addGenerations(k, gs)
	}
	slices.SortFunc(manifests, byGeneration)
	d.writes = make([]manifestWrite, len(manifests))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	var mu sync.Mutex
	for i, a := range manifests {
		g.Go(func() error {
			rd, err := bk.Object(mkey).Generation(a.Generation).NewReader(gctx)
			if err != nil {
				return fmt.Errorf("get %s generation %d: %w", mkey, a.Generation, err)
			}
			data, err := io.ReadAll(rd)
			rd.Close()
			if err != nil {
				return err
			}
			m, derr := format.Decode(domain, mkey, data)
			mu.Lock()
			d.writes[i] = manifestWrite{versionID: strconv.FormatInt(a.Generation, 10), modified: a.Created, m: m, err: derr}
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

func byGeneration(a, b *storage.ObjectAttrs) int { return compareInt64(a.Generation, b.Generation) }

// addGenerations records the generations gs of version object key: each
// is a write, at its creation; one that stopped being live before the
// next was written (or with none after it) was deleted, at its time of
// deletion. A generation that the next one replaced stops being live
// when that one is written, no earlier than its creation: that is not a
// deletion.
func (d *domainRecord) addGenerations(key string, gs []*storage.ObjectAttrs) {
	gs = slices.SortedFunc(slices.Values(gs), byGeneration)
	d.versions[key] = len(gs)
	for i, g := range gs {
		d.versionTimes[key] = append(d.versionTimes[key], g.Created)
		if !g.Deleted.IsZero() && (i == len(gs)-1 || g.Deleted.Before(gs[i+1].Created)) {
			if old, ok := d.deleted[key]; !ok || g.Deleted.Before(old) {
				d.deleted[key] = g.Deleted
			}
		}
	}
}

func compareInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// loadWire reads the wire record at path, ordered by At.
func loadWire(path string) ([]spec.WireWrite, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil // nothing was written
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []spec.WireWrite
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var w spec.WireWrite
		if err := json.Unmarshal(sc.Bytes(), &w); err != nil {
			return nil, fmt.Errorf("wire record %s: %w", path, err)
		}
		out = append(out, w)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	slices.SortStableFunc(out, func(a, b spec.WireWrite) int { return compareInt64(a.At, b.At) })
	return out, nil
}

// wireRecordOf builds domain's record from the wire record's lines
// (ordered by At) whose path starts with prefix (/ACCOUNT/CONTAINER/).
// A write whose answer the proxy never got, a manifest deleted, or one
// committed as a block list (whose body the record does not hold) makes
// the record unusable, and is an error.
func wireRecordOf(lines []spec.WireWrite, prefix, domain string) (*domainRecord, error) {
	d := newDomainRecord(domain)
	mkey := format.ManifestKey(domain)
	for _, w := range lines {
		key, ok := strings.CutPrefix(w.Path, prefix)
		if !ok {
			continue
		}
		manifest, version := key == mkey, dataObject(domain, key)
		if !manifest && !version {
			continue
		}
		switch {
		case w.Status == 0:
			return nil, fmt.Errorf("the wire record is incomplete: %s %s (route %s) got no answer from the server (%s), so whether it applied is unknown", w.Method, key, w.Route, w.Err)
		case w.Status/100 != 2:
			continue // refused: it did not apply
		}
		at := time.Unix(0, w.At)
		switch {
		case manifest && w.Method == http.MethodDelete:
			return nil, fmt.Errorf("the wire record has a delete of %s (route %s): nothing in a run deletes a manifest before its record is read", key, w.Route)
		case manifest && w.Comp != "":
			return nil, fmt.Errorf("the wire record has a write of %s as a block list (route %s), whose body it does not hold", key, w.Route)
		case manifest:
			m, err := format.Decode(domain, mkey, w.Body)
			d.writes = append(d.writes, manifestWrite{versionID: w.ETag, modified: at, m: m, err: err})
		case w.Method == http.MethodDelete:
			if old, ok := d.deleted[key]; !ok || at.Before(old) {
				d.deleted[key] = at
			}
		default:
			d.versions[key]++
			d.versionTimes[key] = append(d.versionTimes[key], at)
		}
	}
	d.index()
	return d, nil
}

// sameETag reports whether two ETags name the same object version,
// quoted or not.
func sameETag(a, b string) bool { return strings.Trim(a, `"`) == strings.Trim(b, `"`) }
