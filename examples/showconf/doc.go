// Command showconf reads a slurm.conf (by default the sample beside this
// file) and prints its nodes and partitions as hostlists, as a first look
// at what hpcsched sees in a site's configuration.
//
//	go run ./examples/showconf                       # the sample
//	go run ./examples/showconf placementtest/testdata/site.conf # your own
package main
