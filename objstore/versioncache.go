package objstore

import (
	"container/list"
	"sync"
)

// versionCache keeps the verified bytes of small versions. Versions are
// write-once under unique keys, so cached bytes never go stale: a reader
// that revalidated its manifest and finds a cached version needs no
// further round trip. Bounded by total bytes, least recently used first
// out.
type versionCache struct {
	mu      sync.Mutex
	budget  int64 // total bytes; 0 disables the cache
	maxItem int64
	used    int64
	order   *list.List // front: most recent; values are *cachedVersion
	items   map[string]*list.Element
}

type cachedVersion struct {
	key  string
	data []byte
}

func newVersionCache(budget int64) *versionCache {
	return &versionCache{budget: budget, maxItem: min(budget/8, 1<<20), order: list.New(), items: map[string]*list.Element{}}
}

// fits reports whether a version of size bytes would be cached.
func (c *versionCache) fits(size int64) bool { return c.budget > 0 && size <= c.maxItem }

func (c *versionCache) get(key string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[key]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*cachedVersion).data, true
}

// put stores data, which the cache then owns and nobody may modify.
func (c *versionCache) put(key string, data []byte) {
	if !c.fits(int64(len(data))) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.items[key]; ok {
		return
	}
	c.items[key] = c.order.PushFront(&cachedVersion{key, data})
	c.used += int64(len(data))
	for c.used > c.budget {
		e := c.order.Back()
		v := e.Value.(*cachedVersion)
		c.order.Remove(e)
		delete(c.items, v.key)
		c.used -= int64(len(v.data))
	}
}
