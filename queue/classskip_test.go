package queue

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const classConf = "NodeName=n[0-7] CPUs=4 Feature=a\nPartitionName=batch Nodes=ALL Default=YES MaxTime=120\n"

// classScheduler is classConf with n[0-3] drained: at most 4 nodes are ready.
func classScheduler(t *testing.T) *Scheduler {
	s := New(cluster(t, classConf))
	for i := range 4 {
		require.NoError(t, s.SetNodeState(fmt.Sprintf("n%d", i), selectnodes.NodeDrain, at(0)))
	}
	return s
}

// A Schedule pass skips the selection of a job whose class already failed
// for a reason the load cannot change; every job must end the pass exactly
// as it would alone. The jobs differ from the failing one in one field at a
// time, so a class that left a field out would give one of them the wrong
// outcome.
func TestScheduleSkipsFailedClasses(t *testing.T) {
	six := Spec{Name: "six", User: "u", Request: selectnodes.Request{MinNodes: 6}, TimeLimit: time.Hour}
	specs := []Spec{six, six, six}
	longer := six
	longer.TimeLimit = 3 * time.Hour // above the partition's MaxTime
	fewer := six
	fewer.Request.MinNodes = 3 // fits the ready nodes
	held := six
	held.Request.Held = true
	feature := six
	feature.Request.Features = expr(t, "a")
	specs = append(specs, longer, six, feature, held, six, fewer) // fewer last: a busy job would lock the partition

	together := classScheduler(t)
	var ids []JobID
	for _, sp := range specs {
		ids = append(ids, submit(t, together, sp, at(1)))
	}
	together.Schedule(at(2))
	for k, sp := range specs {
		alone := classScheduler(t)
		id := submit(t, alone, sp, at(1))
		alone.Schedule(at(2))
		want, _ := alone.Job(id)
		got, _ := together.Job(ids[k])
		assert.Equal(t, want.State, got.State, "job %d (%s)", k, sp.Name)
		assert.Equal(t, want.Reason, got.Reason, "job %d", k)
	}
	j, _ := together.Job(ids[0])
	assert.Equal(t, Pending, j.State)
	assert.NotEqual(t, ReasonResources, j.Reason, "drained nodes are not busy ones")
	j, _ = together.Job(ids[len(ids)-1])
	assert.Equal(t, Running, j.State, "a different class behind the failed ones still starts")
}

// A job's class is kept between passes, so an update that reshapes the
// job must drop it: after two jobs of one class fail, the second updated
// to fit starts in the next pass, and the first, updated to ask for a
// longer time than the partition allows, fails for that instead.
func TestClassFollowsAnUpdate(t *testing.T) {
	six := Spec{Name: "six", User: "u", Request: selectnodes.Request{MinNodes: 6}, TimeLimit: time.Hour}
	s := classScheduler(t)
	first, second := submit(t, s, six, at(1)), submit(t, s, six, at(1))
	s.Schedule(at(2))
	failed, _ := s.Job(first)
	require.Equal(t, Pending, failed.State)

	fits := six.Request
	fits.MinNodes = 3
	require.NoError(t, s.Update(second, Update{Request: &fits}, at(3)))
	require.NoError(t, s.Update(first, Update{TimeLimit: 3 * time.Hour}, at(3)))
	s.Schedule(at(4))
	j, _ := s.Job(second)
	assert.Equal(t, Running, j.State, "the updated job is a class of its own now")

	alone := classScheduler(t)
	id := submit(t, alone, Spec{Name: "six", User: "u", Request: six.Request, TimeLimit: 3 * time.Hour}, at(1))
	alone.Schedule(at(2))
	want, _ := alone.Job(id)
	got, _ := s.Job(first)
	assert.Equal(t, want.Reason, got.Reason, "the longer job's failure is its own")
}

// Every field of a request but the withheld nodes is part of its class:
// changing any one field, by reflection so that a field added to Request
// later is tried too, gives another key; changing the withheld nodes
// does not.
func TestClassKeyReadsEveryRequestField(t *testing.T) {
	base := job{Job: Job{Partition: "batch", Request: selectnodes.Request{Partition: "batch", User: "u"}}}
	key := renderClass(&base)
	typ := reflect.TypeOf(base.Request)
	for i := range typ.NumField() {
		f := typ.Field(i)
		other := base
		v := reflect.ValueOf(&other.Request).Elem().Field(i)
		switch f.Type.Kind() {
		case reflect.String:
			v.SetString("x|y")
		case reflect.Int, reflect.Int64, reflect.Uint8:
			if v.CanInt() {
				v.SetInt(7)
			} else {
				v.SetUint(1)
			}
		case reflect.Bool:
			v.SetBool(true)
		case reflect.Slice:
			elem := reflect.New(f.Type.Elem()).Elem()
			if elem.Kind() == reflect.String {
				elem.SetString("n1")
			} else {
				elem.Field(0).SetString("gpu")
			}
			v.Set(reflect.Append(v, elem))
		case reflect.Pointer:
			if f.Name == "ExcludeNodes" {
				v.Set(reflect.ValueOf(bitset.New(8).Set(3)))
				require.Equal(t, key, renderClass(&other), "the withheld nodes are not the job's")
				continue
			}
			require.Equal(t, "Features", f.Name, "a pointer field the class does not read")
			other.Request.Features = expr(t, "a")
		default:
			t.Fatalf("field %s of kind %s: teach this test (and renderClass) about it", f.Name, f.Type.Kind())
		}
		require.NotEqual(t, key, renderClass(&other), "field %s", f.Name)
	}
	other := base
	other.Partition = "debug"
	require.NotEqual(t, key, renderClass(&other), "the job's partition")
}
