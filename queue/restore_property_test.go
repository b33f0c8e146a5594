package queue

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/require"
)

// Two configurations the random runs alternate between: whole nodes with
// overlapping partitions of different priorities, and consumable CPUs
// where a FORCE:2 partition and a NO partition share nodes (the case
// whose allocation order once broke Restore).
var restoreConfs = []string{
	"NodeName=n[0-7] CPUs=4 Feature=ib\nNodeName=n[8-11] CPUs=8 Feature=fat Weight=5\n" +
		"PartitionName=batch Nodes=ALL Default=YES MaxTime=120\nPartitionName=small Nodes=n[0-3] Priority=5\n",
	"SelectType=select/cons_res\nNodeName=n[0-5] CPUs=4 RealMemory=1000\n" +
		"PartitionName=shared Nodes=ALL Default=YES OverSubscribe=FORCE:2\nPartitionName=plain Nodes=n[0-3] Priority=3\n",
}

// opRunner applies one random operation to a scheduler and returns its
// transcript: the operation, what it returned and the events it caused.
type opRunner struct {
	t    testing.TB
	conf int
}

func (o opRunner) spec(r *rand.Rand, maxID int) Spec {
	spec := nodes(1+r.IntN(3), time.Duration(r.IntN(40))*time.Minute)
	spec.Name = fmt.Sprintf("j%d", r.IntN(3))
	spec.Requeue = r.IntN(3) == 0
	spec.Nice = int64(r.IntN(5)) - 2
	if o.conf == 0 && r.IntN(4) == 0 {
		spec.Request.Partition = "small"
		spec.Request.Features = expr(o.t, "ib")
	}
	if o.conf == 1 {
		spec.Request = selectnodes.Request{MinNodes: 1, CPUs: 1 + r.IntN(6)}
		if r.IntN(3) == 0 {
			spec.Request.Partition = "plain"
		}
	}
	if maxID > 0 && r.IntN(3) == 0 {
		kinds := []string{"after", "afterany", "afterok", "afternotok"}
		spec.Dependency = fmt.Sprintf("%s:%d", kinds[r.IntN(4)], 1+r.IntN(maxID))
		if r.IntN(3) == 0 {
			spec.Dependency += fmt.Sprintf("?afterany:%d", 1+r.IntN(maxID))
		}
	} else if r.IntN(15) == 0 {
		spec.Dependency = "singleton"
	}
	return spec
}

func (o opRunner) step(s *Scheduler, r *rand.Rand, now time.Time, maxID int) string {
	id := JobID(1 + r.IntN(max(maxID, 1)))
	switch k := r.IntN(20); {
	case k < 5:
		got, err := s.Submit(o.spec(r, maxID), now)
		return fmt.Sprintf("submit -> %d %v", got, err)
	case k < 7:
		return fmt.Sprintf("schedule -> %v", s.Schedule(now))
	case k < 8:
		st, rs := s.Backfill(now)
		return fmt.Sprintf("backfill -> %v %v", st, rs)
	case k < 9:
		return fmt.Sprintf("cancel %d -> %v", id, s.Cancel(id, now))
	case k < 11:
		out := Outcome{Kind: OutcomeKind(r.IntN(3)), ExitCode: r.IntN(2)}
		return fmt.Sprintf("finish %d %v -> %v", id, out, s.Finish(id, out, now))
	case k < 12:
		return fmt.Sprintf("requeue %d -> %v", id, s.Requeue(id, now))
	case k < 13:
		return fmt.Sprintf("hold %d -> %v / release %v", id, s.Hold(id, now), s.Release(JobID(1+r.IntN(max(maxID, 1))), now))
	case k < 14:
		return fmt.Sprintf("suspend %d -> %v / resume %v", id, s.Suspend(id, now), s.Resume(JobID(1+r.IntN(max(maxID, 1))), now))
	case k < 16:
		nice := int64(r.IntN(7)) - 3
		u := Update{TimeLimit: time.Duration(r.IntN(60)) * time.Minute, Nice: &nice, Priority: int64(r.IntN(3)) - 1}
		return fmt.Sprintf("update %d -> %v", id, s.Update(id, u, now))
	case k < 18:
		node := fmt.Sprintf("n%d", r.IntN(6))
		st := selectnodes.NodeState(r.IntN(3))
		return fmt.Sprintf("node %s %s -> %v", node, st, s.SetNodeState(node, st, now))
	default:
		return fmt.Sprintf("tick -> %v", s.Tick(now))
	}
}

// eventLine prints an event with its payload, byte for byte comparable.
func eventLine(e Event) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  ev %d %s %s job=%d %s node=%s part=%s %q", e.Seq, e.Kind, e.Time.UTC().Format(time.RFC3339Nano),
		e.Job, e.State, e.Node, e.Partition, e.Detail)
	switch p := e.Payload.(type) {
	case *StartPayload:
		fmt.Fprintf(&b, " start=%s cpus=%d", p.Placement.Hostlist(), p.Placement.TotalCPUs)
	case *EndPayload:
		fmt.Fprintf(&b, " end=%+v", p.End)
	case *PriorityPayload:
		fmt.Fprintf(&b, " prio=%+v", *p)
	case *UpdatePayload:
		fmt.Fprintf(&b, " fields=%v", p.Fields)
	case *NodePayload:
		fmt.Fprintf(&b, " node=%+v", *p)
	case *RefusedPayload:
		fmt.Fprintf(&b, " refused=%s %v", p.Plugin, p.Err)
	}
	return b.String()
}

type transcript struct{ lines []string }

func (tr *transcript) on(e Event) { tr.lines = append(tr.lines, eventLine(e)) }

func (tr *transcript) take() string {
	out := strings.Join(tr.lines, "\n")
	tr.lines = tr.lines[:0]
	return out
}

// restoreFrom saves s and restores it into a new cluster of the same
// configuration.
func restoreFrom(t testing.TB, s *Scheduler, conf string, opts ...Option) *Scheduler {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, s.Snapshot(&buf))
	saved := buf.String()
	r, err := Restore(&buf, cluster(t, conf), opts...)
	require.NoError(t, err, "the scheduler's own snapshot must restore")
	var again bytes.Buffer
	require.NoError(t, r.Snapshot(&again))
	if saved != again.String() {
		t.Fatalf("a restored scheduler saves another state: %s", firstDiff(saved, again.String()))
	}
	return r
}

// A property run: random operations drive a scheduler; at random points
// its state is saved and restored into a fresh scheduler, and from then
// on every operation is applied to both, whose results and events must be
// identical byte for byte. Each later restore is made from the previous
// restored scheduler, so every restore is checked to the end of the run.
func TestRestoredSchedulerDecidesIdentically(t *testing.T) {
	runs, steps := 50, 2000 // 10^5 operations
	switch {
	case testing.Short(): // make test; make test-long runs it in full
		runs = 4
	case os.Getenv("HPCSCHED_LONG") == "" && raceEnabled:
		runs = 10
	}
	for run := 0; run < runs; run++ {
		confIx := run % len(restoreConfs)
		conf := restoreConfs[confIx]
		opts := []Option{WithPolicy(Multifactor{Age: 100, JobSize: 50, MaxAge: time.Hour}), WithRecalcInterval(time.Minute)}
		orig := New(cluster(t, conf), opts...)
		var to, tr transcript
		orig.Subscribe(to.on)
		var twin *Scheduler
		r := rand.New(rand.NewPCG(uint64(run), 77))
		now, maxID := t0, 0
		for step := 0; step < steps; step++ {
			now = now.Add(time.Duration(r.IntN(300)) * time.Second)
			if r.IntN(150) == 0 {
				src := orig
				if twin != nil {
					src = twin
				}
				twin = restoreFrom(t, src, conf, opts...)
				twin.Subscribe(tr.on)
			}
			seed1, seed2 := r.Uint64(), r.Uint64()
			line := opRunner{t, confIx}.step(orig, rand.New(rand.NewPCG(seed1, seed2)), now, maxID)
			want := line + "\n" + to.take()
			if twin != nil {
				got := opRunner{t, confIx}.step(twin, rand.New(rand.NewPCG(seed1, seed2)), now, maxID)
				if have := got + "\n" + tr.take(); have != want {
					t.Fatalf("run %d step %d: the restored scheduler differs:\n%s", run, step, firstDiff(want, have))
				}
			}
			maxID = len(orig.jobs)
		}
		require.NoError(t, orig.Cluster().CheckInvariants())
	}
}

// firstDiff shows where two long texts part.
func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, i-200)
	return fmt.Sprintf("at byte %d:\nwant …%s\ngot  …%s", i, a[from:min(len(a), i+200)], b[from:min(len(b), i+200)])
}
