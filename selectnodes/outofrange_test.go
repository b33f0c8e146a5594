package selectnodes

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestOutOfRangeRequestsAreInvalid: every count or size of a Request that
// means "none" at 0 is refused below 0, and a share request that is none
// of the constants is refused, by every way of selecting, so a caller
// that stores the request (a queue's saved state) never holds one its own
// validation would refuse later, or one it cannot write down.
func TestOutOfRangeRequestsAreInvalid(t *testing.T) {
	for name, req := range map[string]Request{
		"min nodes":       {MinNodes: -1},
		"max nodes":       {MaxNodes: -1},
		"desired nodes":   {DesiredNodes: -1},
		"cpus":            {CPUs: -1},
		"cpus per node":   {MinCPUsPerNode: -1},
		"memory":          {MinMemoryPerNode: -1},
		"tmp disk":        {MinTmpDiskPerNode: -1},
		"mem per cpu":     {MemPerCPU: -1},
		"cpus per socket": {MaxCPUsPerSocket: -1},
		"switches":        {MaxSwitches: -1},
		"time limit":      {TimeLimit: -1},
		"share":           {Share: ShareOversubscribe + 1},
	} {
		for _, compat := range []bool{false, true} {
			c := htCluster(t, compat)
			for _, mode := range []Mode{RunNow, TestOnly, WillRun} {
				_, err := c.SelectNodes(&req, mode)
				assert.ErrorIs(t, err, ErrInvalidRequest, "%s, compat %v, mode %v", name, compat, mode)
				_, ok := c.ProbeNodes(&req, mode)
				assert.False(t, ok, "%s, compat %v, mode %v", name, compat, mode)
			}
			assert.ErrorIs(t, c.Explain(&req, RunNow).Class, ErrInvalidRequest, name)
		}
	}
}
