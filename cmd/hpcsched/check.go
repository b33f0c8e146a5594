package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hpcsched/hpcsched/check"
	"github.com/hpcsched/hpcsched/sbatch"
)

const checkUsage = `usage: hpcsched check TABLE.tsv [--slurm-compat] [--conf-dir DIR] [--json] [--record OUT.tsv]

Runs every case of a placement table (conf, load, request, expected; see
package check) and prints one line per mismatch with the explanation, then
"N passed, M failed". Exit 0 when all pass, 1 on a mismatch, 2 on a
malformed table or bad flags.

flags:
  --slurm-compat    answer as Slurm 22.05 does
  --conf-dir DIR    where the table's conf paths are read from (default: the table's folder)
  --json            print every case's result as JSON instead of the mismatches
  --record OUT.tsv  write today's answers as a new table (an existing file is refused)
  -h, --help        this text

Example, from the repository's root:

  hpcsched check placementtest/testdata/site.tsv
`

// errMismatch: check found a case that does not hold; exit code 1.
var errMismatch = errors.New("mismatch")

type checkOutput struct {
	Passed  int           `json:"passed"`
	Failed  int           `json:"failed"`
	Results []checkResult `json:"results"`
}

type checkResult struct {
	Line        int    `json:"line"`
	Conf        string `json:"conf"`
	Load        string `json:"load"`
	Request     string `json:"request"`
	Expected    string `json:"expected"`
	Got         string `json:"got"`
	Pass        bool   `json:"pass"`
	Explanation string `json:"explanation,omitempty"`
}

func checkCmd(args []string, stdout, stderr io.Writer) error {
	var compat, asJSON, help bool
	var confDir, record string
	operands, err := sbatch.ParseFlags(args,
		sbatch.Flag{Long: "slurm-compat", Set: func(string) error { compat = true; return nil }},
		sbatch.Flag{Long: "json", Set: func(string) error { asJSON = true; return nil }},
		sbatch.Flag{Long: "conf-dir", Value: true, Set: func(v string) error { confDir = v; return nil }},
		sbatch.Flag{Long: "record", Value: true, Set: func(v string) error { record = v; return nil }},
		sbatch.Flag{Short: 'h', Long: "help", Set: func(string) error { help = true; return nil }})
	switch {
	case help:
		fmt.Fprint(stdout, checkUsage)
		return nil
	case err != nil:
		return usagef("check: %v", err)
	case len(operands) != 1:
		return usagef("check: one table file, please\n%s", checkUsage)
	}
	cases, err := readTable(operands[0])
	if err != nil {
		return err
	}
	besideTable := confDir == "" // conf paths are relative to the table's folder
	if besideTable {
		confDir = filepath.Dir(operands[0])
	} else if st, err := os.Stat(confDir); err != nil || !st.IsDir() {
		return usagef("check: --conf-dir %s is not a directory", confDir)
	}
	r := &check.Runner{Dir: confDir, Options: check.Options{SlurmCompat: compat}}
	out := checkOutput{Results: []checkResult{}}
	var recorded []string
	progress := newProgress(stderr, len(cases))
	for i, c := range cases {
		res := r.Run(c)
		if besideTable && record != "" {
			res.Conf = moveConf(res.Conf, confDir, filepath.Dir(record))
		}
		recorded = append(recorded, res.Line())
		out.add(res)
		progress.show(i+1, out.Failed)
	}
	progress.done()
	if record != "" {
		if err := writeNew(record, "# recorded by hpcsched check\n"+strings.Join(recorded, "\n")+"\n"); err != nil {
			return usagef("check: --record: %v", err)
		}
	}
	if err := out.print(stdout, operands[0], asJSON); err != nil {
		return err
	}
	if out.Failed > 0 {
		return errMismatch
	}
	return nil
}

func readTable(path string) ([]check.Case, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, usagef("check: %v", err)
	}
	defer f.Close()
	cases, err := check.ReadTable(f, path)
	if err != nil {
		return nil, usagef("check: %v", err)
	}
	return cases, nil
}

func (o *checkOutput) add(res check.Result) {
	r := checkResult{Line: res.Case.Line, Conf: res.Conf, Load: res.Load, Request: res.Request,
		Expected: res.Expected, Got: res.Got, Pass: res.Pass}
	if !res.Pass && res.Answer != nil && res.Answer.Explanation != nil {
		r.Explanation = res.Answer.Explanation.String()
	}
	if res.Pass {
		o.Passed++
	} else {
		o.Failed++
	}
	o.Results = append(o.Results, r)
}

func (o *checkOutput) print(w io.Writer, table string, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(o)
	}
	for _, r := range o.Results {
		if r.Pass {
			continue
		}
		fmt.Fprintf(w, "%s:%d: %s | %s | %s: want %s, got %s\n", table, r.Line, r.Conf, r.Load, r.Request, r.Expected, r.Got)
		if r.Explanation != "" {
			fmt.Fprint(w, indent(r.Explanation))
		}
	}
	fmt.Fprintf(w, "%d passed, %d failed\n", o.Passed, o.Failed)
	return nil
}

func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return "    " + strings.Join(lines, "\n    ") + "\n"
}

// writeNew writes a file that must not exist yet.
// moveConf is conf, a path relative to the folder from (or absolute), as
// a path from the folder to: a recording written in another folder than
// its table names the same configurations, and runs as the table did.
func moveConf(conf, from, to string) string {
	if filepath.IsAbs(conf) {
		return conf
	}
	abs, err := filepath.Abs(filepath.Join(from, conf))
	if err != nil {
		return conf
	}
	toAbs, err := filepath.Abs(to)
	if err != nil {
		return abs
	}
	if rel, err := filepath.Rel(toAbs, abs); err == nil {
		return rel
	}
	return abs
}

func writeNew(path, text string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// progress shows how far check is on a terminal (stderr, at most a few
// times a second); on anything else it says nothing.
type progress struct {
	w     io.Writer // nil: not a terminal
	total int
	last  time.Time
}

func newProgress(stderr io.Writer, total int) *progress {
	f, ok := stderr.(*os.File)
	if !ok {
		return &progress{}
	}
	if st, err := f.Stat(); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return &progress{}
	}
	return &progress{w: stderr, total: total}
}

func (p *progress) show(done, failed int) {
	if p.w == nil || time.Since(p.last) < 200*time.Millisecond {
		return
	}
	p.last = time.Now()
	fmt.Fprintf(p.w, "\rcheck: %d/%d cases, %d failed", done, p.total, failed)
}

func (p *progress) done() {
	if p.w != nil && !p.last.IsZero() {
		fmt.Fprint(p.w, "\r\033[K") // clear the progress line
	}
}
