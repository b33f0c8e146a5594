// Package federation runs several clusters, each a queue.Scheduler behind
// a small Member interface, as one grid: grid-unique job IDs, submission
// to a set of candidate clusters with placement on the one that would
// start the job soonest, periodic and event-driven re-evaluation that
// moves pending jobs to a sooner cluster, cross-cluster dependencies
// (after, afterany, afterok, afternotok, singleton), candidate clusters a
// user can add and remove, and status of any job by its ID alone.
//
// It models the grid-scheduling slides ("SLURM Grid Scheduling", Slurm
// User Group 2011, Lawrence Livermore National Laboratory):
// its requirements, and the second of the four designs it compares. No
// Slurm code was used.
//
// # The design: a meta-scheduling elf (the slides' option 2)
//
// The Grid is the grid-scheduling slides' "elf": a service beside the clusters that hands
// out grid-wide job IDs (an IDSource: MemoryIDs in process, or
// allocation/pgstore's JobIDs, a PostgreSQL sequence shared by processes),
// submits each job to the candidate
// whose forecast start (Member.Estimate: WillRunSpec, delayed by the work
// queued there) is soonest, and re-evaluates pending jobs, moving one when
// another candidate would start it sooner by more than a threshold.
// Dependencies across clusters are the slides' option B: the grid polls
// its jobs' states and keeps a dependent job at the grid, on no member,
// until its dependency is met.
//
// Why this design: a job is queued on one member at a time, so "never
// runs twice" is a local property of one protocol — a move holds the job
// at its source (a hold that succeeds proves it has not started), submits
// a held copy to the destination, cancels the source (the commit) and
// releases the copy; every copy but one is held, so at most one can
// start. Members keep their own scheduling, so priorities stay
// cluster-specific as the slides require, and the grid is not on any
// job's start path: if the grid stops, every member goes on running its
// queue. Peer-to-peer and the ubiquitous meta-schedulers copy every job
// to every candidate and must cancel the copies race-free from inside
// each controller; a full-blown meta-scheduler replaces the members'
// scheduling and is a single point of failure for every start.
//
// What it gives up: a job waits in one queue at a time, so a cluster that
// frees up between passes does not take it until the next pass (events
// trigger passes early to narrow that); a moved job is submitted anew on
// the destination and loses its place in the queue it left (the slides'
// elf would pass the original submit time; queue.Spec carries none), so
// moves need a clear gain; forecasts are estimates (running jobs' ends,
// plus pending work drained at full capacity), not a global schedule as a
// full meta-scheduler would have; and while the grid is down nothing
// moves and cross-cluster dependencies are not released.
//
// # Failures
//
// Every member call has a deadline (WithCallTimeout). A member that does
// not answer in time, whose transport fails, or whose method panics (the
// grid recovers, in its own goroutine too, and the call's error matches
// ErrMemberPanicked and ErrMemberDown) is down until it answers again: it gets no new jobs, and at most one call to it is outstanding.
// A job pending on a member that does not answer stays there — the member
// may still be running its queue, and moving the job without its word
// could run it twice. Outcomes a lost answer leaves unknown are noted and
// settled when the member answers: a submission that may have arrived
// (the job is placed nowhere else meanwhile), a move whose cancel may
// have happened (the held copy waits), a copy or a hold a failed move may
// have left.
//
// # Concurrency and time
//
// A Grid is safe for concurrent use; every method holds its lock for its
// whole duration, member calls included, so no caller sees a move half
// made. It reads no clock (every method takes now) and prints nothing.
// Every now lies in the years queue.CheckTime accepts (the members'
// rule): Submit, Cancel and the candidate edits refuse another with an
// error matching queue.ErrTime, and Reevaluate and Tick do nothing at
// one.
// The only goroutines it starts are the member calls under a deadline
// (one per call, ended when the member returns); WithCallTimeout(0)
// calls inline. Observe never takes the lock, so members may deliver
// events from inside a call the grid made.
//
// A grid remembers every job it ran unless WithRetention bounds the ended
// ones it keeps: one that runs for years sets it, so its memory follows
// the live jobs. Member errors are answers unless they match ErrMemberDown (see
// Member): an RPC member must say when a call's outcome is unknown.
package federation
