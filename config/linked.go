package config

import (
	"fmt"

	"github.com/fencedstore/fence/config/registry"
)

// backendImports are the packages that link fence's own schemes into a
// program: each one registers its scheme from an init function
// (register.go), so a program pays for a backend only when it imports it.
// file:// and mem:// are built in: objstore/filestore and
// objstore/memstore import only the standard library and packages
// config links anyway.
var backendImports = map[string]string{
	"s3":       "github.com/fencedstore/fence/objstore/s3store",
	"minio":    "github.com/fencedstore/fence/objstore/miniostore",
	"gs":       "github.com/fencedstore/fence/objstore/gcsstore",
	"azblob":   "github.com/fencedstore/fence/objstore/azblobstore",
	"dynamodb": "github.com/fencedstore/fence/coord/dynamocoord",
}

// linked reports whether this program can open URLs of scheme: file and
// mem always, fence's other schemes when their package registered them.
func linked(scheme string) bool {
	switch scheme {
	case "file", "mem":
		return true
	case "s3", "minio":
		_, ok := registry.LookupOpener(scheme)
		return ok
	case "dynamodb":
		_, ok := registry.LookupCoordinator(scheme)
		return ok
	}
	_, ok := registry.Lookup(scheme)
	return ok
}

// notLinked returns, for one of fence's schemes whose package this
// program does not import, the import line to add; "" otherwise.
func notLinked(scheme string) string {
	path, ok := backendImports[scheme]
	if !ok || linked(scheme) {
		return ""
	}
	return fmt.Sprintf("%s:// URLs need %s, which this program does not link: add import _ %q", scheme, path, path)
}
