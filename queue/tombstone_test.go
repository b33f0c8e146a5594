package queue

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hasPointers reports whether values of t hold a pointer the collector
// must scan.
func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.String, reflect.Interface,
		reflect.Chan, reflect.Func, reflect.UnsafePointer:
		return true
	case reflect.Array:
		return t.Len() > 0 && hasPointers(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}

// A forgotten job's tombstone is small and pointer-free, so a long replay
// that forgets every job keeps a map the collector need not scan.
func TestTombstoneIsSmallAndPointerFree(t *testing.T) {
	typ := reflect.TypeOf(tombstone{})
	assert.False(t, hasPointers(typ), "tombstone holds a pointer")
	assert.LessOrEqual(t, typ.Size(), uintptr(16))
	assert.True(t, hasPointers(reflect.TypeOf(time.Time{})), "the check sees time.Time's pointer")
}

// The tombstone keeps the start's instant across zones, the years the
// scheduler accepts and a job that never started.
func TestTombstoneKeepsTheStartInstant(t *testing.T) {
	zone := time.FixedZone("UTC+5:30", 5*3600+1800)
	for _, start := range []time.Time{
		{},
		time.Date(MinYear, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(MaxYear, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(2026, 11, 27, 23, 0, 0, 123, zone),
		time.Unix(0, 0), // the epoch is a start, not "never started"
	} {
		got := newTombstone(start, Complete)
		assert.True(t, got.startTime().Equal(start), "%v: got %v", start, got.startTime())
		assert.Equal(t, start.IsZero(), got.startTime().IsZero(), "%v", start)
		assert.Equal(t, Complete, got.state)
	}
}

// after:job+minutes on a forgotten job started in another zone counts
// from the same instant, before and after a snapshot round trip.
func TestDelayedDependencyOnForgottenJobAcrossZones(t *testing.T) {
	zone := time.FixedZone("UTC-7", -7*3600)
	local := func(m int) time.Time { return at(m).In(zone) }
	conf := "NodeName=n[0-7] CPUs=4\nPartitionName=batch Nodes=ALL Default=YES\n"
	s := New(cluster(t, conf))
	first := submit(t, s, nodes(1, time.Hour), local(0))
	s.Schedule(local(1))
	require.NoError(t, s.Finish(first, Outcome{}, local(5)))
	require.NoError(t, s.Forget(first))
	var buf bytes.Buffer
	require.NoError(t, s.Snapshot(&buf))
	r, err := Restore(bytes.NewReader(buf.Bytes()), cluster(t, conf))
	require.NoError(t, err)
	for name, sc := range map[string]*Scheduler{"forgotten": s, "restored": r} {
		dep := submit(t, sc, Spec{Request: nodes(1, time.Hour).Request, TimeLimit: time.Hour,
			Dependency: fmt.Sprintf("after:%d+30", first)}, local(6))
		sc.Schedule(local(30))
		assert.Equal(t, Pending, state(t, sc, dep), "%s: minute 30", name)
		sc.Schedule(local(31))
		assert.Equal(t, Running, state(t, sc, dep), "%s: minute 31", name)
	}
}
