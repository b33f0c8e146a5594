package federation

import (
	"reflect"
	"testing"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/features"
	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/require"
)

// setNonZero gives v, a settable field, a value other than its zero.
func setNonZero(t *testing.T, v reflect.Value, name string) {
	switch v.Interface().(type) {
	case time.Time:
		v.Set(reflect.ValueOf(t0))
		return
	case *features.Expr:
		e, err := features.Parse("gpu")
		require.NoError(t, err)
		v.Set(reflect.ValueOf(e))
		return
	case *bitset.BitSet:
		v.Set(reflect.ValueOf(bitset.New(8)))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(3)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(3)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		setNonZero(t, s.Index(0), name)
		v.Set(s)
	case reflect.Struct:
		setNonZero(t, v.Field(0), name)
	default:
		t.Fatalf("field %s: kind %s not handled; teach this test (and shapeKey) about it", name, v.Kind())
	}
}

// Every field of a spec but its ID, name and dependency is part of its
// shape, the key under which a forecast is cached: two requests that
// differ in any other field (memory per CPU, QOS, groups, switches)
// must not share a forecast, or a job is refused (or placed) on
// another's answer.
func TestShapeKeyCoversEverySpecField(t *testing.T) {
	skip := map[string]bool{"ID": true, "Name": true, "Dependency": true, "Request": true}
	base := shapeKey(queue.Spec{})
	st := reflect.TypeOf(queue.Spec{})
	for i := range st.NumField() {
		f := st.Field(i)
		if skip[f.Name] {
			continue
		}
		var s queue.Spec
		setNonZero(t, reflect.ValueOf(&s).Elem().Field(i), f.Name)
		require.NotEqual(t, base, shapeKey(s), "Spec.%s is not in the shape", f.Name)
	}
	rt := reflect.TypeOf(selectnodes.Request{})
	for i := range rt.NumField() {
		f := rt.Field(i)
		var s queue.Spec
		setNonZero(t, reflect.ValueOf(&s.Request).Elem().Field(i), f.Name)
		require.NotEqual(t, base, shapeKey(s), "Request.%s is not in the shape", f.Name)
	}
	// lists that write alike apart from where they stand stay apart
	a := queue.Spec{Request: selectnodes.Request{Excluded: []string{"x"}}}
	b := queue.Spec{Request: selectnodes.Request{Groups: []string{"x"}}}
	c := queue.Spec{Request: selectnodes.Request{Required: []string{"x"}}}
	require.NotEqual(t, shapeKey(a), shapeKey(b))
	require.NotEqual(t, shapeKey(a), shapeKey(c))
	require.NotEqual(t, shapeKey(b), shapeKey(c))
}

// A job refused everywhere for its memory per CPU does not make the
// next job, which asks the same but for that, refused too: the members'
// forecasts are cached by shape, and the shape tells them apart.
func TestRefusedShapeDoesNotRefuseAnother(t *testing.T) {
	g := newGrid(t, NewLocal("a", sched(t, "a", 2)), NewLocal("b", sched(t, "b", 2)))
	big := nodesSpec(1, time.Hour)
	big.Request.MemPerCPU = 1 << 40
	_, err := g.Submit(bg, big, nil, at(0))
	require.ErrorIs(t, err, ErrNoCandidate)
	for _, r := range []selectnodes.Request{{MinNodes: 1}, {MinNodes: 1, MaxSwitches: 1}, {MinNodes: 1, QOS: "normal"}} {
		spec := nodesSpec(1, time.Hour)
		spec.Request = r
		_, err = g.Submit(bg, spec, nil, at(0))
		require.NoError(t, err, "%+v", r)
	}
}
