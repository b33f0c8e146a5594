#!/bin/bash
# record.sh CASES.tsv OUT.tsv -- what a real Slurm 22.05.8 controller does with a job's time limit and
# QOS: each case is `sbatch -N1 ARGS --wrap 'sleep 600'` on an idle cluster; the answer is squeue's
# state, reason, time limit (%l) and QOS (%q) three seconds later, or the submission's error.
# CASES: conf<TAB>sbatch args. Needs EMU (the folder ../shared/slurm-emulator/build.sh used).
set -f
source /work/shared/slurm-emulator/common.sh
HERE=$(cd "$(dirname "$0")" && pwd)
CASES=$1; OUT=$2; : > $OUT
D=$EMU/w3/defaults; rm -rf $D; mkdir -p $D/state $D/spool $D/log
# the same slurm.conf as the placement recorder's, with this conf fragment
sed -n '/^header() {/,/^}/p' /work/shared/slurm-emulator/record.sh > $D/header.sh; source $D/header.sh
prev=""
while IFS=$'\t' read -r -u 3 conf args; do
  if [ "$conf" != "$prev" ]; then
    [ -n "$prev" ] && stop_cluster $D
    { header $D; cat $HERE/$conf; } > $D/slurm.conf; : > $D/plugstack.conf
    start_cluster $D; export SLURM_CONF=$D/slurm.conf; prev=$conf
  fi
  read -r -a A <<< "$args"
  msg=$(sbatch -o /dev/null -J fact -N1 "${A[@]}" --wrap 'sleep 600' 2>&1); j=$(echo "$msg" | grep -o 'Submitted batch job [0-9]*' | awk '{print $4}')
  if [ -n "$j" ]; then sleep 4; r=$(squeue -h -j $j -o '%T	%r	%l	%q'); scancel $j; sleep 1
  else r="REFUSED	$(echo "$msg" | tr '\n\t' '  ')	-	-"; fi
  printf '%s\t%s\t%s\n' "$conf" "$args" "$r" | tee -a $OUT >&2
done 3< $CASES
stop_cluster $D
