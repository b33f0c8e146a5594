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

// Runner runs cases, reading each configuration once and building the
// cluster once per configuration and load (a site answers without
// changing). The zero Runner reads paths relative to the working
// directory.
type Runner struct {
	// Dir is where conf paths are relative to (the table's folder).
	Dir     string
	Options Options
	confs   map[string]*slurmconf.Config
	sites   map[siteKey]*Site
}

// siteKey names a site: a configuration with a load.
type siteKey struct{ conf, load string }

// maxSites bounds the sites a Runner keeps: a table with more distinct
// loads than this builds some again rather than hold them all.
const maxSites = 64

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
	site, err := r.site(c.Conf, c.Load)
	if err != nil {
		return nil, nil, err
	}
	a, err := site.Ask(c.Request)
	return site, a, err
}

// site is the configuration with the load, built on first use.
func (r *Runner) site(conf, load string) (*Site, error) {
	key := siteKey{conf, load}
	if site, ok := r.sites[key]; ok {
		return site, nil
	}
	cfg, err := r.config(conf)
	if err != nil {
		return nil, err
	}
	site, err := NewSite(cfg, r.Options)
	if err != nil {
		return nil, err
	}
	if err := site.applyLoad(load); err != nil {
		return nil, err
	}
	if r.sites == nil || len(r.sites) >= maxSites {
		r.sites = map[siteKey]*Site{}
	}
	r.sites[key] = site
	return site, nil
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
	if err != nil {
		return false
	}
	// a name written twice ("n[1-2],n1") is one node: compare sets
	have := map[string]bool{}
	for _, n := range a.Names {
		have[n] = true
	}
	wanted := map[string]bool{}
	for _, n := range want {
		if !have[n] {
			return false
		}
		wanted[n] = true
	}
	return len(wanted) == len(have)
}

// Line prints a result as a table line with today's answer as expected,
// for --record. A case that could not run has no answer to record: its
// line keeps the expectation it had, after a comment line saying why, so
// the recording stays a table and running it gives the same error.
func (res Result) Line() string {
	if res.Answer == nil {
		why := strings.Join(strings.Fields(res.Got), " ") // on one line
		return fmt.Sprintf("# could not run: %s\n%s\t%s\t%s\t%s", why, res.Conf, res.Load, res.Request, res.Expected)
	}
	got := res.Got
	if res.Answer.Err != nil {
		got = "REJECT:" + res.Answer.Class()
	}
	return fmt.Sprintf("%s\t%s\t%s\t%s", res.Conf, res.Load, res.Request, got)
}
