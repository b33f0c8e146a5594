package peers

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/internal/shareddata"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/sim"
	"github.com/hpcsched/hpcsched/slurmconf"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Where every node is one CPU, a whole-node plan and the count of
// processors are the same model, so our EASY and the Python peer must
// start the same jobs at the same times. COARE's bursts of jobs with equal
// limits put several ends at the head's shadow time; the peer once
// counted only one of them (338.8 s of mean wait against 283.6 s). Under
// -short the first 2,000 jobs of each trace stand for the whole (with the
// old rule, 18 of COARE's and 56 of HPC2N's started at other times).
func TestOursAgreesWithThePeerOnOneCPUNodes(t *testing.T) {
	dir := shareddata.Require(t, "traces")
	python := lookPython(t)
	limit := 0
	if testing.Short() {
		limit = 2000
	}
	for _, tc := range []struct {
		trace        string
		cpus         int
		maxDifferent float64 // share of jobs starting at another time
	}{
		{"DOST-ASTI_COARE-Saliksik-2020-cln.swf", 1728, 0.001},
		{"Alea-hpc2n-subset.swf", 240, 0.001},
	} {
		t.Run(tc.trace, func(t *testing.T) {
			path := filepath.Join(dir, tc.trace)
			peer := peerStarts(t, python, path, limit)
			ours, oursMean := ourStarts(t, path, tc.cpus, limit)
			require.Len(t, ours, len(peer))
			different := 0
			var peerWait float64
			for id, p := range peer {
				o, ok := ours[id]
				require.True(t, ok, "job %s", id)
				peerWait += p[1] - p[0]
				if o != p[1] {
					different++
				}
			}
			peerMean := peerWait / float64(len(peer))
			t.Logf("%s: %d jobs, mean wait ours %.1f s, peer %.1f s, %d start at other times",
				tc.trace, len(peer), oursMean, peerMean, different)
			assert.LessOrEqual(t, float64(different), tc.maxDifferent*float64(len(peer)))
			assert.InDelta(t, peerMean, oursMean, 0.001*peerMean+0.01)
		})
	}
}

// peerStarts runs easy.py and returns each job's submit and start times.
func peerStarts(t *testing.T, python, trace string, limit int) map[string][2]float64 {
	return peerScriptStarts(t, python, "easy.py", trace, limit)
}

// peerScriptStarts runs a peer script and returns each job's submit and
// start times.
func peerScriptStarts(t *testing.T, python, script, trace string, limit int) map[string][2]float64 {
	out := filepath.Join(t.TempDir(), "starts.txt")
	args := []string{script, trace, "--starts", out}
	if limit > 0 {
		args = append(args, "--limit", strconv.Itoa(limit))
	}
	cmd := exec.Command(python, args...)
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1") // no __pycache__ in the tree
	msg, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", msg)
	f, err := os.Open(out)
	require.NoError(t, err)
	defer f.Close()
	starts := map[string][2]float64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var id string
		var submit, start float64
		_, err := fmt.Sscan(sc.Text(), &id, &submit, &start)
		require.NoError(t, err, sc.Text())
		starts[id] = [2]float64{submit, start}
	}
	require.NoError(t, sc.Err())
	return starts
}

// ourStarts replays the trace with EASY on cpus nodes of one CPU and
// returns each job's start (seconds from the first submit) by trace job
// number, and the mean wait.
func ourStarts(t *testing.T, trace string, cpus, limit int) (map[string]float64, float64) {
	return ourStartsWith(t, trace, cpus, limit, sim.EASY)
}

// ourStartsWith is ourStarts under the given backfill.
func ourStartsWith(t *testing.T, trace string, cpus, limit int, bf sim.BackfillMode) (map[string]float64, float64) {
	conf := fmt.Sprintf("SelectType=select/cons_tres\nSelectTypeParameters=CR_CPU\n"+
		"NodeName=c[1-%d] CPUs=1 RealMemory=1000\nPartitionName=all Nodes=c[1-%d] Default=YES\n", cpus, cpus)
	cfg, err := slurmconf.Parse(strings.NewReader(conf))
	require.NoError(t, err)
	c, err := selectnodes.FromConfig(cfg)
	require.NoError(t, err)
	sr, closer, err := sim.OpenSWFReader(os.DirFS(filepath.Dir(trace)), filepath.Base(trace), sim.SWFOptions{})
	require.NoError(t, err)
	defer closer.Close()
	epoch := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	starts := map[string]float64{}
	opts := sim.Options{Backfill: bf, Epoch: epoch, OnRecord: func(r sim.Record) {
		starts[strings.TrimPrefix(r.Name, "swf")] = r.Start.Sub(epoch).Seconds()
	}}
	res, err := sim.RunSource(c, "t", sim.NewTraceSource(sr, c, sim.Conventions{}, limit), opts)
	require.NoError(t, err)
	require.Zero(t, res.Rejected+res.Stuck)
	return starts, res.Metrics.WaitMean.Seconds()
}
