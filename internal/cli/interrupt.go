package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/rocm-tools/kpack-lint/internal/lint"
	"github.com/rocm-tools/kpack-lint/internal/util/escape"
)

// Exit codes of a run stopped by a signal: 128 + the signal's number, as
// a shell reports a process the signal killed.
const (
	ExitInterrupted = 130 // SIGINT (Ctrl-C)
	ExitTerminated  = 143 // SIGTERM
)

// guard orders the reports of the process with an interrupt (Main sets
// it; Run passes it to check and merge). nil in tests that call Run.
var guard *lint.WriteGuard

// Main is Run for the kpack-lint program: a SIGINT (Ctrl-C) or SIGTERM
// stops it, calling exit (os.Exit, from main) with ExitInterrupted or
// ExitTerminated after one line on stderr saying which reports were
// written, none when it came before the last stage (every report is
// rendered first and written at the end, each whole: a report being
// written is finished first).
func Main(args []string, stdout, stderr io.Writer, exit func(int)) int {
	handleInterrupts(stderr, exit)
	return Run(context.Background(), args, stdout, stderr)
}

// handleInterrupts sets guard and makes SIGINT and SIGTERM end the
// process through exit with interrupted's line and code.
func handleInterrupts(stderr io.Writer, exit func(int)) {
	guard = &lint.WriteGuard{}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig := <-sigs
		go func() { // a second signal ends the run at once
			<-sigs
			exit(signalCode(sig))
		}()
		exit(interrupted(sig, guard, stderr))
	}()
}

// interrupted stops g's writes and says on w what the signal sig left:
// "kpack-lint: interrupted: no report was written", or the reports that
// were; it returns the exit code.
func interrupted(sig os.Signal, g *lint.WriteGuard, w io.Writer) int {
	written, cut := g.Stop()
	what, code := "interrupted", signalCode(sig)
	if sig == syscall.SIGTERM {
		what = "terminated"
	}
	lead := ""
	if terminal(w) != nil {
		lead = "\n" // after the terminal's ^C or a progress bar
	}
	for i, p := range written {
		written[i] = streamName(p)
	}
	cutNote := ""
	if cut != "" {
		cutNote = fmt.Sprintf(" (%s was being written and may be cut short: its reader did not take it within %v)", escape.String(streamName(cut)), lint.StreamWait)
	}
	if len(written) == 0 {
		fmt.Fprintf(w, "%skpack-lint: %s: no report was written%s\n", lead, what, cutNote)
		return code
	}
	fmt.Fprintf(w, "%skpack-lint: %s after writing %s; no other report was written%s\n", lead, what, escape.String(strings.Join(written, ", ")), cutNote)
	return code
}

// signalCode is the exit code of a run sig stopped.
func signalCode(sig os.Signal) int {
	if sig == syscall.SIGTERM {
		return ExitTerminated
	}
	return ExitInterrupted
}

// streamName names a report path for the interrupt's line ("-": stdout).
func streamName(p string) string {
	if p == "-" {
		return "stdout"
	}
	return p
}
