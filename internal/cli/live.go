package cli

import (
	"flag"

	"github.com/dbrig/dbrig/livemetrics"
)

// liveFlags are --metrics and --remote-write (run, bench, rate, worker):
// live figures while the command runs (package livemetrics).
type liveFlags struct{ addr, remote string }

func (l *liveFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&l.addr, "metrics", "", "serve live OpenMetrics/Prometheus metrics at http://ADDR/metrics while this runs (ADDR: PORT, :PORT or HOST:PORT; no host = 127.0.0.1)")
	fs.StringVar(&l.remote, "remote-write", "", "push the live metrics every second to this Prometheus remote-write URL (e.g. http://127.0.0.1:9090/api/v1/write)")
}

func (l *liveFlags) options(e *env) livemetrics.Options {
	return livemetrics.Options{Addr: l.addr, RemoteWrite: l.remote, Log: e.stderr}
}

// check catches a bad value before anything runs (exit 2).
func (l *liveFlags) check(e *env) error {
	if err := l.options(e).Check(); err != nil {
		return &usageError{msg: err.Error()}
	}
	return nil
}

// start serves and/or pushes as the flags say (nil when neither is given).
// An address it cannot listen on is the user's to fix (exit 2), as serve's.
func (l *liveFlags) start(e *env) (*livemetrics.Live, error) {
	live, err := livemetrics.Start(l.options(e))
	if err != nil {
		return nil, &usageError{msg: err.Error()}
	}
	return live, nil
}
