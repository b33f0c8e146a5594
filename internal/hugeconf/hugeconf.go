package hugeconf

import (
	"fmt"
	"strings"
)

// Text is a configuration of n nodes in one of four shapes: "lines" (a
// NodeName line per node), "gres-types" (a NodeName line per node, each
// with a GRES type of its own), "interleaved" (a NodeName line per node,
// every tenth a GPU node of another configuration, so that lines
// configured alike are not neighbours) or "ranges" (one NodeName line of ranges of
// at most 65,536 nodes, the most one hostlist range may name); a partition
// of every node by ALL and one by name. Another shape gives no nodes.
func Text(n int, shape string) string {
	var b strings.Builder
	b.WriteString("ClusterName=huge\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core_Memory\nGresTypes=gpu\n")
	switch shape {
	case "lines":
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, "NodeName=n%d CPUs=64 RealMemory=256000\n", i)
		}
	case "gres-types":
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, "NodeName=n%d CPUs=64 RealMemory=256000 Gres=gpu:t%d:4\n", i, i)
		}
	case "interleaved":
		for i := 0; i < n; i++ {
			if i%10 == 0 {
				fmt.Fprintf(&b, "NodeName=n%d CPUs=64 RealMemory=512000 Feature=gpu,a100 Weight=10\n", i+1)
			} else {
				fmt.Fprintf(&b, "NodeName=n%d CPUs=128 RealMemory=256000 Feature=cpu,zen3\n", i+1)
			}
		}
	case "ranges":
		fmt.Fprintf(&b, "NodeName=%s CPUs=64 RealMemory=256000 Gres=gpu:4\n", Ranges(n))
	}
	fmt.Fprintf(&b, "PartitionName=all Nodes=ALL Default=YES MaxTime=INFINITE\nPartitionName=named Nodes=%s\n", Ranges(n))
	return b.String()
}

// Ranges names n[1-n] as ranges of at most 65,536 nodes.
func Ranges(n int) string {
	var parts []string
	for lo := 1; lo <= n; lo += 65536 {
		parts = append(parts, fmt.Sprintf("%d-%d", lo, min(n, lo+65535)))
	}
	return "n[" + strings.Join(parts, ",") + "]"
}
