package faulty

import (
	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore/driver"
)

// Manifest returns the object key of domain's manifest, the object that
// every commit in domain ends by writing with a conditional put, so that
// a rule can name it without knowing how fence lays out its objects:
//
//	fb.Add(faulty.Once(faulty.OpPut, faulty.Manifest("reports"), faulty.Fault{DropReply: true}))
func Manifest(domain string) string { return format.ManifestKey(domain) }

// Into returns a function that wraps a backend in a new Backend and
// stores it in *fb, for config.OpenOptions.WrapBackend:
//
//	var fb *faulty.Backend
//	o, err := config.Open(ctx, url, &config.OpenOptions{WrapBackend: faulty.Into(&fb)})
func Into(fb **Backend) func(driver.Backend) driver.Backend {
	return func(b driver.Backend) driver.Backend {
		*fb = New(b)
		return *fb
	}
}
