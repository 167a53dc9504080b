// Command aqlstore is the command-line interface to an aqlstore database:
// put and get documents, list and verify a store, generate corpora.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := NewMain().Run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}
