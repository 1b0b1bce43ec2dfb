package serve

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore/driver"
)

// fencedCollector exports, at each scrape, what the store's
// fenced-attempt records say, from their names (one listing of the
// store, no reads):
//
//	fence_fenced_attempts_recorded                   records in the store (gc deletes them after its grace)
//	fence_fenced_attempt_newest_timestamp_seconds    when the newest was stored, by the store's clock
//	fence_fenced_attempt_newest_token                the refused token of the newest
//	fence_fenced_attempt_newest_fenced_by            the token that refused it
//
// Like every fence metric they have no domain label; the domain pages
// say which domain. A listing is reused for CacheFor, and covers at most
// MaxScan objects.
type fencedCollector struct {
	b        driver.Backend
	maxScan  int
	timeout  time.Duration
	cacheFor time.Duration
	now      func() time.Time

	mu   sync.Mutex
	at   time.Time // when last was listed; zero: never
	last fencedCounts
	ok   bool

	recorded, newestTime, newestToken, newestBy *prometheus.Desc
}

// fencedCounts is what one listing found.
type fencedCounts struct {
	n      int
	newest time.Time
	token  uint64
	by     uint64
}

// FencedCollector returns a prometheus.Collector of the fenced-attempt
// records in b's domains, as described above. opts may be nil; it uses
// MaxScan, Timeout and Now (see Options). A listing is reused for
// cacheFor (0: 30 s), so that frequent scrapes do not list the store
// each time. A scrape whose listing fails exports none of these metrics.
func FencedCollector(b driver.Backend, opts *Options, cacheFor time.Duration) prometheus.Collector {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.MaxScan <= 0 {
		o.MaxScan = 100_000
	}
	if o.Timeout <= 0 {
		o.Timeout = 20 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if cacheFor <= 0 {
		cacheFor = 30 * time.Second
	}
	return &fencedCollector{
		b: b, maxScan: o.MaxScan, timeout: o.Timeout, cacheFor: cacheFor, now: o.Now,
		recorded:    prometheus.NewDesc("fence_fenced_attempts_recorded", "Records of commits and fences refused as stale, in the store (fence gc deletes them after its grace period).", nil, nil),
		newestTime:  prometheus.NewDesc("fence_fenced_attempt_newest_timestamp_seconds", "When the newest fenced-attempt record was stored, by the store's clock.", nil, nil),
		newestToken: prometheus.NewDesc("fence_fenced_attempt_newest_token", "The refused token of the newest fenced-attempt record.", nil, nil),
		newestBy:    prometheus.NewDesc("fence_fenced_attempt_newest_fenced_by", "The token that refused the newest fenced attempt.", nil, nil),
	}
}

func (c *fencedCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.recorded
	ch <- c.newestTime
	ch <- c.newestToken
	ch <- c.newestBy
}

func (c *fencedCollector) Collect(ch chan<- prometheus.Metric) {
	n, ok := c.counts()
	if !ok {
		return
	}
	ch <- prometheus.MustNewConstMetric(c.recorded, prometheus.GaugeValue, float64(n.n))
	if n.n == 0 {
		return
	}
	ch <- prometheus.MustNewConstMetric(c.newestTime, prometheus.GaugeValue, float64(n.newest.UnixNano())/1e9)
	ch <- prometheus.MustNewConstMetric(c.newestToken, prometheus.GaugeValue, float64(n.token))
	ch <- prometheus.MustNewConstMetric(c.newestBy, prometheus.GaugeValue, float64(n.by))
}

// counts returns the last listing's counts, listing again when they are
// older than cacheFor. ok is false when the listing failed.
func (c *fencedCollector) counts() (fencedCounts, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if !c.at.IsZero() && now.Sub(c.at) < c.cacheFor {
		return c.last, c.ok
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	var (
		n       fencedCounts
		scanned int
	)
	err := c.b.List(ctx, "", func(o driver.ObjectInfo) error {
		if scanned++; scanned > c.maxScan {
			return errStop
		}
		if !strings.Contains(o.Key, format.SystemDir+"fenced/") {
			return nil
		}
		name, err := format.ParseFencedKey(o.Key)
		if err != nil {
			return nil
		}
		n.n++
		if t := modified(o); n.n == 1 || t.After(n.newest) {
			n.newest, n.token, n.by = t, name.Token, name.FencedBy
		}
		return nil
	})
	c.at, c.last, c.ok = now, n, err == nil || err == errStop
	return c.last, c.ok
}
