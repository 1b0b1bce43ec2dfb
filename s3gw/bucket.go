package s3gw

import "time"

// listBuckets answers ListBuckets: the gateway's one bucket.
func (g *Gateway) listBuckets(q *request) {
	q.xml(listAllMyBucketsResult{NS: s3NS, Owner: owner, Buckets: []bucketXML{{
		Name: g.o.Bucket, CreationDate: time.Unix(0, 0).UTC().Format(timeFormat),
	}}})
}

// bucketLocation answers GetBucketLocation: the gateway's region, empty
// for us-east-1 as S3 says it.
func (g *Gateway) bucketLocation(q *request) {
	region := g.o.Region
	if region == "us-east-1" {
		region = ""
	}
	q.xml(locationConstraint{NS: s3NS, Region: region})
}
