package clients

import (
	"os"
	"strings"
)

// contract is what a scenario reads from its environment: what
// `fence exec --s3` sets for CMD, and what a target that is not the
// gateway sets the same way.
type contract struct {
	Endpoint  string // http://127.0.0.1:PORT or https://127.0.0.1:PORT; clients must use path style
	AccessKey string
	SecretKey string
	Region    string
	CABundle  string // a PEM file, for an https endpoint; "" for http
	Bucket    string
	Prefix    string // the keys the job owns, ending in "/"
}

// contractVars are the variables the contract sets or clears. These
// machines set AWS_CA_BUNDLE, SSL_CERT_FILE and REQUESTS_CA_BUNDLE for
// everything; a client handed an endpoint must trust that endpoint's
// certificate and no other bundle (and rclone refuses a plain-HTTP
// endpoint when AWS_CA_BUNDLE names a file it cannot use), so they go too.
var contractVars = []string{
	"AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3",
	"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
	"AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE",
	"AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE",
	"AWS_CA_BUNDLE", "NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE",
	"FENCE_S3_BUCKET", "FENCE_S3_PREFIX",
}

// vars returns the contract as NAME=value entries.
func (c contract) vars() []string {
	v := []string{
		"AWS_ENDPOINT_URL=" + c.Endpoint,
		"AWS_ENDPOINT_URL_S3=" + c.Endpoint,
		"AWS_ACCESS_KEY_ID=" + c.AccessKey,
		"AWS_SECRET_ACCESS_KEY=" + c.SecretKey,
		"AWS_REGION=" + c.Region,
		"AWS_DEFAULT_REGION=" + c.Region,
		"FENCE_S3_BUCKET=" + c.Bucket,
		"FENCE_S3_PREFIX=" + c.Prefix,
	}
	if c.CABundle != "" {
		v = append(v, "AWS_CA_BUNDLE="+c.CABundle, "NODE_EXTRA_CA_CERTS="+c.CABundle)
	}
	return v
}

// withoutContract returns env without any variable of contractVars.
func withoutContract(env []string) []string {
	var out []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		drop := false
		for _, c := range contractVars {
			if name == c {
				drop = true
				break
			}
		}
		if !drop {
			out = append(out, kv)
		}
	}
	return out
}

// environ returns this process's environment with the contract in place
// of whatever it had for those variables, then extra.
func (c contract) environ(extra []string) []string {
	env := withoutContract(os.Environ())
	env = append(env, c.vars()...)
	return append(env, extra...)
}
