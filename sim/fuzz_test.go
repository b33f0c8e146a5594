package sim

import (
	"errors"
	"strings"
	"testing"
)

func FuzzReadSWF(f *testing.F) {
	f.Add(tinySWF)
	f.Add("0 1356996147 0 56011 64 1 1024 64 86400 1 1 62 1 1 -1 1 1 1 {1} q_1d 1:ppn=1+3:ppn=2:x86_64#excl\n")
	f.Add("; MaxNodes: x\n1 2 3\n")
	f.Add("1 0 0 1 1 -1 -1 1 1 -1 1 1 1 -1 -1 1 -1 -1\n")
	f.Fuzz(func(t *testing.T, input string) {
		tr, err := ReadSWF(strings.NewReader(input), SWFOptions{})
		if err != nil {
			var se *SWFError
			if !errors.As(err, &se) || se.Line < 1 {
				t.Fatalf("error %v is %T without a line", err, err)
			}
			return
		}
		for _, j := range tr.Jobs {
			if j.Line < 1 || j.Nodes < 0 || j.PPN < 0 {
				t.Fatalf("bad job %+v", j)
			}
		}
		lenient, err := ReadSWF(strings.NewReader(input), SWFOptions{SkipMalformed: true})
		if err != nil || len(lenient.Jobs) != len(tr.Jobs) {
			t.Fatalf("lenient reading disagrees: %v", err)
		}
	})
}

func FuzzReadMachines(f *testing.F) {
	f.Add("0 seth 120 2 1 1048576\n")
	f.Add("0\tzewura\t20\t80\t1\t529426432\n1 zegox 48 12 1 94035968\n")
	f.Add("x y z\n")
	f.Fuzz(func(t *testing.T, input string) {
		ms, err := ReadMachines(strings.NewReader(input))
		if err != nil {
			return
		}
		for _, m := range ms {
			if m.Nodes < 1 || m.CPUs < 1 {
				t.Fatalf("bad machine %+v", m)
			}
		}
	})
}
