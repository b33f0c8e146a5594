package auction

// Unshared makes pl ask every job's offer and room tables on their own,
// as if no two jobs were alike: the path the shared one must decide as.
func Unshared(pl *Planner) *Planner {
	pl.unshared = true
	return pl
}
