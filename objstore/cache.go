package objstore

import (
	"sync"

	"github.com/fencedstore/fence/internal/format"
)

// manifestCache remembers, per domain, the last manifest this Store read or
// wrote and its ETag, so that a commit can skip reading the manifest: it
// writes with If-Match on the cached ETag, and a 412 sends it back to read
// the current one. Deciding "fenced" from a cached manifest is safe too:
// a domain's highest token never decreases, so if the cached one is above
// the commit's token, the current one is as well.
//
// Cached manifests are shared and must never be modified.
type manifestCache struct {
	mu sync.Mutex
	m  map[string]cachedManifest
}

type cachedManifest struct {
	m    *format.Manifest
	etag string
}

// maxCachedDomains bounds the cache; past it, an arbitrary entry goes.
const maxCachedDomains = 4096

func (c *manifestCache) get(domain string) (*format.Manifest, string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[domain]
	return e.m, e.etag, ok
}

func (c *manifestCache) put(domain string, m *format.Manifest, etag string) {
	if m == nil || etag == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[string]cachedManifest)
	}
	if _, ok := c.m[domain]; !ok && len(c.m) >= maxCachedDomains {
		for k := range c.m {
			delete(c.m, k)
			break
		}
	}
	// Never replace a newer manifest with an older one.
	if old, ok := c.m[domain]; ok && old.m.Seq > m.Seq {
		return
	}
	c.m[domain] = cachedManifest{m, etag}
}

func (c *manifestCache) drop(domain string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, domain)
}
