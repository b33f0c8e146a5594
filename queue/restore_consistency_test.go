package queue

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const consistencyConf = "SelectType=select/cons_res\nNodeName=n[0-3] CPUs=4\n" +
	"PartitionName=batch Nodes=n[0-3] Default=YES\nPartitionName=small Nodes=n[0-1]\n"

// consistencyState is a saved state with a running, a suspended, a
// reserved and a plain pending job: jobs[0] runs on n0 (small), jobs[1]
// is suspended on n1 (small), jobs[2] and jobs[3] are pending in batch,
// jobs[2] with a reservation.
func consistencyState(t testing.TB) stateFile {
	s := New(cluster(t, consistencyConf))
	small := selectnodes.Request{Partition: "small", MinNodes: 1, MaxNodes: 1, CPUs: 4}
	run := submit(t, s, Spec{Request: small, TimeLimit: time.Hour}, at(0))
	sus := submit(t, s, Spec{Request: small, TimeLimit: time.Hour}, at(0))
	s.Schedule(at(1))
	require.NoError(t, s.Suspend(sus, at(2)))
	submit(t, s, Spec{Request: selectnodes.Request{MinNodes: 4}, TimeLimit: time.Hour}, at(3))
	submit(t, s, Spec{Request: selectnodes.Request{MinNodes: 4}, TimeLimit: time.Hour}, at(3))
	s.Backfill(at(4))
	require.Len(t, s.Reservations(), 2)
	require.Equal(t, Running, state(t, s, run))
	var buf bytes.Buffer
	require.NoError(t, s.Snapshot(&buf))
	var st stateFile
	require.NoError(t, json.Unmarshal(buf.Bytes(), &st))
	return st
}

// restoreCases are states Restore must refuse, each with the path of the
// value it must name. They seed FuzzRestore too.
var restoreCases = []struct {
	name   string
	path   string
	change func(st *stateFile)
}{
	{"two pending jobs with one seq", "jobs[3].seq", func(st *stateFile) { st.Jobs[3].Seq = st.Jobs[2].Seq }},
	{"request partition not the job's", "jobs[2].request.partition", func(st *stateFile) { st.Jobs[2].Request.Partition = "small" }},
	{"placement outside the partition", "jobs[0].placement.alloc[0].node", func(st *stateFile) {
		st.Jobs[0].Placement.Alloc[0].Node = "n3"
	}},
	{"0-CPU placement", "jobs[0].placement.alloc[0].cpus", func(st *stateFile) { st.Jobs[0].Placement.Alloc[0].CPUs = 0 }},
	{"partition the cluster lacks", "partitions[2].name", func(st *stateFile) {
		p := st.Partitions[1]
		p.Name = "ghost"
		st.Partitions = append(st.Partitions, p)
	}},
	{"two default partitions", "partitions[1].default", func(st *stateFile) { st.Partitions[1].Default = true }},
	{"negative suspended_for", "jobs[1].suspended_for", func(st *stateFile) { st.Jobs[1].SuspendedFor = duration(-time.Minute) }},
	{"start on a pending job", "jobs[3].start", func(st *stateFile) { st.Jobs[3].Start = st.Jobs[0].Start }},
	{"end on a pending job", "jobs[3].end", func(st *stateFile) { st.Jobs[3].End = st.Jobs[0].End }},
	{"min_nodes above max_nodes", "jobs[3].request.max_nodes", func(st *stateFile) { st.Jobs[3].Request.MaxNodes = 2 }},
	{"node twice in a partition", "partitions[0].nodes[4]", func(st *stateFile) {
		st.Partitions[0].Nodes = append(st.Partitions[0].Nodes, "n1")
	}},
	{"node twice in a reservation", "reservations[0].nodes[4]", func(st *stateFile) {
		st.Reservations[0].Nodes = append(st.Reservations[0].Nodes, "n0")
	}},
	{"node twice in the node states", "nodes[1].name", func(st *stateFile) {
		st.Nodes = []stateNode{{Name: "n2", State: "DRAIN"}, {Name: "n2", State: "DOWN"}}
	}},
	{"node twice in a placement", "jobs[0].placement.alloc[1].node", func(st *stateFile) {
		st.Jobs[0].Placement.Alloc = append(st.Jobs[0].Placement.Alloc, st.Jobs[0].Placement.Alloc[0])
	}},
	{"more CPUs than the node has", "jobs[id=1].placement", func(st *stateFile) {
		st.Jobs[0].Placement.Alloc[0].CPUs = 5
	}},
	{"next_id 0", "next_id", func(st *stateFile) { st.NextID = 0 }},
	{"reservation ending when it starts", "reservations[0].end", func(st *stateFile) { st.Reservations[0].End = st.Reservations[0].Start }},
	{"time limit not the request's", "jobs[3].request.time_limit", func(st *stateFile) { st.Jobs[3].TimeLimit = 0 }},
	{"running job's end not its start plus its limit", "jobs[0].end", func(st *stateFile) {
		end := st.Jobs[0].End.Add(time.Minute)
		st.Jobs[0].End = &end
	}},
	{"running job with no limit and an end", "jobs[0].end", func(st *stateFile) {
		st.Jobs[0].TimeLimit, st.Jobs[0].Request.TimeLimit = 0, 0
	}},
	{"suspended job's end without its time suspended", "jobs[1].end", func(st *stateFile) {
		st.Jobs[1].SuspendedFor = duration(time.Minute)
	}},
}

func TestRestoreRefusesInconsistentStates(t *testing.T) {
	base := consistencyState(t)
	data, err := json.Marshal(base)
	require.NoError(t, err)
	_, err = Restore(bytes.NewReader(data), cluster(t, consistencyConf))
	require.NoError(t, err, "the unchanged state restores")
	for _, tc := range restoreCases {
		t.Run(tc.name, func(t *testing.T) {
			var st stateFile
			require.NoError(t, json.Unmarshal(data, &st))
			tc.change(&st)
			doc, err := json.Marshal(st)
			require.NoError(t, err)
			c := cluster(t, consistencyConf)
			_, err = Restore(bytes.NewReader(doc), c)
			var re *RestoreError
			require.True(t, errors.As(err, &re), "%v", err)
			assert.Equal(t, tc.path, re.Path, re.Error())
			assert.Empty(t, c.Running(), "a refused state leaves no allocation")
		})
	}
}

// A configuration may name two default partitions (the last wins) and a
// node twice in a partition; Snapshot writes the one in force and each
// node once, so Restore takes it back.
func TestSnapshotOfAConfigurationWithTwoDefaultsRestores(t *testing.T) {
	conf := "NodeName=n[0-3] CPUs=4\nPartitionName=a Nodes=n0,n0,n1 Default=YES\nPartitionName=b Nodes=ALL Default=YES\n"
	s := New(cluster(t, conf))
	id := submit(t, s, nodes(1, time.Hour), at(0))
	var buf bytes.Buffer
	require.NoError(t, s.Snapshot(&buf))
	r, err := Restore(bytes.NewReader(buf.Bytes()), cluster(t, conf))
	require.NoError(t, err)
	assert.Equal(t, "b", r.Cluster().DefaultPartition())
	j, _ := r.Job(id)
	assert.Equal(t, "b", j.Partition)
}

// The counter stops at the last ID instead of wrapping to 0, which no
// state can hold.
func TestJobIDsRunningOutIsErrLimit(t *testing.T) {
	s := simple(t, WithFirstJobID(math.MaxUint64-1))
	a := submit(t, s, nodes(1, time.Hour), at(0))
	b := submit(t, s, nodes(1, time.Hour), at(0))
	assert.Equal(t, JobID(math.MaxUint64-1), a)
	assert.Equal(t, JobID(math.MaxUint64), b)
	_, err := s.Submit(nodes(1, time.Hour), at(0))
	assert.ErrorIs(t, err, ErrLimit)
	var buf bytes.Buffer
	require.NoError(t, s.Snapshot(&buf))
	r, err := Restore(bytes.NewReader(buf.Bytes()), cluster(t, "NodeName=n[0-7] CPUs=4\nPartitionName=batch Nodes=ALL Default=YES\n"))
	require.NoError(t, err)
	_, err = r.Submit(nodes(1, time.Hour), at(1))
	assert.ErrorIs(t, err, ErrLimit)
}

// A partition change that would leave a running job outside its
// partition is refused; so is a layout that gives a node no CPU.
func TestNoPlacementOutsideItsPartitionOrWithoutCPUs(t *testing.T) {
	s := New(cluster(t, consistencyConf))
	id := submit(t, s, Spec{Request: selectnodes.Request{Partition: "small", Required: []string{"n1"}}, TimeLimit: time.Hour}, at(0))
	s.Schedule(at(1))
	require.Equal(t, Running, state(t, s, id))
	err := s.UpdatePartition(selectnodes.Partition{Name: "small", Nodes: []string{"n0"}}, at(2))
	assert.ErrorIs(t, err, ErrJobState)
	require.NoError(t, s.UpdatePartition(selectnodes.Partition{Name: "small", Nodes: []string{"n1", "n2"}}, at(2)))
	var buf bytes.Buffer
	require.NoError(t, s.Snapshot(&buf))
	_, err = Restore(bytes.NewReader(buf.Bytes()), cluster(t, consistencyConf))
	require.NoError(t, err)
}

// zeros is an endless device of one byte (zero unless set) that counts
// what was read.
type zeros struct {
	b    byte
	read int
}

func (z *zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = z.b
	}
	z.read += len(p)
	return len(p), nil
}

// A reader of zeros (or of endless whitespace) is refused as it is read:
// at the first byte that cannot begin a state, not after MaxStateBytes.
func TestRestoreStopsAtTheFirstImpossibleByte(t *testing.T) {
	z := &zeros{}
	_, err := Restore(z, cluster(t, consistencyConf))
	var re *RestoreError
	require.True(t, errors.As(err, &re), "%v", err)
	assert.Equal(t, int64(0), re.Offset)
	assert.Less(t, z.read, 1<<20, "bytes read before the verdict")

	_, err = Restore(bytes.NewReader(append(bytes.Repeat([]byte(" \n"), 1000), "[]"...)), cluster(t, consistencyConf))
	require.True(t, errors.As(err, &re), "%v", err)
	assert.Equal(t, int64(2000), re.Offset)
	_, err = Restore(bytes.NewReader([]byte(`{"version":2,`)), cluster(t, consistencyConf))
	require.True(t, errors.As(err, &re), "%v", err)
}

// The byte budget is checked while reading: a state one byte over it is
// refused, one exactly at it is read (what follows the state is not).
func TestRestoreBudgetIsCheckedWhileReading(t *testing.T) {
	doc := []byte(`{"version":2,"next_id":1,"seq":0,"event_seq":0,"partitions":[],"jobs":[]}`)
	_, err := decodeWithin(bytes.NewReader(doc), int64(len(doc)))
	require.NoError(t, err)
	_, err = decodeWithin(bytes.NewReader(doc), int64(len(doc)-1))
	require.ErrorContains(t, err, "larger than MaxStateBytes")
	z := &zeros{b: 'a'}
	_, err = decodeWithin(io.MultiReader(bytes.NewReader([]byte(`{"jobs":"`)), z), 1<<16)
	require.ErrorContains(t, err, "larger than MaxStateBytes")
	assert.LessOrEqual(t, z.read, 1<<17)
}
