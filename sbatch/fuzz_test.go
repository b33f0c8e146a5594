package sbatch

import (
	"errors"
	"testing"
	"time"
)

// Whatever the words, Parse returns options or an *Error inside the
// arguments, and never panics; so do the value parsers.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"-N3-5 -n40 -C [a*1&b*2] --mem=4G -t 1-00:00:00", "-sN2 --exclusive=user",
		"--gres=gpu:a100:1-3 --gpus-per-node=2 -w n[1-4] -x n2", `-J "a b" --begin=now+2hours`,
		"--switches=2@10 --nice=-5 -p a,b", "n[1-2]:cpus=8,mem=16G,end=2h"} {
		f.Add(s)
	}
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, line string) {
		_, _ = ParseRunning(line)
		_, _ = ParseMemory(line)
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
