// Command showconf reads a slurm.conf (by default the sample beside this
// file) and prints its nodes and partitions as hostlists, as a first look
// at what hpcsched sees in a site's configuration.
//
//	go run ./examples/showconf                       # the sample
//	go run ./examples/showconf placementtest/testdata/site.conf # your own
//
// It parses the file with slurmconf.ParseFile, prints one line per node
// configuration (count, CPUs, memory, weight, features, GRES) and one per
// partition (nodes, default, time and node limits, sharing, state), the
// way an administrator would check that hpcsched reads the site as
// slurmctld does before testing placement with placementtest or
// "hpcsched check".
package main
