package allocation

import (
	"math"
	"time"
)

// FCredit is the HADM paper's f_credit = 1 - used/granted, clamped to [0, 1];
// an allocation granted nothing scores 0.
func FCredit(used, granted int64) float64 {
	if granted <= 0 {
		return 0
	}
	return clamp01(1 - float64(used)/float64(granted))
}

// FTemporal is the HADM paper's f_temporal = 1 - untilExpiry/longest, where
// longest is the longest time to expiry over all active allocations; it
// approaches 1 as the allocation nears its end. Clamped to [0, 1]; 0 when
// longest is not positive.
func FTemporal(untilExpiry, longest time.Duration) float64 {
	if longest <= 0 {
		return 0
	}
	return clamp01(1 - float64(untilExpiry)/float64(longest))
}

// Shape combines f_credit and f_temporal into a site factor in [0, 1].
type Shape interface {
	Combine(fCredit, fTemporal float64) float64
}

// PowerRule is the HADM paper's asymmetric power rule f_c^NCredit x
// f_t^NTemporal; NCredit = NTemporal = 1 is the plain product. Exponents
// are non-negative (a negative one is treated as 0).
type PowerRule struct {
	NCredit, NTemporal float64
}

// Combine is f_c^NCredit x f_t^NTemporal, each factor clamped to [0, 1].
func (p PowerRule) Combine(fc, ft float64) float64 {
	return clamp01(power(clamp01(fc), p.NCredit) * power(clamp01(ft), p.NTemporal))
}

// power is x^n with the integer cases the HADM paper suggests done without Pow.
func power(x, n float64) float64 {
	switch {
	case n <= 0:
		return 1
	case n == 1:
		return x
	case n == 2:
		return x * x
	}
	return math.Pow(x, n)
}

// Sigmoid is the HADM paper's normalised logistic function with transition rate
// L >= 0 and midpoint X0 in [0, 1]:
//
//	S(x) = (e^(Lx) - 1)(e^L + e^(L X0)) / ((e^L - 1)(e^(Lx) + e^(L X0)))
//
// so S(0) = 0 and S(1) = 1. L = 0 is the limit S(x) = x; a large L is a
// step at X0. A negative L is treated as 0.
type Sigmoid struct {
	L, X0 float64
}

// At evaluates S at x (clamped to [0, 1]). It is computed in the form
// (1-e^(-Lx))(1+e^(-L(1-X0))) / ((1-e^(-L))(1+e^(L(X0-x)))), equal to
// the HADM paper's but free of overflow for any L.
func (s Sigmoid) At(x float64) float64 {
	x = clamp01(x)
	if s.L <= 1e-9 || math.IsNaN(s.L) {
		return x
	}
	l, x0 := s.L, s.X0
	num := -math.Expm1(-l*x) * (1 + math.Exp(-l*(1-x0)))
	den := -math.Expm1(-l) * (1 + math.Exp(l*(x0-x)))
	return clamp01(num / den)
}

// SigmoidPair is the HADM paper's sigmoid site factor S_c(f_c) x S_t(f_t), each
// factor with its own L and X0 (Figure 6: Credit{5, 0.25}, Temporal{50,
// 0.75}).
type SigmoidPair struct {
	Credit, Temporal Sigmoid
}

// Combine is S_c(f_c) x S_t(f_t), clamped to [0, 1].
func (s SigmoidPair) Combine(fc, ft float64) float64 {
	return clamp01(s.Credit.At(fc) * s.Temporal.At(ft))
}

func clamp01(x float64) float64 {
	switch {
	case x < 0 || math.IsNaN(x):
		return 0
	case x > 1:
		return 1
	}
	return x
}
