package main

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/hpcsched/hpcsched/check"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/slurmconf"
	"github.com/hpcsched/hpcsched/topology"
)

// topologyOption reads a topology.conf for a cluster, accepting what
// Slurm accepts (unknown nodes, a node under two leaves) as warnings.
func topologyOption(path string) (selectnodes.Option, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, usagef("%v", err)
	}
	if _, err := os.Stat(abs); err != nil {
		return nil, usagef("--topology %s: %v", path, errors.Unwrap(err))
	}
	top, err := slurmconf.ParseTopologyFile(os.DirFS(filepath.Dir(abs)), filepath.Base(abs))
	if err != nil {
		return nil, usagef("--topology %s: %v", path, err)
	}
	return selectnodes.WithTopologyConfig(top, topology.Lenient()), nil
}

// readConf reads a slurm.conf, Include lines resolved beside it, along
// includeDirs, and under a collection's site-prefixed names
// (check.ReadConfig).
func readConf(path string, includeDirs ...string) (*slurmconf.Config, error) {
	return check.ReadConfig(path, includeDirs...)
}
