package policy

import (
	"fmt"
	"strings"
)

// Role is what an identity does with a fenced store.
type Role string

// Roles.
const (
	// Writer takes leases and commits (fence exec, put, rm, lease).
	Writer Role = "writer"
	// Reader reads (get, ls, history, lease status).
	Reader Role = "reader"
	// Collector runs fence gc.
	Collector Role = "gc"
)

// Roles lists the roles IAM knows.
var Roles = []Role{Writer, Reader, Collector}

// Target names what the policies are about.
type Target struct {
	// Partition is the ARN partition; empty means "aws".
	Partition string
	// Bucket and Prefix are the store's (s3://BUCKET/PREFIX).
	Bucket, Prefix string
	// Table is the DynamoDB lease table; empty when lease records are
	// kept in the store.
	Table string
	// Region and Account scope the table's ARN; empty means "*".
	Region, Account string
	// PlainCopies: writers also delete the plain copies of the keys they
	// delete (objstore.Options.PlainCopies).
	PlainCopies bool
}

// IAM returns the identity policy of role for t: exactly the actions
// fence calls in that role, on t's objects (and table) only.
//
//   - Objects: GetObject covers GET and HEAD; PutObject covers PutObject
//     and every step of a multipart upload (create, parts, complete);
//     AbortMultipartUpload cleans up after a failed one; a writer's
//     DeleteObject is only for the capability probe's own objects
//     (_fence/probe/), unless it deletes plain copies.
//   - The bucket: ListBucket, limited to the prefix.
//   - The table: GetItem (lease state, the issuer check) and UpdateItem
//     (acquire, renew, release: every change is one conditional update).
//
// fence init needs more (s3:CreateBucket, dynamodb:CreateTable,
// dynamodb:DescribeTable), and fence doctor reads the table's
// description (dynamodb:DescribeTable, dynamodb:DescribeTimeToLive) and
// the bucket's policy (s3:GetBucketPolicy): give those to an
// administrator, not to the jobs.
func IAM(role Role, t Target) (Document, error) {
	if t.Bucket == "" {
		return Document{}, fmt.Errorf("policy: no bucket")
	}
	objects := objectARN(t.Partition, t.Bucket, t.Prefix)
	list := Statement{Sid: "FenceListPrefix", Effect: "Allow", Action: []string{"s3:ListBucket"}, Resource: []string{bucketARN(t.Partition, t.Bucket)}}
	if p := cleanPrefix(t.Prefix); p != "" {
		list.Condition = map[string]map[string]string{"StringLike": {"s3:prefix": p + "*"}}
	}
	d := Document{Version: Version}
	switch role {
	case Writer:
		d.Statement = append(d.Statement, Statement{Sid: "FenceObjects", Effect: "Allow",
			Action: []string{"s3:GetObject", "s3:PutObject", "s3:AbortMultipartUpload"}, Resource: []string{objects + "*"}})
		del := objects + "_fence/probe/*"
		if t.PlainCopies {
			del = objects + "*"
		}
		d.Statement = append(d.Statement, Statement{Sid: "FenceDeletes", Effect: "Allow", Action: []string{"s3:DeleteObject"}, Resource: []string{del}}, list)
		if t.Table != "" {
			d.Statement = append(d.Statement, Statement{Sid: "FenceLeases", Effect: "Allow",
				Action: []string{"dynamodb:GetItem", "dynamodb:UpdateItem"}, Resource: []string{tableARN(t)}})
		}
	case Reader:
		// ListBucket: a read of a missing manifest lists the domain's
		// versions, to tell a domain never written from a lost manifest.
		d.Statement = append(d.Statement, Statement{Sid: "FenceObjects", Effect: "Allow", Action: []string{"s3:GetObject"}, Resource: []string{objects + "*"}}, list)
		if t.Table != "" {
			d.Statement = append(d.Statement, Statement{Sid: "FenceLeases", Effect: "Allow", Action: []string{"dynamodb:GetItem"}, Resource: []string{tableARN(t)}})
		}
	case Collector:
		d.Statement = append(d.Statement,
			Statement{Sid: "FenceObjects", Effect: "Allow", Action: []string{"s3:GetObject", "s3:DeleteObject"}, Resource: []string{objects + "*"}},
			Statement{Sid: "FenceFloorMarkers", Effect: "Allow", Action: []string{"s3:PutObject"}, Resource: []string{objects + "*/_fence/floor.json"}},
			list)
	default:
		return Document{}, fmt.Errorf("policy: unknown role %q: want %s", role, roleNames())
	}
	return d, nil
}

func roleNames() string {
	var s []string
	for _, r := range Roles {
		s = append(s, string(r))
	}
	return strings.Join(s, ", ")
}

func bucketARN(partition, bucket string) string {
	if partition == "" {
		partition = "aws"
	}
	return "arn:" + partition + ":s3:::" + bucket
}

func tableARN(t Target) string {
	partition, region, account := t.Partition, t.Region, t.Account
	if partition == "" {
		partition = "aws"
	}
	if region == "" {
		region = "*"
	}
	if account == "" {
		account = "*"
	}
	return "arn:" + partition + ":dynamodb:" + region + ":" + account + ":table/" + t.Table
}
