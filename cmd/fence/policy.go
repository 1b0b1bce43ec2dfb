package main

import (
	"errors"
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/fencedstore/fence/config"
	"github.com/fencedstore/fence/policy"
)

func (a *app) policyCmd() *cobra.Command {
	var (
		apply, check    bool
		iam, partition  string
		region, account string
		plainForIAM     bool
	)
	cmd := &cobra.Command{
		Use:   "policy --store s3://BUCKET[/PREFIX] [--apply | --check | --iam ROLE]",
		Short: "Print, apply or check the bucket policy that makes S3 refuse unconditional writes",
		Long: `policy prints the bucket policy under which S3 itself refuses a write to
fence's objects (manifests, lease records, versions, shards, floor markers,
probe objects) that carries neither If-Match nor If-None-Match, and a write
of a version or shard without If-None-Match, from any client: a buggy or
foreign one cannot overwrite a manifest blindly. Multipart steps that take
no conditional headers are exempt (s3:ObjectCreationOperation), as the AWS
documentation on enforcing conditional writes requires; nothing fence
writes is refused.

  --apply   adds the statements to the bucket's policy, keeping its other
            statements, and reads it back (needs s3:GetBucketPolicy and
            s3:PutBucketPolicy)
  --check   exits 0 when the bucket's policy holds them, 1 naming what is
            missing or different
  --iam ROLE  prints the least-privilege IAM policy of a writer, a reader
            or gc instead: exactly the actions fence calls, on this store's
            objects and (with --coord dynamodb://TABLE) its table

AWS S3 honours these condition keys; other S3-compatible stores may
refuse the policy or ignore it (see docs/operations.md).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			storeURL := a.resolve(cmd, "store", envStore)
			switch {
			case apply && check:
				return usage("policy: --apply and --check exclude each other")
			case iam != "" && (apply || check):
				return usage("policy: --iam prints a policy to attach to a role; it has no --apply or --check")
			}
			if iam != "" && !slices.Contains(policy.Roles, policy.Role(iam)) {
				return usage("policy: --iam %q: want writer, reader or gc", iam)
			}
			ctx := cmd.Context()
			var doc policy.Document
			var err error
			switch {
			case iam != "":
				doc, err = config.IAMPolicy(policy.Role(iam), storeURL, a.resolve(cmd, "coord", envCoord), policy.Target{Partition: partition, Region: region, Account: account, PlainCopies: plainForIAM})
			case check:
				if err := config.CheckPolicy(ctx, storeURL, partition); err != nil {
					return fail(fmt.Errorf("policy --check %s: %w", config.Redact(storeURL), err))
				}
				a.info("policy: fence's statements are in force on %s", config.Redact(storeURL))
				return nil
			case apply:
				doc, err = config.ApplyPolicy(ctx, storeURL, partition)
				if err == nil {
					a.info("policy: applied; the bucket's policy is now:")
				}
			default:
				doc, err = config.BucketPolicy(storeURL, partition)
			}
			if err != nil {
				if errors.Is(err, config.ErrNotS3) {
					return usage("policy: %v", err)
				}
				return fail(fmt.Errorf("policy %s: %w", config.Redact(storeURL), err))
			}
			_, err = a.stdout.Write(doc.JSON())
			return err
		},
	}
	f := cmd.Flags()
	f.BoolVar(&apply, "apply", false, "add fence's statements to the bucket's policy")
	f.BoolVar(&check, "check", false, "check that the bucket's policy holds fence's statements")
	f.StringVar(&iam, "iam", "", "print the IAM policy of `ROLE` instead: writer, reader or gc")
	f.StringVar(&partition, "partition", "", "ARN partition (default aws; aws-cn, aws-us-gov)")
	f.StringVar(&region, "region", "", "with --iam, the table's region in its ARN (default: the coordinator URL's, else *)")
	f.StringVar(&account, "account", "", "with --iam, the table's account in its ARN (default *)")
	f.BoolVar(&plainForIAM, "for-plain-copies", false, "with --iam writer, let the writer delete plain copies (--plain-copies)")
	return cmd
}
