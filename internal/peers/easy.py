#!/usr/bin/env python3
"""A plain-Python EASY backfill replay of an SWF trace: the peer that
BENCHMARKS.md measures `hpcsched simulate --backfill=easy` against.

Processors are one counted resource (capacity from the MaxProcs header, else
MaxNodes). A job asks for its requested processors (field 8, else field 5);
its estimate is the requested time (field 9, else the run time rounded up to
a minute) and it is killed at it; jobs with an unknown run time and
cancelled jobs that never ran are left out. FCFS by submit time, completions
before arrivals at equal times, EASY: jobs start in order while they fit;
the first that does not fit gets a reservation at its shadow time, and a
later job starts now if it ends (by its estimate) before the shadow time or
uses no more than the processors the head leaves spare then.

Usage: python3 easy.py TRACE.swf [--limit N] [--starts FILE]
Prints: jobs, mean wait (s), bounded slowdown (tau 10 s), utilization (%).
--starts writes each job's "id submit start" (seconds), in submit order,
to compare per job with `hpcsched simulate --jobs`.
"""
import heapq
import sys


def read(path, limit, ids=False):
    """The trace's jobs as (submit, run, estimate, processors, id), the id
    only when asked for (it costs memory), and the capacity."""
    jobs, capacity, nodes = [], 0, 0
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith(";"):
                key, _, val = line[1:].partition(":")
                key = key.strip()
                if key == "MaxProcs":
                    capacity = int(val.split()[0])
                elif key == "MaxNodes":
                    nodes = int(val.split()[0])
                continue
            if not line:
                continue
            f_ = line.split()
            submit, run, status = float(f_[1]), float(f_[3]), int(float(f_[10]))
            if run < 0 or (status == 5 and run == 0):
                continue
            procs = int(float(f_[7]))
            if procs <= 0:
                procs = int(float(f_[4]))
            est = float(f_[8])
            if est <= 0:
                est = max(60.0, -(-run // 60) * 60)
            jobs.append((submit, min(run, est), est, max(procs, 1), f_[0] if ids else None))
    jobs.sort(key=lambda j: j[0])
    if limit:
        jobs = jobs[:limit]
    return jobs, capacity or nodes


def easy(jobs, capacity):
    free = capacity
    queue = []  # indices of waiting jobs, in submit order
    running = []  # heap of (end, estimated end, procs)
    start = [0.0] * len(jobs)

    def begin(i, now):
        nonlocal free
        submit, run, est, procs, _ = jobs[i]
        start[i] = now
        free -= procs
        heapq.heappush(running, (now + run, now + est, procs))

    nxt = 0
    while nxt < len(jobs) or running:
        now = jobs[nxt][0] if nxt < len(jobs) else float("inf")
        if running and running[0][0] <= now:
            now = running[0][0]
        while running and running[0][0] <= now:
            free += heapq.heappop(running)[2]
        while nxt < len(jobs) and jobs[nxt][0] <= now:
            queue.append(nxt)
            nxt += 1
        k = 0
        while k < len(queue) and jobs[queue[k]][3] <= free:
            begin(queue[k], now)
            k += 1
        queue = queue[k:]
        if not queue:
            continue
        # the head's shadow time, and the processors it leaves spare then
        need = jobs[queue[0]][3]
        avail, shadow = free, float("inf")
        for _, est_end, procs in sorted(running, key=lambda r: r[1]):
            if avail >= need and est_end > shadow:
                break  # every job ending at the shadow time is counted
            avail += procs
            if avail >= need and shadow == float("inf"):
                shadow = est_end
        extra = avail - need
        kept = queue[:1]
        for i in queue[1:]:
            procs = jobs[i][3]
            if procs <= free and now + jobs[i][2] <= shadow:
                begin(i, now)
            elif procs <= free and procs <= extra:
                begin(i, now)
                extra -= procs
            else:
                kept.append(i)
        queue = kept
    return start


def option(args, name):
    """Removes --name VALUE from args and returns VALUE (None without it)."""
    if name not in args:
        return None
    k = args.index(name)
    value = args[k + 1]
    del args[k : k + 2]
    return value


def report(jobs, capacity, start, starts):
    """Writes each job's "id submit start" to the file starts (when given)
    and prints the summary line."""
    if starts:
        with open(starts, "w") as out:
            for job, s in zip(jobs, start):
                out.write(f"{job[4]} {job[0]:.3f} {s:.3f}\n")
    wait = bsld = work = 0.0
    first, last = float("inf"), 0.0
    for (submit, run, est, procs, _), s in zip(jobs, start):
        w = s - submit
        wait += w
        bsld += max(1.0, (w + run) / max(run, 10.0))
        work += run * procs
        first, last = min(first, submit), max(last, s + run)
    n = len(jobs)
    print(f"jobs {n} mean_wait_s {wait / n:.1f} bounded_slowdown {bsld / n:.2f} "
          f"utilization_pct {100 * work / capacity / (last - first):.2f}")


def main():
    args = sys.argv[1:]
    limit = int(option(args, "--limit") or 0)
    starts = option(args, "--starts")
    jobs, capacity = read(args[0], limit, ids=bool(starts))
    report(jobs, capacity, easy(jobs, capacity), starts)


if __name__ == "__main__":
    main()
