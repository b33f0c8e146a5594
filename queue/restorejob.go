package queue

import (
	"fmt"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/selectnodes"
)

// job validates one saved job and builds its record.
func (v *validator) job(path string, sj *stateJob, st *stateFile) (*job, error) {
	state, ok := parseState(sj.State)
	switch {
	case sj.ID == 0:
		return nil, restoreErr(path+".id", "0 is not a job ID")
	case !ok:
		return nil, restoreErr(path+".state", "unknown job state %q", sj.State)
	case !v.parts[sj.Partition]:
		return nil, restoreErr(path+".partition", "unknown partition %q", sj.Partition)
	case sj.Seq == 0 || sj.Seq > st.Seq:
		return nil, restoreErr(path+".seq", "%d outside 1 to seq (%d)", sj.Seq, st.Seq)
	case sj.AllocSeq > st.AllocSeq:
		return nil, restoreErr(path+".alloc_seq", "%d above alloc_seq (%d)", sj.AllocSeq, st.AllocSeq)
	case sj.TimeLimit < 0 || time.Duration(sj.TimeLimit) > MaxTimeLimit:
		return nil, restoreErr(path+".time_limit", "outside 0 to %s", MaxTimeLimit)
	case sj.TimeMin < 0 || time.Duration(sj.TimeMin) > MaxTimeLimit:
		return nil, restoreErr(path+".time_min", "outside 0 to %s", MaxTimeLimit)
	case sj.Nice < -MaxNice || sj.Nice > MaxNice:
		return nil, restoreErr(path+".nice", "outside ±%d", MaxNice)
	case sj.Priority < 1 || sj.AdminPriority < 0:
		return nil, restoreErr(path+".priority", "priority must be at least 1, admin priority at least 0")
	case v.seqs[sj.Seq]:
		return nil, restoreErr(path+".seq", "another job has submit order %d", sj.Seq)
	case sj.Request.Partition != sj.Partition:
		return nil, restoreErr(path+".request.partition", "%q is not the job's partition %q", sj.Request.Partition, sj.Partition)
	case sj.SuspendedFor < 0:
		return nil, restoreErr(path+".suspended_for", "negative")
	case state == Pending && sj.Start != nil:
		return nil, restoreErr(path+".start", "a pending job has not started")
	case state == Pending && sj.End != nil:
		return nil, restoreErr(path+".end", "a pending job has not ended")
	case sj.Request.MaxNodes > 0 && sj.Request.MinNodes > sj.Request.MaxNodes:
		return nil, restoreErr(path+".request.max_nodes", "%d is below min_nodes %d", sj.Request.MaxNodes, sj.Request.MinNodes)
	case sj.Request.TimeLimit != sj.TimeLimit: // one limit, kept in both (Submit, Update)
		return nil, restoreErr(path+".request.time_limit", "%s is not the job's time limit %s", time.Duration(sj.Request.TimeLimit), time.Duration(sj.TimeLimit))
	}
	v.seqs[sj.Seq] = true
	if err := savedTimes(path+".", timeField{"submit", sj.Submit, false}, timeField{"begin", sj.Begin, false},
		timeField{"start", sj.Start, false}, timeField{"end", sj.End, true}, timeField{"suspended_at", sj.SuspendedAt, false}); err != nil {
		return nil, err
	}
	deps, err := ParseDependency(sj.Dependency)
	if err != nil {
		return nil, restoreErr(path+".dependency", "%v", err)
	}
	req, err := v.request(path+".request", &sj.Request)
	if err != nil {
		return nil, err
	}
	j := &job{Job: Job{ID: sj.ID, Name: sj.Name, User: sj.User, Account: sj.Account, Partition: sj.Partition,
		Priority: sj.Priority, AdminPriority: sj.AdminPriority, Nice: sj.Nice, Submit: unstamp(sj.Submit),
		Begin: unstamp(sj.Begin), Start: unstamp(sj.Start), End: unstamp(sj.End), TimeLimit: time.Duration(sj.TimeLimit),
		TimeMin: time.Duration(sj.TimeMin), Dependency: sj.Dependency, Requeue: sj.Requeue, Request: req, State: state, Reason: Reason(sj.Reason),
		ReasonDetail: sj.ReasonDetail, Held: sj.Held, ExitCode: sj.ExitCode, Restarts: sj.Restarts,
		seq: sj.Seq}, deps: deps, allocSeq: sj.AllocSeq, suspendedAt: unstamp(sj.SuspendedAt),
		suspendedFor: time.Duration(sj.SuspendedFor)}
	if err := v.started(path, j, sj); err != nil {
		return nil, err
	}
	return j, nil
}

// startedEnd is the End a started job's record has: its start plus its
// time limit and the time it was suspended (none without a limit).
func startedEnd(j *job) time.Time {
	if j.TimeLimit <= 0 {
		return time.Time{}
	}
	return later(later(j.Start, j.TimeLimit), j.suspendedFor)
}

// stampText is a time as a state writes it ("none" for the zero time).
func stampText(t time.Time) string {
	if t.IsZero() {
		return "none"
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func unstamp(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}

// started checks what a running or suspended job must have (a start, a
// placement, an allocation number) and what others must not.
func (v *validator) started(path string, j *job, sj *stateJob) error {
	active := j.State == Running || j.State == Suspended
	switch {
	case !active && sj.Placement != nil:
		return restoreErr(path+".placement", "a %s job holds no nodes", j.State)
	case !active:
		return nil
	case sj.Placement == nil:
		return restoreErr(path+".placement", "a %s job needs its placement", j.State)
	case j.Start.IsZero():
		return restoreErr(path+".start", "a %s job needs its start time", j.State)
	case sj.AllocSeq == 0:
		return restoreErr(path+".alloc_seq", "a %s job needs its allocation number", j.State)
	case j.State == Suspended && j.suspendedAt.IsZero():
		return restoreErr(path+".suspended_at", "a suspended job needs the time it was suspended")
	case sj.Placement.Partition != j.Partition:
		return restoreErr(path+".placement.partition", "%q is not the job's partition %q", sj.Placement.Partition, j.Partition)
	case !j.End.Equal(startedEnd(j)):
		// Tick ends the job at End, Backfill plans its nodes free at the
		// allocation's end (start + limit + time suspended): one time
		return restoreErr(path+".end", "%s is not the start plus the time limit and the time suspended (%s)",
			stampText(j.End), stampText(startedEnd(j)))
	}
	p, err := v.placement(path+".placement", sj.Placement)
	if err != nil {
		return err
	}
	part := v.partNodes[j.Partition] // known: checked above
	for k, a := range p.Alloc {
		if !part.Test(uint(a.Node)) {
			return restoreErr(fmt.Sprintf("%s.placement.alloc[%d].node", path, k), "node %q is outside partition %q", p.Names[k], j.Partition)
		}
	}
	j.Placement = p
	return nil
}

// placement rebuilds a saved placement over the cluster.
func (v *validator) placement(path string, sp *statePlace) (*selectnodes.Placement, error) {
	if len(sp.Alloc) == 0 {
		return nil, restoreErr(path+".alloc", "no nodes")
	}
	p := &selectnodes.Placement{Partition: sp.Partition, Exclusive: sp.Exclusive}
	seen := bitset.New(uint(v.c.NodeCount()))
	for k, a := range sp.Alloc {
		at := fmt.Sprintf("%s.alloc[%d]", path, k)
		i, ok := v.c.NodeIndex(a.Node)
		switch {
		case !ok:
			return nil, restoreErr(at+".node", "unknown node %q", a.Node)
		case seen.Test(uint(i)):
			return nil, restoreErr(at+".node", "node %q appears twice", a.Node)
		case a.CPUs < 1:
			return nil, restoreErr(at+".cpus", "a job holds at least one CPU of each of its nodes")
		case a.Memory < 0:
			return nil, restoreErr(at+".memory_mb", "negative")
		}
		seen.Set(uint(i))
		na := selectnodes.NodeAlloc{Node: i, CPUs: a.CPUs, Memory: a.Memory}
		for g, sg := range a.GRES {
			if sg.Count < 0 {
				return nil, restoreErr(fmt.Sprintf("%s.gres[%d].count", at, g), "negative")
			}
			na.GRES = append(na.GRES, selectnodes.GRESAlloc{Name: sg.Name, Type: sg.Type, Count: sg.Count})
		}
		p.Alloc = append(p.Alloc, na)
		p.Names = append(p.Names, a.Node)
		p.TotalCPUs += a.CPUs
		p.Weight += v.c.Node(i).Weight
	}
	return p, nil
}

// request rebuilds a saved request, checking its names against the
// cluster.
func (v *validator) request(path string, sr *stateRequest) (selectnodes.Request, error) {
	r := selectnodes.Request{Partition: sr.Partition, MinNodes: sr.MinNodes, MaxNodes: sr.MaxNodes,
		DesiredNodes: sr.DesiredNodes, CPUs: sr.CPUs, MinCPUsPerNode: sr.MinCPUs, MinMemoryPerNode: sr.MinMemory,
		MinTmpDiskPerNode: sr.MinTmpDisk, MemPerCPU: sr.MemPerCPU, MaxSwitches: sr.MaxSwitches,
		WholeMemory: sr.WholeMemory, CoreTasks: sr.CoreTasks, MaxCPUsPerSocket: sr.MaxPerSocket,
		Required: sr.Required, Excluded: sr.Excluded, Contiguous: sr.Contiguous,
		TimeLimit: time.Duration(sr.TimeLimit), Root: sr.Root, Held: sr.Held,
		User: sr.User, Groups: sr.Groups, Account: sr.Account, QOS: sr.QOS}
	var ok bool
	switch {
	case !v.parts[sr.Partition]:
		return r, restoreErr(path+".partition", "unknown partition %q", sr.Partition)
	case sr.MinNodes < 0 || sr.MaxNodes < 0 || sr.DesiredNodes < 0 || sr.CPUs < 0 || sr.MinCPUs < 0 ||
		sr.MinMemory < 0 || sr.MinTmpDisk < 0 || sr.MemPerCPU < 0 || sr.MaxSwitches < 0 || sr.MaxPerSocket < 0 ||
		sr.TimeLimit < 0:
		return r, restoreErr(path, "negative count or size")
	}
	if r.Share, ok = parseShareRequest(sr.Share); !ok {
		return r, restoreErr(path+".share", "unknown share request %q", sr.Share)
	}
	for _, names := range [][]string{sr.Required, sr.Excluded} {
		if _, err := v.nodeSet(path+".nodes", names); err != nil {
			return r, err
		}
	}
	if sr.Withheld != nil {
		set, err := v.nodeSet(path+".withheld", sr.Withheld)
		if err != nil {
			return r, err
		}
		r.ExcludeNodes = set
	}
	for g, sg := range sr.GRES {
		if sg.Min < 0 || sg.Max < sg.Min {
			return r, restoreErr(fmt.Sprintf("%s.gres[%d]", path, g), "needs 0 <= min <= max")
		}
		r.GRES = append(r.GRES, selectnodes.GRESRequest{Name: sg.Name, Type: sg.Type, Min: sg.Min, Max: sg.Max})
	}
	var err error
	r.Features, err = constraint(path+".constraint", sr.Constraint)
	return r, err
}
