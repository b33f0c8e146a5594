package position_test

import (
	"errors"
	"fmt"

	"github.com/hpcsched/hpcsched/position"
)

func ExampleAt() {
	src := "NodeName=a\nNodeName=b[1-\n"
	fmt.Println(position.At(src, 22))
	// Output: 2:12
}

func ExampleOf() {
	var errs position.ErrorList
	errs.Add(position.Position{File: "slurm.conf", Line: 9, Column: 1}, "unknown partition")
	errs.Add(position.Position{File: "slurm.conf", Line: 4, Column: 10}, "bad range")
	errs.Sort()
	err := fmt.Errorf("load: %w", errs.Err())
	if pos, ok := position.Of(err); ok {
		fmt.Println("first problem at", pos)
	}
	var pe *position.Error
	fmt.Println(errors.As(err, &pe), pe.Msg)
	// Output:
	// first problem at slurm.conf:4:10
	// true bad range
}
