package s3gw_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/s3gw"
)

// modelPage is one page of a listing as S3 defines it, from every key
// the bucket holds (sorted): keys with prefix after the position after,
// those with delim after the prefix rolled up into common prefixes, at
// most max entries; when after is a common prefix, its keys are past.
func modelPage(all []string, prefix, delim, after string, max int) (keys, prefixes []string, next string, truncated bool) {
	n := 0
	last := ""
	for i := 0; i < len(all); i++ {
		k := all[i]
		if k <= after || !strings.HasPrefix(k, prefix) {
			continue
		}
		if after != "" && delim != "" && strings.HasSuffix(after, delim) && strings.HasPrefix(k, after) {
			continue
		}
		item, isPrefix := k, false
		if delim != "" {
			if j := strings.Index(k[len(prefix):], delim); j >= 0 {
				item, isPrefix = k[:len(prefix)+j+len(delim)], true
			}
		}
		if n == max {
			truncated = true
			break
		}
		n++
		last = item
		if isPrefix {
			prefixes = append(prefixes, item)
			for i+1 < len(all) && strings.HasPrefix(all[i+1], item) {
				i++
			}
			continue
		}
		keys = append(keys, k)
	}
	if truncated {
		next = last
	}
	return keys, prefixes, next, truncated
}

// TestListAgainstModel pages ListObjectsV2 through random domains, the
// committed keys read 3 at a time (s3gw's chunks) with staged puts and
// deletes over them, for random prefixes, delimiters, start-after keys
// and page sizes, and checks every page against S3's definition
// (modelPage) over the keys the job sees.
func TestListAgainstModel(t *testing.T) {
	defer s3gw.SetListChunk(3)()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "b", "/", "a/", "b/c", "é"}
	randKey := func() string {
		var b strings.Builder
		for range 1 + rng.IntN(4) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	pfx := testDomain + "/"
	for round := range 12 {
		t.Run(fmt.Sprint(round), func(t *testing.T) {
			e := newEnv(t, s3gw.CommitAtEnd, false)
			c := e.client(testSecret, nil)
			seen := map[string]bool{}
			var changes []objstore.Change
			for range rng.IntN(40) {
				k := randKey()
				if objstore.ValidateKey(k) == nil && !seen[k] {
					seen[k] = true
					changes = append(changes, objstore.PutBytes(k, []byte("c")))
				}
			}
			if len(changes) > 0 {
				if _, err := e.store.Commit(ctx, testDomain, testToken, changes, nil); err != nil {
					t.Fatal(err)
				}
			}
			for range rng.IntN(15) {
				k := randKey()
				if objstore.ValidateKey(k) != nil {
					continue
				}
				if rng.IntN(3) == 0 {
					if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(testBucket), Key: aws.String(pfx + k)}); err != nil {
						t.Fatal(err)
					}
					delete(seen, k)
					continue
				}
				if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(testBucket), Key: aws.String(pfx + k), Body: strings.NewReader("s")}); err != nil {
					t.Fatal(err)
				}
				seen[k] = true
			}
			var all []string
			for k := range seen {
				all = append(all, pfx+k)
			}
			slices.Sort(all)
			for q := range 20 {
				prefix := []string{"", "reports/", pfx, pfx + "a", pfx + "a/", pfx + "b/c", "zz"}[rng.IntN(7)]
				delim := []string{"", "/", "a", "c"}[rng.IntN(4)]
				after := ""
				if rng.IntN(2) == 0 {
					after = []string{"reports/", pfx, "reports/daily/a", pfx + "a/", pfx + randKey(), "zzz"}[rng.IntN(6)]
				}
				max := 1 + rng.IntN(5)
				var got, want []string
				token := ""
				for pages := 0; ; pages++ {
					if pages > len(all)+2 {
						t.Fatalf("query %d: still paging after %d pages", q, pages)
					}
					in := &s3.ListObjectsV2Input{Bucket: aws.String(testBucket), Prefix: aws.String(prefix), Delimiter: aws.String(delim), MaxKeys: aws.Int32(int32(max))}
					if token != "" {
						in.ContinuationToken = aws.String(token)
					} else if after != "" {
						in.StartAfter = aws.String(after)
					}
					out, err := c.ListObjectsV2(ctx, in)
					if err != nil {
						t.Fatal(err)
					}
					for _, o := range out.Contents {
						got = append(got, aws.ToString(o.Key))
					}
					for _, cp := range out.CommonPrefixes {
						got = append(got, "prefix:"+aws.ToString(cp.Prefix))
					}
					keys, prefixes, next, truncated := modelPage(all, prefix, delim, after, max)
					want = append(want, keys...)
					for _, p := range prefixes {
						want = append(want, "prefix:"+p)
					}
					if aws.ToBool(out.IsTruncated) != truncated {
						t.Fatalf("query %d (prefix %q, delimiter %q, after %q, max %d), page %d: truncated %v, want %v\ngot  %q\nwant %q", q, prefix, delim, after, max, pages, aws.ToBool(out.IsTruncated), truncated, got, want)
					}
					if !truncated {
						break
					}
					token, after = aws.ToString(out.NextContinuationToken), next
				}
				if !slices.Equal(got, want) {
					t.Fatalf("query %d (prefix %q, delimiter %q, start-after %q, max %d) over %q:\ngot  %q\nwant %q", q, prefix, delim, after, max, all, got, want)
				}
			}
		})
	}
}
