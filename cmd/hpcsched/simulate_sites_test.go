package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpcsched/hpcsched/internal/shareddata"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// everyPolicy is every policy under every backfill mode, as --compare
// takes them.
const everyPolicy = "fcfs,fcfs+easy,fcfs+conservative,sjf,sjf+easy,sjf+conservative," +
	"ljf,ljf+easy,ljf+conservative,multifactor,multifactor+easy,multifactor+conservative," +
	"auction,auction+easy,auction+conservative,auction+reserve,auction+reserve+easy,auction+reserve+conservative"

// heldByLimits are the reasons Slurm itself keeps a job pending for ever
// with: its request breaks a limit of its partition (which an
// administrator may raise), or the partition is not up. A job still
// pending for any other reason (Resources, Priority) when nothing else
// could happen is one no pass looked at again.
var heldByLimits = map[string]bool{"PartitionTimeLimit": true, "PartitionNodeLimit": true, "PartitionDown": true}

// Every policy under every backfill mode on every real site of the shared
// data (with its topology.conf, Include lines resolved): no run fails, no
// job is left pending except by its partition's limits, and every policy
// starts, rejects and holds as many jobs as FCFS does (the workloads'
// jobs all end on an idle machine, so only the order may differ). Three
// ways jobs waited for ever on these sites were found like this: the
// auction's runs split by another partition's nodes, a planner window full
// of jobs held by partition limits, and EASY's depth and head taken by
// such jobs (long: about a minute of CPU).
func TestEveryPolicyOnEveryRealSite(t *testing.T) {
	if testing.Short() {
		t.Skip("long: every policy on every real site")
	}
	confs, err := filepath.Glob(filepath.Join(shareddata.Require(t, "slurm_configs"), "*.slurm.conf"))
	require.NoError(t, err)
	require.NotEmpty(t, confs)
	kth := filepath.Join(shareddata.Require(t, "traces"), "KTH-SP2-1996-2.1-cln.swf")
	workloads := []struct{ spec, limit string }{{"aucsched:1", "200"}, {"aucsched:3", "200"}, {"aucsched:6", "200"}, {kth, "1000"}}
	for _, conf := range confs {
		site := strings.TrimSuffix(filepath.Base(conf), ".slurm.conf")
		args := []string{"simulate", "--conf", conf}
		if topo := strings.TrimSuffix(conf, "slurm.conf") + "topology.conf"; fileExists(topo) {
			args = append(args, "--topology", topo)
		}
		for _, w := range workloads {
			t.Run(site+"/"+filepath.Base(w.spec), func(t *testing.T) {
				code, out, errs := runCmd(t, append(args, "--workload", w.spec, "--limit", w.limit,
					"--compare", everyPolicy, "-q", "--json")...)
				require.Equal(t, 0, code, errs)
				checkSiteRows(t, out)
			})
		}
	}
}

// checkSiteRows checks simulate's --json rows of one workload on one site
// against each other: see TestEveryPolicyOnEveryRealSite.
func checkSiteRows(t *testing.T, out string) {
	t.Helper()
	var rows []struct {
		Policy       string         `json:"policy"`
		Backfill     string         `json:"backfill"`
		Started      int            `json:"started"`
		Rejected     int            `json:"rejected"`
		Stuck        int            `json:"stuck"`
		StuckReasons map[string]int `json:"stuck_reasons"`
		Utilization  float64        `json:"utilization_pct"`
		WaitMean     float64        `json:"wait_mean_s"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rows))
	require.Len(t, rows, 18)
	fcfs := rows[0]
	require.Equal(t, "FCFS", fcfs.Policy)
	for _, r := range rows {
		name := r.Policy + "+" + r.Backfill
		for reason, n := range r.StuckReasons {
			assert.True(t, heldByLimits[reason], "%s: %d jobs pending for ever for %s", name, n, reason)
		}
		assert.Equal(t, [3]int{fcfs.Started, fcfs.Rejected, fcfs.Stuck}, [3]int{r.Started, r.Rejected, r.Stuck},
			"%s: started/rejected/stuck against FCFS's", name)
		assert.LessOrEqual(t, r.Utilization, 100.0, name)
		assert.GreaterOrEqual(t, r.WaitMean, 0.0, name)
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
