package allocation

import (
	"math"
	"math/bits"
	"time"
)

// micro is the fixed-point scale of billing rates and weights: rates are
// kept in millionths of a core (or GPU) so MAX_TRES weights such as
// 0.03125 are exact and SU stay integers (the HADM paper avoids floating-point
// balances for the sake of an exact zero).
const micro = 1_000_000

// ServiceUnits is the SU for units cores (or GPUs) over elapsed:
// core-minutes rounded up from core-seconds, so 55 core-seconds bill 1
// and 61 bill 2. Elapsed is counted in whole seconds, rounded up, as the
// scheduler accounts it. Negative inputs are ErrInvalid; a result above
// int64 is ErrOverflow.
func ServiceUnits(units int64, elapsed time.Duration) (int64, error) {
	if units < 0 {
		return 0, invalidf("units", "%d is negative", units)
	}
	if units > math.MaxInt64/micro {
		return 0, ErrOverflow
	}
	return serviceUnitsRate(units*micro, elapsed)
}

// serviceUnitsRate is ceil(rate x seconds / (60 x micro)) in 128-bit
// arithmetic.
func serviceUnitsRate(rate int64, elapsed time.Duration) (int64, error) {
	if rate < 0 || elapsed < 0 {
		return 0, invalidf("elapsed", "negative rate %d or elapsed %s", rate, elapsed)
	}
	secs := uint64(elapsed / time.Second)
	if elapsed%time.Second != 0 {
		secs++
	}
	return mulDivCeil(uint64(rate), secs, 60*micro)
}

// mulDivCeil is ceil(a x b / div) in 128-bit arithmetic, or ErrOverflow
// when it exceeds int64.
func mulDivCeil(a, b, div uint64) (int64, error) {
	hi, lo := bits.Mul64(a, b)
	if hi >= div { // the quotient would not fit in 64 bits
		return 0, ErrOverflow
	}
	q, r := bits.Div64(hi, lo, div)
	if r != 0 {
		q++
	}
	if q > math.MaxInt64 {
		return 0, ErrOverflow
	}
	return int64(q), nil
}

// Weights are a partition's TRES billing weights (Slurm's
// TRESBillingWeights) for MAX_TRES billing: a job bills the largest of
// CPUs x CPU, memory in GiB x MemGiB and GPUs x GPU. The HADM paper's CPU node
// (64 cores, 128 GiB) has CPU 1 and MemGiB 0.5; its GPU node (64 cores,
// 128 GiB, 4 GPUs) has CPU 0.0625, MemGiB 0.03125 and GPU 1. Weights are
// rounded to millionths (a positive weight that rounds to 0 is refused,
// ErrInvalid, when a job is charged). A weight of 0 bills nothing for its
// resource, so the zero Weights bill every job 0 SU: leave
// Partition.Weights nil to bill cores (or GPUs).
type Weights struct {
	CPU, MemGiB, GPU float64
}

// Usage is what a job requests: CPUs, memory in MiB (Slurm's MB) and GPUs,
// all totals over its nodes.
type Usage struct {
	CPUs     int64
	MemoryMB int64
	GPUs     int64
}

// Partition says what a partition bills: its resource type and, when
// Weights is set, MAX_TRES billing; without Weights a CPU partition bills
// CPUs and a GPU partition GPUs.
type Partition struct {
	Resource Resource
	Weights  *Weights
}

// clone is p with a Weights of its own, so a Ledger and its callers never
// share one.
func (p Partition) clone() Partition {
	if p.Weights != nil {
		w := *p.Weights
		p.Weights = &w
	}
	return p
}

// Rate is the partition's billable units for u in millionths: the cores
// or GPUs, or the MAX_TRES maximum of the weighted resources.
func (p Partition) Rate(u Usage) (int64, error) {
	if u.CPUs < 0 || u.MemoryMB < 0 || u.GPUs < 0 {
		return 0, invalidf("usage", "%+v has a negative count", u)
	}
	if p.Weights == nil {
		n := u.CPUs
		if p.Resource == GPU {
			n = u.GPUs
		}
		if n > math.MaxInt64/micro {
			return 0, ErrOverflow
		}
		return n * micro, nil
	}
	w := *p.Weights
	cpu, err1 := weighted(u.CPUs, w.CPU, 1)
	mem, err2 := weighted(u.MemoryMB, w.MemGiB, 1024)
	gpu, err3 := weighted(u.GPUs, w.GPU, 1)
	for _, err := range []error{err1, err2, err3} {
		if err != nil {
			return 0, err
		}
	}
	return max(cpu, mem, gpu), nil
}

// weighted is ceil(n x weight x micro / per) with the weight rounded to
// millionths.
func weighted(n int64, weight float64, per uint64) (int64, error) {
	if weight < 0 || math.IsNaN(weight) || weight > math.MaxInt64/micro {
		return 0, invalidf("weights", "billing weight %v is not a non-negative number", weight)
	}
	millionths := math.Round(weight * micro)
	if weight > 0 && millionths == 0 {
		// A weight meant to bill would bill nothing, as only 0 should.
		return 0, invalidf("weights", "billing weight %v rounds to 0 millionths", weight)
	}
	return mulDivCeil(uint64(n), uint64(millionths), per)
}

// Charge is the SU a job of usage u bills over elapsed on this partition.
func (p Partition) Charge(u Usage, elapsed time.Duration) (int64, error) {
	rate, err := p.Rate(u)
	if err != nil {
		return 0, err
	}
	return serviceUnitsRate(rate, elapsed)
}
