package config

// The tests open every scheme, so they link every backend, as the fence
// command does (cmd/fence/backends.go).
import (
	_ "github.com/fencedstore/fence/coord/dynamocoord"
	_ "github.com/fencedstore/fence/objstore/azblobstore"
	_ "github.com/fencedstore/fence/objstore/gcsstore"
	_ "github.com/fencedstore/fence/objstore/miniostore"
	_ "github.com/fencedstore/fence/objstore/s3store"
)
