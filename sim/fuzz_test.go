package sim

import (
	"errors"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

func FuzzReadSWF(f *testing.F) {
	f.Add(tinySWF)
	f.Add("0 1356996147 0 56011 64 1 1024 64 86400 1 1 62 1 1 -1 1 1 1 {1} q_1d 1:ppn=1+3:ppn=2:x86_64#excl\n")
	f.Add("; MaxNodes: x\n1 2 3\n")
	f.Add("1 0 0 1 1 -1 -1 1 1 -1 1 1 1 -1 -1 1 -1 -1\n")
	// the inputs: budgets, non-finite and huge fields, overflowing PBS counts
	f.Add("; MaxNodes: 2000000000\n; MaxProcs: 2000000000\n1 0 0 1 1 -1 -1 1 1 -1 1 1 1 -1 -1 1 -1 -1\n")
	f.Add("1 0 0 NaN 1 -1 -1 1 1 -1 1 1 1 -1 -1 1 -1 -1\n1 0 0 1e300 1 -1 -1 Inf 1 -1 1 1 1 -1 -1 1 -1 -1\n")
	f.Add("0 1356996147 0 10 64 1 1024 64 86400 1 1 62 1 1 -1 1 1 1 {1} q 9223372036854775807+9223372036854775807\n")
	f.Add("0 1356996147 0 10 64 1 1024 64 86400 1 1 62 1 1 -1 1 1 1 {1} q 1:ppn=12:^zewura12.cerit-sc.cz:host=zegox2.x:nodecpus80\n")
	f.Add(strings.Repeat("\n", 5000))
	f.Fuzz(func(t *testing.T, input string) {
		tr, err := ReadSWF(strings.NewReader(input), SWFOptions{MaxBytes: 1 << 16})
		if err != nil {
			var se *SWFError
			if !errors.As(err, &se) || se.Line < 1 {
				t.Fatalf("error %v is %T without a line", err, err)
			}
			return
		}
		for _, j := range tr.Jobs {
			if j.Line < 1 || j.Nodes < 0 || j.PPN < 0 || j.Nodes > MaxClusterNodes || j.Procs2 < 0 {
				t.Fatalf("bad job %+v", j)
			}
			for _, d := range []time.Duration{j.Submit, j.Wait, j.Run, j.ReqTime} {
				if d < -1 || d > MaxSWFSeconds*time.Second {
					t.Fatalf("duration %v out of range in %+v", d, j)
				}
			}
		}
		lenient, err := ReadSWF(strings.NewReader(input), SWFOptions{SkipMalformed: true, MaxBytes: 1 << 16})
		if err != nil || len(lenient.Jobs) != len(tr.Jobs) {
			t.Fatalf("lenient reading disagrees: %v", err)
		}
		checkKeptFields(t, input, tr)
	})
}

// checkKeptFields reads input again under KeepFields: the same jobs, each
// with its line's first 18 fields as strconv.ParseFloat reads them.
func checkKeptFields(t *testing.T, input string, tr *Trace) {
	kept, err := ReadSWF(strings.NewReader(input), SWFOptions{MaxBytes: 1 << 16, KeepFields: true})
	if err != nil || len(kept.Jobs) != len(tr.Jobs) {
		t.Fatalf("reading with KeepFields disagrees: %v", err)
	}
	lines := strings.Split(strings.TrimPrefix(input, "\ufeff"), "\n")
	for i, j := range kept.Jobs {
		if j.Fields == nil {
			t.Fatalf("line %d: no fields kept", j.Line)
		}
		f := strings.Fields(lines[j.Line-1])
		for k := range j.Fields {
			if w, err := strconv.ParseFloat(f[k], 64); err != nil || w != j.Fields[k] {
				t.Fatalf("line %d field %d: kept %v, ParseFloat %q gives %v %v", j.Line, k+1, j.Fields[k], f[k], w, err)
			}
		}
		j.Fields = nil
		if !reflect.DeepEqual(j, tr.Jobs[i]) {
			t.Fatalf("line %d: %+v, without KeepFields %+v", j.Line, j, tr.Jobs[i])
		}
	}
}

func FuzzReadMachines(f *testing.F) {
	f.Add("0 seth 120 2 1 1048576\n")
	f.Add("0\tzewura\t20\t80\t1\t529426432\n1 zegox 48 12 1 94035968\n")
	f.Add("x y z\n")
	f.Add("0 huge 1000000000 8 1 1024\n")
	f.Add("0 a 600000 8\n1 b 600000 8\n")
	f.Fuzz(func(t *testing.T, input string) {
		ms, err := ReadMachines(strings.NewReader(input))
		if err != nil {
			return
		}
		total := 0
		for _, m := range ms {
			total += m.Nodes
			if m.Nodes < 1 || m.CPUs < 1 || total > MaxClusterNodes {
				t.Fatalf("bad machine %+v (total %d)", m, total)
			}
		}
	})
}

// The SWF line reader splits and reads numbers without strings; it must
// agree with strings.Fields and strconv.ParseFloat on every input.
func FuzzSWFFieldsAgreeWithStrconv(f *testing.F) {
	for _, s := range []string{"1 2 3", " -1\t007 -0 +5 1e3 0x10 1_000 - 12.5 ", "999999999999999999 1000000000000000000 -9223372036854775808",
		"a\u00a0b\u2003c", "NaN Inf -inf", strings.Repeat("1 ", 30), "\v\f\r1\r"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		want := strings.Fields(line)
		var buf [maxSWFFields][]byte
		got, n := swfFields([]byte(line), buf[:0])
		if n != len(want) {
			t.Fatalf("%q: %d fields, strings.Fields has %d", line, n, len(want))
		}
		for i := range min(n, len(got)) {
			if string(got[i]) != want[i] {
				t.Fatalf("%q: field %d is %q, want %q", line, i, got[i], want[i])
			}
			v, ok := swfNumber(got[i])
			w, err := strconv.ParseFloat(want[i], 64)
			if ok != (err == nil) || ok && math.Float64bits(v) != math.Float64bits(w) && v != w {
				t.Fatalf("%q: %v %v, ParseFloat %v %v", want[i], v, ok, w, err)
			}
		}
	})
}
