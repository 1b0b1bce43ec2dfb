package serve

import "time"

// The states of a domain on the domains page, most severe first. A
// domain is in the first of them that applies; the marks of its row show
// the others.
const (
	// StateCorrupt: the domain's manifest is corrupt or lost (its
	// versions remain): nothing can be read or written until it is
	// restored.
	StateCorrupt = "corrupt"
	// StateUnreadable: the manifest could not be read (a timeout, a
	// refused request): the store did not say what the domain holds.
	StateUnreadable = "unreadable"
	// StateFenced: the domain's newest fenced attempt is younger than
	// Options.Recent (24 h) at render time: a stale holder was writing
	// recently, and may still be running.
	StateFenced = "fenced"
	// StateExpired: the lease ran out and was not released: its holder
	// may have died, or paused.
	StateExpired = "expired"
	// StateCoordUnreachable: the coordinator did not answer for this
	// domain's lease, so whether it is held is unknown.
	StateCoordUnreachable = "coordinator_unreachable"
	// StateHealthy: none of the above.
	StateHealthy = "healthy"
)

// states are the states in order of severity, with the words the page
// uses for them.
var states = []struct{ name, label string }{
	{StateCorrupt, "corrupt manifest"},
	{StateUnreadable, "unreadable"},
	{StateFenced, "fenced recently"},
	{StateExpired, "expired, not released"},
	{StateCoordUnreachable, "coordinator unreachable"},
	{StateHealthy, "healthy"},
}

// rank is the place of state in states: lower is more severe.
func rank(state string) int {
	for i, s := range states {
		if s.name == state {
			return i
		}
	}
	return len(states)
}

// label is the words for state.
func label(state string) string {
	for _, s := range states {
		if s.name == state {
			return s.label
		}
	}
	return state
}

// classify sets r.State from what its row says, at now: corrupt and
// unreadable from its error, fenced when its newest fenced attempt is
// younger than recent, expired from its lease, coordinator unreachable
// from its lease error.
func classify(r *DomainRow, corrupt bool, now time.Time, recent time.Duration) {
	switch {
	case r.Error != "" && corrupt:
		r.State = StateCorrupt
	case r.Error != "":
		r.State = StateUnreadable
	case r.LastFenced != nil && now.Sub(*r.LastFenced) < recent:
		r.State = StateFenced
	case r.ExpiredNotReleased:
		r.State = StateExpired
	case r.LeaseError != "":
		r.State = StateCoordUnreachable
	default:
		r.State = StateHealthy
	}
}

// Problem reports whether the row's domain is in trouble: any state but
// healthy.
func (r DomainRow) Problem() bool { return r.State != "" && r.State != StateHealthy }

// StateLabel is the words for the row's state.
func (r DomainRow) StateLabel() string { return label(r.State) }
