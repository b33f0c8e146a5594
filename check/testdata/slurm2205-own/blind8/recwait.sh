#!/bin/bash
# record.sh CASES.tsv OUT.tsv -- records real Slurm 22.05.8 placements (salloc --no-shell) for each case.
# CASES: conf<TAB>busy<TAB>salloc args<TAB>topology  (conf and topology are files in $CONFDIR, topology may be -;
#        busy is - or space-separated hostlists, each held by one whole-node exclusive job)
# OUT adds: result (the allocated hostlist, or REJECT)<TAB>note (CPUs, error text or pending reason)
# Needs EMU (the folder build.sh used) and CONFDIR (where the .conf fragments live: Select*, Topology*,
# NodeName and PartitionName lines; everything else of slurm.conf is written here).
set -f
source /work/shared/slurm-emulator/common.sh
CONFDIR=${CONFDIR:?set CONFDIR to the folder holding the .conf fragments}
CASES=$1; OUT=$2; : > $OUT
W=$EMU/w2
header() { local D=$1
  cat <<EOC
ClusterName=emu
SlurmctldHost=localhost(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=16817
SlurmdPort=16818
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$MUNGESOCK
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig=$D/plugstack.conf
SchedulerType=sched/backfill
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
ReturnToService=2
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
SlurmctldTimeout=60
SlurmdTimeout=300
InactiveLimit=0
MinJobAge=300
KillWait=5
Waittime=0
MailProg=/bin/true
FrontendName=localhost FrontendAddr=127.0.0.1
EOC
}
quiesce() { # wait until no case job is alive and no node is completing
  for i in $(seq 1 100); do
    [ -z "$(squeue -h -n case -o %i 2>/dev/null)" ] && [ -z "$(sinfo -h -t completing -o %N 2>/dev/null)" ] && return 0
    sleep 0.2; done; echo "WARN quiesce timeout" >&2; }
setbusy() { local busy=$1 hl k n
  scancel -n occ 2>/dev/null; sleep 0.5
  for i in $(seq 1 100); do [ -z "$(squeue -h -n occ -o %i)" ] && [ -z "$(sinfo -h -t completing -o %N)" ] && break; sleep 0.2; done
  [ "$busy" = "-" ] && return 0
  n=0; for hl in $busy; do k=$(scontrol show hostnames "$hl" | wc -l)
    sbatch -o /dev/null -J occ -w "$hl" -N $k --exclusive --wrap 'sleep 600' >/dev/null; n=$((n+1)); done
  for i in $(seq 1 150); do [ "$(squeue -h -n occ -t R -o %i | wc -l)" = "$n" ] && break; sleep 0.2; done
  echo "busy set: $(squeue -h -n occ -o '%i %T %N' | tr '\n' ';')" >&2
}
run_case() { local out=$D/salloc.out r j note sp st
  salloc --no-shell -J case "$@" > $out 2>&1 & sp=$!
  st=""
  for i in $(seq 1 100); do
    if ! kill -0 $sp 2>/dev/null; then st=exited; break; fi
    if grep -q "Granted job allocation" $out; then st=granted; break; fi
    sleep 0.1; done
  j=$(grep -o 'Granted job allocation [0-9]*' $out | awk '{print $4}')
  if [ -n "$j" ]; then r=$(squeue -h -j $j -o %N); note="$(squeue -h -j $j -o '%D nodes %C cpus')$(grep -q 'Pending job allocation' $out && echo ' after pending')"; scancel $j
  else j=$(grep -o 'Pending job allocation [0-9]*' $out | awk '{print $4}')
    if [ -n "$j" ]; then sleep 0.3; r=REJECT; note="PENDING($(squeue -h -j $j -o '%T %r'))"; scancel $j
    else r=REJECT; note="$(grep -v '^$' $out | tr '\n' ' ' | sed 's/salloc: //g')"; fi
  fi
  for i in $(seq 1 50); do kill -0 $sp 2>/dev/null || break; sleep 0.1; done
  kill -0 $sp 2>/dev/null && kill $sp
  wait $sp 2>/dev/null
  quiesce
  RES=$r; NOTE=$note
}
prevconf=""; prevbusy=""
while IFS=$'\t' read -r -u 3 conf busy args topo; do
  if [ "$conf" != "$prevconf" ]; then
    [ -n "$prevconf" ] && { scancel -n occ 2>/dev/null; sleep 1; stop_cluster $D; }
    D=$W/run_${conf%.conf}; rm -rf $D; mkdir -p $D/state $D/spool $D/log; : > $D/plugstack.conf
    { header $D; cat $CONFDIR/$conf; } > $D/slurm.conf
    [ "$topo" != "-" ] && cp $CONFDIR/$topo $D/topology.conf
    start_cluster $D; export SLURM_CONF=$D/slurm.conf
    echo "== $conf: $(sinfo -h -o '%t %D' | tr '\n' ' ') $(scontrol show config | grep -E 'SelectType|TopologyPlugin' | tr -s ' ' | tr '\n' ' ')" >&2
    prevconf=$conf; prevbusy="__"
  fi
  if [ "$busy" != "$prevbusy" ]; then setbusy "$busy"; prevbusy=$busy; fi
  read -r -a A <<< "$args"
  run_case "${A[@]}"
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$conf" "$busy" "$args" "$topo" "$RES" "$NOTE" | tee -a $OUT >&2
done 3< $CASES
scancel -n occ 2>/dev/null; sleep 1; stop_cluster $D
