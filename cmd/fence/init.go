package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/fencedstore/fence/config"
)

func (a *app) initCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "init",
		Short: "Create the bucket, directory or table that the store and coordinator need",
		Long: `init creates what --store and --coord need, when it is missing:

  file://PATH        the directory
  s3://, minio://    the bucket (in the configured region)
  azblob://          the container (private)
  dynamodb://TABLE   the table: partition key "domain" (string), on-demand
                     billing, no TTL (a TTL would delete lease items and
                     reset their token counters); init waits until it is ACTIVE

It prints one line per thing, "created" or "exists", and changes nothing
that exists. Running it again is safe. An existing table with another key
schema, or with TTL enabled, is an error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			skip, err := a.unsafeSkipProbe(cmd)
			if err != nil {
				return err
			}
			if skip {
				a.warnUnsafe()
			}
			done, err := config.Init(cmd.Context(), a.resolve(cmd, "store", envStore), a.resolve(cmd, "coord", envCoord))
			if a.json && err == nil {
				if done == nil {
					done = []config.Resource{}
				}
				return a.printJSON(done)
			}
			if !a.json {
				for _, r := range done {
					state := "exists"
					if r.Created {
						state = "created"
					}
					fmt.Fprintf(a.stdout, "%-8s %s %s (%s)\n", state, r.Kind, r.Name, r.Location)
				}
			}
			if err != nil {
				return fail(fmt.Errorf("init: %w", err))
			}
			return nil
		},
	}
}
