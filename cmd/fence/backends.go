package main

// The fence command opens every scheme: each import registers one with
// package config (its register.go), as gocloud's blank imports do.
import (
	_ "github.com/fencedstore/fence/coord/dynamocoord"
	_ "github.com/fencedstore/fence/objstore/azblobstore"
	_ "github.com/fencedstore/fence/objstore/gcsstore"
	_ "github.com/fencedstore/fence/objstore/miniostore"
	_ "github.com/fencedstore/fence/objstore/s3store"
)
