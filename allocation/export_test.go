package allocation

// SetFailAt makes m's persistence fail at the named step ("write", "sync",
// "close", "rename", "syncdir"), as a crash there would; nil clears it.
func SetFailAt(m *MemStore, f func(step string) error) { m.failAt = f }
