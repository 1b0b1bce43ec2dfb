package main

import (
	"errors"
	"fmt"
	"io"
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
		azureScope      string
		plainForIAM     bool
	)
	cmd := &cobra.Command{
		Use:   "policy --store URL [--apply | --check | --iam ROLE]",
		Short: "Print the S3 bucket policy that refuses unconditional writes, or the roles a writer, a reader and gc need",
		Long: `On an s3:// store, policy prints the bucket policy under which S3 itself
refuses a write to fence's objects (manifests, lease records, versions,
shards, floor markers, probe objects) that carries neither If-Match nor
If-None-Match, and a write of a version or shard without If-None-Match,
from any client: a buggy or foreign one cannot overwrite a manifest
blindly. Multipart steps that take no conditional headers are exempt
(s3:ObjectCreationOperation), as the AWS documentation on enforcing
conditional writes requires; nothing fence writes is refused.

  --apply   adds the statements to the bucket's policy, keeping its other
            statements, and reads it back (needs s3:GetBucketPolicy and
            s3:PutBucketPolicy)
  --check   exits 0 when the bucket's policy holds them, 1 naming what is
            missing or different
  --iam ROLE  prints the least-privilege IAM policy of a writer, a reader
            or gc instead: exactly the actions fence calls, on this store's
            objects and (with --coord dynamodb://TABLE) its table

AWS S3 honours these condition keys; other S3-compatible stores may
refuse the policy or ignore it (see docs/operations.md).

GCS (gs://) and Azure Blob Storage (azblob://) have no bucket policy that
refuses an unconditional write. There policy prints what a writer, a
reader and gc need (each permission and why, the predefined role that
covers it, what fence init and doctor need besides; --json for JSON), and
--iam ROLE prints a custom role definition with exactly those permissions:
for GCS as "gcloud iam roles create ROLE_ID --project=PROJECT --file=FILE"
takes it, for Azure as "az role definition create --role-definition FILE"
takes it, assignable at --azure-scope (required there).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			storeURL := a.resolve(cmd, "store", envStore)
			coordURL := a.resolve(cmd, "coord", envCoord)
			switch {
			case apply && check:
				return usage("policy: --apply and --check exclude each other")
			case iam != "" && (apply || check):
				return usage("policy: --iam prints a policy to attach to a role; it has no --apply or --check")
			case azureScope != "" && iam == "":
				return usage("policy: --azure-scope goes with --iam, for an azblob:// store")
			}
			if iam != "" && !slices.Contains(policy.Roles, policy.Role(iam)) {
				return usage("policy: --iam %q: want writer, reader or gc", iam)
			}
			if !apply && !check {
				done, err := a.printCloudRoles(storeURL, coordURL, policy.Role(iam), azureScope)
				if done || err != nil {
					return err
				}
			}
			ctx := cmd.Context()
			var doc policy.Document
			var err error
			switch {
			case iam != "":
				doc, err = config.IAMPolicy(policy.Role(iam), storeURL, coordURL, policy.Target{Partition: partition, Region: region, Account: account, PlainCopies: plainForIAM})
			case check:
				if err := config.CheckPolicy(ctx, storeURL, partition); err != nil {
					if errors.Is(err, config.ErrNotS3) {
						return usage("policy: %v", err)
					}
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
	f.BoolVar(&apply, "apply", false, "add fence's statements to the bucket's policy (s3://)")
	f.BoolVar(&check, "check", false, "check that the bucket's policy holds fence's statements (s3://)")
	f.StringVar(&iam, "iam", "", "print the IAM policy (s3://) or custom role (gs://, azblob://) of `ROLE` instead: writer, reader or gc")
	f.StringVar(&partition, "partition", "", "ARN partition (default aws; aws-cn, aws-us-gov)")
	f.StringVar(&region, "region", "", "with --iam, the table's region in its ARN (default: the coordinator URL's, else *)")
	f.StringVar(&account, "account", "", "with --iam, the table's account in its ARN (default *)")
	f.StringVar(&azureScope, "azure-scope", "", "with --iam on an azblob:// store, the custom role's assignable `SCOPE`: /subscriptions/ID[/resourceGroups/GROUP]")
	f.BoolVar(&plainForIAM, "for-plain-copies", false, "with --iam writer, let the writer delete plain copies (--plain-copies)")
	return cmd
}

// printCloudRoles prints, for a gs:// or azblob:// store, the custom role
// of role (when set) or what every role needs. done is false for any
// other store, which has printed nothing.
func (a *app) printCloudRoles(storeURL, coordURL string, role policy.Role, azureScope string) (done bool, err error) {
	if role != "" {
		out, err := config.CloudRole(role, storeURL, coordURL, azureScope)
		switch {
		case errors.Is(err, config.ErrNotCloud):
			return false, nil
		case errors.Is(err, policy.ErrScope):
			return true, usage("policy: %v", err)
		case err != nil:
			return true, fail(fmt.Errorf("policy %s: %w", config.Redact(storeURL), err))
		}
		_, err = a.stdout.Write(out)
		return true, err
	}
	sum, err := config.CloudRoles(storeURL, coordURL)
	switch {
	case errors.Is(err, config.ErrNotCloud):
		return false, nil
	case err != nil:
		return true, fail(fmt.Errorf("policy %s: %w", config.Redact(storeURL), err))
	case a.json:
		return true, a.printJSON(sum)
	}
	_, err = io.WriteString(a.stdout, sum.Text())
	return true, err
}
