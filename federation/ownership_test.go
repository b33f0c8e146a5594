package federation

import (
	"time"

	"testing"

	"github.com/stretchr/testify/require"
)

// What Members and a Local's Info hand out is the caller's: changing it
// changes neither the grid's view nor the member's.
func TestMembersAndInfoAreTheCallers(t *testing.T) {
	l := NewLocal("a", sched(t, "a", 2, "batch", "gpu"), Accounts("physics"))
	g := newGrid(t, l)
	ms := g.Members()
	ms[0].Info.Partitions[0] = "changed"
	ms[0].Info.Accounts[0] = "changed"
	info, err := l.Info(bg)
	require.NoError(t, err)
	info.Partitions[1] = "changed"
	want := Info{Partitions: []string{"batch", "gpu"}, Accounts: []string{"physics"}}
	require.Equal(t, want, g.Members()[0].Info)
	again, err := l.Info(bg)
	require.NoError(t, err)
	require.Equal(t, want, again)
	_, err = g.Submit(bg, nodesSpec(1, time.Hour), nil, at(0))
	require.ErrorIs(t, err, ErrNoCandidate, "no account: a accepts physics only")
}

// Add refuses a member without a name as such, not as a duplicate;
// NewLocal of a nil scheduler panics naming it.
func TestAddRefusesAnUnnamedMember(t *testing.T) {
	g := newGrid(t)
	err := g.Add(bg, NewLocal("", sched(t, "a", 1)))
	require.Error(t, err)
	require.NotErrorIs(t, err, ErrDuplicateMember)
	require.ErrorContains(t, err, "name is empty")
	require.PanicsWithValue(t, "federation.NewLocal: the scheduler is nil", func() { NewLocal("a", nil) })
}

// A submission no member can take says why: no members at all, or an
// empty (not nil) candidate list.
func TestNoCandidateSaysWhy(t *testing.T) {
	_, err := newGrid(t).Submit(bg, nodesSpec(1, time.Hour), nil, at(0))
	require.ErrorIs(t, err, ErrNoCandidate)
	require.ErrorContains(t, err, "no members")
	g := newGrid(t, NewLocal("a", sched(t, "a", 1)))
	_, err = g.Submit(bg, nodesSpec(1, time.Hour), []string{}, at(0))
	require.ErrorIs(t, err, ErrNoCandidate)
	require.ErrorContains(t, err, "candidate list is empty")
}
