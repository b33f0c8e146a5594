// Command countfeatures shows the count-feature defect the Novotný thesis
// describes (§3.3): with -C "A*1&B*2" Slurm 22.05 rejects the job or runs
// it depending only on the order of two NodeName lines; hpcsched places
// it either way, and reproduces Slurm's answers in SlurmCompat mode.
//
//	go run ./examples/countfeatures
//
// It parses the constraint (features.Parse with features.Legacy), builds
// the four-node nymfe cluster from slurm.conf text in both line orders
// (slurmconf.Parse, selectnodes.FromConfig, with and without
// WithSlurmCompat) and asks each where the job would run:
//
//	A-only line first  hpcsched     runs on nymfe[73-74]
//	A-only line first  slurm 22.05  rejected: node_config
//	A,B line first     hpcsched     runs on nymfe[73-74]
//	A,B line first     slurm 22.05  runs on nymfe[73-74]
package main
