#!/usr/bin/env python3
"""A plain-Python conservative backfill replay of an SWF trace: the peer that
BENCHMARKS.md measures `hpcsched simulate --backfill` against, beside the EASY
peer (easy.py, whose reading of the trace it shares).

Processors are one counted resource. At every event (completions before
arrivals at equal times) the waiting jobs start in submit order while they
fit; then a backfill pass plans the first DEPTH waiting jobs (100, as
`hpcsched simulate`'s default) in submit order on a profile of free
processors over time, built from the running jobs' estimated ends: each job
gets the earliest start at which its processors stay free for its whole
estimate, and is started if that start is now, or else holds its
processors over [start, start + estimate) against the jobs planned after it.
Optionally, as Slurm does: a job whose earliest start is more than WINDOW
seconds away (bf_window; `hpcsched simulate` uses a day) holds nothing, and
the running jobs' estimated ends are rounded up to RESOLUTION seconds
(bf_resolution; a minute there). By default neither applies: the plain
algorithm, which is also the closest to our replay's mean waits on the
traces of BENCHMARKS.md.
No plan is kept between passes: each event plans again from scratch, which
is what conservative backfill does when jobs end before their estimates.

Usage: python3 conservative.py TRACE.swf [--limit N] [--depth N] [--window S]
       [--resolution S] [--starts FILE]
Prints: jobs, mean wait (s), bounded slowdown (tau 10 s), utilization (%).
"""
import heapq
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from easy import option, read, report  # noqa: E402


def earliest(times, free, now, procs, est):
    """The earliest breakpoint t of the profile from which procs processors
    stay free until t + est, and the profile's index of t."""
    k = 0
    while True:
        while free[k] < procs:
            k += 1  # the last segment (all running jobs ended) always fits
        t, j = max(times[k], now), k
        while j + 1 < len(times) and times[j + 1] < t + est and free[j + 1] >= procs:
            j += 1
        if j + 1 == len(times) or times[j + 1] >= t + est:
            return t, k
        k = j + 1


def hold(times, free, k, t, procs, est):
    """Takes procs processors from the profile over [t, t + est), splitting
    segments at t + est (t is the breakpoint times[k] or now)."""
    end = t + est
    j = k
    while j < len(times) and times[j] < end:
        if j + 1 == len(times) or times[j + 1] > end:
            times.insert(j + 1, end)
            free.insert(j + 1, free[j])
        free[j] -= procs
        j += 1


def round_up(t, now, resolution):
    """t rounded up to the resolution (Slurm's bf_resolution), now when it
    is not after now."""
    if t <= now:
        return now
    return -(-t // resolution) * resolution if resolution > 0 else t


def profile(now, free_now, running, resolution):
    """Free processors as a step function: breakpoints and the free count
    from each one on, from the running jobs' estimated ends rounded up to
    the resolution."""
    times, free = [now], [free_now]
    for _, est_end, procs in sorted(running, key=lambda r: r[1]):
        end = round_up(est_end, now, resolution)
        if end > times[-1]:
            times.append(end)
            free.append(free[-1])
        free[-1] += procs
    return times, free


def conservative(jobs, capacity, depth, window, resolution):
    free = capacity
    queue = []  # indices of waiting jobs, in submit order
    running = []  # heap of (end, estimated end, procs)
    start = [0.0] * len(jobs)

    def begin(i, now):
        nonlocal free
        _, run, est, procs, _ = jobs[i]
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
        times, avail = profile(now, free, running, resolution)
        kept = []
        for n, i in enumerate(queue):
            if n >= depth:
                kept.extend(queue[n:])
                break
            procs, est = jobs[i][3], jobs[i][2]
            t, k = earliest(times, avail, now, min(procs, capacity), est)
            if t > now + window:
                kept.append(i)  # no start within the window: no hold
                continue
            hold(times, avail, k, t, min(procs, capacity), est)
            if t == now and procs <= free:
                begin(i, now)
            else:
                kept.append(i)
        queue = kept
    return start


def main():
    args = sys.argv[1:]
    limit = int(option(args, "--limit") or 0)
    depth = int(option(args, "--depth") or 100)
    window = float(option(args, "--window") or "inf")
    resolution = float(option(args, "--resolution") or 0)
    starts = option(args, "--starts")
    jobs, capacity = read(args[0], limit, ids=bool(starts))
    report(jobs, capacity, conservative(jobs, capacity, depth, window, resolution), starts)


if __name__ == "__main__":
    main()
