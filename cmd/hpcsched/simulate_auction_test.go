package main

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/hpcsched/hpcsched/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// auction+reserve is one policy name: in --policy, in --compare beside
// the others, with a backfill after it, in any case; a near miss is a
// usage error naming what is wrong.
func TestAuctionReserveSpellings(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []variant
	}{
		{[]string{"--compare", "backfill,auction,auction+reserve"},
			[]variant{{"fcfs", sim.Conservative}, {"auction", sim.NoBackfill}, {"auction+reserve", sim.NoBackfill}}},
		{[]string{"--compare", " AUCTION+Reserve , auction+reserve+easy"},
			[]variant{{"auction+reserve", sim.NoBackfill}, {"auction+reserve", sim.EASY}}},
		{[]string{"--policy", "auction+reserve"}, []variant{{"auction+reserve", sim.NoBackfill}}},
		{[]string{"--policy", "auction+reserve", "--both"},
			[]variant{{"auction+reserve", sim.NoBackfill}, {"auction+reserve", sim.Conservative}}},
		{[]string{"--policy", "auction+reserve", "--compare", "easy"}, []variant{{"auction+reserve", sim.EASY}}},
	} {
		f, err := parseSimFlags(tc.args, io.Discard)
		require.NoError(t, err, "%v", tc.args)
		got, err := f.variants()
		require.NoError(t, err, "%v", tc.args)
		for k := range got {
			got[k].policy = strings.ToLower(got[k].policy)
		}
		assert.Equal(t, tc.want, got, "%v", tc.args)
	}
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"--compare", "auction+reserved"}, "reserved"},
		{[]string{"--compare", "auction+reserve+sometimes"}, "sometimes"},
		{[]string{"--policy", "auction-reserve"}, `unknown policy "auction-reserve"`},
		{[]string{"--compare", "fcfs,reserve"}, `unknown policy "reserve"`},
	} {
		code, out, errOut := runCmd(t, append([]string{"simulate", "--workload", "aucsched:1", "--limit", "5"}, tc.args...)...)
		assert.Equal(t, 2, code, "%v", tc.args)
		assert.Empty(t, out, "%v", tc.args)
		assert.Contains(t, errOut, tc.says, "%v", tc.args)
	}
}

// Only auction+reserve sets the planner's reservation; the other policies
// have no planner.
func TestAuctionFor(t *testing.T) {
	assert.False(t, auctionFor("auction").ReserveHead)
	assert.True(t, auctionFor("Auction+Reserve").ReserveHead)
	assert.Nil(t, auctionFor("fcfs"))
	assert.Nil(t, auctionFor("auction+easy"))
}

func TestSimulateAuctionReserve(t *testing.T) {
	limit := 40
	if testing.Short() { // make test; make test-long runs 40
		limit = 20
	}
	rows := simulateRows(t, "--workload", "aucsched:1", "--limit", fmt.Sprint(limit), "--compare", "auction,auction+reserve")
	require.Len(t, rows, 2)
	assert.Equal(t, []string{"AUCTION", "AUCTION+RESERVE"}, []string{rows[0].Policy, rows[1].Policy})
	for _, r := range rows {
		assert.Equal(t, limit, r.Started, r.Policy)
	}
}
