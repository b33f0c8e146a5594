package queue

import (
	"bytes"
	"testing"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const requestFieldsConf = "SelectType=select/cons_res\nSelectTypeParameters=CR_Core_Memory\n" +
	"NodeName=n[0-3] Sockets=2 CoresPerSocket=4 ThreadsPerCore=2 RealMemory=64000\n" +
	"PartitionName=batch Nodes=n[0-3] Default=YES\n"

// TestSnapshotKeepsEveryRequestField: a pending job's request comes back
// from Restore as it was submitted, each field the selection reads
// included, so the restored scheduler places it as the saved one would.
func TestSnapshotKeepsEveryRequestField(t *testing.T) {
	withheld := bitset.New(4).Set(1).Set(3)
	for name, req := range map[string]selectnodes.Request{
		"whole memory":   {WholeMemory: true},
		"core tasks":     {CoreTasks: true, CPUs: 4},
		"cpus/socket":    {MaxCPUsPerSocket: 2, CPUs: 4},
		"withheld nodes": {ExcludeNodes: withheld},
		"all of them":    {WholeMemory: true, CoreTasks: true, MaxCPUsPerSocket: 1, ExcludeNodes: withheld},
	} {
		t.Run(name, func(t *testing.T) {
			s := New(cluster(t, requestFieldsConf))
			id := submit(t, s, Spec{Request: req, TimeLimit: time.Hour, Hold: true}, at(0))
			var saved bytes.Buffer
			require.NoError(t, s.Snapshot(&saved))
			r, err := Restore(bytes.NewReader(saved.Bytes()), cluster(t, requestFieldsConf))
			require.NoError(t, err)
			before, _ := s.Job(id)
			after, _ := r.Job(id)
			assert.Equal(t, before.Request, after.Request)
			var again bytes.Buffer
			require.NoError(t, r.Snapshot(&again))
			assert.Equal(t, saved.String(), again.String())
		})
	}
}

// TestRestoreRefusesBadRequestFields: the new request fields are checked
// as the old ones are.
func TestRestoreRefusesBadRequestFields(t *testing.T) {
	for name, field := range map[string]string{
		"negative cpus per socket": `"max_cpus_per_socket":-1`,
		"unknown withheld node":    `"withheld":["nope"]`,
	} {
		t.Run(name, func(t *testing.T) {
			s := New(cluster(t, requestFieldsConf))
			submit(t, s, Spec{Request: selectnodes.Request{CPUs: 1}, TimeLimit: time.Hour, Hold: true}, at(0))
			var saved bytes.Buffer
			require.NoError(t, s.Snapshot(&saved))
			text := bytes.Replace(saved.Bytes(), []byte(`"request":{`), []byte(`"request":{`+field+`,`), 1)
			_, err := Restore(bytes.NewReader(text), cluster(t, requestFieldsConf))
			var re *RestoreError
			require.ErrorAs(t, err, &re)
			assert.Contains(t, re.Path, "jobs[0].request")
		})
	}
}

// TestSubmitRefusesWhatRestoreRefuses: a negative --switches count and a
// share request that is none of the constants are refused at Submit, as
// Restore refuses them, rather than accepted and then making every later
// Snapshot unreadable or saved as another request.
func TestSubmitRefusesWhatRestoreRefuses(t *testing.T) {
	s := New(cluster(t, requestFieldsConf))
	for _, req := range []selectnodes.Request{{MaxSwitches: -1}, {Share: selectnodes.ShareOversubscribe + 1}} {
		_, err := s.Submit(Spec{Request: req, TimeLimit: time.Hour}, at(0))
		assert.ErrorIs(t, err, ErrInvalidSpec, "%+v", req)
	}
	id := submit(t, s, Spec{Request: selectnodes.Request{CPUs: 1}, TimeLimit: time.Hour, Hold: true}, at(0))
	bad := selectnodes.Request{MaxSwitches: -1}
	assert.ErrorIs(t, s.Update(id, Update{Request: &bad}, at(1)), ErrInvalidSpec)
	var saved bytes.Buffer
	require.NoError(t, s.Snapshot(&saved))
	_, err := Restore(&saved, cluster(t, requestFieldsConf))
	assert.NoError(t, err)
}
