package serve

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore/driver"
)

// errStop ends a walk early.
var errStop = errors.New("serve: stop walk")

// found is one domain discovered by a walk of the store's objects, with
// the version objects of its that the walk passed (at most maxVersions).
type found struct {
	domain   string
	versions []driver.ObjectInfo
	more     bool // versions were dropped: the domain has more than maxVersions
}

// walkPage is one page of discovered domains.
type walkPage struct {
	domains []*found
	// next is the object key to resume after; "" when the walk reached
	// the end of the store.
	next    string
	scanned int
	capped  bool // the walk stopped at maxScan objects, not at a full page
	hidden  int  // internal domains passed and left out (see internal)
}

// walkDomains lists the store's objects in key order, starting after the
// object key after, and returns the domains whose manifests it finds,
// up to limit. A domain's own objects ("<domain>/_fence/...") are
// contiguous in key order and its versions follow its manifest, so the
// walk stops as soon as it has limit domains and has left the last
// one's objects: the first page of a store costs about one list of the
// objects it covers, however many domains the store holds. It stops
// also after maxScan objects, to bound the work of one request.
//
// The backend's List has no start-after, so a later page walks the
// keys before after again, comparing only their names.
func walkDomains(ctx context.Context, b driver.Backend, after string, limit, maxScan, maxVersions int) (walkPage, error) {
	var (
		p    walkPage
		byID = map[string]*found{}
		last string // the system directory of the last domain found
		prev string
	)
	err := b.List(ctx, "", func(o driver.ObjectInfo) error {
		if o.Key <= after {
			return nil
		}
		if len(p.domains) >= limit && !strings.HasPrefix(o.Key, last) {
			p.next = prev
			return errStop
		}
		if p.scanned >= maxScan {
			p.next, p.capped = prev, true
			return errStop
		}
		p.scanned++
		prev = o.Key
		i := strings.Index(o.Key, format.SystemDir)
		if i <= 0 {
			return nil // a plain copy or a stranger
		}
		domain, rest := o.Key[:i], o.Key[i+len(format.SystemDir):]
		f := byID[domain]
		if f == nil && internal(domain) {
			// Remembered, so that its versions are not taken for a
			// domain that lost its manifest; never listed.
			byID[domain] = &found{domain: domain}
			p.hidden++
			return nil
		}
		switch {
		case rest == "manifest.json" && f == nil:
			f = &found{domain: domain}
			byID[domain] = f
			p.domains = append(p.domains, f)
			last = domain + format.SystemDir
		case f == nil && (strings.HasPrefix(rest, "v/") || strings.HasPrefix(rest, "s/")) && format.ManifestKey(domain) > after:
			// Versions or shards and no manifest: a lost manifest, which
			// its row reports (reads of such a domain fail closed).
			f = &found{domain: domain}
			byID[domain] = f
			p.domains = append(p.domains, f)
			last = domain + format.SystemDir
			fallthrough
		case strings.HasPrefix(rest, "v/") && f != nil:
			if !strings.HasPrefix(rest, "v/") {
				break
			}
			if len(f.versions) < maxVersions {
				f.versions = append(f.versions, o)
			} else {
				f.more = true
			}
		}
		return nil
	})
	if errors.Is(err, errStop) {
		err = nil
	}
	return p, err
}

// walkVersions returns the version objects of domain, at most max of
// them; more says there were more.
func walkVersions(ctx context.Context, b driver.Backend, domain string, max int) (vs []driver.ObjectInfo, more bool, err error) {
	err = b.List(ctx, format.VersionPrefix(domain), func(o driver.ObjectInfo) error {
		if len(vs) >= max {
			more = true
			return errStop
		}
		vs = append(vs, o)
		return nil
	})
	if errors.Is(err, errStop) {
		err = nil
	}
	return vs, more, err
}

// modified is an object's modification time in UTC.
func modified(o driver.ObjectInfo) time.Time { return o.Modified.UTC() }
