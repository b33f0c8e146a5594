package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/hpcsched/hpcsched/check"
	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/sbatch"
	"github.com/hpcsched/hpcsched/selectnodes"
)

const explainUsage = `usage: hpcsched explain --conf slurm.conf [flags] [sbatch options] [batch script]

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
  --from-slurm DIR     a live cluster's state as the load: nodes.txt, jobs.txt and
                       reservations.txt as slurmstate.Command writes them on a login node
                       (scontrol show node -o, squeue -h -t R -o FORMAT, scontrol show
                       reservation -o), read at the moment nodes.txt was written
  --json               print the structured explanation as JSON

A batch script's #SBATCH lines are read as sbatch reads them (up to its
first command) and go before the command line's options, which override
them.

--begin TIME answers for then: the running jobs ending before it are gone
and the answer never starts earlier.

Exit codes: 0 runnable, 1 not runnable now, 2 bad input: bad options, a
conf that cannot be read, or a request sbatch refuses at submission (an
unknown partition, node or GRES, a partition the user may not use).

Examples, from the repository's root:

  hpcsched explain --conf placementtest/testdata/site.conf -N2 -C new
  hpcsched explain --conf placementtest/testdata/site.conf -p gpu --gpus=8   # exit 1: never on this site
  hpcsched explain --conf placementtest/testdata/site.conf placementtest/testdata/job.sh -C old
`

// explainFlags are explain's own flags.
type explainFlags struct {
	conf, topo, selector, state string
	fromSlurm                   string // explain_slurm.go
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
		{Long: "from-slurm", Value: true, Set: str(&f.fromSlurm)},
		{Long: "busy", Value: true, Set: add(&f.busy)},
		{Long: "running", Value: true, Set: add(&f.running)},
		{Long: "slurm-compat", Set: on(&f.compat)},
		{Long: "json", Set: on(&f.json)},
		{Short: 'h', Long: "help", Set: on(&f.help)},
	}
}

func explain(args []string, stdout io.Writer) error {
	var f explainFlags
	args, script, err := withScript(args, f.list())
	if err != nil {
		return err
	}
	o, err := sbatch.Parse(args, f.list()...)
	switch {
	case f.help:
		fmt.Fprint(stdout, explainUsage)
		return nil
	case err != nil:
		return script.named(err)
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
	if ans.Err != nil && selectnodes.ClassName(ans.Err) == "invalid" {
		// sbatch refuses it at submission: bad input, not a "no"
		return usagef("explain: %v", ans.Err)
	}
	if err := printExplanation(stdout, ans, site.Explain(ans), f.json); err != nil {
		return err
	}
	if ans.Err != nil {
		return errNotRunnable
	}
	return nil
}

// printExplanation writes the answer as text or JSON.
func printExplanation(w io.Writer, ans *check.Answer, ex *selectnodes.Explanation, asJSON bool) error {
	if !asJSON {
		bw := bufio.NewWriter(w)
		if _, err := ex.WriteTo(bw); err != nil {
			return err
		}
		if !ans.Begin.IsZero() {
			fmt.Fprintf(bw, "--begin %s: answered for then (the running jobs ending before it gone); start %s\n",
				ans.Begin.Format(time.RFC3339), ans.Start.Format(time.RFC3339))
		}
		return bw.Flush()
	}
	out, err := explanationJSON(ans, ex)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // constraints hold '&': keep them readable
	return enc.Encode(out)
}

// site builds the cluster with its load.
func (f *explainFlags) site() (*check.Site, error) {
	cfg, err := readConf(f.conf, f.includeDirs...)
	if err != nil {
		return nil, usagef("%v", err)
	}
	opts := check.Options{SlurmCompat: f.compat}
	if err := f.slurmStateTime(&opts); err != nil { // explain_slurm.go
		return nil, err
	}
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
		if _, err := queue.Restore(&jsonGuard{r: fh}, site.Cluster); err != nil {
			return usagef("--state %s: %v", f.state, err)
		}
	}
	for _, spec := range append(f.busy, f.running...) {
		if err := site.Run(spec); err != nil {
			return usagef("%v", err)
		}
	}
	return f.loadSlurmState(site) // explain_slurm.go
}

// explanationJSON is the --json form: the library's structured
// explanation (selectnodes.Explanation's JSON: per node set and per group
// of sets as Slurm groups them, per filter, the counts, the steps) with the
// answer's outcome on top and "reasons", the reason then the per-set
// removals and steps as sentences (the form of earlier versions).
func explanationJSON(a *check.Answer, ex *selectnodes.Explanation) (map[string]any, error) {
	raw, err := json.Marshal(ex)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, err
	}
	out["runnable"], out["nodes"], out["class"] = a.Err == nil, a.Nodes, a.Class()
	if a.Err == nil {
		out["start"] = a.Start.Format(time.RFC3339)
	}
	if !a.Begin.IsZero() {
		out["begin"] = a.Begin.Format(time.RFC3339)
	}
	reasons := []string{}
	if a.Err != nil {
		out["reason"] = ex.Reason
		reasons = append(reasons, ex.Reason)
	}
	for _, s := range ex.Sets {
		for _, r := range s.Removed {
			reasons = append(reasons, strings.TrimSpace(fmt.Sprintf("node set %s: %s removed %d %s", s.Nodes, r.Filter, r.Count, r.Why)))
		}
	}
	out["reasons"] = append(reasons, ex.Steps...)
	return out, nil
}
