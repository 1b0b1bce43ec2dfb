package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/objstore"
)

// coordReads opens the store and the coordinator to read them only.
var coordReads = access{coord: true}

func (a *app) leaseStatusCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "status DOMAIN",
		Short: "Show DOMAIN's lease holder, token and expiry, and the store's highest token",
		Long: `status prints what the coordinator records for DOMAIN (holder, token,
expiry and the time left by this machine's clock, and whether the lease
is live by that clock) and the store's highest accepted token for DOMAIN.
With --json it prints them as one JSON object. Exits 0 whether the lease
is held or not; a domain whose lease was never acquired is reported as
such. When the store cannot give its highest token (a corrupt manifest),
it prints the lease all the same, then what is wrong with the manifest,
and exits 1.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			domain := args[0]
			store, c, closeAll, err := a.open(cmd, coordReads)
			if err != nil {
				return err
			}
			defer closeAll()
			st, err := c.State(cmd.Context(), domain)
			if err != nil {
				return fail(fmt.Errorf("lease status %q: %w", domain, err))
			}
			// The lease is printed even when the store cannot say its
			// highest token (a corrupt manifest): it is what the
			// operator needs to see who holds the domain.
			highest, herr := store.Highest(cmd.Context(), domain)
			if err := a.printStatus(st, highest, herr, time.Now()); err != nil {
				return err
			}
			if herr != nil {
				return fail(fmt.Errorf("lease status %q: read the store's highest token: %w", domain, herr))
			}
			return nil
		},
	}
}

// leaseStatus is the JSON of 'lease status'.
type leaseStatus struct {
	Domain   string     `json:"domain"`
	Acquired bool       `json:"acquired"` // false: the lease was never acquired
	Holder   string     `json:"holder"`   // "" when released or never acquired
	Token    uint64     `json:"token"`    // the last token issued
	Expires  *time.Time `json:"expires,omitempty"`
	// TimeLeft is the time to the expiry by this machine's clock, in
	// seconds; negative once it passed.
	TimeLeft     *float64 `json:"time_left_seconds,omitempty"`
	Live         bool     `json:"live"`
	StoreHighest uint64   `json:"store_highest_token"`
	// ManifestError says why the store's highest token could not be
	// read (StoreHighest is then 0): a corrupt manifest names its object
	// and what is wrong with it.
	ManifestError string `json:"manifest_error,omitempty"`
	// Corrupt is set when that is a corrupt manifest.
	Corrupt bool `json:"manifest_corrupt,omitempty"`
}

// printStatus prints st, and the store's highest token, or herr, the
// error that kept the store from giving it.
func (a *app) printStatus(st coord.State, highest uint64, herr error, now time.Time) error {
	s := leaseStatus{Domain: st.Domain, Acquired: st.Token != 0, Holder: st.Holder, Token: st.Token, Live: st.Held(now), StoreHighest: highest}
	if herr != nil {
		s.ManifestError, s.Corrupt = manifestProblem(herr), errors.Is(herr, objstore.ErrCorruptManifest)
	}
	if st.Holder != "" {
		exp, left := st.Expires.UTC(), st.Expires.Sub(now).Seconds()
		s.Expires, s.TimeLeft = &exp, &left
	}
	if a.json {
		return a.printJSON(s)
	}
	w := a.stdout
	fmt.Fprintf(w, "domain         %s\n", s.Domain)
	switch {
	case !s.Acquired:
		fmt.Fprintln(w, "lease          never acquired")
	case s.Holder == "":
		fmt.Fprintf(w, "lease          released (last token %d)\n", s.Token)
	default:
		live := "yes"
		if !s.Live {
			live = "no: expired by this machine's clock"
		}
		fmt.Fprintf(w, "holder         %s\n", s.Holder)
		fmt.Fprintf(w, "token          %d\n", s.Token)
		fmt.Fprintf(w, "expires        %s (%s)\n", s.Expires.Format(time.RFC3339Nano), timeLeft(st.Expires.Sub(now)))
		fmt.Fprintf(w, "live           %s\n", live)
	}
	switch {
	case s.Corrupt:
		fmt.Fprintf(w, "store highest  unknown: the manifest is corrupt\n")
		fmt.Fprintf(w, "manifest       %s\n", s.ManifestError)
	case s.ManifestError != "":
		fmt.Fprintf(w, "store highest  unknown: %s\n", s.ManifestError)
	default:
		fmt.Fprintf(w, "store highest  %d\n", s.StoreHighest)
	}
	return nil
}

// manifestProblem says in one line what kept the store from giving the
// highest token: for a corrupt manifest, its object and what is wrong
// with it (the error's advice follows on standard error).
func manifestProblem(err error) string {
	var ce *objstore.CorruptManifestError
	if errors.As(err, &ce) {
		s := "corrupt: " + ce.Key + ": " + ce.Reason
		if ce.Err != nil {
			s += ": " + ce.Err.Error()
		}
		return s
	}
	return err.Error()
}

// timeLeft says how far an expiry is from now.
func timeLeft(d time.Duration) string {
	if d > 0 {
		return "in " + d.Round(time.Millisecond).String()
	}
	return (-d).Round(time.Millisecond).String() + " ago"
}
