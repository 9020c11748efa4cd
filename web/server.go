// Package web is dbrig's read-only dashboard: a runs list with filters and
// sorting, a page per run (the HTML report, interactive), a compare page,
// the history of one workload on one system under one load model, and the
// ratings with their steps.
//
// Read-only by construction: the handlers only call the store's read methods
// (fixed, parameterised SELECTs), only GET and HEAD are served, and nothing a
// client sends is ever executed as SQL.
package web

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/dbrig/dbrig/format"
	"github.com/dbrig/dbrig/report"
	"github.com/dbrig/dbrig/results"
)

// DefaultAddr is where `dbrig serve` listens unless told otherwise: loopback
// only, as the dashboard has no authentication.
const DefaultAddr = "127.0.0.1:8080"

//go:embed pages.tmpl
var pageFS embed.FS

var pages = template.Must(template.New("pages").Funcs(template.FuncMap{
	"us":   format.MicrosInt,
	"rate": format.Rate,
	"join": strings.Join,
}).ParseFS(pageFS, "pages.tmpl"))

// Server serves the dashboard of one store.
type Server struct {
	store *results.Store
	mux   *http.ServeMux
	log   *slog.Logger
}

// NewServer returns the dashboard's handler. It does no work up front, so it
// starts at once whatever the size of the store.
func NewServer(store *results.Store) http.Handler {
	s := &Server{store: store, mux: http.NewServeMux(), log: slog.Default()}
	assets := http.FileServerFS(report.Assets())
	s.mux.Handle("GET /assets/", http.StripPrefix("/assets/", cacheable(filesOnly(assets))))
	s.mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent) // browsers ask; a 404 would log a console error
	})
	s.mux.HandleFunc("GET /{$}", s.runs)
	s.mux.HandleFunc("GET /run/{id}", s.run)
	s.mux.HandleFunc("GET /compare", s.compare)
	s.mux.HandleFunc("GET /history", s.history)
	s.mux.HandleFunc("GET /ratings", s.ratings)
	s.mux.HandleFunc("GET /ratings/{id}", s.rating)
	s.mux.HandleFunc("GET /", func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, r, http.StatusNotFound, fmt.Errorf("no page %s here; start from the runs list", r.URL.Path))
	})
	return s
}

// ServeHTTP refuses anything but reads, sets headers that keep pages from
// loading anything off this server, and turns a panic into an error page.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		s.fail(w, r, http.StatusMethodNotAllowed, fmt.Errorf("method %s: the dashboard is read-only (GET and HEAD only)", r.Method))
		return
	}
	if _, err := url.ParseQuery(r.URL.RawQuery); err != nil {
		// Go drops such a pair silently; a filter that vanished would mislead.
		s.fail(w, r, http.StatusBadRequest, fmt.Errorf("query %q: %w", r.URL.RawQuery, err))
		return
	}
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.log.Error("dashboard: panic", "path", r.URL.Path, "panic", v)
			s.fail(w, r, http.StatusInternalServerError, errors.New("internal error; see the server log"))
		}
	}()
	s.mux.ServeHTTP(w, r)
}

// filesOnly serves files and answers 404 for a directory, which the file
// server would otherwise list.
func filesOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "" || strings.HasSuffix(r.URL.Path, "/") {
			http.NotFound(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
}

func cacheable(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		h.ServeHTTP(w, r)
	})
}

// page is what every page template gets.
type page struct {
	Title string
	Nav   string // which nav entry is current
	Data  any
}

// render executes a page into a buffer first, so that a template error gives
// an error page rather than half a page.
func (s *Server) render(w http.ResponseWriter, r *http.Request, name string, p page) {
	var b bytes.Buffer
	if err := pages.ExecuteTemplate(&b, name, p); err != nil {
		s.fail(w, r, http.StatusInternalServerError, fmt.Errorf("render %s: %w", name, err))
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(b.Bytes())
}

// fail writes an error page: the status and a message that says what was
// wrong, never a stack trace.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, code int, err error) {
	if code >= 500 {
		s.log.Error("dashboard", "path", r.URL.Path, "err", err)
	}
	var b bytes.Buffer
	if terr := pages.ExecuteTemplate(&b, "error", page{Title: http.StatusText(code), Data: struct {
		Code    int
		Status  string
		Message string
	}{code, http.StatusText(code), err.Error()}}); terr != nil {
		http.Error(w, err.Error(), code)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	w.Write(b.Bytes())
}

// errStatus maps a store error to an HTTP status: an unknown run is 404.
func errStatus(err error) int {
	if errors.Is(err, results.ErrNoRun) {
		return http.StatusNotFound
	}
	return http.StatusInternalServerError
}
