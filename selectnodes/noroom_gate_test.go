package selectnodes

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The gate runs the check on every probe while one check in roomHitsIn
// answers, samples one probe in roomSample after a round with fewer, and
// turns back on after a sampled round that answers often enough.
func TestRoomGate(t *testing.T) {
	var g roomGate
	runs := func(probes int, hit func(k int) bool) (checks int) {
		for k := range probes {
			if !g.open() {
				continue
			}
			checks++
			g.count(hit(k))
		}
		return checks
	}
	never := func(int) bool { return false }
	always := func(int) bool { return true }

	assert.Equal(t, roomRound, runs(roomRound, func(k int) bool { return k%roomHitsIn == 0 }))
	assert.False(t, g.off, "one in roomHitsIn answered: the check stays on")
	assert.Equal(t, roomRound, runs(roomRound, never))
	assert.True(t, g.off, "a round without answers turns it off")
	assert.Equal(t, roomRound/2, runs(roomRound*roomSample/2, never), "off, one probe in roomSample is checked")
	assert.True(t, g.off)
	runs(roomRound*roomSample/2, always)
	assert.False(t, g.off, "a sampled round that answers turns it on")
	assert.Equal(t, 10, runs(10, always))
}

// The gate in place: on a cluster where no check answers, probes that fit
// leave it off after a round, and a run of probes that no node has room
// for turns it back on.
func TestRoomGateInProbes(t *testing.T) {
	c, big := noRoomCluster(t, 20, 48)
	fits := Request{MinNodes: 1, MinCPUsPerNode: 8, CPUs: 8}
	full := Request{MinNodes: 1, MinCPUsPerNode: 32, CPUs: 32, ExcludeNodes: big}
	for range roomRound {
		_, ok := c.Probe(&fits, RunNow)
		assert.True(t, ok)
	}
	assert.True(t, c.gate().off, "no check answered")
	for range roomRound * roomSample {
		_, ok := c.Probe(&full, TestOnly)
		assert.False(t, ok)
	}
	assert.False(t, c.gate().off, "every sampled check answered")
}

// gate is the cluster's kept gate (tests: no call is running).
func (c *Cluster) gate() roomGate {
	sc := c.takeScratch()
	defer c.putScratch(sc)
	return sc.room
}

// resetGate puts the kept gate back to its first state (tests).
func (c *Cluster) resetGate() {
	sc := c.takeScratch()
	defer c.putScratch(sc)
	sc.room = roomGate{}
}
