package allocation

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// seedSigmoid is the HADM paper's closed form, evaluated directly.
func seedSigmoid(x, l, x0 float64) float64 {
	return (math.Exp(l*x) - 1) * (math.Exp(l) + math.Exp(l*x0)) / ((math.Exp(l) - 1) * (math.Exp(l*x) + math.Exp(l*x0)))
}

func TestSigmoidEndpointsAndSeedForm(t *testing.T) {
	for _, l := range []float64{0, 0.001, 0.5, 1, 5, 20, 50, 700, 5000} {
		for _, x0 := range []float64{0, 0.25, 0.5, 0.75, 1} {
			s := Sigmoid{L: l, X0: x0}
			require.InDelta(t, 0, s.At(0), 1e-12, "S(0) l=%v x0=%v", l, x0)
			require.InDelta(t, 1, s.At(1), 1e-12, "S(1) l=%v x0=%v", l, x0)
			prev := 0.0
			for x := 0.0; x <= 1; x += 1.0 / 64 {
				v := s.At(x)
				require.GreaterOrEqual(t, v, prev-1e-12, "monotone l=%v x0=%v x=%v", l, x0, x)
				prev = v
				if l >= 0.5 && l <= 50 {
					require.InDelta(t, seedSigmoid(x, l, x0), v, 1e-9, "l=%v x0=%v x=%v", l, x0, x)
				}
			}
		}
	}
}

func TestSigmoidLimits(t *testing.T) {
	require.InDelta(t, 0.3, Sigmoid{L: 0, X0: 0.5}.At(0.3), 1e-12) // l -> 0 is the identity
	step := Sigmoid{L: 5000, X0: 0.75}
	require.InDelta(t, 0, step.At(0.7), 1e-9)
	require.InDelta(t, 1, step.At(0.8), 1e-9)
	require.Equal(t, 1.0, step.At(7)) // clamped
	require.Equal(t, 0.0, step.At(math.NaN()))
}

func TestFigure6UntilThreeQuartersCreditDoesNotMatter(t *testing.T) {
	shape := SigmoidPair{Credit: Sigmoid{L: 5, X0: 0.25}, Temporal: Sigmoid{L: 50, X0: 0.75}}
	early := []float64{shape.Combine(0.05, 0.5), shape.Combine(0.95, 0.5)}
	require.Less(t, early[1]-early[0], 1e-4, "at half the period credit barely matters")
	late := []float64{shape.Combine(0.05, 0.95), shape.Combine(0.95, 0.95)}
	require.Greater(t, late[1]-late[0], 0.5, "near expiry credit matters")
}

func TestPowerRule(t *testing.T) {
	sq := PowerRule{NCredit: 2, NTemporal: 2}
	require.InDelta(t, 4*sq.Combine(0.25, 1), sq.Combine(0.5, 1), 1e-12, "twice the unused credit, four times the priority")
	asym := PowerRule{NCredit: 0.5, NTemporal: 3}
	require.InDelta(t, math.Sqrt(0.64)*0.125, asym.Combine(0.64, 0.5), 1e-12)
	require.Equal(t, 1.0, PowerRule{}.Combine(0.1, 0.1), "zero exponents")
	for _, fc := range []float64{-1, 0, 0.3, 1, 2} {
		v := asym.Combine(fc, fc)
		require.True(t, v >= 0 && v <= 1)
	}
}

func TestFCreditAndFTemporal(t *testing.T) {
	require.Equal(t, 0.95, FCredit(5, 100))
	require.Equal(t, 0.0, FCredit(150, 100))
	require.Equal(t, 0.0, FCredit(1, 0))
	require.Equal(t, 1.0, FCredit(0, 100))
	require.Equal(t, 0.0, FTemporal(10*time.Hour, 10*time.Hour), "the latest to expire")
	require.Equal(t, 0.75, FTemporal(time.Hour, 4*time.Hour))
	require.Equal(t, 0.0, FTemporal(time.Hour, 0))
}
