package slurmstate

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/check"
	"github.com/hpcsched/hpcsched/hostlist"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// emuDir holds what a real Slurm 22.05.8 printed with six jobs running,
// f05 drained, f10 down and a reservation on f09 two hours ahead
// (testdata/emu/record.sh).
const emuDir = "testdata/emu"

// emuSite is site.conf with the recorded state loaded, at the moment it
// was recorded, in Slurm-compatible mode.
func emuSite(t *testing.T) (*check.Site, *State, Loaded) {
	t.Helper()
	cfg, err := check.ReadConfig(filepath.Join(emuDir, "site.conf"))
	require.NoError(t, err)
	when, err := os.ReadFile(filepath.Join(emuDir, "now.txt"))
	require.NoError(t, err)
	now, err := time.Parse("2006-01-02T15:04:05", strings.TrimSpace(string(when)))
	require.NoError(t, err)
	site, err := check.NewSite(cfg, check.Options{SlurmCompat: true, Now: now})
	require.NoError(t, err)
	st, err := ReadDir(os.DirFS(emuDir), time.UTC, Limits{})
	require.NoError(t, err)
	loaded, err := st.LoadSite(site)
	require.NoError(t, err)
	return site, st, loaded
}

// The loaded cluster is in the state the controller reported: each node's
// free CPUs and memory, its state, and every job's CPUs and memory on each
// of its nodes as `scontrol show job -d` gave them (jobs-detail.txt), with
// nothing left unexplained.
func TestLoadedStateEqualsTheEmulators(t *testing.T) {
	site, st, loaded := emuSite(t)
	c := site.Cluster
	require.NoError(t, c.CheckInvariants())
	assert.Empty(t, loaded.Unlisted)
	require.Len(t, st.Nodes, 10)
	for _, n := range st.Nodes {
		i, ok := c.NodeIndex(n.Name)
		require.True(t, ok)
		assert.Equal(t, n.CPUTot-n.CPUAlloc, c.FreeCPUs(i), n.Name)
		assert.Equal(t, n.RealMemory-n.AllocMem, c.FreeMemory(i), n.Name)
		want := selectnodes.NodeUp
		switch n.Name {
		case "f05":
			want = selectnodes.NodeDrain
		case "f10":
			want = selectnodes.NodeDown
		}
		assert.Equal(t, want, c.State(i), n.Name)
	}
	detail := readJobDetail(t)
	require.Len(t, loaded.IDs, len(detail))
	for slurmID, perNode := range detail {
		p, _, end, ok := c.Allocation(loaded.IDs[slurmID])
		require.True(t, ok, slurmID)
		got := map[string][2]int64{}
		for k, a := range p.Alloc {
			got[p.Names[k]] = [2]int64{int64(a.CPUs), a.Memory}
		}
		assert.Equal(t, perNode, got, "job %s", slurmID)
		if slurmID == "4" { // no time limit
			assert.True(t, end.After(site.Now().Add(50*365*24*time.Hour)))
		}
	}
}

// readJobDetail reads jobs-detail.txt: per job, per node, the CPUs
// (CPU_IDs) and memory (Mem=) scontrol show job -d reported.
func readJobDetail(t *testing.T) map[string]map[string][2]int64 {
	f, err := os.Open(filepath.Join(emuDir, "jobs-detail.txt"))
	require.NoError(t, err)
	defer f.Close()
	out := map[string]map[string][2]int64{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		fields, _ := splitPairs(sc.Text())
		id, node, cpus := "", "", 0
		for _, fl := range fields {
			switch fl.key {
			case "JobId":
				id = fl.value
				out[id] = map[string][2]int64{}
			case "Nodes": // nodes of one layout, as a hostlist
				node = fl.value
			case "CPU_IDs":
				cpus = countIDs(t, fl.value)
			case "Mem":
				if node != "" {
					v, err := strconv.ParseInt(strings.Fields(fl.value)[0], 10, 64)
					require.NoError(t, err)
					names, err := hostlist.Expand(node)
					require.NoError(t, err)
					for _, name := range names {
						out[id][name] = [2]int64{int64(cpus), v}
					}
					node = ""
				}
			}
		}
	}
	require.NoError(t, sc.Err())
	return out
}

// countIDs counts the CPUs of a CPU_IDs list such as 0-10 or 0,3-4.
func countIDs(t *testing.T, s string) int {
	n := 0
	for _, part := range strings.Split(strings.Fields(s)[0], ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		require.NoError(t, err)
		b := a
		if isRange {
			b, err = strconv.Atoi(hi)
			require.NoError(t, err)
		}
		n += b - a + 1
	}
	return n
}

// liveGaps are the probes where compat mode does not place as Slurm did,
// with the rule it misses.
var liveGaps = map[string]string{
	"-n8 -N1": "cons_tres on partly loaded nodes: Slurm takes f01 (4 of 16 CPUs held) where compat mode takes f06 (3 held), " +
		"though -n1 takes f06 in both",
}

// With the live load, compat mode places the requests as the controller
// did with that load (probes.tsv): pending ones with Slurm's kind, and the
// reservation keeping long jobs off f09.
func TestLiveLoadPlacesAsSlurm(t *testing.T) {
	f, err := os.Open(filepath.Join(emuDir, "probes.tsv"))
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		fs := strings.Split(sc.Text(), "\t")
		require.Len(t, fs, 3)
		site, _, _ := emuSite(t) // each probe on the recorded state
		a, err := site.Ask(fs[0])
		require.NoError(t, err, fs[0])
		if why, known := liveGaps[fs[0]]; known {
			assert.NotEqual(t, fs[1], a.Nodes, "%s now agrees with Slurm: remove it from liveGaps", fs[0])
			t.Logf("known gap: %s: %s", fs[0], why)
			continue
		}
		if fs[1] == "REJECT" {
			require.Error(t, a.Err, "%s: Slurm %s", fs[0], fs[2])
			if strings.Contains(fs[2], "PENDING Resources") {
				assert.Equal(t, "busy", a.Class(), "%s: Slurm %s", fs[0], fs[2])
			}
			continue
		}
		require.NoError(t, a.Err, "%s: Slurm %s", fs[0], fs[1])
		want, err := hostlist.Expand(fs[1])
		require.NoError(t, err)
		assert.ElementsMatch(t, want, a.Names, "%s: Slurm %s, got %s", fs[0], fs[1], a.Nodes)
		n++
	}
	require.NoError(t, sc.Err())
	assert.Greater(t, n, 5)
}
