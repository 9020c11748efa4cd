package web

import (
	"net"
	"net/http"
	"strings"
)

// HostCheck guards a dashboard listening on addr against DNS rebinding: a
// page on another site whose name the attacker re-points at 127.0.0.1 would
// otherwise read it with the victim's browser. On a loopback address only
// requests whose Host is an IP address or localhost are answered (403
// otherwise); on another address, which other machines reach anyway, any
// Host is.
func HostCheck(h http.Handler, addr net.Addr) http.Handler {
	ta, ok := addr.(*net.TCPAddr)
	if !ok || !ta.IP.IsLoopback() {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if hh, _, err := net.SplitHostPort(host); err == nil {
			host = hh
		}
		host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
		if net.ParseIP(host) == nil && !strings.EqualFold(host, "localhost") {
			http.Error(w, "dbrig dashboard: Host "+r.Host+" refused: address it as 127.0.0.1 or localhost (DNS rebinding guard)", http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	})
}
