package serve

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
)

// surveyParallel bounds the domains the survey reads at once.
const surveyParallel = 16

// order says, in the JSON, how the domains page orders its rows.
const order = "summary.problems (first page only): every domain in trouble that the survey of the store read, the most severe state first (corrupt, unreadable, fenced, expired, coordinator_unreachable), then in listing order; " +
	"domains: one page of all the domains, those in trouble too, in listing order (the order of their manifests' object keys); next continues domains after this page, whatever the states"

// DomainsPage is the domains page.
type DomainsPage struct {
	// Store and Coordinator name what the page shows (Options.Store
	// and Options.Coordinator); Rendered is when the page was made, by
	// this machine's clock.
	Store       string    `json:"store,omitempty"`
	Coordinator string    `json:"coordinator,omitempty"`
	Rendered    time.Time `json:"rendered_at"`
	// Order says how the rows are ordered.
	Order string `json:"order"`
	// Summary counts the store's domains by state and lists those in
	// trouble; the first page has it, a later page (with ?after=) not.
	Summary *Summary `json:"summary,omitempty"`
	// Banner holds the lease error shared by the rows, once: their
	// lease_error then says only that they are affected.
	Banner  *Banner     `json:"coordinator_error,omitempty"`
	Domains []DomainRow `json:"domains"`
	// Next is the cursor of the next page (?after=NEXT); "" on the last.
	// NextURL is the HTML page's link to it.
	Next    string `json:"next,omitempty"`
	NextURL string `json:"-"`
	// Advice is what to do about a corrupt manifest, which ends each
	// such row's error: the HTML shows it once.
	Advice string `json:"-"`
	// Scanned is the number of objects the walk of this page read;
	// Capped says it stopped at its bound before the page was full.
	Scanned int  `json:"scanned_objects"`
	Capped  bool `json:"capped,omitempty"`
}

// Summary is what the first page of domains says of the whole store:
// it reads every domain (up to Options.MaxSurvey of them, and the
// objects up to Options.MaxScan) to count them by state and to list
// those in trouble.
type Summary struct {
	// Domains counts the domains read, and Counts them by state (every
	// state, 0 too); Hidden counts the internal domains left out.
	Domains int            `json:"domains"`
	Counts  map[string]int `json:"counts"`
	Hidden  int            `json:"hidden_domains"`
	// Problems are the rows of the domains in trouble, most severe
	// first. A domain whose only trouble is the banner's lease error is
	// counted but not listed: the banner speaks for it.
	Problems []DomainRow `json:"problems"`
	// Recent is the age below which a fenced attempt makes a domain
	// "fenced" (Options.Recent), in seconds.
	Recent float64 `json:"fenced_recent_seconds"`
	// Scanned counts the objects listed; Capped says the survey stopped
	// at its bound, so the counts and problems cover only the domains
	// whose names come first.
	Scanned int  `json:"scanned_objects"`
	Capped  bool `json:"capped,omitempty"`
}

// MarshalJSON writes p with its lists as [] when empty, never null.
func (p DomainsPage) MarshalJSON() ([]byte, error) {
	type plain DomainsPage
	q := plain(p)
	q.Domains = orEmpty(q.Domains)
	if q.Summary != nil {
		sum := *q.Summary
		sum.Problems = orEmpty(sum.Problems)
		q.Summary = &sum
	}
	return json.Marshal(q)
}

// Count is one state's count, for the page.
type Count struct {
	State, Label string
	N            int
}

// Ordered are the counts, most severe state first.
func (s *Summary) Ordered() []Count {
	var out []Count
	for _, st := range states {
		out = append(out, Count{State: st.name, Label: st.label, N: s.Counts[st.name]})
	}
	return out
}

// InTrouble counts the domains in any state but healthy.
func (s *Summary) InTrouble() int { return s.Domains - s.Counts[StateHealthy] }

// domainsPage reads one page of domains after the cursor after, and on
// the first page (after == "") the summary of the store.
//
// The page's rows are in key order and the cursor is an object key, as
// before the summary existed: following next from the first page visits
// every domain once, whatever their states do meanwhile. The domains in
// trouble come first as the summary's own list, read over the whole
// store, not page by page, so a problem on page 7 shows on page 1.
func (s *Server) domainsPage(ctx context.Context, after string, limit int) (DomainsPage, error) {
	now := s.o.Now()
	w, err := walkDomains(ctx, s.b, after, limit, s.o.MaxScan, s.o.MaxVersions)
	if err != nil {
		return DomainsPage{}, fmt.Errorf("list the store's objects: %w", err)
	}
	p := DomainsPage{Store: s.o.Store, Coordinator: s.o.Coordinator, Rendered: now.UTC(), Order: order,
		Next: w.next, Scanned: w.scanned, Capped: w.capped}
	down := new(atomic.Bool) // a lease read failed: ask the coordinator no more
	rows := map[string]*DomainRow{}
	var survey walkPage
	if after == "" {
		if survey, err = walkDomains(ctx, s.b, "", s.o.MaxSurvey, s.o.MaxScan, s.o.MaxVersions); err != nil {
			return DomainsPage{}, fmt.Errorf("list the store's objects: %w", err)
		}
		s.readRows(ctx, survey.domains, rows, now, down, surveyParallel)
	}
	s.readRows(ctx, w.domains, rows, now, down, parallel)
	all := make([]*DomainRow, 0, len(rows))
	for _, r := range rows {
		all = append(all, r)
	}
	p.Banner = hoist(all)
	for _, r := range all {
		if r.advice != "" {
			p.Advice = r.advice
			break
		}
	}
	for _, f := range w.domains {
		p.Domains = append(p.Domains, *rows[f.domain])
	}
	if after == "" {
		p.Summary = summarize(survey, rows, s.o.Recent)
	}
	return p, nil
}

// readRows reads the row of each of fs not in rows yet, n at a time,
// into rows.
func (s *Server) readRows(ctx context.Context, fs []*found, rows map[string]*DomainRow, now time.Time, down *atomic.Bool, n int) {
	var todo []*found
	for _, f := range fs {
		if rows[f.domain] == nil {
			todo = append(todo, f)
		}
	}
	read := make([]DomainRow, len(todo))
	var g errgroup.Group
	g.SetLimit(n)
	for i, f := range todo {
		g.Go(func() error {
			read[i] = s.row(ctx, f, now, down)
			return nil
		})
	}
	_ = g.Wait()
	for i, f := range todo {
		rows[f.domain] = &read[i]
	}
}

// summarize counts the survey's domains by state and lists those in
// trouble, most severe first, then in listing order.
func summarize(survey walkPage, rows map[string]*DomainRow, recent time.Duration) *Summary {
	sum := &Summary{Domains: len(survey.domains), Counts: map[string]int{}, Hidden: survey.hidden,
		Recent: recent.Seconds(), Scanned: survey.scanned, Capped: survey.next != ""}
	for _, st := range states {
		sum.Counts[st.name] = 0
	}
	for _, f := range survey.domains {
		r := rows[f.domain]
		sum.Counts[r.State]++
		if r.Problem() && !(r.State == StateCoordUnreachable && r.LeaseError == affected) {
			sum.Problems = append(sum.Problems, *r)
		}
	}
	slices.SortStableFunc(sum.Problems, func(a, b DomainRow) int { return cmp.Compare(rank(a.State), rank(b.State)) })
	return sum
}
