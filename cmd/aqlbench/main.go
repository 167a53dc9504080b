// Command aqlbench measures aqlstore: the comparison harness (bench), which
// loads one generated corpus into aqlstore and the engines a user would pick
// instead and times their checked answers, and the load generator
// (loadtest) for a running aqlstore server. It lives apart from the
// aqlstore command so that the database binary links no SQL driver, no
// other engine and no plotting, and builds without cgo.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// Exit codes, as aqlstore's: 0 success; 1 the command failed; 2 the
// command line itself is wrong.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := NewMain().Run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}

// Main is the command: its streams and the flags every subcommand shares.
type Main struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// StderrIsTerminal enables progress bars.
	StderrIsTerminal bool

	asJSON bool // --json
}

// NewMain returns a Main on the process's standard streams.
func NewMain() *Main {
	return &Main{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, StderrIsTerminal: term.IsTerminal(int(os.Stderr.Fd()))}
}

// usageError marks errors in the command line (exit code 2).
type usageError struct{ error }

// Run runs the command line args and returns the process exit code.
func (m *Main) Run(ctx context.Context, args []string) int {
	root := &cobra.Command{
		Use:           "aqlbench",
		Short:         "Measure aqlstore: the comparison harness and the load generator",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().BoolVar(&m.asJSON, "json", false, "print JSON instead of text")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand((&benchCommand{m: m}).command(), (&loadtestCommand{m: m}).command())
	root.SetArgs(args)
	root.SetIn(m.Stdin)
	root.SetOut(m.Stdout)
	root.SetErr(m.Stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	fmt.Fprintln(m.Stderr, "aqlbench:", err)
	var ue usageError
	if errors.As(err, &ue) || strings.HasPrefix(err.Error(), "unknown command") {
		return exitUsage
	}
	return exitFail
}

// args wraps a cobra positional-argument check so that its errors exit 2.
func args(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, a []string) error {
		if err := check(cmd, a); err != nil {
			return usageError{err}
		}
		return nil
	}
}

// printJSON writes v as one line of JSON to stdout.
func (m *Main) printJSON(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(m.Stdout, "%s\n", b)
	return err
}
