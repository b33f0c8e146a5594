package slurmstate

import (
	"errors"
	"strings"
	"testing"

	"github.com/hpcsched/hpcsched/position"
)

// The readers never panic, answer within their budgets, and either read
// what they return consistently or give a positioned error.
func FuzzParseNodes(f *testing.F) {
	f.Add("NodeName=n01 CPUAlloc=6 CPUTot=16 RealMemory=32000 AllocMem=6000 State=MIXED+DRAIN Reason=x y [a@b]\n")
	f.Add("NodeName=x CPUTot=4 State=IDLE*\nNo nodes\n")
	f.Add("=\n \nNodeName= CPUTot=\n")
	f.Fuzz(func(t *testing.T, s string) {
		ns, err := ParseNodes(strings.NewReader(s), "f", Limits{MaxBytes: 1 << 16, MaxLines: 100, MaxLineBytes: 1 << 12})
		if err != nil {
			checkPositioned(t, err)
			return
		}
		for _, n := range ns {
			if n.Name == "" || n.CPUAlloc > n.CPUTot || n.CPUTot < 0 {
				t.Fatalf("inconsistent node %+v", n)
			}
		}
	})
}

func FuzzParseJobs(f *testing.F) {
	f.Add("17|all|RUNNING|2|12|OK|2026-11-27T23:10:00|n[01-02]\n")
	f.Add("1|a|PENDING|1|1|NO|N/A|\n|||||||\n")
	f.Fuzz(func(t *testing.T, s string) {
		js, err := ParseJobs(strings.NewReader(s), "f", nil, Limits{MaxBytes: 1 << 16, MaxLines: 100, MaxHosts: 1000})
		if err != nil {
			checkPositioned(t, err)
			return
		}
		for _, j := range js {
			if j.ID == "" || (len(j.Nodes) > 0 && len(j.Nodes) != j.NodeCount) || len(j.Nodes) > 1000 {
				t.Fatalf("inconsistent job %+v", j)
			}
		}
	})
}

func FuzzParseReservations(f *testing.F) {
	f.Add("ReservationName=m StartTime=2026-11-27T22:00:00 EndTime=2026-11-28T02:00:00 Nodes=n[1-3] Flags=MAINT State=ACTIVE\n")
	f.Add("No reservations in the system\n")
	f.Fuzz(func(t *testing.T, s string) {
		rs, err := ParseReservations(strings.NewReader(s), "f", nil, Limits{MaxBytes: 1 << 16, MaxLines: 100, MaxHosts: 1000})
		if err != nil {
			checkPositioned(t, err)
			return
		}
		for _, r := range rs {
			if r.Name == "" || len(r.Nodes) > 1000 || (!r.End.IsZero() && r.End.Before(r.Start)) {
				t.Fatalf("inconsistent reservation %+v", r)
			}
		}
	})
}

func checkPositioned(t *testing.T, err error) {
	t.Helper()
	var pe *position.Error
	if !errors.As(err, &pe) || !pe.Pos.IsValid() {
		t.Fatalf("error without a position: %v", err)
	}
}
