package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/hpcsched/hpcsched/check"
	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/sbatch"
	"github.com/hpcsched/hpcsched/selectnodes"
)

const explainUsage = `usage: hpcsched explain --conf slurm.conf [flags] [sbatch options]

Says whether a request would run now on a slurm.conf, where, or why not.
The request is written as for sbatch: -N3, --nodes=3-5, -n40, -c4,
--ntasks-per-node, -C/--constraint, -p a,b, -w/--nodelist, -x/--exclude,
--mem=4G, --mem-per-cpu, --tmp, --gres, --gpus, --gpus-per-node,
--exclusive[=user], -s/--oversubscribe, --contiguous, --switches=N[@time],
-t/--time, --begin, -A/--account, --qos, --uid, --gid.

flags:
  --conf FILE          slurm.conf (required)
  --include-dir DIR    where Include lines are also looked for (repeatable)
  --topology FILE      topology.conf for topology-aware placement
  --selector NAME      linear or consres (default: what SelectType says)
  --slurm-compat       answer as Slurm 22.05 does
  --busy HOSTLIST      a running job holding those whole nodes (repeatable)
  --running SPEC       a running job: HOSTLIST[:cpus=N,mem=SIZE,gpus=N,end=TIME] (repeatable)
  --state FILE         a queue snapshot (queue.Snapshot) whose running jobs load the cluster
  --json               print the structured explanation as JSON

Exit codes: 0 runnable, 1 not runnable now, 2 bad input.
`

// explainFlags are explain's own flags.
type explainFlags struct {
	conf, topo, selector, state string
	includeDirs, busy, running  []string
	compat, json, help          bool
}

func (f *explainFlags) list() []sbatch.Flag {
	str := func(dst *string) func(string) error { return func(v string) error { *dst = v; return nil } }
	add := func(dst *[]string) func(string) error {
		return func(v string) error { *dst = append(*dst, v); return nil }
	}
	on := func(dst *bool) func(string) error { return func(string) error { *dst = true; return nil } }
	return []sbatch.Flag{
		{Long: "conf", Value: true, Set: str(&f.conf)},
		{Long: "include-dir", Value: true, Set: add(&f.includeDirs)},
		{Long: "topology", Value: true, Set: str(&f.topo)},
		{Long: "selector", Value: true, Set: str(&f.selector)},
		{Long: "state", Value: true, Set: str(&f.state)},
		{Long: "busy", Value: true, Set: add(&f.busy)},
		{Long: "running", Value: true, Set: add(&f.running)},
		{Long: "slurm-compat", Set: on(&f.compat)},
		{Long: "json", Set: on(&f.json)},
		{Short: 'h', Long: "help", Set: on(&f.help)},
	}
}

func explain(args []string, stdout io.Writer) error {
	var f explainFlags
	o, err := sbatch.Parse(args, f.list()...)
	switch {
	case f.help:
		fmt.Fprint(stdout, explainUsage)
		return nil
	case err != nil:
		return usagef("explain: %v", err)
	case f.conf == "":
		return usagef("explain: --conf is required\n%s", explainUsage)
	case o.Exclusive && o.Oversubscribe:
		return usagef("explain: --exclusive and --oversubscribe exclude each other")
	}
	site, err := f.site()
	if err != nil {
		return err
	}
	ans, err := site.AskOptions(o, selectnodes.RunNow)
	if err != nil {
		return usagef("explain: %v", err)
	}
	if ans.Err != nil && selectnodes.ClassName(ans.Err) == "invalid" && ans.Explanation == nil {
		return usagef("explain: %v", ans.Err)
	}
	ex := site.Explain(ans)
	if f.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(explanationJSON(ans, ex)); err != nil {
			return err
		}
	} else {
		fmt.Fprint(stdout, ex.String())
	}
	if ans.Err != nil {
		return errNotRunnable
	}
	return nil
}

// site builds the cluster with its load.
func (f *explainFlags) site() (*check.Site, error) {
	cfg, err := readConf(f.conf, f.includeDirs...)
	if err != nil {
		return nil, usagef("%v", err)
	}
	opts := check.Options{SlurmCompat: f.compat}
	switch f.selector {
	case "":
	case "linear":
		opts.Cluster = append(opts.Cluster, selectnodes.WithSelector(selectnodes.Linear{}))
	case "consres":
		opts.Cluster = append(opts.Cluster, selectnodes.WithSelector(selectnodes.ConsRes{}))
	default:
		return nil, usagef("explain: --selector must be linear or consres, not %q", f.selector)
	}
	if f.topo != "" {
		opt, err := topologyOption(f.topo)
		if err != nil {
			return nil, err
		}
		opts.Cluster = append(opts.Cluster, opt)
	}
	site, err := check.NewSite(cfg, opts)
	if err != nil {
		return nil, usagef("%v", err)
	}
	if err := f.load(site); err != nil {
		return nil, err
	}
	return site, nil
}

// load puts the --state, --busy and --running jobs on the site.
func (f *explainFlags) load(site *check.Site) error {
	if f.state != "" {
		fh, err := os.Open(f.state)
		if err != nil {
			return usagef("--state: %v", err)
		}
		defer fh.Close()
		if _, err := queue.Restore(fh, site.Cluster); err != nil {
			return usagef("--state %s: %v", f.state, err)
		}
	}
	for _, spec := range append(f.busy, f.running...) {
		if err := site.Run(spec); err != nil {
			return usagef("%v", err)
		}
	}
	return nil
}

// explainJSON is the --json form: the answer and the pipeline's
// explanation as data.
type explainJSON struct {
	Runnable  bool       `json:"runnable"`
	Nodes     string     `json:"nodes"`
	Partition string     `json:"partition"`
	Class     string     `json:"class"`
	Reason    string     `json:"reason,omitempty"`
	Mode      string     `json:"mode"`
	Counts    countsJSON `json:"counts"`
	Sets      []setJSON  `json:"sets"`
	Steps     []string   `json:"steps"`
	Reasons   []string   `json:"reasons"` // the reason, then the steps: the form of earlier versions
}

type countsJSON struct {
	Min, Desired, Max, CPUs int
}

type setJSON struct {
	Nodes      string        `json:"nodes"`
	Weight     int64         `json:"weight"`
	Total      int           `json:"total"`
	Candidates int           `json:"candidates"`
	Available  int           `json:"available"`
	Usable     int           `json:"usable"`
	Removed    []removalJSON `json:"removed"`
}

type removalJSON struct {
	Filter string `json:"filter"`
	Count  int    `json:"count"`
	Why    string `json:"why,omitempty"`
}

func explanationJSON(a *check.Answer, ex *selectnodes.Explanation) explainJSON {
	out := explainJSON{Runnable: a.Err == nil, Nodes: a.Nodes, Partition: ex.Partition, Class: a.Class(),
		Mode: ex.Mode.String(), Counts: countsJSON{ex.Counts.Min, ex.Counts.Desired, ex.Counts.Max, ex.Counts.CPUs},
		Sets: []setJSON{}, Steps: append([]string{}, ex.Steps...)}
	if a.Err != nil {
		out.Reason = ex.Reason
		out.Reasons = append(out.Reasons, ex.Reason)
	}
	for _, s := range ex.Sets {
		js := setJSON{Nodes: s.Nodes, Weight: s.Weight, Total: s.Total, Candidates: s.Candidates,
			Available: s.Available, Usable: s.Usable, Removed: []removalJSON{}}
		for _, r := range s.Removed {
			js.Removed = append(js.Removed, removalJSON{r.Filter, r.Count, r.Why})
			out.Reasons = append(out.Reasons, strings.TrimSpace(fmt.Sprintf("node set %s: %s removed %d %s", s.Nodes, r.Filter, r.Count, r.Why)))
		}
		out.Sets = append(out.Sets, js)
	}
	out.Reasons = append(append([]string{}, out.Reasons...), ex.Steps...)
	return out
}
