// Command countfeatures shows the count-feature defect of seed 000 §3.3:
// with -C "A*1&B*2" Slurm 22.05 rejects the job or runs it depending on
// the order of two NodeName lines; hpcsched places it either way, and
// reproduces Slurm's answers in SlurmCompat mode.
package main
