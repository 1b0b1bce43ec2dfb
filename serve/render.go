package serve

import (
	"embed"
	"encoding/json"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

//go:embed templates/*.html templates/style.css
var files embed.FS

// pages are the HTML templates, each with the layout.
var pages = map[string]*template.Template{}

func init() {
	funcs := template.FuncMap{
		"when":      when,
		"domainURL": domainURL,
		"commitURL": commitURL,
		"draw":      draw,
		"shortID":   shortID,
		"rows":      func(id string, rs []DomainRow) rowsTable { return rowsTable{ID: id, Rows: rs} },
		"recent":    recentText,
		"by":        eventBy,
	}
	for _, name := range []string{"domains", "domain", "commit", "error"} {
		pages[name] = template.Must(template.New("layout.html").Funcs(funcs).ParseFS(files, "templates/layout.html", "templates/"+name+".html"))
	}
}

// wantsJSON reports whether r asks for JSON: ?format=json, or an Accept
// header that names application/json.
func wantsJSON(r *http.Request) bool {
	if f := r.URL.Query().Get("format"); f != "" {
		return f == "json"
	}
	return strings.Contains(r.Header.Get("Accept"), "application/json")
}

// render writes v as JSON or as the HTML page name.
func render(w http.ResponseWriter, r *http.Request, status int, name, title string, v any) {
	if wantsJSON(r) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(v)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_ = pages[name].Execute(w, struct {
		Title string
		Data  any
	}{title, v})
}

// errorPage is the body of a failed request.
type errorPage struct {
	Error  string `json:"error"`
	Domain string `json:"domain,omitempty"`
}

// fail writes an error page.
func fail(w http.ResponseWriter, r *http.Request, status int, domain string, err error) {
	render(w, r, status, "error", http.StatusText(status), errorPage{Error: describe(err), Domain: domain})
}

func style(w http.ResponseWriter, _ *http.Request) {
	b, _ := files.ReadFile("templates/style.css")
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	_, _ = w.Write(b)
}

// when formats a time for a page.
func when(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02 15:04:05.000Z")
}

// domainURL is the path of domain's page, each segment escaped.
func domainURL(domain string) string { return "/domain/" + escapePath(domain) }

// pageURL is the address of the page of path after the cursor after:
// the request's own ?limit= is kept when it gave one. url.Values
// escapes each value once, and a template puts the result whole in an
// href, where html/template only normalizes it (a value escaped before
// it reaches a template's query context is escaped twice: issue 34).
func pageURL(r *http.Request, path, after string) string {
	q := url.Values{"after": {after}}
	if n, err := strconv.Atoi(r.URL.Query().Get("limit")); err == nil && n > 0 {
		q.Set("limit", strconv.Itoa(min(n, MaxPageSize)))
	}
	return path + "?" + q.Encode()
}

// commitURL is the path of a commit's page.
func commitURL(domain, id string) string {
	return "/commit/" + url.PathEscape(id) + "/" + escapePath(domain)
}

func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// shortID is the start of a commit id.
func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// rowsTable is a table of domain rows and its element id.
type rowsTable struct {
	ID   string
	Rows []DomainRow
}

// recentText says a number of seconds in hours, or minutes, or seconds,
// whichever is whole: "24 hours", "90 minutes", "1 hour".
func recentText(seconds float64) string {
	d := time.Duration(seconds * float64(time.Second))
	plural := func(n int64, unit string) string {
		if n == 1 {
			return "1 " + unit
		}
		return strconv.FormatInt(n, 10) + " " + unit + "s"
	}
	switch {
	case d >= time.Hour && d%time.Hour == 0:
		return plural(int64(d/time.Hour), "hour")
	case d >= time.Minute && d%time.Minute == 0:
		return plural(int64(d/time.Minute), "minute")
	}
	return d.String()
}
