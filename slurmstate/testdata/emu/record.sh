#!/bin/bash
# record.sh -- run a Slurm 22.05.8 controller (../../../../shared/slurm-emulator, front-end build)
# on site.conf with running jobs, a drained and a down node and a reservation; write what
# slurmstate.Command writes (nodes.txt, jobs.txt, reservations.txt), the moment (now.txt),
# `scontrol show job -d -o` (jobs-detail.txt, each job's CPUs and memory per node), and the
# node salloc --no-shell gave each request of probes.txt with that load (probes.tsv: args,
# allocated hostlist or REJECT, note). Needs EMU (the folder build.sh used).
set -f
source /work/shared/slurm-emulator/common.sh
HERE=$(cd "$(dirname "$0")" && pwd)
D=$EMU/w3/state; rm -rf $D; mkdir -p $D/state $D/spool $D/log; : > $D/plugstack.conf
sed -n '/^header() {/,/^}/p' /work/shared/slurm-emulator/record.sh > $D/header.sh; source $D/header.sh
{ header $D; cat $HERE/site.conf; } > $D/slurm.conf
start_cluster $D; export SLURM_CONF=$D/slurm.conf
sb() { sbatch -o /dev/null -J load "$@" --wrap 'sleep 3000' >/dev/null; }
sb -p main -w f01 -n4 -t 2:00:00
sb -p short -w f[02-03] -N2 -n12 -t 30
sb -p main -w f07 --exclusive -t 3:00:00
sb -p main -w f08 -n10 --mem=20000
sb -p short -w f04 -n1 -c3
sb -p main -w f[06,09] -N2 -n6 --ntasks-per-node=3 -t 45
for i in $(seq 1 50); do [ "$(squeue -h -n load -t R | wc -l)" = 6 ] && break; sleep 0.3; done
scontrol update NodeName=f05 State=DRAIN Reason="fan failure"
scontrol update NodeName=f10 State=DOWN Reason="no power"
scontrol create reservation ReservationName=maint StartTime=now+2hours Duration=120 Nodes=f09 Users=root Flags=MAINT >/dev/null
sleep 1
O=$HERE
date -u +%Y-%m-%dT%H:%M:%S > $O/now.txt
scontrol show node -o > $O/nodes.txt
squeue -h -t R -o '%i|%P|%T|%D|%C|%h|%e|%N' > $O/jobs.txt
scontrol show reservation -o > $O/reservations.txt
scontrol show job -d -o > $O/jobs-detail.txt
: > $O/probes.tsv
while IFS= read -r -u 3 args; do
  read -r -a A <<< "$args"
  out=$D/salloc.out; salloc --no-shell -J probe "${A[@]}" > $out 2>&1 & sp=$!
  for i in $(seq 1 100); do kill -0 $sp 2>/dev/null || break; grep -q "queued and waiting\|Pending job allocation" $out && break; sleep 0.1; done
  j=$(grep -o 'Granted job allocation [0-9]*' $out | awk '{print $4}')
  if [ -n "$j" ]; then r=$(squeue -h -j $j -o %N); note=$(squeue -h -j $j -o '%D nodes %C cpus'); scancel $j
  else j=$(grep -o 'Pending job allocation [0-9]*' $out | awk '{print $4}')
    if [ -n "$j" ]; then sleep 0.3; r=REJECT; note="PENDING($(squeue -h -j $j -o '%T %r'))"; scancel $j
    else r=REJECT; note=$(tr '\n' ' ' < $out); fi; fi
  wait $sp 2>/dev/null
  for i in $(seq 1 50); do [ -z "$(squeue -h -n probe -o %i)" ] && [ -z "$(sinfo -h -t completing -o %N)" ] && break; sleep 0.2; done
  printf '%s\t%s\t%s\n' "$args" "$r" "$note" >> $O/probes.tsv
done 3< $HERE/probes.txt
scancel -n load; sleep 1; stop_cluster $D
