//go:build !unix

package selectnodes

// processCPU is unknown here: the benchmarks report no cpu-ns/op.
func processCPU() int64 { return -1 }
