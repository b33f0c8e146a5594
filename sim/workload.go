package sim

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hpcsched/hpcsched/features"
	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
)

// Job is one job of a workload.
type Job struct {
	Submit time.Duration // since the workload's start (Options.Epoch), at least 0
	Run    time.Duration // how long it actually runs (it is killed at its time limit), at least 0
	Spec   queue.Spec
	// Cores is what the job asked for, for the AUCSCHED3 paper's utilization.
	Cores int
	// SWF is the line of the trace the job was read from, when the trace
	// was read under SWFOptions.KeepFields (else nil, and always for a
	// generated job): SWFJob.Fields, shared and immutable.
	SWF *SWFFields
}

// Workload is a list of jobs in submit order. A Workload made by Generate
// or Trace.WorkloadWith is the caller's: its jobs share only immutable
// values (strings, a *features.Expr, a line's *SWFFields) with the trace
// and with each other.
type Workload struct {
	Name string
	Jobs []Job
	// Skipped counts trace jobs left out (unknown run time, cancelled
	// before they ran), with the reasons.
	Skipped map[string]int
}

// Conventions say how a trace's fields become jobs; the zero value is the
// usual replay convention (and the one the KTH-SP2 check uses). A field
// of another value than the constants below reads as its zero value.
type Conventions struct {
	// Estimate is where a job's time limit comes from.
	Estimate Estimate
	// Processors is which processor count a job asks for.
	Processors Processors
}

// Estimate is the source of a job's time limit.
type Estimate int

const (
	// RequestedTime is field 9, the user's estimate (a job running longer
	// is killed at it), or the run time rounded up to a minute when the
	// trace lacks it.
	RequestedTime Estimate = iota
	// ExactRunTime is the run time rounded up to a second: perfect
	// estimates, as in many backfill studies.
	ExactRunTime
)

// Processors is the source of a job's processor count.
type Processors int

const (
	// RequestedProcs is field 8, else field 5 (allocated).
	RequestedProcs Processors = iota
	// AllocatedProcs is field 5, else field 8.
	AllocatedProcs
)

// Workload is WorkloadWith under the default Conventions.
func (t *Trace) Workload(name string, c *selectnodes.Cluster) *Workload {
	return t.WorkloadWith(name, c, Conventions{})
}

// WorkloadWith turns the trace into jobs for cluster c: processors become a
// CPU total (the extended form's PBS spec becomes nodes, CPUs per node,
// features and --exclusive); the time limit comes from conv.Estimate;
// queue and partition numbers pick the partition of that name when c has
// one; a PBS spec's host and avoided hosts name nodes with or without the
// zero padding of ClusterFor's names (a nil c has no partitions or nodes
// to name: the jobs then ask for none). Jobs with an unknown run time,
// cancelled jobs that never ran, and jobs asking for node properties no
// feature expression can name are skipped and counted. Processors
// unknown in both fields (-1, or any number below 1) are one.
func (t *Trace) WorkloadWith(name string, c *selectnodes.Cluster, conv Conventions) *Workload {
	return t.WorkloadFirst(name, c, conv, 0)
}

// WorkloadFirst is WorkloadWith keeping only the first limit jobs (all
// when limit <= 0) as NewTraceSource's limit takes them: the first limit
// jobs kept, in the order of the trace's lines, then put in submit order.
// Jobs left out do not count, and Skipped counts only those on the lines
// before the last job taken. On a trace whose lines are in submit order
// (the shipped ones are) these are the first limit jobs by submit time.
func (t *Trace) WorkloadFirst(name string, c *selectnodes.Cluster, conv Conventions, limit int) *Workload {
	if t == nil {
		return &Workload{Name: name, Skipped: map[string]int{}}
	}
	size := len(t.Jobs)
	if limit > 0 {
		size = min(size, limit)
	}
	// sized once: a Job is large, and growing 28,476 of them by appends
	// showed as 6% of a KTH-SP2 EASY replay's CPU profile (growslice)
	w := &Workload{Name: name, Skipped: map[string]int{}, Jobs: make([]Job, 0, size)}
	var users userNames
	for i := range t.Jobs {
		if limit > 0 && len(w.Jobs) == limit {
			break // the lines after the last job taken are not read
		}
		w.Jobs = append(w.Jobs, Job{})
		if skip := t.job(&t.Jobs[i], c, conv, &users, &w.Jobs[len(w.Jobs)-1]); skip != "" {
			w.Jobs = w.Jobs[:len(w.Jobs)-1]
			w.Skipped[skip]++
		}
	}
	// traces are in submit order as a rule: a Job is large (a comparison
	// function copies two), so check by index first
	for i := 1; i < len(w.Jobs); i++ {
		if w.Jobs[i].Submit < w.Jobs[i-1].Submit {
			slices.SortStableFunc(w.Jobs, func(a, b Job) int { return cmp.Compare(a.Submit, b.Submit) })
			break
		}
	}
	return w
}

// job turns one trace job into a workload's for c, written to out (a Job
// is large: each is made in its place), or names why it is left out (out
// is then unspecified). users gives the user names.
func (t *Trace) job(sj *SWFJob, c *selectnodes.Cluster, conv Conventions, users *userNames, out *Job) string {
	switch {
	case sj.Run < 0:
		return "unknown run time"
	case sj.Status == 5 && sj.Run == 0:
		return "cancelled before running"
	}
	limit := jobLimit(sj, conv.Estimate)
	procs := sj.Procs
	if conv.Processors == AllocatedProcs && sj.Allocated > 0 {
		procs = sj.Allocated
	}
	// the job is written in out, its request in place (a Request built
	// aside would be copied in whole)
	*out = Job{Submit: sj.Submit, Run: sj.Run, Spec: queue.Spec{TimeLimit: limit}}
	req := &out.Spec.Request
	req.CPUs = max(procs, 1)
	cores := req.CPUs
	if sj.Nodes > 0 {
		req.MinNodes = sj.Nodes
		if sj.PPN > 0 {
			req.MinCPUsPerNode = sj.PPN
			req.CPUs = sj.Procs2
			cores = req.CPUs
		}
		if len(sj.Properties) > 0 {
			e, err := features.Parse(strings.Join(sj.Properties, "&"))
			if err != nil {
				// run without them, it would run where it never could
				return "node properties a feature expression cannot name"
			}
			req.Features = e
		}
		if sj.Exclusive {
			req.Share = selectnodes.ShareExclusiveJob
		}
		if host, ok := hostNode(c, sj.Host); ok {
			req.Required = []string{host}
		}
		req.Excluded = avoided(c, sj.Avoid)
	}
	for _, p := range []string{sj.QueueName, t.Partitions[sj.Partition], t.Queues[sj.Queue]} {
		// "" names no partition: no lookup (a trace without queues has
		// only those)
		if p == "" || c == nil {
			continue
		}
		if c.HasPartition(p) {
			req.Partition = p
			break
		}
	}
	out.Cores, out.Spec.Name, out.Spec.User = cores, users.job(sj.ID), users.name(sj.User)
	out.SWF = sj.Fields
	return ""
}

// userNames are the names "u<number>" of a trace's users, each made once
// for the users seen last (a trace has a few hundred users and runs of
// one user's jobs): jobs of the same user share one string. It also
// writes the jobs' names "swf<ID>", several to a block (jobs).
type userNames struct {
	slot [64]struct {
		user int
		name string
	}
	jobs strings.Builder
}

// jobNameBlock is the size of a block of job names: about 400 names to
// an allocation instead of one each.
const jobNameBlock = 4096

// job is "swf" followed by id in decimal. The name is a piece of a block
// that holds the names of the jobs read before it: a Builder's String
// shares its bytes, which no later write changes, and a full block is
// left to the names cut from it and a new one begun.
func (u *userNames) job(id int64) string {
	var buf [32]byte
	name := strconv.AppendInt(append(buf[:0], "swf"...), id, 10)
	if u.jobs.Cap()-u.jobs.Len() < len(name) {
		u.jobs = strings.Builder{}
		u.jobs.Grow(jobNameBlock)
	}
	start := u.jobs.Len()
	u.jobs.Write(name)
	return u.jobs.String()[start:]
}

// name is "u" followed by user in decimal.
func (u *userNames) name(user int) string {
	s := &u.slot[uint(user)%uint(len(u.slot))]
	if s.name == "" || s.user != user {
		s.user, s.name = user, numbered("u", int64(user))
	}
	return s.name
}

// numbered is prefix followed by n in decimal, in one allocation.
func numbered(prefix string, n int64) string {
	var buf [32]byte
	return string(strconv.AppendInt(append(buf[:0], prefix...), n, 10))
}

// jobLimit is a job's time limit under the estimate convention, at most
// queue.MaxTimeLimit: the reader takes times up to MaxSWFSeconds (136
// years), some logs write a huge requested time for "unlimited", and the
// queue refuses a limit over a century.
func jobLimit(sj *SWFJob, e Estimate) time.Duration {
	return min(rawLimit(sj, e), queue.MaxTimeLimit)
}

func rawLimit(sj *SWFJob, e Estimate) time.Duration {
	if e == ExactRunTime {
		limit := sj.Run.Truncate(time.Second)
		if limit < sj.Run {
			limit += time.Second // up to the next second
		}
		return max(time.Second, limit)
	}
	limit := sj.ReqTime
	if limit <= 0 {
		limit = max(time.Minute, sj.Run.Round(time.Minute))
		if limit < sj.Run {
			limit += time.Minute
		}
	}
	return limit
}

// avoided lists the nodes a PBS spec's negated terms rule out: a host by
// name, or every node with a property.
func avoided(c *selectnodes.Cluster, avoid []string) []string {
	var out []string
	if c == nil {
		return nil
	}
	for _, a := range avoid {
		if host, ok := hostNode(c, a); ok {
			out = append(out, host)
			continue
		}
		for i := 0; i < c.NodeCount(); i++ {
			if n := c.Node(i); slices.Contains(n.Features, a) && !slices.Contains(out, n.Name) {
				out = append(out, n.Name)
			}
		}
	}
	return out
}

// hostNode is the name of c's node that a trace calls host: the same
// name, or the same with its number zero-padded as ClusterFor pads a
// machine group's ("zewura2" is zewura02, of a group of 20).
func hostNode(c *selectnodes.Cluster, host string) (string, bool) {
	if host == "" || c == nil {
		return "", false
	}
	if _, ok := c.NodeIndex(host); ok {
		return host, true
	}
	digits := strings.TrimLeft(host[len(strings.TrimRight(host, "0123456789")):], "0")
	if digits == "" || len(digits) > 7 {
		return "", false
	}
	prefix := strings.TrimRight(host, "0123456789")
	for pad := len(digits) + 1; pad <= 7; pad++ {
		name := prefix + strings.Repeat("0", pad-len(digits)) + digits
		if _, ok := c.NodeIndex(name); ok {
			return name, true
		}
	}
	return "", false
}

// SiteProperties are the node properties a PBS trace's jobs ask for that
// name neither a machine group ("cl_zewura") nor a CPU count
// ("nodecpus80"), sorted. The trace records what jobs asked for, not what
// nodes had; every job of a shipped trace ran, so each property existed,
// and ClusterFor gives these to every node (the traces' machines files
// describe one site).
func (t *Trace) SiteProperties() []string {
	if t == nil {
		return nil
	}
	var out []string
	for _, j := range t.Jobs {
		for _, p := range j.Properties {
			if !strings.HasPrefix(p, "cl_") && !strings.HasPrefix(p, "nodecpus") && !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	slices.Sort(out)
	return out
}

// ClusterFor builds a cluster for a trace: from machines when given
// (groups of identical nodes named <name>001..., with features
// "cl_<name>", "nodecpus<CPUs>", the trace's SiteProperties and extra),
// else from the header: MaxNodes nodes sharing MaxProcs CPUs (the first
// MaxProcs%MaxNodes nodes take one more), or MaxProcs single-CPU nodes
// without MaxNodes. Every partition and queue name of the trace becomes a
// partition of all nodes, besides the default "batch". Nodes of more
// than one CPU get the ConsRes selector, single-CPU nodes Linear.
func (t *Trace) ClusterFor(machines []Machine, extra []string, opts ...selectnodes.Option) (*selectnodes.Cluster, error) {
	if t == nil {
		t = &Trace{} // machines alone size the cluster
	}
	var nodes []selectnodes.Node
	spare := 0 // the header's processors an even split leaves over
	if len(machines) == 0 {
		var err error
		if machines, spare, err = t.headerMachines(); err != nil {
			return nil, err
		}
	}
	total := 0
	for _, m := range machines {
		if m.Nodes < 1 || m.CPUs < 1 || m.Nodes > MaxClusterNodes-total {
			return nil, fmt.Errorf("sim: machines give more than %d nodes (MaxClusterNodes) or a group without nodes or CPUs: %w", MaxClusterNodes, ErrBudget)
		}
		if strings.ContainsAny(m.Name, ",[] \t\r\n") {
			// said once, not once for each of its nodes
			return nil, fmt.Errorf("sim: machine group %q: its nodes are named after it, and a node name holds no hostlist separator (\",[] \" or a blank)", m.Name)
		}
		total += m.Nodes
	}
	nodes = make([]selectnodes.Node, 0, total)
	site := append(t.SiteProperties(), extra...)
	multi := false
	for _, m := range machines {
		width := len(fmt.Sprint(m.Nodes))
		for i := 1; i <= m.Nodes; i++ {
			feats := append([]string{"cl_" + m.Name, fmt.Sprintf("nodecpus%d", m.CPUs)}, site...)
			nodes = append(nodes, selectnodes.Node{Name: fmt.Sprintf("%s%0*d", m.Name, width, i), CPUs: m.CPUs,
				RealMemory: m.MemoryKB / 1024, Weight: 1, Features: feats})
		}
		multi = multi || m.CPUs > 1
	}
	for i := range spare {
		// one more CPU on each of the first nodes: the cluster has every
		// processor of the header
		nodes[i].CPUs++
		nodes[i].Features[1] = fmt.Sprintf("nodecpus%d", nodes[i].CPUs)
		multi = true
	}
	all := make([]string, len(nodes))
	for i := range nodes {
		all[i] = nodes[i].Name
	}
	parts := []selectnodes.Partition{{Name: "batch", Nodes: all, Default: true}}
	seen := map[string]bool{"batch": true}
	addPart := func(name string) {
		if name != "" && !seen[name] && !strings.ContainsAny(name, ",[] ") {
			seen[name] = true
			parts = append(parts, selectnodes.Partition{Name: name, Nodes: all})
		}
	}
	for _, k := range sortedKeys(t.Partitions) {
		addPart(t.Partitions[k])
	}
	for _, k := range sortedKeys(t.Queues) {
		addPart(t.Queues[k])
	}
	for _, j := range t.Jobs {
		addPart(j.QueueName)
	}
	sel := selectnodes.Selector(selectnodes.Linear{})
	if multi {
		sel = selectnodes.ConsRes{}
	}
	c, err := selectnodes.New(nodes, parts, append([]selectnodes.Option{selectnodes.WithSelector(sel)}, opts...)...)
	return c, firstErrors(err, 3)
}

// firstErrors keeps the first n of the errors err joins and counts the
// rest: groups whose node names collide ("a1" and "a" make a11 twice)
// would otherwise say so once for each of thousands of nodes.
func firstErrors(err error, n int) error {
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok || len(joined.Unwrap()) <= n {
		return err
	}
	all := joined.Unwrap()
	kept := append(slices.Clip(all[:n]), fmt.Errorf("and %d more", len(all)-n))
	return errors.Join(kept...)
}

// headerMachines sizes a cluster from the header: MaxNodes nodes sharing
// MaxProcs processors (the first nodes take the spare ones), or MaxProcs
// single-CPU nodes when MaxNodes is not given.
func (t *Trace) headerMachines() ([]Machine, int, error) {
	n := t.MaxNodes
	if n <= 0 {
		n = t.MaxProcs
	}
	if n <= 0 {
		return nil, 0, fmt.Errorf("sim: %w; give a machines file", ErrNoClusterSize)
	}
	if n > MaxClusterNodes || t.MaxProcs > maxSWFCount {
		line := t.MaxNodesLine
		if t.MaxNodes <= 0 || t.MaxProcs > maxSWFCount {
			line = t.MaxProcsLine
		}
		return nil, 0, &SWFError{Line: line, Err: ErrBudget, Msg: fmt.Sprintf(
			"header MaxNodes %d / MaxProcs %d is over the budget of %d nodes (MaxClusterNodes) or %d processors", t.MaxNodes, t.MaxProcs, MaxClusterNodes, maxSWFCount)}
	}
	cpus := max(1, t.MaxProcs/n)
	return []Machine{{Name: "node", Nodes: n, CPUs: cpus}}, max(0, t.MaxProcs-n*cpus), nil
}

func sortedKeys(m map[int]string) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
