package hostlist_test

import (
	"errors"
	"fmt"
	"strings"

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
		fmt.Println(he.Pos.Offset, he.Pos, he.Msg)
	}
	// Output: 8 1:9 stepping (':') is not supported
}

func ExampleExpandBudget() {
	// 1 KB of prefix names only a million hosts, but a gigabyte of text.
	expr := strings.Repeat("x", 1024) + "[0-1023][0-1023]"
	_, err := hostlist.ExpandBudget(expr, hostlist.Budget{Hosts: 1 << 20, Bytes: 64 << 20})
	fmt.Println(errors.Is(err, hostlist.ErrBudget))
	names, _ := hostlist.ExpandBudget("n[1-3]", hostlist.Budget{Hosts: 3, Bytes: 6})
	fmt.Println(names)
	// Output:
	// true
	// [n1 n2 n3]
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
