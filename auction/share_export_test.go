package auction

// Unshared makes pl ask every job's offer and room tables on their own,
// as if no two jobs were alike: the path the shared one must decide as.
func Unshared(pl *Planner) *Planner {
	pl.unshared = true
	return pl
}

// CheckProblems makes pl validate every use of the problems it makes, as
// Problem.Validate does, where it would skip them as valid by
// construction.
func CheckProblems(pl *Planner) *Planner {
	pl.checkProblems = true
	return pl
}
