package serve

import (
	"errors"
	"net/http"
	"strconv"

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
	render(w, r, http.StatusOK, "domains", "Domains", p)
}

func (s *Server) domain(w http.ResponseWriter, r *http.Request) {
	domain := r.PathValue("domain")
	p, err := s.domainPage(r.Context(), domain, r.URL.Query().Get("after"), s.limit(r))
	if err != nil {
		fail(w, r, status(err), domain, err)
		return
	}
	render(w, r, http.StatusOK, "domain", "Domain "+domain, p)
}

func (s *Server) commit(w http.ResponseWriter, r *http.Request) {
	domain, id := r.PathValue("domain"), r.PathValue("id")
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
