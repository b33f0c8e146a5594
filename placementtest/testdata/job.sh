#!/bin/bash
# A batch script as users write them: explain reads its #SBATCH lines.
#SBATCH --job-name=mpi-test
#SBATCH -N 2 --ntasks-per-node=16   # two nodes, 16 tasks each
#SBATCH --constraint=new
#SBATCH --time=4:00:00

module load mpi
#SBATCH -N 8   (after the first command: sbatch ignores it)
srun ./solver
