// Command dbrig is a database benchmarking workbench: it loads data, drives
// workloads without coordinated omission, and stores every run with its
// context in a results database. See README.md.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/dbrig/dbrig/internal/cli"
)

func main() {
	// The first Ctrl-C cancels the context (the run stops cleanly and is stored
	// as interrupted); stop() restores the default handler so a second one kills.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() { <-ctx.Done(); stop() }()
	os.Exit(cli.Main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
