package web

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/dbrig/dbrig/results"
)

// ListenError is an address the dashboard cannot listen on (the user's to
// fix: taken, not this machine's).
type ListenError struct {
	Addr string
	Err  error
}

func (e *ListenError) Error() string { return fmt.Sprintf("--addr %s: %v", e.Addr, e.Err) }
func (e *ListenError) Unwrap() error { return e.Err }

// Serve serves the dashboard over store on addr until ctx ends (dbrig
// serve), then shuts down within 5 s. Where it listens, and a warning when
// that is reachable from other machines, go to log.
func Serve(ctx context.Context, store *results.Store, addr string, log io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return &ListenError{Addr: addr, Err: err}
	}
	if !isLoopback(ln.Addr()) {
		fmt.Fprintf(log, "warning: the dashboard listens on %s, reachable from other machines; it has no login (use 127.0.0.1:PORT to keep it local)\n", ln.Addr())
	}
	srv := &http.Server{Handler: HostCheck(NewServer(store), ln.Addr()), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(log, "dbrig dashboard on http://%s (results: %s); Ctrl-C stops it\n", ln.Addr(), store.Name())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		return srv.Shutdown(sctx)
	}
}

// isLoopback tells whether a listening address is reachable from this
// machine only.
func isLoopback(a net.Addr) bool {
	ta, ok := a.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}
