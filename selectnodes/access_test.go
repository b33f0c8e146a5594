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
	cfg, err := slurmconf.Parse(strings.NewReader(`AccountingStorageType=accounting_storage/slurmdbd
NodeName=n[1-4] CPUs=8 RealMemory=64000
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
		{"no QOS: the default, normal", Request{Partition: "fast"}, ErrInvalidRequest, "the job's is normal (the default: the job names none)"},
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

// Without accounting storage (no slurmdbd) Slurm enforces no partition's
// AllowQOS or DenyQOS: a job of a denied QOS, or of none, runs (as a real
// Slurm 22.05 did: check/testdata/slurm2205-defaults). WithQOSChecks
// overrides the configuration either way; New checks QOS.
func TestQOSIsCheckedOnlyWithAccounting(t *testing.T) {
	parts := "NodeName=n[1-4] CPUs=8\nPartitionName=fast Nodes=ALL Default=YES AllowQOS=high DenyQOS=low\n"
	for _, tc := range []struct {
		name   string
		conf   string
		opts   []Option
		checks bool
	}{
		{"no accounting", parts, nil, false},
		{"filetxt accounting", "AccountingStorageType=accounting_storage/filetxt\n" + parts, nil, false},
		{"slurmdbd", "AccountingStorageType = Accounting_Storage/SlurmDBD\n" + parts, nil, true},
		{"no accounting, checks asked", parts, []Option{WithQOSChecks(true)}, true},
		{"slurmdbd, checks off", "AccountingStorageType=accounting_storage/slurmdbd\n" + parts, []Option{WithQOSChecks(false)}, false},
	} {
		cfg, err := slurmconf.Parse(strings.NewReader(tc.conf))
		require.NoError(t, err)
		c, err := FromConfig(cfg, tc.opts...)
		require.NoError(t, err)
		assert.Equal(t, tc.checks, c.ChecksQOS(), tc.name)
		for _, qos := range []string{"", "low", "normal"} {
			_, err := c.SelectNodes(&Request{QOS: qos}, RunNow)
			if tc.checks {
				assert.ErrorIs(t, err, ErrInvalidRequest, "%s, QOS %q", tc.name, qos)
			} else {
				assert.NoError(t, err, "%s, QOS %q", tc.name, qos)
			}
		}
		_, err = c.SelectNodes(&Request{QOS: "high"}, RunNow)
		assert.NoError(t, err, tc.name)
	}
	c, err := New([]Node{{Name: "n1", CPUs: 4}}, []Partition{{Name: "p", Nodes: []string{"n1"}, Default: true,
		Access: Access{AllowQOS: []string{"high"}}}})
	require.NoError(t, err)
	assert.True(t, c.ChecksQOS())
	_, err = c.SelectNodes(&Request{}, RunNow)
	assert.ErrorIs(t, err, ErrInvalidRequest)
}
