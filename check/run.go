package check

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hpcsched/hpcsched/hostlist"
	"github.com/hpcsched/hpcsched/slurmconf"
)

// Result is one case's outcome.
type Result struct {
	Case
	Got    string // a hostlist, REJECT:<class>, or ERROR: for a case that could not run
	Pass   bool
	Answer *Answer // nil when the case could not run
}

// Runner runs cases, reading each configuration once.
type Runner struct {
	// Dir is where conf paths are relative to (the table's folder).
	Dir     string
	Options Options
	confs   map[string]*slurmconf.Config
}

// Run runs one case.
func (r *Runner) Run(c Case) Result {
	res := Result{Case: c}
	site, a, err := r.answer(c)
	if err != nil {
		res.Got = "ERROR: " + err.Error()
		return res
	}
	res.Answer = a
	res.Got = a.Nodes
	if a.Err != nil {
		res.Got = "REJECT:" + a.Class()
	}
	res.Pass = matches(c.Expected, a)
	if !res.Pass {
		a.Explanation = site.Explain(a) // say why, placed or not
	}
	return res
}

func (r *Runner) answer(c Case) (*Site, *Answer, error) {
	cfg, err := r.config(c.Conf)
	if err != nil {
		return nil, nil, err
	}
	site, err := NewSite(cfg, r.Options)
	if err != nil {
		return nil, nil, err
	}
	if err := site.applyLoad(c.Load); err != nil {
		return nil, nil, err
	}
	a, err := site.Ask(c.Request)
	return site, a, err
}

func (r *Runner) config(path string) (*slurmconf.Config, error) {
	if r.confs == nil {
		r.confs = map[string]*slurmconf.Config{}
	}
	if cfg, ok := r.confs[path]; ok {
		return cfg, nil
	}
	full := path
	if !filepath.IsAbs(path) {
		full = filepath.Join(r.Dir, path)
	}
	cfg, err := ReadConfig(full)
	if err != nil {
		return nil, err
	}
	r.confs[path] = cfg
	return cfg, nil
}

// matches compares an answer with a table's expectation: the same nodes
// (as sets, whatever the hostlist's spelling), or a rejection of the
// class named (any class for a bare REJECT).
func matches(expected string, a *Answer) bool {
	if class, ok := strings.CutPrefix(expected, "REJECT"); ok {
		return a.Err != nil && (class == "" || class == ":"+a.Class())
	}
	if a.Err != nil {
		return false
	}
	want, err := hostlist.Expand(expected)
	if err != nil || len(want) != len(a.Names) {
		return false
	}
	have := map[string]bool{}
	for _, n := range a.Names {
		have[n] = true
	}
	for _, n := range want {
		if !have[n] {
			return false
		}
	}
	return true
}

// Line prints a result as a table line with today's answer as expected,
// for --record.
func (res Result) Line() string {
	got := res.Got
	if res.Answer != nil && res.Answer.Err != nil {
		got = "REJECT:" + res.Answer.Class()
	}
	return fmt.Sprintf("%s\t%s\t%s\t%s", res.Conf, res.Load, res.Request, got)
}
