package auction

import (
	"encoding/json"
	"fmt"
	"math"
)

// Node is the free capacity of one node: the A_n^cpu and A_n^gres of the
// AUCSCHED3 paper's constraints (3) and (4).
type Node struct {
	CPUs int `json:"cpus"`
	GPUs int `json:"gpus"`
}

// Use is what a bid takes on one node: T_in cores and U_in*R_i^gres GPUs.
// In JSON it is the array [node, cores, gpus].
type Use struct {
	Node  int
	Cores int
	GPUs  int
}

// Bid is one way to run a job: its per-node uses, its cost C_ji of
// formula (5) and the level L_i of the switch it lies under.
type Bid struct {
	Uses  []Use   `json:"uses"`
	Cost  float64 `json:"cost"`
	Level int     `json:"level"`
}

// Request is informative: what the job asked for (x cores, y nodes, GPUs
// per node). The solver never reads it.
type Request struct {
	Cores       int `json:"cores"`
	Nodes       int `json:"nodes"`
	GPUsPerNode int `json:"gpus_per_node"`
}

// Job is one job of the window: its priority P_j and its bids B_j.
type Job struct {
	ID       int64    `json:"id"`
	Priority int64    `json:"priority"`
	Type     string   `json:"type,omitempty"`
	Req      *Request `json:"req,omitempty"`
	Bids     []Bid    `json:"bids"`
}

// Problem is one winner-determination problem: node capacities and a
// window of jobs with bids. The objective is the AUCSCHED3 paper's (1):
// sum over chosen bids of (P_j - Alpha*C_ji), or, with ValueByCores (the
// AUCSCHED3 plug-in's form), (P_j - Alpha*C_ji) times the bid's cores.
type Problem struct {
	Name         string          `json:"name,omitempty"`
	Params       json.RawMessage `json:"params,omitempty"`
	Alpha        float64         `json:"alpha"`
	ValueByCores bool            `json:"value_by_cores,omitempty"`
	Nodes        []Node          `json:"nodes"`
	Jobs         []Job           `json:"jobs"`
	// totals is, per job and bid, the bid's cores and GPUs in all, when
	// the planner made the problem (bid generation knows them as it lays
	// the bids out; the quick search would sum every bid's uses again);
	// nil otherwise. Only the planner's problems have them: nobody else
	// changes those after they are made.
	totals [][]item
}

// Selection is a chosen bid index per job (same order as Problem.Jobs), or
// -1 for a job left out.
type Selection []int

// Cores is the bid's total cores.
func (b *Bid) Cores() int {
	n := 0
	for _, u := range b.Uses {
		n += u.Cores
	}
	return n
}

// Value is the objective coefficient of bid i of job j.
func (p *Problem) Value(j, i int) float64 {
	job := &p.Jobs[j]
	b := &job.Bids[i]
	v := float64(job.Priority) - p.Alpha*b.Cost
	if p.ValueByCores {
		v *= float64(b.Cores())
	}
	return v
}

// System describes the machine for Cost: |N|, L_max and G_max.
type System struct {
	Nodes    int // |N|: nodes in the system
	MaxLevel int // L_max: level of the highest switch
	MaxGPUs  int // G_max: most GPUs a node has
}

// Cost is formula (5): 1 + N_i/|N| + L_i/L_max - R_i/G_max, in (0, 3] for
// a bid on nodes (>= 1) nodes under a switch of level, with gpusPerNode
// GPUs on each. A system with one switch level (L_max = 0) or no GPUs
// (G_max = 0) drops that term, which keeps the range.
func Cost(sys System, nodes, level, gpusPerNode int) float64 {
	c := 1.0
	if sys.Nodes > 0 {
		c += float64(nodes) / float64(sys.Nodes)
	}
	if sys.MaxLevel > 0 {
		c += float64(level) / float64(sys.MaxLevel)
	}
	if sys.MaxGPUs > 0 {
		c -= float64(gpusPerNode) / float64(sys.MaxGPUs)
	}
	return c
}

// Alpha is formula (7): P_min_diff/3, where P_min_diff (6) is the smallest
// difference between two different priorities of the window. Jobs of equal
// priority have no order to keep, so they do not count; with fewer than two
// distinct priorities Alpha is 1/3, so costs still break ties. With every
// cost in (0, 3], P_j1 > P_j2 implies P_j1 - Alpha*C_1 > P_j2 - Alpha*C_2
// (the AUCSCHED3 paper's proof, kept as a property test).
func Alpha(priorities []int64) float64 {
	minDiff := int64(-1)
	sorted := append([]int64(nil), priorities...)
	sortInt64(sorted)
	for k := 1; k < len(sorted); k++ {
		d := sorted[k] - sorted[k-1]
		if d > 0 && (minDiff < 0 || d < minDiff) {
			minDiff = d
		}
	}
	if minDiff < 0 {
		return 1.0 / 3
	}
	return float64(minDiff) / 3
}

// Feasible reports whether sel picks at most one bid per job (2) and fits
// the cores (3) and GPUs (4) of every node.
func (p *Problem) Feasible(sel Selection) bool {
	_, err := p.Evaluate(sel)
	return err == nil
}

// Evaluate returns the objective (1) of sel, or an error naming the first
// violated constraint. An entry below -1 is an error, not a job left out;
// a use on a node p lacks (a problem not validated) is ErrInvalid.
func (p *Problem) Evaluate(sel Selection) (float64, error) {
	if len(sel) != len(p.Jobs) {
		return 0, fmt.Errorf("%w: selection has %d entries for %d jobs", ErrInfeasible, len(sel), len(p.Jobs))
	}
	cores := make([]int, len(p.Nodes))
	gpus := make([]int, len(p.Nodes))
	obj := 0.0
	for j, i := range sel {
		if i == -1 {
			continue
		}
		if i < -1 || i >= len(p.Jobs[j].Bids) {
			return 0, fmt.Errorf("%w: job %d: bid %d of %d (-1 leaves the job out)", ErrInfeasible, p.Jobs[j].ID, i, len(p.Jobs[j].Bids))
		}
		for _, u := range p.Jobs[j].Bids[i].Uses {
			if u.Node < 0 || u.Node >= len(p.Nodes) { // a problem not validated
				return 0, fmt.Errorf("%w: job %d: bid %d uses node %d of %d", ErrInvalid, p.Jobs[j].ID, i, u.Node, len(p.Nodes))
			}
			cores[u.Node] += u.Cores
			gpus[u.Node] += u.GPUs
			if cores[u.Node] > p.Nodes[u.Node].CPUs {
				return 0, fmt.Errorf("%w: node %d: %d cores over %d free (job %d)", ErrInfeasible, u.Node, cores[u.Node], p.Nodes[u.Node].CPUs, p.Jobs[j].ID)
			}
			if gpus[u.Node] > p.Nodes[u.Node].GPUs {
				return 0, fmt.Errorf("%w: node %d: %d GPUs over %d free (job %d)", ErrInfeasible, u.Node, gpus[u.Node], p.Nodes[u.Node].GPUs, p.Jobs[j].ID)
			}
		}
		obj += p.Value(j, i)
	}
	return obj, nil
}

// Validate checks the problem: capacities not negative, unique job IDs, no
// empty bid, every use on a known node and within its capacity, one use per
// node per bid, finite costs and alpha, every bid's value (Value) within
// ±1e290 so that sums of values stay finite, and the budgets of Limits.
func (p *Problem) Validate() error { return p.validate(true) }

// validate is Validate, which walks every bid's uses only when uses is
// set. Without it a problem is checked as Validate checks it except for
// each use's node, amounts and capacity (the bulk of the work on bids
// of hundreds of nodes): only for the problems bid generation lays out
// from the free cores and GPUs themselves, so their uses hold by
// construction, and that know every bid's cores (totals) for
// ValueByCores. The planner's tests check its problems in full.
func (p *Problem) validate(uses bool) error {
	if math.IsNaN(p.Alpha) || math.IsInf(p.Alpha, 0) || p.Alpha < 0 {
		return &Error{Path: "alpha", Err: ErrInvalid, Msg: fmt.Sprintf("must be finite and not negative, not %v", p.Alpha)}
	}
	if len(p.Nodes) > MaxNodes {
		return &Error{Path: "nodes", Err: ErrBudget, Msg: fmt.Sprintf("%d nodes over the budget of %d", len(p.Nodes), MaxNodes)}
	}
	if len(p.Jobs) > MaxJobs {
		return &Error{Path: "jobs", Err: ErrBudget, Msg: fmt.Sprintf("%d jobs over the budget of %d", len(p.Jobs), MaxJobs)}
	}
	for n, nd := range p.Nodes {
		if nd.CPUs < 0 || nd.GPUs < 0 || nd.CPUs > MaxPerNode || nd.GPUs > MaxPerNode {
			return &Error{Path: fmt.Sprintf("nodes[%d]", n), Err: ErrInvalid, Msg: fmt.Sprintf("capacity %d cores, %d GPUs out of [0, %d]", nd.CPUs, nd.GPUs, MaxPerNode)}
		}
	}
	seen := make(map[int64]int, len(p.Jobs))
	// used[n] is 1 + the number of the last bid with a use on node n
	// (counted over the problem): one slice, not a map per bid.
	var used []uint32
	if uses {
		used = make([]uint32, len(p.Nodes))
	}
	bids, nuses := 0, 0
	for j := range p.Jobs {
		job := &p.Jobs[j]
		if k, dup := seen[job.ID]; dup {
			return &Error{Path: fmt.Sprintf("jobs[%d].id", j), Err: ErrInvalid, Msg: fmt.Sprintf("duplicate job ID %d (also jobs[%d])", job.ID, k)}
		}
		seen[job.ID] = j
		if job.Priority < -MaxPriority || job.Priority > MaxPriority {
			return &Error{Path: fmt.Sprintf("jobs[%d].priority", j), Err: ErrInvalid, Msg: fmt.Sprintf("%d out of [-%d, %d]", job.Priority, MaxPriority, MaxPriority)}
		}
		bids += len(job.Bids)
		if len(job.Bids) > MaxBidsPerJob || bids > MaxBids {
			return &Error{Path: fmt.Sprintf("jobs[%d].bids", j), Err: ErrBudget, Msg: fmt.Sprintf("bids over the budget (%d a job, %d in all)", MaxBidsPerJob, MaxBids)}
		}
		for i := range job.Bids {
			nuses += len(job.Bids[i].Uses)
			if nuses > MaxUses {
				return &Error{Path: fmt.Sprintf("jobs[%d].bids[%d].uses", j, i), Err: ErrBudget, Msg: fmt.Sprintf("uses over the budget of %d", MaxUses)}
			}
			var err error
			if uses {
				err = p.validateBid(j, i, used, uint32(bids-len(job.Bids)+i+1))
			} else {
				err = p.validateBidHead(j, i)
				if err == nil && p.ValueByCores {
					err = p.validateBidCores(j, i, p.totals[j][i].cores)
				}
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// validateBid checks bid i of job j and each of its uses: used and stamp
// tell a node used twice (Validate).
func (p *Problem) validateBid(j, i int, used []uint32, stamp uint32) error {
	if err := p.validateBidHead(j, i); err != nil {
		return err
	}
	total := 0
	for k, u := range p.Jobs[j].Bids[i].Uses {
		up := func() string { return fmt.Sprintf("%s.uses[%d]", bidPath(j, i), k) }
		if u.Node < 0 || u.Node >= len(p.Nodes) {
			return &Error{Path: up(), Err: ErrInvalid, Msg: fmt.Sprintf("unknown node %d (%d nodes)", u.Node, len(p.Nodes))}
		}
		if used[u.Node] == stamp {
			return &Error{Path: up(), Err: ErrInvalid, Msg: fmt.Sprintf("node %d used twice in one bid", u.Node)}
		}
		used[u.Node] = stamp
		nd := p.Nodes[u.Node]
		if u.Cores < 0 || u.GPUs < 0 || u.Cores+u.GPUs == 0 {
			return &Error{Path: up(), Err: ErrInvalid, Msg: fmt.Sprintf("use of %d cores, %d GPUs on node %d: must be positive", u.Cores, u.GPUs, u.Node)}
		}
		if u.Cores > nd.CPUs || u.GPUs > nd.GPUs {
			return &Error{Path: up(), Err: ErrInvalid, Msg: fmt.Sprintf("bid over node %d's capacity: %d cores, %d GPUs of %d, %d free", u.Node, u.Cores, u.GPUs, nd.CPUs, nd.GPUs)}
		}
		total += u.Cores
	}
	if err := p.validateBidCores(j, i, total); err != nil {
		return err
	}
	return p.validateBidValue(j, i, total)
}

// maxValue bounds a bid's objective coefficient, so that the objective
// and the bounds, sums over at most MaxJobs bids, stay finite.
const maxValue = 1e290

// validateBidValue checks bid i of job j's objective coefficient (Value),
// whose cores are cores: an alpha and a cost each finite can still
// multiply past the float64 range, and an infinite value would make every
// selection that takes the bid "optimal". The planner's problems skip it
// (its costs are formula (5)'s, at most a few units).
func (p *Problem) validateBidValue(j, i, cores int) error {
	v := float64(p.Jobs[j].Priority) - p.Alpha*p.Jobs[j].Bids[i].Cost
	if p.ValueByCores {
		v *= float64(cores)
	}
	if !(math.Abs(v) <= maxValue) {
		return &Error{Path: bidPath(j, i), Err: ErrInvalid, Msg: fmt.Sprintf("value priority - alpha*cost is %v, beyond ±%g", v, maxValue)}
	}
	return nil
}

// validateBidHead checks what bid i of job j is beside its uses: its
// cost, level, and not being empty.
func (p *Problem) validateBidHead(j, i int) error {
	b := &p.Jobs[j].Bids[i]
	if math.IsNaN(b.Cost) || math.IsInf(b.Cost, 0) {
		return &Error{Path: bidPath(j, i) + ".cost", Err: ErrInvalid, Msg: fmt.Sprintf("cost must be finite, not %v", b.Cost)}
	}
	if len(b.Uses) == 0 {
		return &Error{Path: bidPath(j, i) + ".uses", Err: ErrInvalid, Msg: "empty bid"}
	}
	if b.Level < 0 {
		return &Error{Path: bidPath(j, i) + ".level", Err: ErrInvalid, Msg: fmt.Sprintf("negative level %d", b.Level)}
	}
	return nil
}

// validateBidCores checks that bid i of job j, of cores in all, has a
// value when the problem values bids by cores.
func (p *Problem) validateBidCores(j, i, cores int) error {
	if p.ValueByCores && cores == 0 {
		return &Error{Path: bidPath(j, i), Err: ErrInvalid, Msg: "no cores, so no value by cores"}
	}
	return nil
}

// bidPath is bid i of job j's path in an error: paths are formatted only
// for an error, as validation runs on every problem a planner builds,
// most of which are fine.
func bidPath(j, i int) string { return fmt.Sprintf("jobs[%d].bids[%d]", j, i) }
