package queue

import (
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/require"
)

// A partition that grows between two passes voids the certificates of
// its jobs even when a pass in between found nothing changed (the
// partition's comparison is skipped only while the cluster counts no
// change since it was made): the job reserved behind a full partition
// starts on the nodes the partition gained, as a full plan starts it.
func TestGrownPartitionVoidsCertificatesAfterQuietPasses(t *testing.T) {
	conf := "NodeName=n[0-7] CPUs=1\nPartitionName=batch Nodes=n[0-3] Default=YES\nPartitionName=other Nodes=n[4-7]\n"
	fast, full := New(cluster(t, conf)), New(cluster(t, conf), fullPlans)
	both := []*Scheduler{fast, full}
	var x JobID
	for _, s := range both {
		x = reserveBehindFour(t, s)
		submit(t, s, nodes(4, 30*time.Minute), at(1)) // a pass after a submission alone
		s.BackfillStarts(at(1))
	}
	requireSameDecisions(t, fast, full, "planned")
	require.Equal(t, Pending, state(t, fast, x))
	k0 := fast.kept.skip.kept
	for _, s := range both {
		s.BackfillStarts(at(2))
	}
	require.Greater(t, fast.kept.skip.kept, k0, "x kept without a plan while nothing changed")
	for _, s := range both {
		require.NoError(t, s.UpdatePartition(selectnodes.Partition{Name: "batch", Nodes: []string{"n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7"}, Default: true}, at(3)))
		s.BackfillStarts(at(3))
	}
	requireSameDecisions(t, fast, full, "grown")
	require.Equal(t, Running, state(t, fast, x))
}

// A job held and released between two passes has lost its reservation:
// its certificate goes with it, and the pass plans the job in full
// rather than keeping a reservation no longer standing.
func TestHeldAndReleasedJobIsPlannedAgain(t *testing.T) {
	fast, full := New(cluster(t, onesConf(4))), New(cluster(t, onesConf(4)), fullPlans)
	both := []*Scheduler{fast, full}
	var x JobID
	for _, s := range both {
		x = reserveBehindFour(t, s)
		s.BackfillStarts(at(1))
	}
	requireSameDecisions(t, fast, full, "planned")
	require.Len(t, fast.Reservations(), 1)
	for _, s := range both {
		require.NoError(t, s.Hold(x, at(2)))
		require.NoError(t, s.Release(x, at(2)))
		s.BackfillStarts(at(3))
	}
	requireSameDecisions(t, fast, full, "released")
	require.Len(t, fast.Reservations(), 1, "reserved again")
}

// samePlainKey agrees with comparing plainKey's keys, a field of the
// request changed at a time (every field, by reflection, so a field
// added to the key and not to the comparison fails here).
func TestSamePlainKeyComparesEveryField(t *testing.T) {
	base := selectnodes.Request{Partition: "batch", MinNodes: 2, CPUs: 2, User: "u", QOS: "normal"}
	k, plain := plainKey(&base)
	require.True(t, plain)
	require.True(t, samePlainKey(&base, &k))
	rt := reflect.TypeOf(base)
	for i := range rt.NumField() {
		req := base
		f := reflect.ValueOf(&req).Elem().Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString(f.String() + "x")
		case reflect.Int, reflect.Int64:
			f.SetInt(f.Int() + 1)
		case reflect.Uint8:
			f.SetUint(f.Uint() + 1)
		case reflect.Bool:
			f.SetBool(!f.Bool())
		case reflect.Slice:
			f.Set(reflect.MakeSlice(f.Type(), 1, 1))
		case reflect.Pointer:
			f.Set(reflect.New(f.Type().Elem()))
		default:
			t.Fatalf("field %s: kind %s not covered", rt.Field(i).Name, f.Kind())
		}
		k2, plain2 := plainKey(&req)
		require.Equal(t, plain2 && k2 == k, samePlainKey(&req, &k), "field %s", rt.Field(i).Name)
	}
}

// Room taken other than by a pass for a job it planned (a job's limit
// grown, a node down) voids a certificate whose reservation it overlaps;
// room a pass takes for the jobs it plans is not logged (see holds).
func TestTakenRoomVoidsCertificates(t *testing.T) {
	l := newSkipLog()
	nodes := bitset.New(4).Set(0).Set(1)
	r := reservation{Reservation: Reservation{Start: at(60), End: at(90)}, nodes: nodes}
	c := &skipCert{seq: l.seq, resv: r, d: 30 * time.Minute, most: math.MaxInt}
	l.taken(bitset.New(4).Set(2).Set(3), at(50).UnixNano(), at(70).UnixNano())
	ok, gained := l.holds(nil, c, at(89).UnixNano(), 2)
	require.True(t, ok, "room taken elsewhere leaves the reservation alone")
	require.Nil(t, gained)
	l.taken(bitset.New(4).Set(1).Set(2), at(50).UnixNano(), at(70).UnixNano())
	ok, _ = l.holds(nil, c, at(89).UnixNano(), 2)
	require.False(t, ok, "room taken otherwise voids the certificate")
}

// A pass logs no room it takes for the jobs it plans: only the room it
// frees (a reservation moved) goes to the change log.
func TestPlannedRoomIsNotLogged(t *testing.T) {
	s := New(cluster(t, "NodeName=n[0-7] CPUs=1\nPartitionName=batch Nodes=ALL Default=YES\n"))
	submit(t, s, nodes(8, 60*time.Minute), at(0))
	require.Len(t, s.Schedule(at(0)), 1)
	for range 3 {
		submit(t, s, nodes(3, 30*time.Minute), at(0))
	}
	s.BackfillStarts(at(0))
	require.Len(t, s.Reservations(), 3)
	for _, e := range s.kept.skip.entries {
		require.True(t, e.freed, "a pass logged room it took: %+v", e)
	}
}

// reserveBehindFour starts a job on four nodes for an hour at minute 0 and
// queues one of four nodes for 30 minutes behind it, which the pass at
// minute 0 reserves; it returns the queued job.
func reserveBehindFour(t *testing.T, s *Scheduler) JobID {
	submit(t, s, nodes(4, 60*time.Minute), at(0))
	require.Len(t, s.Schedule(at(0)), 1)
	x := submit(t, s, nodes(4, 30*time.Minute), at(0))
	s.BackfillStarts(at(0))
	return x
}
