package serve

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/fencedstore/fence"
	"github.com/fencedstore/fence/objstore"
)

// limit reads ?limit=, bounded by MaxPageSize.
func (s *Server) limit(r *http.Request) int {
	n, err := strconv.Atoi(r.URL.Query().Get("limit"))
	if err != nil || n <= 0 {
		return s.o.PageSize
	}
	return min(n, MaxPageSize)
}

func (s *Server) domains(w http.ResponseWriter, r *http.Request) {
	p, err := s.domainsPage(r.Context(), r.URL.Query().Get("after"), s.limit(r))
	if err != nil {
		fail(w, r, http.StatusBadGateway, "", err)
		return
	}
	if p.Next != "" {
		p.NextURL = pageURL(r, "/", p.Next)
	}
	render(w, r, http.StatusOK, "domains", "Domains", p)
}

func (s *Server) domain(w http.ResponseWriter, r *http.Request) {
	domain := pathDomain(r)
	p, err := s.domainPage(r.Context(), domain, r.URL.Query().Get("after"), s.limit(r))
	if err != nil {
		fail(w, r, status(err), domain, err)
		return
	}
	if p.KeysNext != "" {
		p.KeysNextURL = pageURL(r, domainURL(domain), p.KeysNext)
	}
	render(w, r, http.StatusOK, "domain", "Domain "+domain, p)
}

func (s *Server) commit(w http.ResponseWriter, r *http.Request) {
	domain, id := pathDomain(r), r.PathValue("id")
	e, err := s.commitPage(r.Context(), domain, id)
	if err != nil {
		fail(w, r, status(err), domain, err)
		return
	}
	render(w, r, http.StatusOK, "commit", "Commit "+id, struct {
		fence.AuditEvent
		Domain string `json:"domain"`
	}{e, domain})
}

// pathDomain is the domain named by r's path. A trailing slash is
// dropped: no domain name ends with one, so /domain/NAME/ is the page of
// NAME.
func pathDomain(r *http.Request) string {
	return strings.TrimRight(r.PathValue("domain"), "/")
}

// status is the HTTP status of err.
func status(err error) int {
	switch {
	case errors.Is(err, objstore.ErrNotFound), errors.Is(err, fence.ErrNotInLog):
		return http.StatusNotFound
	case errors.Is(err, objstore.ErrInvalid):
		return http.StatusBadRequest
	}
	return http.StatusBadGateway
}
