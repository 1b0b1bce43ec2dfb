package faults

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/fencedstore/fence/integration/faults/internal/hist"
	"github.com/fencedstore/fence/integration/faults/internal/plain"
)

// A plain copy that went back is judged from the store's own state, not
// only from what a polling reader happened to read: the run's bucket is
// versioned (provision), so the store keeps every write of every plain
// object in the order it applied them, each with the seq its metadata
// names. A copy from an older commit that replaced a newer one stays in
// that record even when a newer copy replaced it again before any
// reader looked.

// copyVersion is one write of a plain object that the store kept.
type copyVersion struct {
	id     string
	seq    uint64
	marker bool // a delete marker: the copy was removed
}

// storeCopies reads, for every key of every domain, the writes of its
// plain object that the versioned bucket kept, oldest first.
func (r *run) storeCopies(ctx context.Context) (map[string][]copyVersion, error) {
	out := map[string][]copyVersion{}
	for _, d := range r.p.domains {
		for _, k := range r.p.keys {
			key := plain.Key(d, k)
			var vs, markers []copyVersion
			in := &s3.ListObjectVersionsInput{Bucket: aws.String(r.bucket), Prefix: aws.String(key)}
			for p := s3.NewListObjectVersionsPaginator(r.s.s3, in); p.HasMorePages(); {
				page, err := p.NextPage(ctx)
				if err != nil {
					return nil, fmt.Errorf("list the versions of %s: %w", key, err)
				}
				for _, v := range page.Versions {
					if aws.ToString(v.Key) != key {
						continue
					}
					head, err := r.s.s3.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(r.bucket), Key: aws.String(key), VersionId: v.VersionId})
					if err != nil {
						return nil, fmt.Errorf("read version %s of %s: %w", aws.ToString(v.VersionId), key, err)
					}
					seq, err := strconv.ParseUint(head.Metadata[plain.MetaSeq], 10, 64)
					if err != nil {
						return nil, fmt.Errorf("version %s of %s: metadata %s=%q: %w", aws.ToString(v.VersionId), key, plain.MetaSeq, head.Metadata[plain.MetaSeq], err)
					}
					vs = append(vs, copyVersion{id: aws.ToString(v.VersionId), seq: seq})
				}
				for _, m := range page.DeleteMarkers {
					if aws.ToString(m.Key) == key {
						markers = append(markers, copyVersion{id: aws.ToString(m.VersionId), marker: true})
					}
				}
			}
			// The store lists a key's versions newest first. Delete
			// markers come in a list of their own; the suite deletes no
			// key, so each is a violation wherever it stands.
			slices.Reverse(vs)
			out[key] = append(vs, markers...)
		}
	}
	return out, nil
}

// checkStoreCopies reports every write of a plain object that took it
// back: a copy whose seq is below the seq of a copy the store had
// applied before it. No commit of the suite deletes a key, so a delete
// marker is a violation too.
func checkStoreCopies(copies map[string][]copyVersion) []violation {
	var vs []violation
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range copies {
			if !yield(k) {
				return
			}
		}
	})
	for _, key := range keys {
		var high copyVersion
		for i, v := range copies[key] {
			switch {
			case v.marker:
				vs = append(vs, violation{"I12", fmt.Sprintf("the store's record of the plain copy %s: write %d is a delete (marker %s), though no commit deleted the key", key, i+1, v.id)})
			case v.seq < high.seq:
				vs = append(vs, violation{"I12", fmt.Sprintf("the store's record of the plain copy %s went back: write %d (version %s) is from seq %d, after the copy from seq %d (version %s) was in place", key, i+1, v.id, v.seq, high.seq, high.id)})
			default:
				high = v
			}
		}
	}
	return vs
}

// stagedCopy is an older copy the suite let a paused writer send after
// it had seen a newer commit's copy of the key in place.
type stagedCopy struct {
	client, domain, key string
	seq                 uint64 // the seq of the paused writer's copy
	resumed             int64  // when the suite resumed the writer
}

// stagedOutcome counts, from the writers' copy logs, the staged older
// copies whose write was sent once their writer was resumed, and those
// the store accepted.
func stagedOutcome(h *history, staged []stagedCopy) (sent, applied int) {
	for _, s := range staged {
		was, ok := false, false
		for _, p := range h.plainPuts {
			if p.Client == s.client && p.In.Domain == s.domain && p.In.Key == s.key && p.Out.Seq == s.seq && p.Return > s.resumed {
				was = true
				ok = ok || p.Outcome == hist.OK
			}
		}
		if was {
			sent++
		}
		if ok {
			applied++
		}
	}
	return sent, applied
}
