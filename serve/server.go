package serve

import (
	"context"
	"crypto/subtle"
	"net/http"
	"strings"
	"time"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
)

// Options tunes a Server. The zero value (or nil) gives the defaults.
type Options struct {
	// PageSize is the number of domains, and of keys, on a page when the
	// request does not ask for fewer. Default 50; at most MaxPageSize.
	PageSize int
	// Timeout bounds the work of one request. Default 20 s.
	Timeout time.Duration
	// MaxScan bounds the objects one page of domains walks. Default
	// 100,000.
	MaxScan int
	// MaxVersions bounds the version objects of one domain examined for
	// fenced attempts. Default 1,000.
	MaxVersions int
	// Token, when set, is required on every request but /healthz: as a
	// bearer token (Authorization: Bearer TOKEN) or as the password of
	// HTTP basic auth (any user name).
	Token string
	// Metrics, when set, is served at /metrics.
	Metrics http.Handler
	// Now returns the current time. Default time.Now.
	Now func() time.Time
	// Store and Coordinator name what the pages show, for their
	// headings: the URLs the server was opened with, with credentials
	// already removed (config.Redact). Empty: not named.
	Store, Coordinator string
	// Recent is how long a fenced attempt counts as recent on the
	// domains page: a domain whose newest fenced attempt is younger
	// than Recent at render time is "fenced recently". Default 24 h.
	Recent time.Duration
	// MaxSurvey bounds the domains the first page of domains reads to
	// count domains by state and list those in trouble. Default 10,000.
	MaxSurvey int
}

// MaxPageSize is the largest page a request may ask for.
const MaxPageSize = 500

// Server renders a store's domains. It only reads.
type Server struct {
	store *objstore.Store
	b     driver.Backend
	c     *coord.Coordinator // nil: no coordinator
	o     Options
}

// New returns a Server over store and the coordinator c (nil when there
// is none: lease columns are then empty). opts may be nil.
func New(store *objstore.Store, c *coord.Coordinator, opts *Options) *Server {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.PageSize <= 0 {
		o.PageSize = 50
	}
	o.PageSize = min(o.PageSize, MaxPageSize)
	if o.Timeout <= 0 {
		o.Timeout = 20 * time.Second
	}
	if o.MaxScan <= 0 {
		o.MaxScan = 100_000
	}
	if o.MaxVersions <= 0 {
		o.MaxVersions = 1000
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Recent <= 0 {
		o.Recent = 24 * time.Hour
	}
	if o.MaxSurvey <= 0 {
		o.MaxSurvey = 10_000
	}
	return &Server{store: store, b: store.Backend(), c: c, o: o}
}

// Handler returns the server's routes:
//
//	/                            the domains (?after=CURSOR&limit=N)
//	/domain/DOMAIN               one domain (?after=KEY&limit=N: its keys)
//	/commit/ID/DOMAIN            one commit of DOMAIN
//	/metrics                     Options.Metrics, when set
//	/healthz                     "ok", without authentication
//
// Every page is HTML, or JSON with Accept: application/json or
// ?format=json.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.domains)
	mux.HandleFunc("GET /domain/{domain...}", s.domain)
	mux.HandleFunc("GET /commit/{id}/{domain...}", s.commit)
	mux.HandleFunc("GET /style.css", style)
	if s.o.Metrics != nil {
		mux.Handle("GET /metrics", s.o.Metrics)
	}
	health := func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	}
	outer := http.NewServeMux()
	outer.HandleFunc("GET /healthz", health)
	outer.Handle("/", s.auth(s.bounded(mux)))
	return headers(outer)
}

// headers sets the headers every response carries: no script runs on a
// page, nothing is loaded from elsewhere, and no page is framed.
func headers(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Referrer-Policy", "no-referrer")
		h.ServeHTTP(w, r)
	})
}

// bounded runs each request under Options.Timeout.
func (s *Server) bounded(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), s.o.Timeout)
		defer cancel()
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}

// auth requires Options.Token, when set.
func (s *Server) auth(h http.Handler) http.Handler {
	if s.o.Token == "" {
		return h
	}
	want := []byte(s.o.Token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var got string
		if _, pass, ok := r.BasicAuth(); ok {
			got = pass
		} else if v, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
			got = v
		}
		if subtle.ConstantTimeCompare([]byte(got), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Basic realm="fence serve", charset="UTF-8"`)
			http.Error(w, "fence serve: authentication required", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}
