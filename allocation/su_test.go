package allocation

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestServiceUnitsRoundUpCoreMinutes(t *testing.T) {
	for _, tc := range []struct {
		units   int64
		elapsed time.Duration
		want    int64
	}{
		{1, 0, 0},
		{1, 55 * time.Second, 1}, // the HADM paper: 55 core-seconds bill one core-minute
		{1, 60 * time.Second, 1},
		{1, 61 * time.Second, 2},
		{1, 1500 * time.Millisecond, 1}, // partial seconds count as a second
		{2, 30 * time.Second, 1},        // 60 core-seconds
		{2, 31 * time.Second, 2},        // 62 core-seconds
		{64, time.Hour, 3840},
		{4, 24 * time.Hour, 5760},
	} {
		got, err := ServiceUnits(tc.units, tc.elapsed)
		require.NoError(t, err)
		require.Equal(t, tc.want, got, "%d units for %s", tc.units, tc.elapsed)
	}
}

func TestServiceUnitsRejectsBadInput(t *testing.T) {
	_, err := ServiceUnits(-1, time.Second)
	require.ErrorIs(t, err, ErrInvalid)
	_, err = ServiceUnits(1, -time.Second)
	require.ErrorIs(t, err, ErrInvalid)
	_, err = ServiceUnits(math.MaxInt64, time.Second)
	require.ErrorIs(t, err, ErrOverflow)
	_, err = ServiceUnits(math.MaxInt64/micro, math.MaxInt64)
	require.ErrorIs(t, err, ErrOverflow)
	// The largest representable still works: 1e12 cores for 1e6 s.
	got, err := ServiceUnits(1_000_000_000_000, 1_000_000*time.Second)
	require.NoError(t, err)
	require.Equal(t, int64(1_000_000_000_000*1_000_000/60)+1, got)
}

// Seed 002: on a 64-core, 128 GiB node with weights CPU 1.0 and MemGiB 0.5,
// (1 core, 64 GiB) bills exactly like (32 cores, 1 GiB).
func TestMaxTRESSeedExample(t *testing.T) {
	p := Partition{Resource: CPU, Weights: &Weights{CPU: 1, MemGiB: 0.5}}
	memHeavy, err := p.Charge(Usage{CPUs: 1, MemoryMB: 64 * 1024}, time.Hour)
	require.NoError(t, err)
	cpuHeavy, err := p.Charge(Usage{CPUs: 32, MemoryMB: 1024}, time.Hour)
	require.NoError(t, err)
	require.Equal(t, int64(32*60), memHeavy)
	require.Equal(t, memHeavy, cpuHeavy)
	whole, err := p.Charge(Usage{CPUs: 64, MemoryMB: 128 * 1024}, time.Hour)
	require.NoError(t, err)
	require.Equal(t, 2*memHeavy, whole)

	// The GPU node: 64 cores, 128 GiB, 4 GPUs; weights 0.0625, 0.03125, 1.
	g := Partition{Resource: GPU, Weights: &Weights{CPU: 0.0625, MemGiB: 0.03125, GPU: 1}}
	for _, u := range []Usage{{CPUs: 16, GPUs: 0}, {MemoryMB: 32 * 1024}, {CPUs: 1, GPUs: 1}} {
		su, err := g.Charge(u, time.Hour)
		require.NoError(t, err)
		require.Equal(t, int64(60), su, "%+v is a quarter node: one GPU-hour", u)
	}
}

func TestPartitionWithoutWeightsBillsItsResource(t *testing.T) {
	cpu, gpu := Partition{Resource: CPU}, Partition{Resource: GPU}
	u := Usage{CPUs: 8, MemoryMB: 1 << 20, GPUs: 2}
	su, err := cpu.Charge(u, 10*time.Minute)
	require.NoError(t, err)
	require.Equal(t, int64(80), su)
	su, err = gpu.Charge(u, 10*time.Minute)
	require.NoError(t, err)
	require.Equal(t, int64(20), su)
	_, err = cpu.Charge(Usage{CPUs: -1}, time.Minute)
	require.ErrorIs(t, err, ErrInvalid)
	bad := Partition{Resource: CPU, Weights: &Weights{CPU: math.NaN()}}
	_, err = bad.Charge(u, time.Minute)
	require.ErrorIs(t, err, ErrInvalid)
	for _, w := range []Weights{{CPU: 1, MemGiB: 4e-7}, {CPU: 1e-7}, {GPU: 4.9e-7}} {
		// A positive weight that rounds to 0 millionths would bill nothing.
		tiny := Partition{Resource: CPU, Weights: &w}
		_, err = tiny.Charge(Usage{CPUs: 4, MemoryMB: 1 << 20, GPUs: 1}, time.Hour)
		require.ErrorIs(t, err, ErrInvalid, "%+v", w)
	}
	smallest := Partition{Resource: CPU, Weights: &Weights{MemGiB: 5e-7}} // rounds to 1 millionth
	su, err = smallest.Charge(Usage{MemoryMB: 1 << 20}, time.Hour)
	require.NoError(t, err)
	require.Equal(t, int64(1), su) // 1024 GiB x 1e-6 x 60 min, rounded up
	huge := Partition{Resource: CPU, Weights: &Weights{CPU: 1e12}}
	_, err = huge.Charge(Usage{CPUs: math.MaxInt64}, time.Minute)
	require.True(t, errors.Is(err, ErrOverflow) || errors.Is(err, ErrInvalid), "got %v", err)
}

// Property: the charge grows with elapsed time and never undercounts the
// exact core-minutes.
func TestChargeMonotoneAndNeverUnder(t *testing.T) {
	p := Partition{Resource: CPU, Weights: &Weights{CPU: 1, MemGiB: 0.25}}
	u := Usage{CPUs: 3, MemoryMB: 20 * 1024}
	prev := int64(0)
	for s := 0; s < 5000; s += 7 {
		su, err := p.Charge(u, time.Duration(s)*time.Second)
		require.NoError(t, err)
		require.GreaterOrEqual(t, su, prev)
		exact := float64(5*s) / 60 // max(3, 20*0.25) = 5 units
		require.GreaterOrEqual(t, float64(su), exact)
		require.Less(t, float64(su), exact+1)
		prev = su
	}
}
