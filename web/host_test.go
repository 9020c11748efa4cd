package web

import (
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// DNS rebinding: a page at evil.example whose name now resolves to
// 127.0.0.1 must not read the dashboard. A dashboard on loopback answers
// only requests addressed to it by IP or as localhost.
func TestHostCheck(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	loop := HostCheck(ok, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080})
	wide := HostCheck(ok, &net.TCPAddr{IP: net.IPv4zero, Port: 8080})
	for _, tc := range []struct {
		h    http.Handler
		host string
		code int
	}{
		{loop, "127.0.0.1:8080", 200},
		{loop, "localhost:8080", 200},
		{loop, "LOCALHOST:8080", 200},
		{loop, "[::1]:8080", 200},
		{loop, "evil.example:8080", 403},
		{loop, "evil.example", 403},
		{loop, "127.0.0.1.evil.example:8080", 403},
		{wide, "bench-box.example:8080", 200},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.Host = tc.host
		w := httptest.NewRecorder()
		tc.h.ServeHTTP(w, r)
		if w.Code != tc.code {
			t.Errorf("Host %s: %d, want %d", tc.host, w.Code, tc.code)
		}
	}
}
