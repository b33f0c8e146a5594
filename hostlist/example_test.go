package hostlist_test

import (
	"errors"
	"fmt"

	"github.com/hpcsched/hpcsched/hostlist"
)

func ExampleExpand() {
	names, err := hostlist.Expand("rack[0-1]_blade[2,3],login1")
	if err != nil {
		panic(err)
	}
	fmt.Println(names)
	// Output: [rack0_blade2 rack0_blade3 rack1_blade2 rack1_blade3 login1]
}

func ExampleExpand_error() {
	_, err := hostlist.Expand("tux[1-10:2]")
	var he *hostlist.Error
	if errors.As(err, &he) {
		fmt.Println(he.Offset, he.Msg)
	}
	// Output: 8 stepping (':') is not supported
}

func ExampleCompress() {
	fmt.Println(hostlist.Compress([]string{"b1", "b2", "b3", "c1", "d1", "d2", "d3", "d4", "d5", "e1"}))
	fmt.Println(hostlist.Compress([]string{"tux9", "tux10", "tux1"}))
	// Output:
	// b[1-3],c1,d[1-5],e1
	// tux[9-10,1]
}

func ExampleCompressSorted() {
	fmt.Println(hostlist.CompressSorted([]string{"tux10", "tux9", "tux1"}))
	// Output: tux[1,9-10]
}

func ExampleCount() {
	n, _ := hostlist.Count("tux[0-5,12,20-25]")
	fmt.Println(n)
	// Output: 13
}
