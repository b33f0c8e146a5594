//go:build race

package federation

// raceEnabled: the race detector slows the property tests about tenfold,
// so they run fewer steps under it.
const raceEnabled = true
