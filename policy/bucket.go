package policy

import (
	"fmt"
	"slices"
	"strings"
)

// The Sids of fence's bucket policy statements. Merge replaces statements
// with these Sids and keeps every other.
const (
	SidConditionalWrites = "FenceRequireConditionalWrites"
	SidWriteOnce         = "FenceWriteOnceVersionsAndShards"
)

// Bucket returns the bucket policy that makes S3 refuse, from any
// principal:
//
//   - a PutObject or CompleteMultipartUpload of any of fence's objects
//     under prefix (everything below a domain's _fence/ segment, and the
//     probe objects) that carries neither If-Match nor If-None-Match;
//   - one of a version or shard object that does not carry
//     If-None-Match: they are written once and never replaced.
//
// CreateMultipartUpload, UploadPart and UploadPartCopy take no
// conditional headers, so both statements apply only where the condition
// key s3:ObjectCreationOperation is true, as the AWS documentation on
// enforcing conditional writes requires; a multipart upload's condition
// is checked on its completion. Nothing fence writes is refused: every
// write it makes to these keys carries one of the headers. Copies into
// these keys are refused, which fence never makes.
//
// partition is the ARN partition ("aws", "aws-cn", "aws-us-gov");
// empty means "aws".
func Bucket(partition, bucket, prefix string) Document {
	p := objectARN(partition, bucket, prefix)
	creation := map[string]string{"s3:ObjectCreationOperation": "true"}
	return Document{Version: Version, Statement: []Statement{
		{
			Sid:       SidConditionalWrites,
			Effect:    "Deny",
			Principal: "*",
			Action:    []string{"s3:PutObject"},
			Resource:  []string{p + "_fence/*", p + "*/_fence/*"},
			Condition: map[string]map[string]string{
				"Null": {"s3:if-match": "true", "s3:if-none-match": "true"},
				"Bool": creation,
			},
		},
		{
			Sid:       SidWriteOnce,
			Effect:    "Deny",
			Principal: "*",
			Action:    []string{"s3:PutObject"},
			Resource:  []string{p + "*/_fence/v/*", p + "*/_fence/s/*"},
			Condition: map[string]map[string]string{
				"Null": {"s3:if-none-match": "true"},
				"Bool": creation,
			},
		},
	}}
}

// Check reports whether the bucket policy raw (as GetBucketPolicy returns
// it; empty when the bucket has none) holds every statement of want,
// with the same effect, principal, actions, resources and conditions. The
// error names each statement missing or different.
func Check(raw string, want Document) error {
	if strings.TrimSpace(raw) == "" {
		return fmt.Errorf("policy: the bucket has no policy; fence's statements %s are not in force", sids(want))
	}
	have, err := parse(raw)
	if err != nil {
		return err
	}
	var problems []string
	for _, w := range want.Statement {
		i := slices.IndexFunc(have.Statement, func(s Statement) bool { return s.Sid == w.Sid })
		if i < 0 {
			problems = append(problems, fmt.Sprintf("statement %s is missing", w.Sid))
			continue
		}
		if diff := differ(have.Statement[i], w); diff != "" {
			problems = append(problems, fmt.Sprintf("statement %s differs: %s", w.Sid, diff))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("policy: fence's bucket policy is not in force: %s", strings.Join(problems, "; "))
	}
	return nil
}

// Merge returns the bucket policy raw (empty: none) with want's
// statements added, replacing any statements with the same Sids.
func Merge(raw string, want Document) (Document, error) {
	out := Document{Version: Version}
	if strings.TrimSpace(raw) != "" {
		have, err := parse(raw)
		if err != nil {
			return Document{}, err
		}
		for _, s := range have.Statement {
			if !slices.ContainsFunc(want.Statement, func(w Statement) bool { return w.Sid == s.Sid }) {
				out.Statement = append(out.Statement, s)
			}
		}
	}
	out.Statement = append(out.Statement, want.Statement...)
	return out, nil
}

// differ says how have differs from want, or "" when it does not.
func differ(have, want Statement) string {
	var d []string
	if have.Effect != want.Effect {
		d = append(d, fmt.Sprintf("effect %s, want %s", have.Effect, want.Effect))
	}
	if !anyone(have.Principal) {
		d = append(d, fmt.Sprintf("principal %v, want *", have.Principal))
	}
	if !sameSet(have.Action, want.Action) {
		d = append(d, fmt.Sprintf("actions %v, want %v", have.Action, want.Action))
	}
	if !sameSet(have.Resource, want.Resource) {
		d = append(d, fmt.Sprintf("resources %v, want %v", have.Resource, want.Resource))
	}
	if !sameCondition(have.Condition, want.Condition) {
		d = append(d, fmt.Sprintf("condition %v, want %v", have.Condition, want.Condition))
	}
	return strings.Join(d, ", ")
}

func anyone(p any) bool {
	switch v := p.(type) {
	case string:
		return v == "*"
	case map[string]any:
		aws, ok := v["AWS"]
		if s, isStr := aws.(string); ok && isStr {
			return s == "*" && len(v) == 1
		}
		if l, isList := aws.([]any); ok && isList && len(l) == 1 {
			return l[0] == "*" && len(v) == 1
		}
	}
	return false
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}

func sameCondition(have, want map[string]map[string]string) bool {
	if len(have) != len(want) {
		return false
	}
	for op, wkv := range want {
		hkv, ok := have[op]
		if !ok || len(hkv) != len(wkv) {
			return false
		}
		for k, v := range wkv {
			if !strings.EqualFold(hkv[strings.ToLower(k)], v) {
				return false
			}
		}
	}
	return true
}

func sids(d Document) string {
	var s []string
	for _, st := range d.Statement {
		s = append(s, st.Sid)
	}
	return strings.Join(s, " and ")
}

// objectARN is the ARN prefix of the objects under prefix ("" or ending
// in "/").
func objectARN(partition, bucket, prefix string) string {
	if partition == "" {
		partition = "aws"
	}
	return "arn:" + partition + ":s3:::" + bucket + "/" + cleanPrefix(prefix)
}

func cleanPrefix(p string) string {
	p = strings.Trim(p, "/")
	if p == "" {
		return ""
	}
	return p + "/"
}
