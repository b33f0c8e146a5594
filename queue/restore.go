package queue

import (
	"bytes"
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
// must be built from the same configuration and hold no allocations. opts
// are the scheduler's options (policy, planner, plugins...), which are not
// saved. The whole document is validated before c is changed; a value that
// does not fit c (an unknown node or partition, a job ID 0 or given twice,
// an unknown state, a running job without a placement, a reservation for
// a job that is not pending) is a *RestoreError naming where it is. If
// the running jobs' placements do not fit c, c is put back as it was.
func Restore(r io.Reader, c *selectnodes.Cluster, opts ...Option) (*Scheduler, error) {
	st, err := decodeState(r)
	if err != nil {
		return nil, err
	}
	if len(c.Running()) > 0 {
		return nil, errors.New("queue: Restore needs a cluster with no allocations")
	}
	v := &validator{c: c, parts: map[string]bool{}}
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
func decodeState(r io.Reader) (*stateFile, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxStateBytes+1))
	if err != nil {
		return nil, fmt.Errorf("queue: restore: reading state: %w", err)
	}
	if len(data) > MaxStateBytes {
		return nil, restoreErr("", "state larger than MaxStateBytes (%d bytes)", MaxStateBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var st stateFile
	if err := dec.Decode(&st); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, &RestoreError{Offset: se.Offset, Msg: se.Error()}
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, &RestoreError{Offset: int64(len(data)), Msg: "unexpected end of the state"}
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, &RestoreError{Path: te.Field, Offset: -1, Msg: te.Error()}
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
	jobs       []*job
	resv       map[JobID]reservation
	gone       map[JobID]tombstone
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
	undo := func() {
		for _, id := range c.Running() {
			_ = c.Release(id)
		}
		for _, part := range oldParts {
			_ = c.UpdatePartition(part)
		}
		setNodeStates(c, oldStates)
	}
	for _, part := range p.partitions {
		if err := c.UpdatePartition(part); err != nil {
			undo()
			return restoreErr("partitions", "%v", err)
		}
	}
	setNodeStates(c, p.nodeStates)
	running := slices.Clone(p.jobs)
	running = slices.DeleteFunc(running, func(j *job) bool { return j.State != Running && j.State != Suspended })
	slices.SortFunc(running, func(a, b *job) int { return cmp.Compare(a.allocSeq, b.allocSeq) })
	for _, j := range running {
		if err := c.Allocate(j.ID, j.Placement, j.Start, j.expectedEnd(j.Start).Add(j.suspendedFor)); err != nil {
			undo()
			return restoreErr(fmt.Sprintf("jobs[id=%d].placement", j.ID), "%v", err)
		}
		j.Placement, _, _, _ = c.Allocation(j.ID)
		s.active[j.ID] = j
	}
	st := p.st
	s.nextID, s.seq, s.allocSeq, s.eventSeq = st.NextID, st.Seq, st.AllocSeq, st.EventSeq
	if st.LastRecalc != nil {
		s.lastRecalc = *st.LastRecalc
	}
	for _, j := range p.jobs {
		s.add(j)
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
	for _, j := range p.jobs {
		if j.State.Terminal() {
			s.ended(j)
		}
	}
	s.retain()
	return nil
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
}

func (v *validator) state(st *stateFile) (*restorePlan, error) {
	if st.NextID == 0 {
		return nil, restoreErr("next_id", "0 is not a job ID")
	}
	p := &restorePlan{st: st, nodeStates: make([]selectnodes.NodeState, v.c.NodeCount()), resv: map[JobID]reservation{}}
	for i, sp := range st.Partitions {
		part, err := v.partition(fmt.Sprintf("partitions[%d]", i), sp)
		if err != nil {
			return nil, err
		}
		p.partitions = append(p.partitions, part)
	}
	for i, sn := range st.Nodes {
		path := fmt.Sprintf("nodes[%d]", i)
		k, ok := v.c.NodeIndex(sn.Name)
		if !ok {
			return nil, restoreErr(path+".name", "unknown node %q", sn.Name)
		}
		if p.nodeStates[k], ok = parseNodeState(sn.State); !ok {
			return nil, restoreErr(path+".state", "unknown node state %q", sn.State)
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
		MaxNodes: sp.MaxNodes, MaxTime: time.Duration(sp.MaxTime), Priority: sp.Priority, RootOnly: sp.RootOnly,
		Hidden: sp.Hidden, MaxMemPerNode: sp.MaxMemPerNode, DefMemPerCPU: sp.DefMemPerCPU,
		DefMemPerNode: sp.DefMemPerNode, Access: selectnodes.Access{AllowGroups: sp.AllowGroups,
			AllowAccounts: sp.AllowAccounts, DenyAccounts: sp.DenyAccounts, AllowQOS: sp.AllowQOS, DenyQOS: sp.DenyQOS}}
	switch {
	case sp.Name == "":
		return part, restoreErr(path+".name", "empty partition name")
	case v.parts[sp.Name]:
		return part, restoreErr(path+".name", "partition %q appears twice", sp.Name)
	case sp.MinNodes < 0 || sp.MaxNodes < 0 || sp.MaxTime < 0 || sp.MaxShare < 0 || sp.MaxMemPerNode < 0 ||
		sp.DefMemPerCPU < 0 || sp.DefMemPerNode < 0:
		return part, restoreErr(path, "negative limit")
	}
	v.parts[sp.Name] = true
	for k, n := range sp.Nodes {
		if _, ok := v.c.NodeIndex(n); !ok {
			return part, restoreErr(fmt.Sprintf("%s.nodes[%d]", path, k), "unknown node %q", n)
		}
	}
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
	case !sr.End.After(sr.Start):
		return reservation{}, restoreErr(path+".end", "ends before it starts")
	}
	nodes, err := v.nodeSet(path+".nodes", sr.Nodes)
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
		p.gone[sf.ID] = tombstone{start: unstamp(sf.Start), state: state}
	}
	return nil
}

func (p *restorePlan) forgottenTwice(id JobID) bool {
	_, ok := p.gone[id]
	return ok
}
