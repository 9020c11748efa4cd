package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/dbrig/dbrig/analysis"
	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/report"
	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/workers"
)

// workerFlags are dbrig run's (and load's) flags for a distributed run.
type workerFlags struct {
	workers        int
	listen         string
	spawn          bool
	connectTimeout time.Duration
	tlsCert        string // the coordinator's certificate (PEM), with tlsKey
	tlsKey         string
	tlsCA          string // what spawned workers trust (default: tlsCert)
}

func (w *workerFlags) define(fs *flag.FlagSet) {
	fs.IntVar(&w.workers, "workers", 0, "run on N worker processes and merge their figures exactly (0 = this process alone)")
	fs.StringVar(&w.listen, "listen", "127.0.0.1:0", "with --workers: where the coordinator listens for workers")
	fs.BoolVar(&w.spawn, "spawn", true, "with --workers: start the workers here (false: wait for N dbrig worker processes to connect)")
	fs.DurationVar(&w.connectTimeout, "connect-timeout", 60*time.Second, "with --workers: how long to wait for every worker to connect")
	fs.StringVar(&w.tlsCert, "tls-cert", "", "with --workers: serve the workers over TLS with this certificate (PEM; with --tls-key)")
	fs.StringVar(&w.tlsKey, "tls-key", "", "with --workers: the --tls-cert's private key (PEM)")
	fs.StringVar(&w.tlsCA, "tls-ca", "", "with --workers and --spawn: the CA the local workers trust (default: --tls-cert itself)")
}

func (w *workerFlags) check(set map[string]bool) error {
	switch {
	case w.workers < 0:
		return usagef("--workers %d: expected 0 (no workers) or more", w.workers)
	case w.workers == 0 && (set["listen"] || set["spawn"] || set["connect-timeout"] || set["tls-cert"] || set["tls-key"] || set["tls-ca"]):
		return usagef("--listen, --spawn, --connect-timeout and --tls-* belong to --workers N")
	case (w.tlsCert == "") != (w.tlsKey == ""):
		return usagef("--tls-cert and --tls-key go together (the coordinator's certificate and its key)")
	case w.tlsCA != "" && (w.tlsCert == "" || !w.spawn):
		return usagef("--tls-ca on dbrig run is what local workers (--spawn) trust, with --tls-cert; give it to dbrig worker otherwise")
	case w.connectTimeout <= 0:
		return usagef("--connect-timeout %v: expected a positive duration", w.connectTimeout)
	}
	return nil
}

// executeOnWorkers performs the plan on --workers N worker processes: the
// shares are checked before anything starts, the coordinator listens, the
// workers are spawned (or awaited), and the one merged run is stored by
// experiment.Execute with the coordinator performing the phases.
func executeOnWorkers(ctx context.Context, e *env, wf workerFlags, plan *experiment.Plan, hooks experiment.Hooks) (*experiment.Outcome, error) {
	shares, err := plan.Shares(wf.workers)
	if err != nil {
		return nil, err
	}
	token := os.Getenv(workers.TokenEnv)
	if token == "" {
		// A fresh token, so no stray process can join (and receive the
		// share's secrets); workers started by hand are told it.
		b := make([]byte, 16)
		if _, err := rand.Read(b); err != nil {
			return nil, err
		}
		token = hex.EncodeToString(b)
		if !wf.spawn {
			fmt.Fprintf(e.stderr, "no %s set: workers must present this one: %s=%s dbrig worker --coordinator …\n", workers.TokenEnv, workers.TokenEnv, token)
		}
	}
	if !wf.spawn && wf.tlsCert == "" && !workers.Loopback(wf.listen) {
		fmt.Fprintf(e.stderr, "warning: --listen %s without --tls-cert: the token and the share's properties (passwords included) cross the network in clear text\n", wf.listen)
	}
	opts := workers.Options{Shares: shares, Listen: wf.listen, Token: token, Ops: plan.Workload.Ops(), Grace: plan.Config.Grace}
	if wf.tlsCert != "" {
		if opts.TLS, err = workers.ServerTLS(wf.tlsCert, wf.tlsKey); err != nil {
			return nil, err
		}
	}
	c, err := workers.Listen(opts)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if wf.spawn {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("workers: find dbrig's binary: %w", err)
		}
		args := []string{"worker"}
		if wf.tlsCert != "" {
			ca := wf.tlsCA
			if ca == "" {
				ca = wf.tlsCert
			}
			args = append(args, "--tls-ca", ca)
		}
		procs, err := workers.Spawn(workers.SpawnOptions{Exe: exe, Args: args, Coordinator: c.URL(), Token: token,
			ConnectTimeout: wf.connectTimeout, Stderr: e.stderr}, wf.workers)
		if err != nil {
			return nil, err
		}
		defer procs.Stop(context.WithoutCancel(ctx))
		fmt.Fprintf(e.stderr, "coordinator on %s: started %d workers (pids %v)\n", c.URL(), wf.workers, procs.PIDs())
	} else {
		fmt.Fprintf(e.stderr, "coordinator on %s: waiting %v for %d workers (dbrig worker --coordinator %s://ADDR --index I)\n", c.URL(), wf.connectTimeout, wf.workers, strings.SplitN(c.URL(), ":", 2)[0])
	}
	if err := c.WaitReady(ctx, wf.connectTimeout); err != nil {
		return nil, err
	}
	hooks.Perform = c.Perform
	return experiment.Execute(ctx, plan, hooks)
}

// workerCmd: dbrig worker --coordinator URL [--index I] — one worker of a
// distributed run.
func workerCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("dbrig worker", e.stderr)
	coord := fs.String("coordinator", "", "the coordinator's URL, http://HOST:PORT (required)")
	index := fs.Int("index", -1, "this worker's index (default: env DBRIG_WORKER_INDEX, else JOB_COMPLETION_INDEX)")
	timeout := fs.Duration("connect-timeout", 60*time.Second, "keep trying to reach the coordinator this long")
	tlsCA := fs.String("tls-ca", "", "trust this CA certificate (PEM) for an https:// coordinator (default: the system's roots)")
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
	return workers.RunWorker(ctx, wo)
}

// benchOnWorkers runs an experiment file's workers: N runs with local
// workers (the defaults of --workers).
func benchOnWorkers(e *env) experiment.RunOnWorkers {
	return func(ctx context.Context, p *experiment.Plan, n int, h experiment.Hooks) (*experiment.Outcome, error) {
		return executeOnWorkers(ctx, e, workerFlags{workers: n, listen: "127.0.0.1:0", spawn: true, connectTimeout: 60 * time.Second}, p, h)
	}
}

// runShowJSON prints dbrig runs show --json: the run's result and, for a
// distributed run, its workers' figures and flags.
func runShowJSON(ctx context.Context, e *env, store *results.Store, id int64) error {
	runs, err := analysis.ReadRuns(ctx, store, []int64{id})
	if err != nil {
		return err
	}
	return report.RunJSON(e.stdout, runs[0])
}
