package objstore

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// ListOptions selects the keys of a listing. The zero value (or nil)
// selects them all.
type ListOptions struct {
	// Prefix keeps only keys that start with it.
	Prefix string
	// After keeps only keys after it: pass the Next of one Page to get
	// the next.
	After string
	// Limit is the most keys returned; 0 means no limit.
	Limit int
}

// Page is one page of a listing (ListPage).
type Page struct {
	// Versions are the page's keys, sorted by key.
	Versions []Version
	// Next is "" on the last page. Otherwise more keys follow: pass Next
	// as ListOptions.After to get them. A full page that happens to end
	// the listing has Next "", so paging never needs an extra request to
	// learn that it is done.
	Next string
}

// ListPage returns the page of live keys at the snapshot that opts
// selects, sorted by key, and whether more follow. Pages taken from one
// Snapshot are consistent with each other, whatever is committed
// meanwhile. This is how to page through a domain:
//
//	sn, err := store.Snapshot(ctx, domain)
//	...
//	opts := &objstore.ListOptions{Limit: 100}
//	for {
//		page, err := sn.ListPage(ctx, opts)
//		...
//		if page.Next == "" {
//			break
//		}
//		opts.After = page.Next
//	}
//
// For a domain kept in shards it reads every shard it has not seen
// before; an unsharded snapshot's pages send no request.
func (sn *Snapshot) ListPage(ctx context.Context, opts *ListOptions) (Page, error) {
	var o ListOptions
	if opts != nil {
		o = *opts
	}
	if o.Limit < 0 {
		return Page{}, &InvalidError{What: "option", Value: fmt.Sprint("Limit=", o.Limit), Reason: "negative"}
	}
	keys, all, err := sn.sortedLive(ctx)
	if err != nil {
		return Page{}, err
	}
	// The keys with the prefix are contiguous in sorted order: start at
	// the first of them after o.After, and stop at the first without it.
	start, found := slices.BinarySearch(keys, o.After)
	if found {
		start++
	}
	if i, _ := slices.BinarySearch(keys, o.Prefix); i > start {
		start = i
	}
	var p Page
	for _, k := range keys[start:] {
		if !strings.HasPrefix(k, o.Prefix) {
			break
		}
		if o.Limit > 0 && len(p.Versions) == o.Limit {
			// A key beyond the page: there is a next page.
			p.Next = p.Versions[len(p.Versions)-1].Key
			break
		}
		p.Versions = append(p.Versions, versionOf(k, all[k]))
	}
	sn.rememberList(keys, all, p.Next != "")
	return p, nil
}

// List returns every live key at the snapshot that opts selects (at most
// opts.Limit), sorted by key. To page, use ListPage, which says whether
// more keys follow.
func (sn *Snapshot) List(ctx context.Context, opts *ListOptions) ([]Version, error) {
	p, err := sn.ListPage(ctx, opts)
	return p.Versions, err
}

// ListPage returns one page of domain's live keys from its current
// manifest (one manifest read); see Snapshot.ListPage. Pages taken by
// separate calls may come from different commits: take a Snapshot for
// pages of one.
func (s *Store) ListPage(ctx context.Context, domain string, opts *ListOptions) (Page, error) {
	sn, err := s.Snapshot(ctx, domain)
	if err != nil {
		return Page{}, err
	}
	return sn.ListPage(ctx, opts)
}

// List returns domain's live keys that opts selects, from its current
// manifest; see Snapshot.List.
func (s *Store) List(ctx context.Context, domain string, opts *ListOptions) ([]Version, error) {
	sn, err := s.Snapshot(ctx, domain)
	if err != nil {
		return nil, err
	}
	return sn.List(ctx, opts)
}
