package queue

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/hpcsched/hpcsched/position"
	"io"
	"slices"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/features"
	"github.com/hpcsched/hpcsched/selectnodes"
)

// RestoreError is a state Restore refuses. Path locates the value in the
// document ("jobs[3].state"); Offset is the byte offset of a JSON syntax
// error (-1 otherwise).
type RestoreError struct {
	Path   string
	Offset int64
	Msg    string
}

// Position is the syntax error's place (for position.Of): its byte
// offset, or the path as the "file" when the value is known but not its
// place in the bytes.
func (e *RestoreError) Position() position.Position {
	if e.Offset >= 0 {
		return position.Position{Offset: int(e.Offset)}
	}
	return position.Position{File: e.Path}
}

func (e *RestoreError) Error() string {
	switch {
	case e.Offset >= 0:
		return fmt.Sprintf("queue: restore: offset %d: %s", e.Offset, e.Msg)
	case e.Path != "":
		return fmt.Sprintf("queue: restore: %s: %s", e.Path, e.Msg)
	}
	return "queue: restore: " + e.Msg
}

func restoreErr(path, format string, args ...any) error {
	return &RestoreError{Path: path, Offset: -1, Msg: fmt.Sprintf(format, args...)}
}

// Restore reads what Snapshot wrote into a new scheduler over c, which
// must be built from the same configuration, hold no allocations and serve
// no other scheduler (see New): to restore twice, build two clusters. opts
// are the scheduler's options (policy, planner, plugins...), which are not
// saved. The nodes' registrations in the document are given to
// c.Register, before the saved node states are set (a node that registered
// short may have been resumed since); a node the document gives none keeps
// c's. The whole document is validated before c is changed; a value that
// does not fit c or contradicts another (an unknown node, a partition c
// lacks, two default partitions, a node listed twice, a job ID 0 or given
// twice, two jobs with one submit order, an unknown state, a request whose
// partition or time limit is not the job's, min_nodes above max_nodes, a
// pending job with a start or an end, a negative suspended time, a running
// job without a placement or with one outside its partition or holding no
// CPU of a node, or whose end is not its start plus its time limit and
// time suspended, a reservation for a job that is not pending, a time
// outside MinYear to MaxYear) is a *RestoreError naming where it is. If
// the running jobs' placements do not fit c, or leave it failing
// c.CheckInvariants, c is put back as it was (its nodes' registrations
// too, apart from the most CPUs a node has reported, which only grows:
// see selectnodes.Cluster.MostNodeCPUs). Whatever Snapshot writes,
// Restore reads back.
func Restore(r io.Reader, c *selectnodes.Cluster, opts ...Option) (*Scheduler, error) {
	if r == nil || c == nil {
		return nil, errors.New("queue: Restore needs a reader and a cluster, not nil")
	}
	st, err := decodeState(r)
	if err != nil {
		return nil, err
	}
	if len(c.Running()) > 0 {
		return nil, errors.New("queue: Restore needs a cluster with no allocations")
	}
	v := &validator{c: c, parts: map[string]bool{}, seqs: map[uint64]bool{}, partNodes: map[string]*bitset.BitSet{}}
	plan, err := v.state(st)
	if err != nil {
		return nil, err
	}
	s := New(c, opts...)
	if err := plan.apply(s); err != nil {
		return nil, err
	}
	return s, nil
}

// decodeState reads one state document, strictly, within MaxStateBytes.
// It streams: bytes that cannot begin a state (a device of zeros, say)
// fail at once, not after MaxStateBytes of them are read.
func decodeState(r io.Reader) (*stateFile, error) { return decodeWithin(r, MaxStateBytes) }

// decodeWithin is decodeState with a budget of limit bytes.
func decodeWithin(r io.Reader, limit int64) (*stateFile, error) {
	cr := &budgetReader{r: r, left: limit}
	br := bufio.NewReader(cr)
	skipped, err := skipSpace(br)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, readErr(err)
	}
	if c, err := br.Peek(1); err != nil || c[0] != '{' {
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, readErr(err)
		}
		return nil, &RestoreError{Offset: skipped, Msg: "a state is a JSON object, starting with '{'"}
	}
	dec := json.NewDecoder(br)
	dec.DisallowUnknownFields()
	var st stateFile
	if err := dec.Decode(&st); err != nil {
		var se *json.SyntaxError
		switch {
		case errors.Is(err, errTooLarge):
			return nil, restoreErr("", "state larger than MaxStateBytes (%d bytes)", MaxStateBytes)
		case errors.As(err, &se):
			return nil, &RestoreError{Offset: skipped + se.Offset, Msg: se.Error()}
		case errors.Is(err, io.ErrUnexpectedEOF):
			return nil, &RestoreError{Offset: cr.read, Msg: "unexpected end of the state"}
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, &RestoreError{Path: te.Field, Offset: -1, Msg: te.Error()}
		}
		if cr.err != nil { // the reader failed, not the bytes
			return nil, readErr(err)
		}
		return nil, restoreErr("", "%v", err)
	}
	if st.Version != StateVersion {
		return nil, restoreErr("version", "state version %d, this build reads %d", st.Version, StateVersion)
	}
	return &st, nil
}

// restorePlan is a validated state, ready to apply.
type restorePlan struct {
	st         *stateFile
	partitions []selectnodes.Partition
	nodeStates []selectnodes.NodeState // per node index
	reported   []nodeReport            // the nodes' registrations, in the file's order
	jobs       []*job
	resv       map[JobID]reservation
	gone       map[JobID]tombstone
	bare       bareIDs
}

// apply brings the cluster to the saved state and fills s; on a placement
// that does not fit, the cluster is put back.
func (p *restorePlan) apply(s *Scheduler) error {
	c := s.c
	oldParts := c.Partitions()
	oldStates := make([]selectnodes.NodeState, c.NodeCount())
	for i := range oldStates {
		oldStates[i] = c.Node(i).State
	}
	oldReports := register(c, p.reported)
	undo := func() {
		for _, id := range c.Running() {
			_ = c.Release(id)
		}
		for _, part := range oldParts {
			_ = c.UpdatePartition(part)
		}
		register(c, oldReports)
		setNodeStates(c, oldStates)
	}
	for _, part := range p.partitions {
		if err := c.UpdatePartition(part); err != nil {
			undo()
			return restoreErr("partitions", "%v", err)
		}
	}
	setNodeStates(c, p.nodeStates) // after the registrations, which may set a node down
	running := slices.Clone(p.jobs)
	running = slices.DeleteFunc(running, func(j *job) bool { return j.State != Running && j.State != Suspended })
	slices.SortFunc(running, func(a, b *job) int { return cmp.Compare(a.allocSeq, b.allocSeq) })
	for _, j := range running {
		if err := c.Allocate(j.ID, j.Placement, j.Start, later(j.expectedEnd(j.Start), j.suspendedFor)); err != nil {
			undo()
			return restoreErr(fmt.Sprintf("jobs[id=%d].placement", j.ID), "%v", err)
		}
		j.Placement, _, _, _ = c.Allocation(j.ID)
		s.active[j.ID] = j
		s.running.add(j)
	}
	if err := c.CheckInvariants(); err != nil {
		undo()
		return restoreErr("jobs", "the placements leave the cluster inconsistent: %v", err)
	}
	st := p.st
	s.nextID, s.seq, s.allocSeq, s.eventSeq = st.NextID, st.Seq, st.AllocSeq, st.EventSeq
	if st.LastRecalc != nil {
		s.lastRecalc = *st.LastRecalc
	}
	if st.Clock != nil {
		s.clock = *st.Clock
	}
	if st.DependenciesGiven {
		s.depJobs = 1
	}
	for _, j := range p.jobs {
		s.add(j) // counts the jobs that name another (depJobs)
		if j.State == Pending {
			s.enqueue(j)
		}
	}
	s.resv = p.resv
	if len(p.gone) > 0 {
		s.gone = p.gone
		for id := range p.gone {
			s.maxID = max(s.maxID, id)
		}
	}
	s.bare = p.bare
	if runs := p.st.ForgottenIDs; len(runs) > 0 {
		s.maxID = max(s.maxID, runs[len(runs)-1].Last)
	}
	for _, j := range p.jobs {
		if j.State.Terminal() {
			s.ended(j)
		}
	}
	s.retain()
	return nil
}

// nodeReport is a node's registration: what it reported to Register.
type nodeReport struct {
	name string
	r    selectnodes.Resources
}

// register gives the cluster each node's report and returns what those
// nodes had reported before (all zeros, read as nothing, where a node had
// not), for an undo. The reports were checked, so Register accepts them;
// the node states are set after it.
func register(c *selectnodes.Cluster, reports []nodeReport) (was []nodeReport) {
	for _, nr := range reports {
		k, _ := c.NodeIndex(nr.name)
		old, _ := c.Reported(k)
		was = append(was, nodeReport{name: nr.name, r: old})
		_, _ = c.Register(nr.name, nr.r)
	}
	return was
}

func setNodeStates(c *selectnodes.Cluster, states []selectnodes.NodeState) {
	for i, st := range states {
		if c.Node(i).State != st {
			_ = c.SetNodeState(c.Node(i).Name, st) // a known node and state
		}
	}
}

// validator checks a state against the cluster, building the plan.
type validator struct {
	c     *selectnodes.Cluster
	parts map[string]bool
	seqs  map[uint64]bool // the jobs' submit orders, each given once
	// partNodes are the saved partitions' node sets
	partNodes map[string]*bitset.BitSet
}

func (v *validator) state(st *stateFile) (*restorePlan, error) {
	if st.NextID == 0 {
		return nil, restoreErr("next_id", "0 is not a job ID")
	}
	if err := savedTimes("", timeField{"last_recalc", st.LastRecalc, false}, timeField{"clock", st.Clock, false}); err != nil {
		return nil, err
	}
	p := &restorePlan{st: st, nodeStates: make([]selectnodes.NodeState, v.c.NodeCount()), resv: map[JobID]reservation{}}
	defaults := 0
	for i, sp := range st.Partitions {
		part, err := v.partition(fmt.Sprintf("partitions[%d]", i), sp)
		if err != nil {
			return nil, err
		}
		if part.Default {
			if defaults++; defaults > 1 {
				return nil, restoreErr(fmt.Sprintf("partitions[%d].default", i), "a second default partition")
			}
		}
		p.partitions = append(p.partitions, part)
	}
	listed := map[string]bool{}
	for i, sn := range st.Nodes {
		path := fmt.Sprintf("nodes[%d]", i)
		k, ok := v.c.NodeIndex(sn.Name)
		if !ok {
			return nil, restoreErr(path+".name", "unknown node %q", sn.Name)
		}
		if listed[sn.Name] {
			return nil, restoreErr(path+".name", "node %q appears twice", sn.Name)
		}
		listed[sn.Name] = true
		if p.nodeStates[k], ok = parseNodeState(sn.State); !ok {
			return nil, restoreErr(path+".state", "unknown node state %q", sn.State)
		}
		if r := sn.Reported; r != nil {
			if r.CPUs < 0 || r.RealMemory < 0 || r.TmpDisk < 0 || r.CPUs > selectnodes.MaxNodeCPUs {
				return nil, restoreErr(path+".reported", "negative resources or more than %d CPUs", selectnodes.MaxNodeCPUs)
			}
			p.reported = append(p.reported, nodeReport{name: sn.Name, r: selectnodes.Resources{CPUs: r.CPUs, RealMemory: r.RealMemory, TmpDisk: r.TmpDisk}})
		}
	}
	byID := map[JobID]*job{}
	for i := range st.Jobs {
		j, err := v.job(fmt.Sprintf("jobs[%d]", i), &st.Jobs[i], st)
		if err != nil {
			return nil, err
		}
		if byID[j.ID] != nil {
			return nil, restoreErr(fmt.Sprintf("jobs[%d].id", i), "job %d appears twice", j.ID)
		}
		byID[j.ID] = j
		p.jobs = append(p.jobs, j)
	}
	if err := v.forgotten(st, byID, p); err != nil {
		return nil, err
	}
	if err := v.forgottenIDs(st, p); err != nil {
		return nil, err
	}
	for i, sr := range st.Reservations {
		r, err := v.reservation(fmt.Sprintf("reservations[%d]", i), sr, byID)
		if err != nil {
			return nil, err
		}
		p.resv[r.Job] = r
	}
	return p, nil
}

func (v *validator) partition(path string, sp statePartition) (selectnodes.Partition, error) {
	part := selectnodes.Partition{Name: sp.Name, Nodes: sp.Nodes, Default: sp.Default, MinNodes: sp.MinNodes,
		MaxNodes: sp.MaxNodes, MaxTime: time.Duration(sp.MaxTime), DefaultTime: time.Duration(sp.DefaultTime), Priority: sp.Priority, RootOnly: sp.RootOnly,
		Hidden: sp.Hidden, MaxMemPerNode: sp.MaxMemPerNode, DefMemPerCPU: sp.DefMemPerCPU,
		DefMemPerNode: sp.DefMemPerNode, MaxCPUsPerNode: sp.MaxCPUs, LLN: sp.LLN, Access: selectnodes.Access{AllowGroups: sp.AllowGroups,
			AllowAccounts: sp.AllowAccounts, DenyAccounts: sp.DenyAccounts, AllowQOS: sp.AllowQOS, DenyQOS: sp.DenyQOS}}
	switch {
	case sp.Name == "":
		return part, restoreErr(path+".name", "empty partition name")
	case v.parts[sp.Name]:
		return part, restoreErr(path+".name", "partition %q appears twice", sp.Name)
	case sp.MinNodes < 0 || sp.MaxNodes < 0 || sp.MaxTime < 0 || sp.DefaultTime < 0 || sp.MaxShare < 0 || sp.MaxMemPerNode < 0 ||
		sp.DefMemPerCPU < 0 || sp.DefMemPerNode < 0 || sp.MaxCPUs < 0:
		return part, restoreErr(path, "negative limit")
	}
	if !v.c.HasPartition(sp.Name) {
		return part, restoreErr(path+".name", "the cluster has no partition %q (Restore needs a cluster of the same configuration)", sp.Name)
	}
	v.parts[sp.Name] = true
	set, err := v.uniqueNodes(path+".nodes", sp.Nodes)
	if err != nil {
		return part, err
	}
	v.partNodes[sp.Name] = set
	var ok bool
	if part.State, ok = parsePartitionState(sp.State); !ok {
		return part, restoreErr(path+".state", "unknown partition state %q", sp.State)
	}
	mode, ok := parseShareMode(sp.Oversubscribe)
	if !ok {
		return part, restoreErr(path+".oversubscribe", "unknown mode %q", sp.Oversubscribe)
	}
	part.Sharing.Mode, part.Sharing.Count = mode, sp.MaxShare
	return part, nil
}

func (v *validator) reservation(path string, sr stateReservation, byID map[JobID]*job) (reservation, error) {
	j := byID[sr.Job]
	switch {
	case j == nil:
		return reservation{}, restoreErr(path+".job", "reservation for unknown job %d", sr.Job)
	case j.State != Pending || j.Held:
		return reservation{}, restoreErr(path+".job", "reservation for job %d, which is %s", sr.Job, j.State)
	case sr.End.Before(sr.Start):
		return reservation{}, restoreErr(path+".end", "ends before it starts")
	case sr.End.Equal(sr.Start) && !sr.Start.Equal(EndOfTime):
		// only a start saturated at EndOfTime takes its end with it
		return reservation{}, restoreErr(path+".end", "ends when it starts")
	}
	if err := savedTimes(path+".", timeField{"start", &sr.Start, true}, timeField{"end", &sr.End, true}); err != nil {
		return reservation{}, err
	}
	nodes, err := v.uniqueNodes(path+".nodes", sr.Nodes)
	if err != nil {
		return reservation{}, err
	}
	return reservation{Reservation{Job: sr.Job, Start: sr.Start, End: sr.End, Nodes: sr.Nodes}, nodes}, nil
}

// nodeSet turns names into a node set, naming the first unknown one.
func (v *validator) nodeSet(path string, names []string) (*bitset.BitSet, error) {
	set := bitset.New(uint(v.c.NodeCount()))
	for k, n := range names {
		i, ok := v.c.NodeIndex(n)
		if !ok {
			return nil, restoreErr(fmt.Sprintf("%s[%d]", path, k), "unknown node %q", n)
		}
		set.Set(uint(i))
	}
	return set, nil
}

// constraint parses a saved constraint.
func constraint(path, text string) (*features.Expr, error) {
	if text == "" {
		return nil, nil
	}
	e, err := features.Parse(text)
	if err != nil {
		return nil, restoreErr(path, "%v", err)
	}
	return e, nil
}

// forgotten checks the tombstones of forgotten jobs: IDs neither 0 nor
// repeated nor a saved job's, and terminal states.
func (v *validator) forgotten(st *stateFile, byID map[JobID]*job, p *restorePlan) error {
	for i, sf := range st.Forgotten {
		path := fmt.Sprintf("forgotten[%d]", i)
		if err := savedTimes(path+".", timeField{"start", sf.Start, false}); err != nil {
			return err
		}
		state, ok := parseState(sf.State)
		switch {
		case sf.ID == 0:
			return restoreErr(path+".id", "0 is not a job ID")
		case byID[sf.ID] != nil:
			return restoreErr(path+".id", "job %d is both saved and forgotten", sf.ID)
		case p.forgottenTwice(sf.ID):
			return restoreErr(path+".id", "job %d appears twice", sf.ID)
		case !ok || !state.Terminal():
			return restoreErr(path+".state", "%q is not the state of a finished job", sf.State)
		}
		if p.gone == nil {
			p.gone = map[JobID]tombstone{}
		}
		p.gone[sf.ID] = newTombstone(unstamp(sf.Start), state)
	}
	return nil
}

// forgottenIDs checks the runs of jobs forgotten without a tombstone:
// ascending, disjoint, without 0, and naming no saved or forgotten job.
func (v *validator) forgottenIDs(st *stateFile, p *restorePlan) error {
	for i, r := range st.ForgottenIDs {
		path := fmt.Sprintf("forgotten_ids[%d]", i)
		switch {
		case r.First == 0:
			return restoreErr(path+".first", "0 is not a job ID")
		case r.Last < r.First:
			return restoreErr(path+".last", "run ends at %d, before its first ID %d", r.Last, r.First)
		case i > 0 && r.First <= st.ForgottenIDs[i-1].Last:
			return restoreErr(path+".first", "runs must ascend without overlapping: %d follows %d", r.First, st.ForgottenIDs[i-1].Last)
		}
		p.bare.insertRun(idRange{lo: r.First, hi: r.Last})
	}
	for _, j := range p.jobs {
		if p.bare.has(j.ID) {
			return restoreErr("forgotten_ids", "job %d is both saved and forgotten", j.ID)
		}
	}
	for _, sf := range st.Forgotten {
		if p.bare.has(sf.ID) {
			return restoreErr("forgotten_ids", "job %d has a tombstone and is forgotten without one", sf.ID)
		}
	}
	return nil
}

func (p *restorePlan) forgottenTwice(id JobID) bool {
	_, ok := p.gone[id]
	return ok
}

// timeField is a saved time to check: derived ones (an expected end, a
// reservation's bounds) may reach EndOfTime, the others only MaxYear.
type timeField struct {
	name    string
	t       *time.Time
	derived bool
}

// savedTimes holds a state's times to the rule the API keeps (see
// CheckTime), so that a restored scheduler never meets a time its
// profile cannot represent.
func savedTimes(prefix string, fields ...timeField) error {
	for _, f := range fields {
		if f.t == nil {
			continue
		}
		err := CheckTime(*f.t)
		if f.derived && f.t.Equal(EndOfTime) {
			err = nil
		}
		if err != nil {
			return restoreErr(prefix+f.name, "%v", err)
		}
	}
	return nil
}

// uniqueNodes is nodeSet for a list that may not name a node twice (a
// partition's, a reservation's).
func (v *validator) uniqueNodes(path string, names []string) (*bitset.BitSet, error) {
	set := bitset.New(uint(v.c.NodeCount()))
	for k, n := range names {
		i, ok := v.c.NodeIndex(n)
		switch {
		case !ok:
			return nil, restoreErr(fmt.Sprintf("%s[%d]", path, k), "unknown node %q", n)
		case set.Test(uint(i)):
			return nil, restoreErr(fmt.Sprintf("%s[%d]", path, k), "node %q appears twice", n)
		}
		set.Set(uint(i))
	}
	return set, nil
}

var errTooLarge = errors.New("queue: state larger than MaxStateBytes")

// budgetReader reads from r until left bytes are spent, then fails with
// errTooLarge: the budget is checked as the bytes arrive.
type budgetReader struct {
	r    io.Reader
	left int64
	read int64
	err  error // the reader's own error (not io.EOF), to tell it from a verdict on the bytes
}

func (b *budgetReader) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// one byte more tells a state of exactly the budget from a larger one
		var one [1]byte
		if n, _ := b.r.Read(one[:]); n > 0 {
			return 0, errTooLarge
		}
		return b.r.Read(p[:0])
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	b.read += int64(n)
	if err != nil && !errors.Is(err, io.EOF) {
		b.err = err
	}
	return n, err
}

// skipSpace reads JSON whitespace off br and says how much.
func skipSpace(br *bufio.Reader) (int64, error) {
	var n int64
	for {
		c, err := br.ReadByte()
		if err != nil {
			return n, err
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return n, br.UnreadByte()
		}
		n++
	}
}

// readErr reports a failing reader (not a bad document).
func readErr(err error) error {
	if errors.Is(err, errTooLarge) {
		return restoreErr("", "state larger than MaxStateBytes (%d bytes)", MaxStateBytes)
	}
	return fmt.Errorf("queue: restore: reading state: %w", err)
}
