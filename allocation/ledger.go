package allocation

import (
	"context"
	"fmt"
	"time"

	"github.com/hpcsched/hpcsched/queue"
)

// Ledger is the allocation ledger: a Store plus the partitions' billing
// rules. It adds job-level operations (SU from a job's request) and the
// site factor. Safe for concurrent use when its Store is (every shipped
// Store is). Make one with New: a Ledger without a Store (the zero
// Ledger) panics in any method that needs it, with a message naming the
// method and New.
type Ledger struct {
	Store
	partitions map[string]Partition
	categories map[string]Category // nil: not enforced
}

// Option configures a Ledger.
type Option func(*Ledger)

// WithPartitions sets what each partition bills (resource type, MAX_TRES
// weights). A job in a partition not listed is refused with ErrInvalid.
// The Ledger keeps its own copy (Weights included): changing ps or the
// Weights it points to afterwards does not change the billing.
func WithPartitions(ps map[string]Partition) Option {
	return func(l *Ledger) {
		for name, p := range ps {
			l.partitions[name] = p.clone()
		}
	}
}

// New is a Ledger over store (a fresh MemStore when nil). A nil Option is
// a programming error: New panics naming it.
func New(store Store, opts ...Option) *Ledger {
	if store == nil {
		store = NewMemStore()
	}
	l := &Ledger{Store: store, partitions: map[string]Partition{}}
	for k, o := range opts {
		if o == nil {
			panic(fmt.Sprintf("allocation.New: option %d is nil", k))
		}
		o(l)
	}
	return l
}

// Partition is the billing rule of the named partition; it is the
// caller's (its Weights a copy).
func (l *Ledger) Partition(name string) (Partition, error) {
	p, ok := l.partitions[name]
	if !ok {
		return Partition{}, invalidf("partition", "%q has no billing rule", name)
	}
	return p.clone(), nil
}

// JobStart is a job about to start, as a scheduler knows it.
type JobStart struct {
	Job       JobID
	UID       uint32
	Account   string
	Partition string
	Usage     Usage
	// TimeLimit is required: the pre-debit is the SU over it (the HADM paper's
	// mandate that every job carries a finite limit).
	TimeLimit time.Duration
	Comment   string
}

// Charge is the pre-debit a job start would make: its partition's
// resource type, billing rate and maximum SU.
func (l *Ledger) Charge(j JobStart) (PreDebitRequest, error) {
	if j.TimeLimit <= 0 {
		return PreDebitRequest{}, invalidf("time_limit", "job %d has none; allocation billing needs a finite limit", j.Job)
	}
	p, err := l.Partition(j.Partition)
	if err != nil {
		return PreDebitRequest{}, err
	}
	rate, err := p.Rate(j.Usage)
	if err != nil {
		return PreDebitRequest{}, err
	}
	amount, err := serviceUnitsRate(rate, j.TimeLimit)
	if err != nil {
		return PreDebitRequest{}, err
	}
	return PreDebitRequest{Job: j.Job, UID: j.UID, Account: j.Account, Resource: p.Resource,
		Amount: amount, Rate: rate, Comment: j.Comment}, nil
}

// PreDebitJob pre-debits a starting job's maximum SU against the
// allocation of its account and partition's resource active at now. A
// balance too small refuses it with an *InsufficientError (and a Failure
// record). Retrying it changes nothing.
func (l *Ledger) PreDebitJob(ctx context.Context, j JobStart, now time.Time) (Job, error) {
	r, err := l.Charge(j)
	if err != nil {
		return Job{}, err
	}
	return l.PreDebit(ctx, r, now)
}

// CompleteJob resolves a job's pre-debit from its elapsed time: the
// actual SU is debited against the allocation pre-debited (the earlier
// one for a job straddling two periods), the rest returns, and a node
// failure bills nothing. Retrying it changes nothing.
func (l *Ledger) CompleteJob(ctx context.Context, id JobID, elapsed time.Duration, outcome Outcome, now time.Time) (Job, error) {
	return l.Complete(ctx, Completion{Job: id, Elapsed: elapsed, Outcome: outcome}, now)
}

// SiteFactors is a snapshot of every active allocation's credit and
// expiry for the site factor; take one per scheduling pass.
type SiteFactors struct {
	shape      Shape
	partitions map[string]Partition
	allocs     map[siteKey]siteEntry
	latestEnd  time.Time
}

type siteKey struct {
	account  string
	resource Resource
}

type siteEntry struct {
	fCredit    float64
	start, end time.Time
}

// SiteFactors reads the allocations active at now and their balances; a
// nil shape is the plain product, PowerRule{NCredit: 1, NTemporal: 1}.
func (l *Ledger) SiteFactors(ctx context.Context, shape Shape, now time.Time) (*SiteFactors, error) {
	if shape == nil {
		shape = PowerRule{NCredit: 1, NTemporal: 1}
	}
	projects, err := l.Projects(ctx)
	if err != nil {
		return nil, err
	}
	account := make(map[ProjectID]string, len(projects))
	for _, p := range projects {
		account[p.ID] = p.Account
	}
	allocs, err := l.Allocations(ctx)
	if err != nil {
		return nil, err
	}
	sf := &SiteFactors{shape: shape, partitions: l.partitions, allocs: map[siteKey]siteEntry{}}
	for _, a := range allocs {
		if !a.Active(now) {
			continue
		}
		b, err := l.Balance(ctx, a.ID)
		if err != nil {
			return nil, fmt.Errorf("allocation %d: %w", a.ID, err)
		}
		sf.allocs[siteKey{account[a.Project], a.Resource}] = siteEntry{fCredit: FCredit(b.Used(), b.Credits), start: a.Start, end: a.End}
		if a.End.After(sf.latestEnd) {
			sf.latestEnd = a.End
		}
	}
	return sf, nil
}

// SiteFactor is the site factor of an account's jobs in a partition, with
// the two inputs it combines (the HADM paper's f_credit and f_temporal).
type SiteFactor struct {
	Account   string   `json:"account"`
	Partition string   `json:"partition"`
	Resource  Resource `json:"resource"`
	FCredit   float64  `json:"f_credit"`
	FTemporal float64  `json:"f_temporal"`
	Factor    float64  `json:"factor"`
}

// Of is the site factor of the account's jobs in the partition at now;
// false when the partition bills nothing or the account has no
// allocation of its resource active at now (Factor then gives 0), or sf
// is nil.
func (sf *SiteFactors) Of(account, partition string, now time.Time) (SiteFactor, bool) {
	if sf == nil { // no snapshot: no factor
		return SiteFactor{}, false
	}
	p, ok := sf.partitions[partition]
	if !ok {
		return SiteFactor{}, false
	}
	e, ok := sf.allocs[siteKey{account, p.Resource}]
	if !ok || now.Before(e.start) || !now.Before(e.end) {
		return SiteFactor{}, false
	}
	ft := FTemporal(e.end.Sub(now), sf.latestEnd.Sub(now))
	return SiteFactor{Account: account, Partition: partition, Resource: p.Resource, FCredit: e.fCredit, FTemporal: ft,
		Factor: sf.shape.Combine(e.fCredit, ft)}, true
}

// Factor is the site factor of a job at now: the shape applied to the
// f_credit and f_temporal of the allocation its account and partition
// bill; 0 when none is active. Its signature is queue.Multifactor's
// site factor.
func (sf *SiteFactors) Factor(job *queue.Job, now time.Time) float64 {
	if job == nil {
		return 0
	}
	f, _ := sf.Of(job.Account, job.Partition, now)
	return f.Factor
}
