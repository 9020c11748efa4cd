package cli

import (
	"context"
	"errors"
	"flag"
	"os"
	"strconv"
	"time"

	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/livemetrics"
	"github.com/dbrig/dbrig/workers"
)

// workerFlags are dbrig run's (and load's) flags for a distributed run.
type workerFlags workers.Local

func (w *workerFlags) define(fs *flag.FlagSet) {
	fs.IntVar(&w.Workers, "workers", 0, "run on N worker processes and merge their figures exactly (0 = this process alone)")
	fs.StringVar(&w.Listen, "listen", "127.0.0.1:0", "with --workers: where the coordinator listens for workers")
	fs.BoolVar(&w.Spawn, "spawn", true, "with --workers: start the workers here (false: wait for N dbrig worker processes to connect)")
	fs.DurationVar(&w.ConnectTimeout, "connect-timeout", 60*time.Second, "with --workers: how long to wait for every worker to connect")
	fs.StringVar(&w.TLSCert, "tls-cert", "", "with --workers: serve the workers over TLS with this certificate (PEM; with --tls-key)")
	fs.StringVar(&w.TLSKey, "tls-key", "", "with --workers: the --tls-cert's private key (PEM)")
	fs.StringVar(&w.TLSCA, "tls-ca", "", "with --workers and --spawn: the CA the local workers trust (default: --tls-cert itself)")
}

// workerCmd: dbrig worker --coordinator URL [--index I] — one worker of a
// distributed run.
func workerCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("dbrig worker", e.stderr)
	coord := fs.String("coordinator", "", "the coordinator's URL, http://HOST:PORT (required)")
	index := fs.Int("index", -1, "this worker's index (default: env DBRIG_WORKER_INDEX, else JOB_COMPLETION_INDEX)")
	timeout := fs.Duration("connect-timeout", 60*time.Second, "keep trying to reach the coordinator this long")
	tlsCA := fs.String("tls-ca", "", "trust this CA certificate (PEM) for an https:// coordinator (default: the system's roots)")
	var lf liveFlags
	lf.define(fs)
	pos, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return errHelp
	}
	if err != nil {
		return &usageError{msg: err.Error()}
	}
	if len(pos) > 0 {
		return usagef("dbrig worker: unexpected argument %q", pos[0])
	}
	if *coord == "" {
		return usagef("dbrig worker: --coordinator URL is required (the coordinator prints it)")
	}
	if err := lf.check(e); err != nil {
		return err
	}
	if *index < 0 {
		for _, env := range []string{"DBRIG_WORKER_INDEX", "JOB_COMPLETION_INDEX"} {
			if v := os.Getenv(env); v != "" {
				n, err := strconv.Atoi(v)
				if err != nil || n < 0 {
					return usagef("dbrig worker: %s=%q: expected an index >= 0", env, v)
				}
				*index = n
				break
			}
		}
	}
	if *index < 0 {
		return usagef("dbrig worker: no index: give --index I, or set DBRIG_WORKER_INDEX or JOB_COMPLETION_INDEX")
	}
	if *timeout <= 0 {
		return usagef("dbrig worker: --connect-timeout %v: expected a positive duration", *timeout)
	}
	wo := workers.WorkerOptions{Coordinator: *coord, Index: *index, Token: os.Getenv(workers.TokenEnv), ConnectTimeout: *timeout}
	if *tlsCA != "" {
		if wo.TLS, err = workers.ClientTLS(*tlsCA); err != nil {
			return err
		}
	}
	live, err := lf.start(e)
	if err != nil {
		return err
	}
	defer live.Close()
	live.Begin(livemetrics.Run{Experiment: "worker", Matrix: map[string]string{"worker": strconv.Itoa(*index)}})
	wo.Observer = live.Observer(nil)
	return workers.RunWorker(ctx, wo)
}

// benchOnWorkers runs an experiment file's workers: N runs with local
// workers (the defaults of --workers).
func benchOnWorkers(e *env) experiment.RunOnWorkers {
	return func(ctx context.Context, p *experiment.Plan, n int, h experiment.Hooks) (*experiment.Outcome, error) {
		return workers.Execute(ctx, workers.LocalDefaults(n), p, h, e.stderr)
	}
}
