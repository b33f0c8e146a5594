package queue

import (
	"errors"
	"testing"
)

func FuzzParseDependency(f *testing.F) {
	for _, s := range []string{"afterok:12:13,singleton", "after:7+30", "1", "afterok:1?afterany:2", "afterok:1,afterany:2?x",
		"after:1+x", "afterany:", ",", "singleton:3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		d, err := ParseDependency(spec)
		if err != nil {
			var de *DependencyError
			if !errors.As(err, &de) || de.Pos < 0 || de.Pos > len(spec) {
				t.Fatalf("error %v (%T) without a position inside %q", err, err, spec)
			}
			return
		}
		for _, id := range d.targets() {
			if id == 0 {
				t.Fatalf("%q names job 0", spec)
			}
		}
	})
}
