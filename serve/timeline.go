package serve

import (
	"fmt"
	"slices"
	"time"

	"github.com/fencedstore/fence"
)

// Point is one event of a domain's timeline.
type Point struct {
	// Kind is "takeover" (a lease acquisition or break that fenced the
	// store at a new token), "commit", "fenced" (a fenced attempt) or
	// "lease" (the coordinator's record now).
	Kind  string    `json:"kind"`
	Time  time.Time `json:"time"`
	Token uint64    `json:"token"`
	// FencedBy is the token that rejected a fenced attempt.
	FencedBy uint64 `json:"fenced_by,omitempty"`
	Holder   string `json:"holder,omitempty"`
	CommitID string `json:"commit_id,omitempty"`
	// What says what happened, in words.
	What string `json:"what"`
}

// timeline merges a domain's trail, its fenced attempts and its lease
// into one list of points in time order.
func timeline(t fence.AuditTrail, attempts []Attempt, l *LeaseStatus, now time.Time) []Point {
	var ps []Point
	for _, e := range t.Events {
		switch e.Kind {
		case "takeover":
			ps = append(ps, Point{Kind: e.Kind, Time: e.Time, Token: e.Token, Holder: e.Holder, CommitID: e.CommitID,
				What: fmt.Sprintf("lease acquired by %s with token %d; the store rejects older tokens from here on", e.Holder, e.Token)})
		case "commit":
			ps = append(ps, Point{Kind: e.Kind, Time: e.Time, Token: e.Token, Holder: e.Holder, CommitID: e.CommitID,
				What: fmt.Sprintf("commit by %s: %d put, %d deleted", byText(e.Holder, eventBy(e, l)), e.Puts, e.Deletes)})
		}
	}
	for _, a := range attempts {
		ps = append(ps, Point{Kind: "fenced", Time: a.Time, Token: a.Token, FencedBy: a.FencedBy, Holder: a.Holder(),
			What: fmt.Sprintf("fenced attempt with token %d (%s), rejected: %s", a.Token, a.What(), a.Refusal())})
	}
	if l != nil && l.Acquired {
		p := Point{Kind: "lease", Time: now.UTC(), Token: l.Token, Holder: l.Holder}
		switch l.State() {
		case "released":
			p.What = fmt.Sprintf("lease released (last token %d)", l.Token)
		case "held":
			p.What = fmt.Sprintf("lease held by %s with token %d, expires %s", l.Holder, l.Token, l.Left())
		default:
			p.What = fmt.Sprintf("lease of %s with token %d expired %s and was not released", l.Holder, l.Token, l.Left())
		}
		ps = append(ps, p)
	}
	slices.SortStableFunc(ps, func(a, b Point) int { return a.Time.Compare(b.Time) })
	return ps
}

// plot is a timeline drawn as an SVG plot of token against time.
type plot struct {
	W, H           int
	Left, Bottom   int // the axes' position
	Points         []plotPoint
	YTicks, XTicks []tick
	Step           string  // the path of the highest accepted token
	Now            float64 // where the lease now is drawn; 0: it is not
}

type plotPoint struct {
	X, Y  float64
	Kind  string
	Token uint64
	Title string
	// Y2 is the height of the token that fenced an attempt.
	Y2 float64
}

type tick struct {
	At    float64
	Label string
}

// draw lays out ps in a plot.
func draw(ps []Point) plot {
	p := plot{W: 760, H: 300, Left: 60, Bottom: 250}
	if len(ps) == 0 {
		return p
	}
	right, top := float64(p.W-20), 20.0
	events := right - 40 // the events end here; the lease now is at right
	// The lease now is drawn at the right edge, off the time scale of
	// the events, which it may follow by days.
	t0, t1 := ps[0].Time, ps[0].Time
	for _, q := range ps {
		if q.Kind != "lease" {
			t1 = q.Time
		}
	}
	lo, hi := ps[0].Token, ps[0].Token
	for _, q := range ps {
		lo, hi = min(lo, q.Token), max(hi, q.Token, q.FencedBy)
	}
	if lo > 0 {
		lo--
	}
	hi++
	x := func(t time.Time) float64 {
		span := t1.Sub(t0)
		if span <= 0 {
			return (float64(p.Left) + events) / 2
		}
		return float64(p.Left) + 10 + (events-float64(p.Left)-10)*float64(t.Sub(t0))/float64(span)
	}
	y := func(tok uint64) float64 {
		return float64(p.Bottom) - (float64(p.Bottom)-top)*float64(tok-lo)/float64(hi-lo)
	}
	var highest uint64
	for _, q := range ps {
		pp := plotPoint{X: x(q.Time), Y: y(q.Token), Kind: q.Kind, Token: q.Token,
			Title: q.Time.UTC().Format(time.RFC3339) + ": " + q.What}
		if q.Kind == "lease" {
			pp.X = right - 4
			p.Now = right - 4
		}
		if q.Kind == "fenced" {
			pp.Y2 = y(q.FencedBy)
		}
		p.Points = append(p.Points, pp)
		if q.Kind == "takeover" || q.Kind == "commit" {
			switch {
			case p.Step == "":
				p.Step = fmt.Sprintf("M%.1f %.1f", pp.X, pp.Y)
			case q.Token > highest:
				p.Step += fmt.Sprintf(" H%.1f V%.1f", pp.X, pp.Y)
			}
			highest = max(highest, q.Token)
		}
	}
	if p.Step != "" {
		p.Step += fmt.Sprintf(" H%.1f", right)
	}
	stride := max(1, (hi-lo)/6)
	for tok := lo; tok <= hi; tok += stride {
		p.YTicks = append(p.YTicks, tick{At: y(tok), Label: fmt.Sprint(tok)})
	}
	p.XTicks = []tick{{At: x(t0), Label: t0.UTC().Format("15:04:05")}}
	if t1.After(t0) {
		p.XTicks = append(p.XTicks, tick{At: x(t1), Label: t1.UTC().Format("15:04:05")})
	}
	return p
}
