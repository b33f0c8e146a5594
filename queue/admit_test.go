package queue

import (
	"reflect"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nonZero sets v (settable) to a value other than its zero value.
func nonZero(t *testing.T, v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Int, reflect.Int64:
		v.SetInt(7)
	case reflect.Uint8:
		v.SetUint(1)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
	default:
		t.Fatalf("no non-zero value for kind %s", v.Kind())
	}
}

// Every field of a Request either is in the admission memo's key or keeps
// the request out of the memo: a field added to Request without either
// fails here, before two different requests could share an answer.
func TestAdmitKeyCoversEveryRequestField(t *testing.T) {
	base := selectnodes.Request{Partition: "batch", MinNodes: 1}
	baseKey, ok := plainKey(&base)
	require.True(t, ok)
	typ := reflect.TypeOf(base)
	for i := range typ.NumField() {
		f := typ.Field(i)
		if !f.IsExported() {
			continue
		}
		req := base
		nonZero(t, reflect.ValueOf(&req).Elem().Field(i))
		if k, plain := plainKey(&req); plain {
			assert.NotEqual(t, baseKey, k, "field %s is not in the key", f.Name)
		}
	}
}

// A request shape admitted before is judged afresh once a partition
// changes: taking the large nodes out of the partition makes the same
// submission invalid.
func TestAdmissionMemoForgetsOnPartitionChange(t *testing.T) {
	s := New(cluster(t, "NodeName=small[0-3] CPUs=4\nNodeName=big[0-3] CPUs=8\nPartitionName=batch Nodes=ALL Default=YES\n"))
	big := Spec{Name: "job", User: "u", TimeLimit: time.Hour, Request: selectnodes.Request{MinNodes: 1, MinCPUsPerNode: 8}}
	submit(t, s, big, at(0))
	submit(t, s, big, at(1)) // from the memo
	assert.Len(t, s.admitted, 1)
	p, ok := s.Cluster().Partition("batch")
	require.True(t, ok)
	p.Nodes = []string{"small0", "small1", "small2", "small3"}
	require.NoError(t, s.UpdatePartition(p, at(2)))
	_, err := s.Submit(big, at(3))
	assert.ErrorIs(t, err, ErrInvalidSpec)
}

// Requests the key cannot hold are never taken from the memo.
func TestAdmissionMemoSkipsConstrainedRequests(t *testing.T) {
	s := simple(t)
	spec := nodes(1, time.Hour)
	spec.Request.Excluded = []string{"n0"}
	submit(t, s, spec, at(0))
	assert.Empty(t, s.admitted)
	submit(t, s, nodes(1, time.Hour), at(0))
	assert.Len(t, s.admitted, 1)
}

// The memo is kept by a hash of the shape and answers only for the shape
// it holds: another shape in a request's slot (as a colliding hash would
// leave there) sends the request to the probe, which rejects it; and
// shapes that differ in one field hash apart.
func TestAdmissionMemoComparesTheWholeShape(t *testing.T) {
	s := New(cluster(t, "NodeName=n[0-3] CPUs=4\nPartitionName=batch Nodes=ALL Default=YES\n"))
	fits := Spec{Name: "job", User: "u", TimeLimit: time.Hour, Request: selectnodes.Request{MinNodes: 1}}
	submit(t, s, fits, at(0))
	require.Len(t, s.admitted, 1)
	tooWide := fits
	tooWide.Request.MinCPUsPerNode = 8
	wide := tooWide.Request
	wide.Partition, wide.QOS = "batch", DefaultQOS // as the admission check reads it
	k, ok := plainKey(&wide)
	require.True(t, ok)
	for _, held := range s.admitted {
		s.admitted[k.hash()] = held // the admitted shape in the slot of one that never fits
	}
	s.lastAdmitted = admitKey{}
	_, err := s.Submit(tooWide, at(1))
	assert.ErrorIs(t, err, ErrInvalidSpec)

	base := selectnodes.Request{Partition: "batch", MinNodes: 1}
	baseKey, _ := plainKey(&base)
	typ := reflect.TypeOf(base)
	for i := range typ.NumField() {
		req := base
		if !typ.Field(i).IsExported() {
			continue
		}
		nonZero(t, reflect.ValueOf(&req).Elem().Field(i))
		if k, plain := plainKey(&req); plain {
			assert.NotEqual(t, baseKey.hash(), k.hash(), "field %s is not hashed", typ.Field(i).Name)
		}
	}
}
