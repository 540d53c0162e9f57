// Package cli is annalist's command line: one binary whose subcommand picks
// what runs. Every command takes --data-dir (embedded state, default
// ./data); flags may come before or after positional arguments; long
// commands show progress on a terminal and, with --json, print exactly one
// JSON value on stdout while logs go to stderr.
//
// Configuration precedence is: command-line flag, then environment variable
// ANNALIST_<FLAG_NAME> (dashes as underscores), then the default. The flag
// wins because it is the most specific statement of intent: a value typed
// for one run should not be silently replaced by a variable exported long
// ago in the shell or the container image.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/rs/zerolog"

	"github.com/annalist-dev/annalist/internal/kit/logging"
)

// IO is where a command reads and writes.
type IO struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
}

type command struct {
	summary string
	run     func(ctx context.Context, io IO, args []string) error
}

// errUsage marks errors that should be followed by usage and exit code 2.
var errUsage = errors.New("usage")

func commands() map[string]command {
	return map[string]command{
		"topology":  {"print the streaming graph; `topology apply --brokers …` creates the topics", cmdTopology},
		"chunk":     {"print the chunks of one file as the chunker stage makes them", cmdChunk},
		"eval":      {"quality metrics: `eval segmentation|extraction|retrieval|injection|mentions|topics --data DIR`, `eval kgds|support --data FILE`, `eval quotes --data DIR|FILE`", cmdEval},
		"kg":        {"`kg show NAME`: an entity, its aliases, edges and source chunks", cmdKG},
		"ingest":    {"publish files, directories or JSONL (-) as documents and wait for the pipeline; `ingest discussions FILE|-`: discussions (KGDS) to summarise", cmdIngest},
		"bench":     {"performance: `bench ingest|generate|regenerate --data DIR [--kind biography|topic|all]`, `bench discussions --data FILE [--n N]`, `bench vector [--dataset clustered]`", cmdBench},
		"consume":   {"run stages (`consume STAGE...`; `annalist topology` lists them)", cmdConsume},
		"demo":      {"run everything embedded, ingest the demo corpus, print what the KG learned", cmdDemo},
		"serve":     {"run the HTTP API (POST /v1/documents, GET /v1/entities/NAME, /healthz)", cmdServe},
		"broker":    {"run a standalone embedded Kafka-protocol broker for multi-process runs", cmdBroker},
		"generate":  {"`generate biography NAME` or `generate topic TOPIC`: a cited, verified page (waits for it unless --no-wait)", cmdGenerate},
		"verify":    {"`verify --subject NAME --text SENTENCE [--correct]`: one sentence through verifier, router and solvers", cmdVerify},
		"dlt":       {"`dlt list|replay TOPIC|all [--since 1h] [--offset P:O]`: dead letters, why, and their replay after a fix", cmdDLT},
		"retract":   {"`retract DOC_ID|SOURCE`: withdraw a document; its chunks, facts, links and vectors are removed and its pages updated", cmdRetract},
		"answer":    {"`answer QUESTION [--docs FILE]`: an attributed answer, every sentence citing a minimal set of supporting documents", cmdAnswer},
		"summarize": {"`summarize discussion FILE|-`: a discussion's background paragraphs and each participant's opinions (offline, no service)", cmdSummarize},
		"retrieve":  {"`retrieve NAME`: the reference set the writer would use, and the vector-only top-k", cmdRetrieve},
		"support":   {"`support --claim TEXT --evidence-file F`: whether the passages support the claim completely, partially or not at all, and where", cmdSupport},
		"quote":     {"`quote TOPIC_OR_TEXT [--n N]`: quotations of the ingested collection that fit, verbatim and attributed", cmdQuote},
		"help":      {"`help [COMMAND]`: the commands and their usage; `help --markdown`: the reference as Markdown (docs/commands.md)", cmdHelp},
	}
}

// Run executes the command line args (args[0] is the program name) and
// returns the process exit code.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// The stages a command runs log to stderr from their own goroutines;
	// one lock keeps a writer that is not safe for concurrent use (a
	// caller's buffer) whole.
	stderr = zerolog.SyncWriter(stderr)
	stdio := IO{Stdin: stdin, Stdout: stdout, Stderr: stderr}
	if len(args) < 2 || args[1] == "-h" || args[1] == "--help" {
		usage(stderr)
		if len(args) < 2 {
			return 2
		}
		return 0
	}
	cmd, ok := commands()[args[1]]
	if !ok {
		fmt.Fprintf(stderr, "annalist: unknown command %q\n\n", args[1])
		usage(stderr)
		return 2
	}
	err := cmd.run(ctx, stdio, args[2:])
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "annalist %s: %v\n", args[1], err)
		return 2
	case errors.Is(err, context.Canceled) && ctx.Err() != nil:
		return 130
	default:
		fmt.Fprintf(stderr, "annalist %s: %v\n", args[1], err)
		return 1
	}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: annalist COMMAND [flags] [args]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	cmds := commands()
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, cmds[n].summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run `annalist COMMAND -h` for a command's flags. Flags may also be set as")
	fmt.Fprintln(w, "environment variables ANNALIST_<FLAG> (e.g. ANNALIST_DATA_DIR); flags win.")
}

// common flags shared by every command.
type common struct {
	dataDir   string
	tenant    string
	json      bool
	logLevel  string
	logFormat string
}

func (c *common) register(fs *flag.FlagSet) {
	fs.StringVar(&c.dataDir, "data-dir", "./data", "directory of the embedded state (broker log, Redis AOF, vector index)")
	fs.StringVar(&c.tenant, "tenant", "default", "tenant whose data the command reads and writes")
	fs.BoolVar(&c.json, "json", false, "print exactly one JSON value on stdout")
	fs.StringVar(&c.logLevel, "log-level", "info", "log level: debug, info, warn, error")
	fs.StringVar(&c.logFormat, "log-format", "auto", "log format: json, console, or auto (console on a terminal)")
}

func (c *common) logger(stderr io.Writer) (zerolog.Logger, error) {
	return logging.New(logging.Config{Level: c.logLevel, Format: c.logFormat}, stderr)
}

// parse parses flags that may come before or after positional arguments,
// then applies environment overrides to flags not given on the command
// line. "--" ends flag parsing.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if rest[0] == "--" {
			positional = append(positional, rest[1:]...)
			break
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
	set := map[string]bool{}
	var err error
	fs.Visit(func(f *flag.Flag) {
		set[f.Name] = true
		if err == nil && pathFlag(f.Name) && strings.HasPrefix(f.Value.String(), "-") && f.Value.String() != "-" {
			// `--data-dir --json` would make a folder named --json.
			err = fmt.Errorf("%w: --%s %q looks like a flag, not a path (was its value left out? for a path that begins with -, write ./%s)",
				errUsage, f.Name, f.Value.String(), f.Value.String())
		}
	})
	if err != nil {
		return nil, err
	}
	fs.VisitAll(func(f *flag.Flag) {
		if set[f.Name] || err != nil {
			return
		}
		if v, ok := os.LookupEnv(EnvName(f.Name)); ok {
			if e := fs.Set(f.Name, v); e != nil {
				err = fmt.Errorf("%w: environment %s=%q: %v", errUsage, EnvName(f.Name), v, e)
			}
		}
	})
	return positional, err
}

// pathFlag reports whether a flag names a file or folder: its value is
// never taken when it begins with a dash.
func pathFlag(name string) bool {
	switch name {
	case "data", "baseline", "cpuprofile", "blockprofile", "mutexprofile":
		return true
	}
	return strings.HasSuffix(name, "-dir") || strings.HasSuffix(name, "-file")
}

// EnvName is the environment variable that sets a flag.
func EnvName(flagName string) string {
	return "ANNALIST_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("annalist "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}
