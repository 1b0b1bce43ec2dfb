package faults

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"golang.org/x/sync/errgroup"

	"github.com/fencedstore/fence/objstore"
)

// The store's own record of a domain: every version of its manifest
// (the bucket keeps versions, so each manifest write that ever applied is
// there, across server restarts and including any a broken writer
// overwrote), and every object version under its version prefix.

// manifestWrite is one applied manifest write.
type manifestWrite struct {
	versionID string
	m         *objstore.Manifest // nil when it does not decode
	err       error
}

type domainRecord struct {
	domain string
	writes []manifestWrite // in write order, oldest first
	// versions counts the object versions of each version object key;
	// write-once means exactly one each.
	versions      map[string]int
	deleteMarkers []string
	// byID maps a commit id to the index in writes of the manifest write
	// it made.
	byID map[string]int
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
func (d *domainRecord) last() *objstore.Manifest {
	for i := len(d.writes) - 1; i >= 0; i-- {
		if d.writes[i].m != nil {
			return d.writes[i].m
		}
	}
	return nil
}

// entry returns the log entry of the manifest write made by commit id.
func (d *domainRecord) entry(id string) (objstore.LogEntry, int, bool) {
	i, ok := d.byID[id]
	if !ok {
		return objstore.LogEntry{}, 0, false
	}
	return d.writes[i].m.Last, i, true
}

// findHolder returns the manifest writes whose commit recorded holder
// (and token, when token is not 0).
func (d *domainRecord) findHolder(holder string, token uint64) []int {
	var out []int
	for i, w := range d.writes {
		if w.m != nil && w.m.Last.Holder == holder && (token == 0 || w.m.Last.Token == token) {
			out = append(out, i)
		}
	}
	return out
}

// readRecord lists and reads domain's record from bucket.
func readRecord(ctx context.Context, c *s3.Client, bucket, domain string) (*domainRecord, error) {
	d := &domainRecord{domain: domain, versions: map[string]int{}, byID: map[string]int{}}
	mkey := objstore.ManifestKey(domain)
	var ids []string
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
				ids = append(ids, aws.ToString(v.VersionId))
			case strings.HasPrefix(k, objstore.VersionPrefix(domain)):
				d.versions[k]++
			}
		}
		for _, m := range page.DeleteMarkers {
			if k := aws.ToString(m.Key); k != mkey {
				d.deleteMarkers = append(d.deleteMarkers, k)
			}
		}
	}
	// Listed newest first: reverse into write order.
	slices.Reverse(ids)
	d.writes = make([]manifestWrite, len(ids))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	var mu sync.Mutex
	for i, id := range ids {
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
			m, derr := objstore.DecodeManifest(domain, mkey, data)
			mu.Lock()
			d.writes[i] = manifestWrite{versionID: id, m: m, err: derr}
			mu.Unlock()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	for i, w := range d.writes {
		if w.m != nil {
			d.byID[w.m.Last.ID] = i
		}
	}
	return d, nil
}
