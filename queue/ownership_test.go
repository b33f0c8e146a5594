package queue

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// scribbler overwrites every slice element, count and pointer it can
// reach in values the scheduler handed out or took in, at random.
type scribbler struct{ r *rand.Rand }

func (m *scribbler) names(ns []string) {
	for k := range ns {
		if m.r.IntN(2) == 0 {
			ns[k] = fmt.Sprintf("n%d", m.r.IntN(8))
		}
	}
}

func (m *scribbler) request(r *selectnodes.Request) {
	m.names(r.Required)
	m.names(r.Excluded)
	m.names(r.Groups)
	for k := range r.GRES {
		r.GRES[k].Min, r.GRES[k].Max = int64(m.r.IntN(9)), int64(m.r.IntN(9))
	}
	if r.ExcludeNodes != nil {
		r.ExcludeNodes.Set(uint(m.r.IntN(8)))
	}
	r.CPUs, r.MinNodes = m.r.IntN(64), m.r.IntN(8)
}

func (m *scribbler) placement(p *selectnodes.Placement) {
	if p == nil {
		return
	}
	m.names(p.Names)
	for k := range p.Alloc {
		p.Alloc[k].CPUs, p.Alloc[k].Node, p.Alloc[k].Memory = m.r.IntN(5), m.r.IntN(8), int64(m.r.IntN(100))
	}
	p.TotalCPUs = m.r.IntN(100)
}

func (m *scribbler) job(j *Job) {
	m.request(&j.Request)
	m.placement(j.Placement)
	if e := j.Explanation; e != nil {
		for k := range e.Steps {
			e.Steps[k] = "scribbled"
		}
		for k := range e.Sets {
			m.names(e.Sets[k].Features)
			for r := range e.Sets[k].Removed {
				e.Sets[k].Removed[r].Count = -1
			}
		}
		m.placement(e.Placement)
	}
	j.State, j.Priority = State(m.r.IntN(8)), m.r.Int64()
}

func (m *scribbler) jobs(js []Job) {
	for k := range js {
		m.job(&js[k])
	}
}

func (m *scribbler) payload(p Payload) {
	switch p := p.(type) {
	case *StartPayload:
		m.placement(p.Placement)
	case *UpdatePayload:
		m.names(p.Fields)
	case *NodePayload:
		for k := range p.Ended {
			p.Ended[k] = JobID(m.r.IntN(9))
		}
	case *RefusedPayload:
		if p.Status != nil {
			m.names(p.Status.Reasons)
		}
	}
}

// meddler is a reserve and release plugin and a planner that, when it
// has a scribbler, scribbles on everything it is given.
type meddler struct{ m *scribbler }

func (d *meddler) Name() string { return "meddler" }

func (d *meddler) Reserve(_ context.Context, j *Job, p *selectnodes.Placement, _ time.Time) *Status {
	if d.m != nil {
		d.m.job(j)
		d.m.placement(p)
	}
	return nil
}

func (d *meddler) Unreserve(_ context.Context, j *Job, p *selectnodes.Placement, _ time.Time) {
	if d.m != nil {
		d.m.job(j)
		d.m.placement(p)
	}
}

func (d *meddler) Release(_ context.Context, j *Job, _ JobEnd, _ time.Time) {
	if d.m != nil {
		d.m.job(j)
	}
}

// Plan starts the window's jobs in order where the pipeline chooses.
func (d *meddler) Plan(_ context.Context, _ *selectnodes.Snapshot, window []Job, _ time.Time) ([]Decision, error) {
	out := make([]Decision, 0, len(window))
	for _, j := range window {
		out = append(out, Decision{Job: j.ID})
	}
	if d.m != nil {
		d.m.jobs(window)
	}
	return out, nil
}

// ownershipRun drives a scheduler through seeded random operations and
// returns what it decided: the event log and the final jobs. With a
// scribbler, every value handed out or passed in is scribbled on after
// use; the decisions must not change.
func ownershipRun(t *testing.T, seed uint64, steps int, planner bool, m *scribbler) (string, []Job) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	conf := "SelectType=select/cons_res\nNodeName=n[0-7] CPUs=4\nPartitionName=batch Nodes=ALL Default=YES\n"
	d := &meddler{m: m}
	opts := []Option{WithPlugins(d)}
	if planner {
		opts = append(opts, WithPlanner(d, 5))
	}
	s := New(cluster(t, conf), opts...)
	var log strings.Builder
	s.Subscribe(func(e Event) { // scribbles first: the next subscriber must not see it
		if m != nil {
			m.payload(e.Payload)
		}
	})
	s.Subscribe(func(e Event) {
		fmt.Fprintf(&log, "%d %s %d %s %q", e.Seq, e.Kind, e.Job, e.State, e.Detail)
		if p, ok := e.Payload.(*StartPayload); ok {
			for _, a := range p.Placement.Alloc {
				fmt.Fprintf(&log, " %d:%d", a.Node, a.CPUs)
			}
		}
		log.WriteByte('\n')
		if m != nil {
			m.payload(e.Payload)
		}
	})
	var ids []JobID
	pick := func() JobID {
		if len(ids) == 0 {
			return 1
		}
		return ids[r.IntN(len(ids))]
	}
	for step := range steps {
		now := at(step)
		switch r.IntN(12) {
		case 0, 1, 2:
			spec := Spec{Name: "j", User: "u", TimeLimit: time.Duration(1+r.IntN(30)) * time.Minute,
				Request: selectnodes.Request{CPUs: 1 + r.IntN(12), Excluded: []string{fmt.Sprintf("n%d", r.IntN(8))},
					Groups: []string{"g"}}}
			if r.IntN(3) == 0 {
				spec.Request.Required = []string{fmt.Sprintf("n%d", r.IntN(8))}
			}
			if id, err := s.Submit(spec, now); err == nil {
				ids = append(ids, id)
			}
			if m != nil {
				m.request(&spec.Request) // the caller reuses its Spec
			}
		case 3:
			s.Schedule(now)
		case 4:
			_, res := s.Backfill(now)
			if m != nil {
				for k := range res {
					m.names(res[k].Nodes)
				}
			}
		case 5:
			_ = s.Finish(pick(), Outcome{}, now)
		case 6:
			_ = s.Cancel(pick(), now)
		case 7:
			s.Tick(now)
		case 8:
			req := selectnodes.Request{CPUs: 1 + r.IntN(8), Excluded: []string{"n0"}}
			_ = s.Update(pick(), Update{Request: &req}, now)
			if m != nil {
				m.request(&req)
			}
		case 9:
			if j, ok := s.Job(pick()); ok && m != nil {
				m.job(&j)
			}
		case 10:
			if m != nil {
				m.jobs(s.Pending())
				m.jobs(s.Jobs())
				for _, res := range s.Reservations() {
					m.names(res.Nodes)
				}
			}
		case 11:
			_ = s.SetNodeState(fmt.Sprintf("n%d", r.IntN(8)), selectnodes.NodeState(r.IntN(3)), now)
		}
		require.NoError(t, s.Cluster().CheckInvariants(), "step %d", step)
	}
	return log.String(), s.Jobs()
}

// Scribbling on everything the scheduler hands out (jobs, pending lists,
// event payloads, reservations, the planner's window, plugins' views and
// placements) or takes in (a Spec or an Update's Request reused after the
// call) changes none of its decisions and breaks none of the cluster's
// invariants.
func TestScribblingOnHandedOutValuesChangesNothing(t *testing.T) {
	seeds, steps := 20, 300
	if testing.Short() {
		seeds, steps = 4, 200
	}
	if v, err := strconv.Atoi(os.Getenv("HPCSCHED_OWNERSHIP_SEEDS")); err == nil && v > 0 {
		seeds = v
	}
	base := testseed.Draw(t)
	for k := range seeds {
		seed := base + uint64(k)
		planner := k%2 == 1
		wantLog, wantJobs := ownershipRun(t, seed, steps, planner, nil)
		gotLog, gotJobs := ownershipRun(t, seed, steps, planner, &scribbler{rand.New(rand.NewPCG(seed, 99))})
		require.Equal(t, wantLog, gotLog, "seed %d planner %v", seed, planner)
		assert.Equal(t, wantJobs, gotJobs, "seed %d planner %v", seed, planner)
	}
}

// The two cases a user met: a Spec reused after Submit, and a CPU count
// edited in a returned Job's placement.
func TestReusedSpecAndEditedPlacementDoNotReachTheScheduler(t *testing.T) {
	s := New(cluster(t, "SelectType=select/cons_res\nNodeName=n[0-1] CPUs=4\nPartitionName=batch Nodes=ALL Default=YES\n"))
	spec := Spec{Request: selectnodes.Request{CPUs: 1, Excluded: []string{"n0"}}, TimeLimit: time.Hour}
	id := submit(t, s, spec, at(0))
	spec.Request.Excluded[0] = "n1"
	s.Schedule(at(1))
	j, _ := s.Job(id)
	assert.Equal(t, "n1", j.Nodes(), "the job excludes n0 as submitted")

	j.Placement.Alloc[0].CPUs = 0
	j.Request.Excluded[0] = "n1"
	require.NoError(t, s.Finish(id, Outcome{}, at(2)))
	require.NoError(t, s.Cluster().CheckInvariants())
	assert.Equal(t, 4, s.Cluster().FreeCPUs(1), "all of n1's CPUs released")
	again, _ := s.Job(id)
	assert.Equal(t, []string{"n0"}, again.Request.Excluded)
}
