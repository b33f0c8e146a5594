#!/usr/bin/env bash
# timepair.sh [-n RUNS] [--warmup N] [--timeout SECONDS] [--vs 'COMMAND_B'] -- COMMAND_A [ARG ...]
#
# Whole-process timing as BENCHMARKS.md quotes it: COMMAND_A (and, with
# --vs, COMMAND_B, split as the shell splits words) runs RUNS times (5 by
# default) after N warm-up runs that are not counted (1 by default), each
# run bounded by --timeout seconds (none by default), A and B in turn
# (A B A B ...), so that a drift in the machine's speed touches both.
# Each run's CPU is its user + system seconds and its peak its maximum
# resident set, as the kernel accounts the finished process
# (/usr/bin/time -f "%U %S %M"). It prints each command's median CPU
# (min-max) and median peak, and with --vs the median of the pairwise
# ratios A/B. Output of the commands is discarded.
set -euo pipefail
runs=5
warmup=1
limit=""
vs=""
while [ $# -gt 0 ]; do
  case "$1" in
    -n) runs=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --timeout) limit=$2; shift 2 ;;
    --vs) vs=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "usage: timepair.sh [-n RUNS] [--warmup N] [--timeout SECONDS] [--vs 'COMMAND_B'] -- COMMAND_A [ARG ...]" >&2; exit 2 ;;
  esac
done
[ $# -gt 0 ] || { echo "timepair.sh: no command" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
one() { # one FILE CMD...: append "cpu peak" of one run to FILE
  local out=$1; shift
  if [ -n "$limit" ]; then set -- timeout "$limit" "$@"; fi
  /usr/bin/time -f "%U %S %M" -o "$tmp/t" "$@" >/dev/null 2>&1 || true
  tail -1 "$tmp/t" | awk '{ printf "%.3f %d\n", $1 + $2, $3 }' >> "$out"
}
for _ in $(seq "$warmup"); do
  one "$tmp/warm" "$@"
  # shellcheck disable=SC2086 # COMMAND_B is split as words on purpose
  [ -z "$vs" ] || one "$tmp/warm" $vs
done
for _ in $(seq "$runs"); do
  one "$tmp/a" "$@"
  # shellcheck disable=SC2086
  [ -z "$vs" ] || one "$tmp/b" $vs
done
summary() { # summary NAME FILE
  sort -n "$2" | awk -v name="$1" '{ c[NR] = $1 } END { printf "%s cpu %.3f s (%.3f-%.3f)", name, c[int((NR + 1) / 2)], c[1], c[NR] }'
  awk '{ print $2 }' "$2" | sort -n | awk '{ p[NR] = $1 } END { printf ", peak %d KiB\n", p[int((NR + 1) / 2)] }'
}
summary A "$tmp/a"
if [ -n "$vs" ]; then
  summary B "$tmp/b"
  paste -d' ' "$tmp/a" "$tmp/b" | awk '{ print $1 / ($3 > 0 ? $3 : 1e-9) }' | sort -n |
    awk '{ r[NR] = $1 } END { printf "A/B cpu, pairwise median %.3f (%.3f-%.3f)\n", r[int((NR + 1) / 2)], r[1], r[NR] }'
fi
