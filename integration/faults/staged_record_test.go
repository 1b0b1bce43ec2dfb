package faults

import (
	"maps"
	"slices"
	"strings"

	"github.com/fencedstore/fence/internal/format"
)

// Staged versions in the store's record. A version object that
// Store.Stage wrote carries a stage id ("s" and 32 hex digits) where a
// commit's version carries its attempt id, and no log entry names a stage
// id: the commit that published it is found from the manifests instead.
// The write that first names a staged object for a key published it; of
// the commits that write applied (several when the store merged them),
// the last whose log entry put that key did.

// isStageID reports whether suffix, a version object's suffix, is a
// stage id.
func isStageID(suffix string) bool {
	return len(suffix) == 33 && strings.HasPrefix(suffix, "s")
}

// indexStaged fills byStaged: every staged version object that a
// manifest write in the record names, mapped to the commit (index into
// commits) that first published it.
func (d *domainRecord) indexStaged() {
	d.byStaged = map[string]int{}
	var prev *format.Manifest
	for i, w := range d.writes {
		if w.m == nil {
			continue
		}
		for _, k := range slices.Sorted(maps.Keys(w.m.Keys)) {
			e := w.m.Keys[k]
			if e.Deleted || e.Version == "" {
				continue
			}
			if _, _, _, id, err := format.ParseVersionKey(e.Version); err != nil || !isStageID(id) {
				continue
			}
			if _, seen := d.byStaged[e.Version]; seen {
				continue
			}
			if prev != nil {
				if pe, ok := prev.Keys[k]; ok && !pe.Deleted && pe.Version == e.Version {
					continue // named before, by a write the record does not hold as first
				}
			}
			if c, ok := d.putterOf(i, k); ok {
				d.byStaged[e.Version] = c
			}
		}
		prev = w.m
	}
}

// putterOf returns the last of the commits writes[i] applied whose log
// entry put key, or, when no entry names its keys (older entries, or too
// many keys), the write's last commit.
func (d *domainRecord) putterOf(i int, key string) (int, bool) {
	cs := d.writes[i].commits
	for j := len(cs) - 1; j >= 0; j-- {
		e := d.commits[cs[j]].e
		if slices.Contains(e.PutKeys, key) || (len(e.PutKeys) == 0 && e.Puts > 0) || e.KeysTruncated {
			return cs[j], true
		}
	}
	if len(cs) > 0 {
		return cs[len(cs)-1], true
	}
	return 0, false
}

// publisher returns the commit that published version object obj: by its
// attempt id, or for a staged object the commit that first named it.
func (d *domainRecord) publisher(obj string) (appliedCommit, bool) {
	_, _, _, id, err := format.ParseVersionKey(obj)
	if err != nil {
		return appliedCommit{}, false
	}
	if !isStageID(id) {
		return d.entry(id)
	}
	i, ok := d.byStaged[obj]
	if !ok {
		return appliedCommit{}, false
	}
	return d.commits[i], true
}

// introduces reports whether writes[i] published version object obj: a
// commit it applied wrote obj, or first named it (a staged object).
func (d *domainRecord) introduces(i int, obj string) bool {
	_, _, _, id, err := format.ParseVersionKey(obj)
	if err != nil {
		return false
	}
	if isStageID(id) {
		c, ok := d.byStaged[obj]
		return ok && d.commits[c].write == i
	}
	return d.attempts(i)[id]
}
