package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fencedstore/fence/config"
	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/job"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/s3gw"
	"github.com/fencedstore/fence/s3gw/wire"
)

// s3Flags are exec's flags of the S3 gateway (--s3).
type s3Flags struct {
	on     bool
	tls    bool
	bucket string
	commit string
}

func (f *s3Flags) add(fs *pflag.FlagSet) {
	fs.BoolVar(&f.on, "s3", false, "serve CMD an S3 endpoint on loopback (AWS_ENDPOINT_URL and per-run credentials in its environment) whose writes under DOMAIN/ are CMD's output: published as one fenced commit once CMD exits 0")
	fs.BoolVar(&f.tls, "s3-tls", false, "with --s3, serve HTTPS with a certificate made for this run (its CA in AWS_CA_BUNDLE and NODE_EXTRA_CA_CERTS)")
	fs.StringVar(&f.bucket, "s3-bucket", "", "with --s3, the bucket `NAME` the endpoint answers for (default: the store's bucket; "+s3gw.DefaultBucket+" for file://, mem:// and azblob://)")
	fs.StringVar(&f.commit, "s3-commit", "end", "with --s3, when writes are published: end (one commit once CMD exits 0) or each (every completed write its own commit)")
}

// s3Exec is the gateway of one exec --s3 run.
type s3Exec struct {
	a      *app
	f      *s3Flags
	bucket string
	prefix string // the S3 key prefix of the domain's keys
	mode   s3gw.CommitMode
	gw     *s3gw.Gateway
	ep     *s3gw.Endpoint
	dir    string // holds the CA bundle
}

// s3Unset are variables the job does not inherit under --s3: other
// credentials' session tokens, and (for HTTP) a CA bundle meant for
// other endpoints, which clients would apply to the gateway's.
var s3Unset = []string{"AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN", "AWS_CA_BUNDLE", "NODE_EXTRA_CA_CERTS", "RCLONE_CA_CERT", "AWS_PROFILE", "AWS_DEFAULT_PROFILE"}

// newS3Exec checks --s3's flags and works out the bucket and the key
// prefix from the store's URL.
func (a *app) newS3Exec(cmd *cobra.Command, f *s3Flags, domain string) (*s3Exec, error) {
	x := &s3Exec{a: a, f: f}
	switch f.commit {
	case "end":
		x.mode = s3gw.CommitAtEnd
	case "each":
		x.mode = s3gw.CommitEach
	default:
		return nil, usage("exec: --s3-commit %q: want end or each", f.commit)
	}
	loc, err := config.ParseURL(a.resolve(cmd, "store", envStore))
	if err != nil {
		return nil, usage("exec: --s3: %v", err)
	}
	x.bucket = s3gw.DefaultBucket
	switch loc.Scheme {
	case "s3", "minio", "gs":
		x.bucket = loc.Bucket
	}
	if f.bucket != "" {
		x.bucket = f.bucket
	}
	if loc.Prefix != "" {
		x.prefix = loc.Prefix + "/"
	}
	x.prefix += domain + "/"
	return x, nil
}

// prepare starts the gateway for the lease's token: job.Options.Prepare.
func (x *s3Exec) prepare(store *objstore.Store, domain string) func(context.Context, coord.Lease) ([]string, error) {
	return func(ctx context.Context, l coord.Lease) ([]string, error) {
		access, secret := s3gw.NewCredentials()
		gw, err := s3gw.New(s3gw.Options{
			Store: store, Domain: domain, Token: l.Token, Holder: l.Holder,
			Bucket: x.bucket, KeyPrefix: x.prefix, Commit: x.mode,
			Credentials: wire.StaticCredentials{access: secret},
			Logger:      x.a.logger.With("component", "s3gw"),
		})
		if err != nil {
			return nil, err
		}
		ep, err := s3gw.Serve(gw, s3gw.ServeOptions{TLS: x.f.tls})
		if err != nil {
			return nil, err
		}
		x.gw, x.ep = gw, ep
		env := []string{
			"AWS_ENDPOINT_URL=" + ep.URL, "AWS_ENDPOINT_URL_S3=" + ep.URL,
			"AWS_ACCESS_KEY_ID=" + access, "AWS_SECRET_ACCESS_KEY=" + secret,
			"AWS_REGION=" + s3gw.DefaultRegion, "AWS_DEFAULT_REGION=" + s3gw.DefaultRegion,
			"FENCE_S3_ENDPOINT=" + ep.URL, "FENCE_S3_BUCKET=" + x.bucket, "FENCE_S3_PREFIX=" + x.prefix,
		}
		// An rclone remote named fence: (rclone reads remotes from
		// RCLONE_CONFIG_<NAME>_* variables).
		env = append(env, "RCLONE_CONFIG_FENCE_TYPE=s3", "RCLONE_CONFIG_FENCE_PROVIDER=Other",
			"RCLONE_CONFIG_FENCE_ENDPOINT="+ep.URL, "RCLONE_CONFIG_FENCE_REGION="+s3gw.DefaultRegion,
			"RCLONE_CONFIG_FENCE_ACCESS_KEY_ID="+access, "RCLONE_CONFIG_FENCE_SECRET_ACCESS_KEY="+secret,
			"RCLONE_CONFIG_FENCE_FORCE_PATH_STYLE=true", "RCLONE_CONFIG_FENCE_NO_CHECK_BUCKET=true")
		if ep.CAPEM != nil {
			if x.dir, err = os.MkdirTemp("", "fence-s3-"); err != nil {
				return nil, fmt.Errorf("exec --s3: %w", err)
			}
			ca := filepath.Join(x.dir, "ca.pem")
			if err := os.WriteFile(ca, ep.CAPEM, 0o600); err != nil {
				return nil, fmt.Errorf("exec --s3: %w", err)
			}
			env = append(env, "AWS_CA_BUNDLE="+ca, "NODE_EXTRA_CA_CERTS="+ca, "FENCE_S3_CA_BUNDLE="+ca, "RCLONE_CA_CERT="+ca)
		}
		x.announce(ep.URL)
		return env, nil
	}
}

// announce says on stderr where the endpoint is (never its credentials).
func (x *s3Exec) announce(url string) {
	if x.a.json {
		line, _ := json.Marshal(map[string]string{"s3_endpoint": url, "bucket": x.bucket, "prefix": x.prefix, "commit": x.f.commit})
		fmt.Fprintln(x.a.stderr, string(line))
		return
	}
	mode := "published as one commit once the command exits 0"
	if x.mode == s3gw.CommitEach {
		mode = "each published as it completes"
	}
	x.a.notice(slog.LevelInfo, "exec: S3 endpoint %s (path style), bucket %q, keys under %q, writes %s", url, x.bucket, x.prefix, mode)
}

// wire sets opts for --s3.
func (x *s3Exec) wire(opts *job.Options, store *objstore.Store, domain string) {
	opts.Prepare = x.prepare(store, domain)
	opts.Unset = s3Unset
	opts.Lost = func(cause error) {
		if x.gw != nil {
			x.gw.LeaseLost(cause)
		}
	}
	if x.mode == s3gw.CommitAtEnd {
		opts.Output = s3Output{x}
	}
}

// s3Output hands job.Run the gateway's changes once it has started.
type s3Output struct{ x *s3Exec }

func (o s3Output) Changes(ctx context.Context, store *objstore.Store, domain string) ([]objstore.Change, func(), error) {
	if o.x.gw == nil {
		return nil, func() {}, nil
	}
	return o.x.gw.Changes(ctx, store, domain)
}

// finish stops the endpoint and discards what was staged but not
// published.
func (x *s3Exec) finish(ctx context.Context, res job.Result) {
	if x.gw == nil {
		return
	}
	ctx = context.WithoutCancel(ctx)
	if err := x.ep.Shutdown(ctx); err != nil {
		x.a.logger.Debug("exec --s3: endpoint shutdown", "err", err)
	}
	published := res.Published != nil || x.mode == s3gw.CommitEach
	if err := x.gw.Close(ctx, published); err != nil {
		x.a.logger.Warn("exec --s3: "+strings.TrimPrefix(err.Error(), "s3gw: ")+"; gc deletes what is left once a newer token passes this run's", "prefix", x.gw.KeyPrefix())
	}
	if x.dir != "" {
		os.RemoveAll(x.dir)
	}
}
