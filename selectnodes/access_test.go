package selectnodes

import (
	"strings"
	"testing"

	"github.com/hpcsched/hpcsched/slurmconf"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 13: partition access was parsed but never applied (-p biobank
// with AllowGroups=biobank was runnable for anyone).
func TestPartitionAccessIsApplied(t *testing.T) {
	cfg, err := slurmconf.Parse(strings.NewReader(`NodeName=n[1-4] CPUs=8 RealMemory=64000
PartitionName=open Nodes=ALL Default=YES
PartitionName=biobank Nodes=n[1-2] AllowGroups=biobank,admin Hidden=YES
PartitionName=paid Nodes=ALL AllowAccounts=physics,chem DenyAccounts=chem
PartitionName=fast Nodes=ALL AllowQOS=high DenyQOS=low MaxMemPerNode=32000
`))
	require.NoError(t, err)
	c, err := FromConfig(cfg)
	require.NoError(t, err)
	p, _ := c.Partition("biobank")
	assert.True(t, p.Hidden)
	for _, tc := range []struct {
		name  string
		req   Request
		class error
		why   string
	}{
		{"anyone on open", Request{}, nil, ""},
		{"anonymous on biobank", Request{Partition: "biobank"}, ErrInvalidRequest, "allows groups biobank,admin"},
		{"wrong group", Request{Partition: "biobank", Groups: []string{"physics"}}, ErrInvalidRequest, "the job's are physics"},
		{"one of the groups", Request{Partition: "biobank", Groups: []string{"users", "biobank"}}, nil, ""},
		{"root", Request{Partition: "biobank", Root: true}, nil, ""},
		{"allowed account", Request{Partition: "paid", Account: "physics"}, nil, ""},
		{"denied account", Request{Partition: "paid", Account: "chem"}, ErrInvalidRequest, "denies account chem"},
		{"other account", Request{Partition: "paid", Account: "bio"}, ErrInvalidRequest, "allows accounts"},
		{"no account: its default is not known", Request{Partition: "paid"}, nil, ""},
		{"allowed QOS", Request{Partition: "fast", QOS: "high"}, nil, ""},
		{"denied QOS", Request{Partition: "fast", QOS: "low"}, ErrInvalidRequest, "allows QOS high"},
		{"memory above MaxMemPerNode", Request{Partition: "fast", MinMemoryPerNode: 40000}, ErrInvalidRequest, "MaxMemPerNode 32000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.SelectNodes(&tc.req, RunNow)
			if tc.class == nil {
				assert.NoError(t, err)
				return
			}
			assert.ErrorIs(t, err, tc.class)
			assert.ErrorContains(t, err, tc.why)
		})
	}
}
