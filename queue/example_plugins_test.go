package queue_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/slurmconf"
)

func eightNodes() *selectnodes.Cluster {
	cfg, _ := slurmconf.Parse(strings.NewReader("NodeName=n[1-8] CPUs=4\nPartitionName=batch Nodes=ALL Default=YES\nPartitionName=gpu Nodes=n[7-8]\n"))
	c, _ := selectnodes.FromConfig(cfg)
	return c
}

// defaults is an admission plugin, as a site's job_submit filter is:
// every job needs a time limit, and the account defaults to the user's.
type defaults struct{ accounts map[string]string }

func (defaults) Name() string { return "defaults" }

func (d defaults) Admit(_ context.Context, spec *queue.Spec, _ time.Time) *queue.Status {
	if spec.TimeLimit <= 0 {
		return queue.NewStatus(queue.Refuse, "a time limit (-t) is required")
	}
	if spec.Account == "" {
		spec.Account = d.accounts[spec.User]
	}
	return nil
}

// An admission plugin rewrites a submission or refuses it with a reason
// the user sees.
func ExampleAdmitPlugin() {
	s := queue.New(eightNodes(), queue.WithPlugins(defaults{accounts: map[string]string{"ada": "physics"}}))
	now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)

	id, _ := s.Submit(queue.Spec{User: "ada", Request: selectnodes.Request{MinNodes: 2}, TimeLimit: time.Hour}, now)
	j, _ := s.Job(id)
	fmt.Println("account:", j.Account)

	_, err := s.Submit(queue.Spec{User: "ada", Request: selectnodes.Request{MinNodes: 2}}, now)
	fmt.Println(errors.Is(err, queue.ErrRefused), err)
	// Output:
	// account: physics
	// true queue: defaults: a time limit (-t) is required
}

// budget is a Reserve plugin: a job starts only if its account can pay
// for nodes x time limit; Unreserve gives the hold back, and Release
// (not shown) would settle the bill.
type budget struct {
	mu      sync.Mutex
	balance map[string]int64 // node-minutes
	held    map[queue.JobID]int64
}

func (*budget) Name() string { return "budget" }

func (b *budget) Reserve(_ context.Context, j *queue.Job, p *selectnodes.Placement, _ time.Time) *queue.Status {
	b.mu.Lock()
	defer b.mu.Unlock()
	cost := int64(len(p.Names)) * int64(j.TimeLimit/time.Minute)
	if b.balance[j.Account] < cost {
		return queue.NewStatus(queue.Hold, fmt.Sprintf("account %s has %d node-minutes, the job needs %d", j.Account, b.balance[j.Account], cost))
	}
	b.balance[j.Account] -= cost
	b.held[j.ID] = cost
	return nil
}

func (b *budget) Unreserve(_ context.Context, j *queue.Job, _ *selectnodes.Placement, _ time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.balance[j.Account] += b.held[j.ID]
	delete(b.held, j.ID)
}

// A Reserve plugin refusing a start: the job is held with the plugin's
// reason, and the job behind it starts.
func ExampleReservePlugin() {
	b := &budget{balance: map[string]int64{"physics": 600, "chemistry": 60}, held: map[queue.JobID]int64{}}
	s := queue.New(eightNodes(), queue.WithPlugins(b))
	now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	poor, _ := s.Submit(queue.Spec{Account: "chemistry", Request: selectnodes.Request{MinNodes: 4}, TimeLimit: time.Hour}, now)
	rich, _ := s.Submit(queue.Spec{Account: "physics", Request: selectnodes.Request{MinNodes: 4}, TimeLimit: time.Hour}, now)
	for _, st := range s.Schedule(now) {
		fmt.Println("started", st.Job, "on", st.Nodes)
	}
	j, _ := s.Job(poor)
	fmt.Println(j.ID, j.State, j.Reason, "-", j.ReasonDetail)
	fmt.Println("physics left:", b.balance["physics"], "node-minutes; job", rich, "holds", b.held[rich])
	// Output:
	// started 2 on n[1-4]
	// 1 PENDING Held - budget: account chemistry has 60 node-minutes, the job needs 240
	// physics left: 360 node-minutes; job 2 holds 240
}

// gridIDs hands out IDs from a range shared by several schedulers, as a
// grid's ID service would (here in process).
type gridIDs struct {
	mu   sync.Mutex
	next queue.JobID
}

func (g *gridIDs) NextJobID(context.Context) (queue.JobID, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.next++
	return g.next, nil
}

// A custom IDSource: two schedulers share one ID space.
func ExampleIDSource() {
	ids := &gridIDs{next: 5000}
	east := queue.New(eightNodes(), queue.WithIDSource(ids))
	west := queue.New(eightNodes(), queue.WithIDSource(ids))
	now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	spec := queue.Spec{Request: selectnodes.Request{MinNodes: 1}, TimeLimit: time.Hour}
	a, _ := east.Submit(spec, now)
	b, _ := west.Submit(spec, now)
	c, _ := east.Submit(spec, now)
	fmt.Println(a, b, c)
	// Output: 5001 5002 5003
}

func consRes() *selectnodes.Cluster {
	cfg, _ := slurmconf.Parse(strings.NewReader("SelectType=select/cons_res\nNodeName=n[1-4] CPUs=4\nPartitionName=batch Nodes=ALL Default=YES\n"))
	c, _ := selectnodes.FromConfig(cfg)
	return c
}
