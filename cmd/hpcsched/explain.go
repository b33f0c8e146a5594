package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/hpcsched/hpcsched/features"
	"github.com/hpcsched/hpcsched/hostlist"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/slurmconf"
	"github.com/hpcsched/hpcsched/topology"
)

var errHelp = flag.ErrHelp

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, " ") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// explainOutput is the --json form.
type explainOutput struct {
	Runnable bool     `json:"runnable"`
	Nodes    string   `json:"nodes"`
	Class    string   `json:"class"`
	Reasons  []string `json:"reasons"`
}

func explain(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("explain", flag.ContinueOnError)
	fs.SetOutput(stdout)
	conf := fs.String("conf", "", "slurm.conf to read (required; Include lines resolve beside it)")
	topo := fs.String("topology", "", "topology.conf for topology-aware placement")
	compat := fs.Bool("slurm-compat", false, "answer as Slurm 22.05 does: legacy constraint grammar, greedy count features")
	selector := fs.String("selector", "", "linear or consres (default: what SelectType says)")
	asJSON := fs.Bool("json", false, "print JSON")
	var busy multiFlag
	fs.Var(&busy, "busy", "HOSTLIST of one running job holding those whole nodes (repeatable)")
	nodes := fs.String("N", "", "node count: min[-max]")
	ntasks := fs.Int("n", 0, "tasks (one CPU each): the CPU total")
	constraint := fs.String("C", "", "feature constraint")
	exclusive := fs.Bool("exclusive", false, "whole nodes, shared with no job")
	share := fs.Bool("share", false, "may share nodes (--oversubscribe)")
	contiguous := fs.Bool("contiguous", false, "consecutive nodes")
	partition := fs.String("p", "", "partition")
	required := fs.String("w", "", "HOSTLIST of nodes the job must have")
	excluded := fs.String("x", "", "HOSTLIST of nodes the job must not have")
	gres := fs.String("gres", "", "generic resources per node, e.g. gpu:2 or gpu:v100:1-3")
	mem := fs.Int64("mem", 0, "memory per node, MB")
	mincpus := fs.Int("mincpus", 0, "CPUs per node at least")
	timeLimit := fs.String("t", "", "time limit (Slurm format, e.g. 60 or 1-00:00:00)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return errHelp
		}
		return usagef("%v", err)
	}
	if fs.NArg() > 0 {
		return usagef("explain: unexpected argument %q", fs.Arg(0))
	}
	if *conf == "" {
		return usagef("explain: --conf is required")
	}
	cfg, err := readConf(*conf)
	if err != nil {
		return usagef("%v", err)
	}
	var opts []selectnodes.Option
	if *compat {
		opts = append(opts, selectnodes.WithSlurmCompat())
	}
	switch *selector {
	case "":
	case "linear":
		opts = append(opts, selectnodes.WithSelector(selectnodes.Linear{}))
	case "consres":
		opts = append(opts, selectnodes.WithSelector(selectnodes.ConsRes{}))
	default:
		return usagef("explain: --selector must be linear or consres, not %q", *selector)
	}
	if *topo != "" {
		opt, err := topologyOption(*topo)
		if err != nil {
			return err
		}
		opts = append(opts, opt)
	}
	c, err := selectnodes.FromConfig(cfg, opts...)
	if err != nil {
		return usagef("%v", err)
	}
	for k, hl := range busy {
		names, err := hostlist.Expand(hl)
		if err != nil {
			return usagef("--busy: %v", err)
		}
		p, err := c.SelectNodes(&selectnodes.Request{Required: names, MinNodes: len(names), Share: selectnodes.ShareExclusiveJob,
			Partition: partitionHolding(c, names)}, selectnodes.TestOnly)
		if err != nil {
			return usagef("--busy %s: %v", hl, err)
		}
		if err := c.Allocate(selectnodes.JobID(k+1), p, time.Time{}, time.Time{}.Add(time.Hour)); err != nil {
			return usagef("--busy %s: %v", hl, err)
		}
	}
	req := selectnodes.Request{Partition: *partition, CPUs: *ntasks, Contiguous: *contiguous, MinMemoryPerNode: *mem, MinCPUsPerNode: *mincpus}
	if *nodes != "" {
		lo, hi, ok := strings.Cut(*nodes, "-")
		a, err1 := strconv.Atoi(lo)
		b := a
		var err2 error
		if ok {
			b, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || a < 1 || b < a {
			return usagef("explain: -N %q is not min[-max]", *nodes)
		}
		req.MinNodes, req.MaxNodes = a, b
	}
	if *constraint != "" {
		var popts []features.Option
		if *compat {
			popts = append(popts, features.Legacy())
		}
		e, err := features.Parse(*constraint, popts...)
		if err != nil {
			return usagef("%v", err)
		}
		if err := e.Validate(c.FeatureIndex().Has); err != nil {
			return usagef("%v", err)
		}
		req.Features = e
	}
	switch {
	case *exclusive && *share:
		return usagef("explain: --exclusive and --share exclude each other")
	case *exclusive:
		req.Share = selectnodes.ShareExclusiveJob
	case *share:
		req.Share = selectnodes.ShareOversubscribe
	}
	for _, f := range []struct {
		expr string
		dst  *[]string
	}{{*required, &req.Required}, {*excluded, &req.Excluded}} {
		if f.expr == "" {
			continue
		}
		names, err := hostlist.Expand(f.expr)
		if err != nil {
			return usagef("%v", err)
		}
		*f.dst = names
	}
	if *gres != "" {
		if req.GRES, err = selectnodes.ParseGRES(*gres); err != nil {
			return usagef("%v", err)
		}
	}
	if *timeLimit != "" {
		d, err := slurmconf.ParseDuration(*timeLimit)
		if err != nil {
			return usagef("-t: %v", err)
		}
		req.TimeLimit = d
	}
	ex := c.Explain(&req, selectnodes.RunNow)
	out := explainOutput{Runnable: ex.Class == nil, Class: selectnodes.ClassName(ex.Class)}
	if ex.Placement != nil {
		out.Nodes = ex.Placement.Hostlist()
	}
	if ex.Class != nil {
		out.Reasons = append(out.Reasons, ex.Reason)
	}
	for _, s := range ex.Sets {
		for _, r := range s.Removed {
			line := fmt.Sprintf("node set %s: %s removed %d", s.Nodes, r.Filter, r.Count)
			if r.Why != "" {
				line += " (" + r.Why + ")"
			}
			out.Reasons = append(out.Reasons, line)
		}
	}
	out.Reasons = append(out.Reasons, ex.Steps...)
	if *asJSON {
		if out.Reasons == nil {
			out.Reasons = []string{}
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return err
		}
	} else {
		fmt.Fprint(stdout, ex.String())
	}
	if !out.Runnable {
		return errNotRunnable
	}
	return nil
}

// partitionHolding picks a partition containing every named node, so
// --busy jobs can be placed wherever they are.
func partitionHolding(c *selectnodes.Cluster, names []string) string {
	want, err := c.NodeSet(names)
	if err != nil {
		return ""
	}
	for _, p := range c.Partitions() {
		if nodes, _ := c.PartitionNodes(p.Name); nodes != nil && nodes.IsSuperSet(want) {
			return p.Name
		}
	}
	return ""
}

// topologyOption reads a topology.conf for a cluster, accepting what
// Slurm accepts (unknown nodes, a node under two leaves) as warnings.
func topologyOption(path string) (selectnodes.Option, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, usagef("%v", err)
	}
	top, err := slurmconf.ParseTopologyFile(os.DirFS(filepath.Dir(abs)), filepath.Base(abs))
	if err != nil {
		return nil, usagef("%v", err)
	}
	return selectnodes.WithTopologyConfig(top, topology.Lenient()), nil
}

func readConf(path string) (*slurmconf.Config, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	return slurmconf.ParseFile(os.DirFS(filepath.Dir(abs)), filepath.Base(abs))
}
