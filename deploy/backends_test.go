package deploy_test

// The templates name s3:// and dynamodb:// URLs, which package config
// parses only in a program that links their backends.
import (
	_ "github.com/fencedstore/fence/coord/dynamocoord"
	_ "github.com/fencedstore/fence/objstore/s3store"
)
