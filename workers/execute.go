package workers

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/dbrig/dbrig/experiment"
)

// Local is how a coordinator process gets its workers (dbrig run
// --workers N): where it listens, whether it spawns them here, how long it
// waits, its TLS certificate.
type Local struct {
	Workers        int
	Listen         string
	Spawn          bool // start the workers here (false: await N dbrig worker processes)
	ConnectTimeout time.Duration
	TLSCert        string // the coordinator's certificate (PEM), with TLSKey
	TLSKey         string
	TLSCA          string // what spawned workers trust (default: TLSCert)
}

// LocalDefaults are dbrig run --workers n's defaults (an experiment
// file's workers: n).
func LocalDefaults(n int) Local {
	return Local{Workers: n, Listen: "127.0.0.1:0", Spawn: true, ConnectTimeout: 60 * time.Second}
}

// Check refuses settings that cannot work together; set names the flags
// of dbrig run given explicitly, which an error names.
func (w Local) Check(set map[string]bool) error {
	switch {
	case w.Workers < 0:
		return fmt.Errorf("--workers %d: expected 0 (no workers) or more", w.Workers)
	case w.Workers == 0 && (set["listen"] || set["spawn"] || set["connect-timeout"] || set["tls-cert"] || set["tls-key"] || set["tls-ca"]):
		return fmt.Errorf("--listen, --spawn, --connect-timeout and --tls-* belong to --workers N")
	case (w.TLSCert == "") != (w.TLSKey == ""):
		return fmt.Errorf("--tls-cert and --tls-key go together (the coordinator's certificate and its key)")
	case w.TLSCA != "" && (w.TLSCert == "" || !w.Spawn):
		return fmt.Errorf("--tls-ca on dbrig run is what local workers (--spawn) trust, with --tls-cert; give it to dbrig worker otherwise")
	case w.ConnectTimeout <= 0:
		return fmt.Errorf("--connect-timeout %v: expected a positive duration", w.ConnectTimeout)
	}
	return nil
}

// Execute performs the plan on wf.Workers worker processes (none: in this
// process, experiment.Execute): the shares are
// checked before anything starts, the coordinator listens, the workers are
// spawned (or awaited; what it waits for is said on stderr, where spawned
// workers write too), and the one merged run is stored by
// experiment.Execute with the coordinator performing the phases.
func Execute(ctx context.Context, wf Local, plan *experiment.Plan, hooks experiment.Hooks, stderr io.Writer) (*experiment.Outcome, error) {
	if wf.Workers == 0 {
		return experiment.Execute(ctx, plan, hooks)
	}
	shares, err := plan.Shares(wf.Workers)
	if err != nil {
		return nil, err
	}
	token := os.Getenv(TokenEnv)
	if token == "" {
		// A fresh token, so no stray process can join (and receive the
		// share's secrets); workers started by hand are told it.
		b := make([]byte, 16)
		if _, err := rand.Read(b); err != nil {
			return nil, err
		}
		token = hex.EncodeToString(b)
		if !wf.Spawn {
			fmt.Fprintf(stderr, "no %s set: workers must present this one: %s=%s dbrig worker --coordinator …\n", TokenEnv, TokenEnv, token)
		}
	}
	if !wf.Spawn && wf.TLSCert == "" && !Loopback(wf.Listen) {
		fmt.Fprintf(stderr, "warning: --listen %s without --tls-cert: the token and the share's properties (passwords included) cross the network in clear text\n", wf.Listen)
	}
	opts := Options{Shares: shares, Listen: wf.Listen, Token: token, Ops: plan.Workload.Ops(), Grace: plan.Config.Grace}
	if wf.TLSCert != "" {
		if opts.TLS, err = ServerTLS(wf.TLSCert, wf.TLSKey); err != nil {
			return nil, err
		}
	}
	c, err := Listen(opts)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if wf.Spawn {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("workers: find dbrig's binary: %w", err)
		}
		args := []string{"worker"}
		if wf.TLSCert != "" {
			ca := wf.TLSCA
			if ca == "" {
				ca = wf.TLSCert
			}
			args = append(args, "--tls-ca", ca)
		}
		procs, err := Spawn(SpawnOptions{Exe: exe, Args: args, Coordinator: c.URL(), Token: token,
			ConnectTimeout: wf.ConnectTimeout, Stderr: stderr}, wf.Workers)
		if err != nil {
			return nil, err
		}
		defer procs.Stop(context.WithoutCancel(ctx))
		fmt.Fprintf(stderr, "coordinator on %s: started %d workers (pids %v)\n", c.URL(), wf.Workers, procs.PIDs())
	} else {
		fmt.Fprintf(stderr, "coordinator on %s: waiting %v for %d workers (dbrig worker --coordinator %s://ADDR --index I)\n", c.URL(), wf.ConnectTimeout, wf.Workers, strings.SplitN(c.URL(), ":", 2)[0])
	}
	if err := c.WaitReady(ctx, wf.ConnectTimeout); err != nil {
		return nil, err
	}
	hooks.Perform = c.Perform
	return experiment.Execute(ctx, plan, hooks)
}
