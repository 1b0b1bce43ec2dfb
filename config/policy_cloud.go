package config

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/fencedstore/fence/policy"
)

// ErrNotCloud is returned by CloudRoles and CloudRole for a store that is
// neither a gs:// bucket nor an azblob:// container.
var ErrNotCloud = errors.New("config: cloud roles are for gs:// and azblob:// stores")

// cloudLocation parses storeURL, which must name a gs:// or azblob://
// store, and coordURL, which must be empty or name the same store: the
// roles cover the store, where bucket leases keep their records, and no
// other coordinator.
func cloudLocation(storeURL, coordURL string) (Location, error) {
	loc, err := ParseURL(storeURL)
	if err != nil {
		return Location{}, err
	}
	if loc.Scheme != "gs" && loc.Scheme != "azblob" {
		return Location{}, fmt.Errorf("%w, not %s", ErrNotCloud, Redact(storeURL))
	}
	if coordURL != "" {
		cl, err := ParseURL(coordURL)
		if err != nil {
			return Location{}, err
		}
		if cl.Scheme != loc.Scheme || cl.Bucket != loc.Bucket || cl.Prefix != loc.Prefix {
			return Location{}, fmt.Errorf("config: coordinator %s: these roles cover the store %s only, where bucket leases keep their records; grant the coordinator's permissions separately", Redact(coordURL), Redact(storeURL))
		}
	}
	return loc, nil
}

// CloudRoles returns what a writer, a reader and gc need on the gs:// or
// azblob:// store storeURL names (policy.GCSSummary, policy.AzureSummary).
// coordURL is the coordinator's URL, "" for bucket leases in the store.
func CloudRoles(storeURL, coordURL string) (policy.Summary, error) {
	loc, err := cloudLocation(storeURL, coordURL)
	if err != nil {
		return policy.Summary{}, err
	}
	if loc.Scheme == "gs" {
		return policy.GCSSummary(loc.Bucket, loc.Prefix), nil
	}
	return policy.AzureSummary(loc.Bucket, loc.Prefix, azureAccount(loc)), nil
}

// CloudRole returns the custom role definition of role for the gs:// or
// azblob:// store storeURL names, as JSON the cloud's CLI takes: for GCS
// gcloud iam roles create --file (policy.GCS), for Azure az role
// definition create --role-definition (policy.Azure), assignable at
// azureScope, which an azblob:// store requires. coordURL is as for
// CloudRoles.
func CloudRole(role policy.Role, storeURL, coordURL, azureScope string) ([]byte, error) {
	loc, err := cloudLocation(storeURL, coordURL)
	if err != nil {
		return nil, err
	}
	if loc.Scheme == "gs" {
		if azureScope != "" {
			return nil, fmt.Errorf("%w %q given for %s: it is for azblob:// stores", policy.ErrScope, azureScope, Redact(storeURL))
		}
		r, err := policy.GCS(role, loc.Bucket, loc.Prefix)
		if err != nil {
			return nil, err
		}
		return r.JSON(), nil
	}
	if azureScope == "" {
		return nil, fmt.Errorf("%w missing: an Azure custom role needs the scope it can be assigned at: pass --azure-scope /subscriptions/SUBSCRIPTION[/resourceGroups/GROUP]", policy.ErrScope)
	}
	r, err := policy.Azure(role, loc.Bucket, loc.Prefix, azureScope)
	if err != nil {
		return nil, err
	}
	return r.JSON(), nil
}

// azureAccount returns the storage account of an azblob Location: its
// account parameter, or the first label of an https://ACCOUNT.blob...
// endpoint, or the path of an Azurite-style http://HOST:PORT/ACCOUNT
// endpoint; "" when none names it.
func azureAccount(loc Location) string {
	if loc.Account != "" {
		return loc.Account
	}
	u, err := url.Parse(loc.Endpoint)
	if err != nil || loc.Endpoint == "" {
		return ""
	}
	if p := strings.Trim(u.Path, "/"); p != "" {
		return p
	}
	if host, _, ok := strings.Cut(u.Hostname(), "."); ok {
		return host
	}
	return ""
}
