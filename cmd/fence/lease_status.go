package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/fencedstore/fence/coord"
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
such.`,
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
			highest, err := store.Highest(cmd.Context(), domain)
			if err != nil {
				return fail(fmt.Errorf("lease status %q: read the store's highest token: %w", domain, err))
			}
			return a.printStatus(st, highest, time.Now())
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
}

func (a *app) printStatus(st coord.State, highest uint64, now time.Time) error {
	s := leaseStatus{Domain: st.Domain, Acquired: st.Token != 0, Holder: st.Holder, Token: st.Token, Live: st.Held(now), StoreHighest: highest}
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
	fmt.Fprintf(w, "store highest  %d\n", s.StoreHighest)
	return nil
}

// timeLeft says how far an expiry is from now.
func timeLeft(d time.Duration) string {
	if d > 0 {
		return "in " + d.Round(time.Millisecond).String()
	}
	return (-d).Round(time.Millisecond).String() + " ago"
}
