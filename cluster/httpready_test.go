package cluster

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestHTTPStatus(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/ping" {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		url    string
		want   int
		wantOK bool
	}{
		{"answers as wanted", srv.URL + "/ping", http.StatusNoContent, true},
		{"another status", srv.URL + "/health", http.StatusOK, false},
		{"right path, other status wanted", srv.URL + "/ping", http.StatusOK, false},
		{"nobody listens", closed.URL + "/ping", http.StatusNoContent, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := HTTPStatus(ctx, tc.url, tc.want); (err == nil) != tc.wantOK {
				t.Errorf("HTTPStatus = %v, want ok %v", err, tc.wantOK)
			}
		})
	}
}
