package queue_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/slurmconf"
)

// README: quota begin
// quota refuses starts beyond a number of nodes per account at a time. It
// takes nodes in Reserve, gives them back in Unreserve (a start that did
// not happen: a later plugin refused, say) and in Release (an allocation
// that ended), so no refused or finished job leaves nodes counted.
type quota struct {
	limit int
	inUse map[string]int
}

func (*quota) Name() string { return "quota" }

func (q *quota) Reserve(_ context.Context, j *queue.Job, p *selectnodes.Placement, _ time.Time) *queue.Status {
	if q.inUse[j.Account]+p.NodeCount() > q.limit {
		return queue.NewStatus(queue.Refuse, fmt.Sprintf("account %s is at its %d-node quota", j.Account, q.limit))
	}
	q.inUse[j.Account] += p.NodeCount()
	return nil
}

func (q *quota) Unreserve(_ context.Context, j *queue.Job, p *selectnodes.Placement, _ time.Time) {
	q.inUse[j.Account] -= p.NodeCount()
}

func (q *quota) Release(_ context.Context, j *queue.Job, _ queue.JobEnd, _ time.Time) {
	q.inUse[j.Account] -= j.Placement.NodeCount() // the placement that ended
}

var (
	_ queue.ReservePlugin = (*quota)(nil)
	_ queue.ReleasePlugin = (*quota)(nil)
)

// README: quota end

// veto refuses every start of one user's jobs: a plugin after quota, so
// quota's reservation must be undone.
type veto string

func (veto) Name() string { return "veto" }

func (v veto) Reserve(_ context.Context, j *queue.Job, _ *selectnodes.Placement, _ time.Time) *queue.Status {
	if j.User == string(v) {
		return queue.NewStatus(queue.Refuse, "user "+j.User+" may not run now")
	}
	return nil
}

func (veto) Unreserve(context.Context, *queue.Job, *selectnodes.Placement, time.Time) {}

// A node quota per account that stays right when a later plugin refuses a
// start and when jobs end.
func ExampleReservePlugin_quota() {
	cfg, _ := slurmconf.Parse(strings.NewReader("NodeName=n[1-8] CPUs=4\nPartitionName=batch Nodes=ALL Default=YES\n"))
	c, _ := selectnodes.FromConfig(cfg)
	q := &quota{limit: 4, inUse: map[string]int{}}
	s := queue.New(c, queue.WithPlugins(q, veto("mallory")))
	now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	spec := func(user string, n int) queue.Spec {
		return queue.Spec{User: user, Account: "physics", Request: selectnodes.Request{MinNodes: n}, TimeLimit: time.Hour}
	}
	refused, _ := s.Submit(spec("mallory", 3), now)
	first, _ := s.Submit(spec("ada", 3), now)
	over, _ := s.Submit(spec("ada", 2), now)
	for _, st := range s.Schedule(now) {
		fmt.Println("started", st.Job, "on", st.Nodes)
	}
	for _, id := range []queue.JobID{refused, over} {
		j, _ := s.Job(id)
		fmt.Println(id, j.Reason, "-", j.ReasonDetail)
	}
	fmt.Println("physics uses", q.inUse["physics"], "nodes")
	_ = s.Finish(first, queue.Outcome{}, now.Add(time.Minute))
	fmt.Println("after job", first, "ends:", q.inUse["physics"], "nodes")
	// Output:
	// started 2 on n[1-3]
	// 1 Refused - veto: user mallory may not run now
	// 3 Refused - quota: account physics is at its 4-node quota
	// physics uses 3 nodes
	// after job 2 ends: 0 nodes
}
