package queue

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
)

func FuzzParseDependency(f *testing.F) {
	for _, s := range []string{"afterok:12:13,singleton", "after:7+30", "1", "afterok:1?afterany:2", "afterok:1,afterany:2?x",
		"after:1+x", "afterany:", ",", "singleton:3", "after:1+200000000", "after:1+4294967295"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		d, err := ParseDependency(spec)
		if err != nil {
			var de *DependencyError
			if !errors.As(err, &de) || de.Pos.Offset < 0 || de.Pos.Offset > len(spec) {
				t.Fatalf("error %v (%T) without a position inside %q", err, err, spec)
			}
			return
		}
		for _, id := range d.targets() {
			if id == 0 {
				t.Fatalf("%q names job 0", spec)
			}
		}
		for _, term := range d.terms {
			if term.delay < 0 || term.delay > MaxTimeLimit {
				t.Fatalf("%q: delay %s outside 0 to MaxTimeLimit", spec, term.delay)
			}
		}
	})
}

// Restore is a parser too: whatever the bytes, it returns a scheduler
// whose cluster is consistent or a *RestoreError, and never panics.
func FuzzRestore(f *testing.F) {
	conf := "SelectType=select/cons_res\nNodeName=n[0-3] CPUs=4 Feature=ib\nPartitionName=batch Nodes=ALL Default=YES\nPartitionName=small Nodes=n[0-1] OverSubscribe=FORCE:2\n"
	s := New(cluster(f, conf))
	a := submit(f, s, Spec{Request: selectnodes.Request{CPUs: 6}, TimeLimit: time.Hour, Dependency: "singleton"}, at(0))
	submit(f, s, Spec{Request: selectnodes.Request{MinNodes: 4}, TimeLimit: time.Hour, Dependency: fmt.Sprintf("afterok:%d", a)}, at(0))
	submit(f, s, Spec{Request: selectnodes.Request{Partition: "small", CPUs: 2, Features: expr(f, "ib")}, TimeLimit: time.Hour}, at(0))
	s.Schedule(at(1))
	s.Backfill(at(1))
	var buf bytes.Buffer
	if err := s.Snapshot(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	// jobs forgotten without tombstones: runs of IDs
	bare := New(cluster(f, conf), WithForgetFinished(), WithoutTombstones())
	for i := range 6 {
		id := submit(f, bare, Spec{Request: selectnodes.Request{CPUs: 1 + i}, TimeLimit: time.Hour}, at(0))
		if i%3 != 1 {
			bare.Schedule(at(1))
			if err := bare.Finish(id, Outcome{}, at(2)); err != nil {
				f.Fatal(err)
			}
		}
	}
	buf.Reset()
	if err := bare.Snapshot(&buf); err != nil {
		f.Fatal(err)
	}
	if !bytes.Contains(buf.Bytes(), []byte(`"forgotten_ids"`)) {
		f.Fatal("the seed has no forgotten_ids")
	}
	f.Add(buf.Bytes())
	f.Add([]byte(`{"version":2,"next_id":1,"seq":0,"event_seq":0,"partitions":[],"jobs":[]}`))
	base, err := json.Marshal(consistencyState(f))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(base)
	for _, tc := range restoreCases { // each inconsistency Restore refuses
		var st stateFile
		if err := json.Unmarshal(base, &st); err != nil {
			f.Fatal(err)
		}
		tc.change(&st)
		doc, err := json.Marshal(st)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(doc)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := cluster(t, conf)
		r, err := Restore(bytes.NewReader(data), c)
		if err != nil {
			var re *RestoreError
			if !errors.As(err, &re) {
				t.Fatalf("error %v (%T) is not a *RestoreError", err, err)
			}
			if len(c.Running()) > 0 {
				t.Fatalf("a refused state left allocations")
			}
			return
		}
		if err := r.Cluster().CheckInvariants(); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := r.Snapshot(&out); err != nil {
			t.Fatalf("a restored scheduler cannot save: %v", err)
		}
		if _, err := Restore(bytes.NewReader(out.Bytes()), cluster(t, conf)); err != nil {
			t.Fatalf("Snapshot wrote a state Restore refuses: %v", err)
		}
	})
}
