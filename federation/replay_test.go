package federation

import (
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/sim"
	"github.com/stretchr/testify/require"
)

func specs(t *testing.T, n int, nodes ...int) []ClusterSpec {
	var out []ClusterSpec
	for i := 0; i < n; i++ {
		name := string(rune('a' + i))
		size := nodes[i%len(nodes)]
		out = append(out, ClusterSpec{Name: name, Build: func() (*selectnodes.Cluster, error) {
			return sched(t, name, size).Cluster(), nil
		}})
	}
	return out
}

// burst is n jobs of 1-4 nodes arriving a minute apart.
func burst(n int) *sim.Workload {
	w := &sim.Workload{Name: "burst"}
	for i := 0; i < n; i++ {
		run := time.Duration(10+(i*7)%50) * time.Minute
		limit := (run/(15*time.Minute) + 1) * 15 * time.Minute
		w.Jobs = append(w.Jobs, sim.Job{Submit: time.Duration(i) * time.Minute, Run: run, Cores: 4,
			Spec: queue.Spec{Name: "j", User: "u", Request: selectnodes.Request{MinNodes: 1 + i%4}, TimeLimit: limit}})
	}
	return w
}

func TestReplayGridBeatsPinnedOnSkewedLoad(t *testing.T) {
	ms := specs(t, 3, 4)
	w := burst(60)
	skew := func(i int, _ sim.Job) int { return 0 } // every job submitted to a
	grid, err := Replay(ms, w, ReplayOptions{Pin: skew}, GridMode)
	require.NoError(t, err)
	pinned, err := Replay(ms, w, ReplayOptions{Pin: skew}, PinnedMode)
	require.NoError(t, err)
	for _, r := range []*ReplayResult{grid, pinned} {
		require.Equal(t, 60, r.Jobs)
		require.Equal(t, 60, r.Completed, "%s", r.Mode)
		require.Zero(t, r.Stuck)
		sum := 0
		for _, n := range r.PerMember {
			sum += n
		}
		require.Equal(t, r.Completed, sum)
	}
	require.Equal(t, 60, pinned.PerMember["a"])
	require.Less(t, grid.MeanWait, pinned.MeanWait/2, "grid %s, pinned %s", grid.MeanWait, pinned.MeanWait)
	require.Len(t, grid.PerMember, 3, "the grid spreads the load")
	t.Logf("grid: wait %s, per member %v, moves %d; pinned: wait %s", grid.MeanWait, grid.PerMember, grid.Moves, pinned.MeanWait)
}

func TestReplayRejectsWhatNoMemberRuns(t *testing.T) {
	ms := specs(t, 2, 2, 8)
	w := burst(8) // jobs of 3 and 4 nodes cannot run on the 2-node member
	pinned, err := Replay(ms, w, ReplayOptions{}, PinnedMode)
	require.NoError(t, err)
	grid, err := Replay(ms, w, ReplayOptions{}, GridMode)
	require.NoError(t, err)
	require.Equal(t, 2, pinned.Rejected, "round robin sends jobs 2 and 6... of 3 nodes to the small member")
	require.Zero(t, grid.Rejected)
	require.Equal(t, 8, grid.Completed)
	require.Equal(t, 8-pinned.Rejected, pinned.Completed)
	_, err = Replay(nil, w, ReplayOptions{}, GridMode)
	require.Error(t, err)
}

// Replay refuses a mode it does not know (it used to run it as pinned)
// and a member it cannot build, with errors that say so, not a panic.
func TestReplayRefusesWhatItCannotRun(t *testing.T) {
	w := burst(4)
	_, err := Replay(specs(t, 2, 4), w, ReplayOptions{}, "gird")
	require.ErrorContains(t, err, `unknown mode "gird"`)
	_, err = Replay([]ClusterSpec{{Name: "x"}}, w, ReplayOptions{}, GridMode)
	require.ErrorContains(t, err, "member x: Build is nil")
	none := ClusterSpec{Name: "y", Build: func() (*selectnodes.Cluster, error) { return nil, nil }}
	_, err = Replay([]ClusterSpec{none}, w, ReplayOptions{}, PinnedMode)
	require.ErrorContains(t, err, "member y: Build returned no cluster")
	for _, period := range []time.Duration{-time.Minute, -1, time.Nanosecond, time.Second - 1} {
		_, err = Replay(specs(t, 2, 4), w, ReplayOptions{Period: period}, GridMode)
		require.ErrorContains(t, err, "want 0 (a minute) or at least a second", "period %v", period)
	}
	res, err := Replay(specs(t, 2, 4), w, ReplayOptions{Period: time.Second, Threshold: -time.Minute}, GridMode)
	require.NoError(t, err)
	require.Equal(t, 4, res.Completed)
}
