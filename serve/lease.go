package serve

import (
	"time"

	"github.com/fencedstore/fence/coord"
)

// LeaseStatus is a domain's lease, in the shape of 'fence lease status
// --json'.
type LeaseStatus struct {
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

// leaseStatus describes st at now.
func leaseStatus(st coord.State, highest uint64, now time.Time) *LeaseStatus {
	s := &LeaseStatus{Domain: st.Domain, Acquired: st.Token != 0, Holder: st.Holder, Token: st.Token, Live: st.Held(now), StoreHighest: highest}
	if st.Holder != "" {
		exp, left := st.Expires.UTC(), st.Expires.Sub(now).Seconds()
		s.Expires, s.TimeLeft = &exp, &left
	}
	return s
}

// State says in a few words where the lease stands.
func (s *LeaseStatus) State() string {
	switch {
	case s == nil:
		return "unknown"
	case !s.Acquired:
		return "never acquired"
	case s.Holder == "":
		return "released"
	case s.Live:
		return "held"
	}
	return "expired, not released"
}

// Expired reports a lease that ran out and was not released: its holder
// may have died, or paused.
func (s *LeaseStatus) Expired() bool { return s != nil && s.Holder != "" && !s.Live }

// Left says how far the expiry is from now.
func (s *LeaseStatus) Left() string {
	if s == nil || s.TimeLeft == nil {
		return ""
	}
	d := time.Duration(*s.TimeLeft * float64(time.Second))
	if d > 0 {
		return "in " + d.Round(time.Millisecond).String()
	}
	return (-d).Round(time.Millisecond).String() + " ago"
}
