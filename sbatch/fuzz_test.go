package sbatch

import (
	"errors"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/position"
)

// Whatever the words, Parse returns options or an *Error inside the
// arguments, and never panics; so do the value parsers.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"-N3-5 -n40 -C [a*1&b*2] --mem=4G -t 1-00:00:00", "-sN2 --exclusive=user",
		"--gres=gpu:a100:1-3 --gpus-per-node=2 -w n[1-4] -x n2", `-J "a b" --begin=now+2hours`,
		"--switches=2@10 --nice=-5 -p a,b", "n[1-2]:cpus=8,mem=16G,end=2h",
		"--mem=9223372036854775807K", "9223372036854775807K", "n1:cpus=1,cpus=2",
		"--gpus-per-node=a100:2 --gpus=4 -N2", "--gpus=a100:4 --gpus-per-node=v100:2",
		"--begin=4:00PM", "12/01/26", "120126", "12:30am", "-t 0", "-t INFINITE -p short"} {
		f.Add(s)
	}
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, line string) {
		if _, err := ParseRunning(line); err != nil {
			if pos, ok := position.Of(err); !ok || pos.Offset < 0 || pos.Offset > len(line) {
				t.Fatalf("running spec error %v without a position inside %q", err, line)
			}
		}
		if mb, err := ParseMemory(line); err == nil && (mb < 0 || mb > MaxMemoryMB) {
			t.Fatalf("ParseMemory(%q) = %d, outside [0, MaxMemoryMB]", line, mb)
		}
		_, _ = ParseBegin(line, now)
		args, err := Split(line)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Offset < 0 || e.Offset > len(line) {
				t.Fatalf("split error %v without a position inside the line", err)
			}
			return
		}
		o, err := Parse(args)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Arg < 0 || e.Arg >= len(args) || e.Offset < 0 || e.Offset > len(args[e.Arg]) {
				t.Fatalf("parse error %v (%T) does not point into the arguments %q", err, err, args)
			}
			return
		}
		r, err := o.Request("")
		if err == nil && (r.CPUs < 0 || r.MinMemoryPerNode < 0 || r.MinNodes < 0 || r.MaxNodes < 0) {
			t.Fatalf("negative request from %q: %+v", line, r)
		}
		_, _ = o.Spec(now)
	})
}
