package topology

// frame is one switch on the explicit stack of a depth-first walk, with
// the next child to visit. The walks are iterative so that a chain of
// millions of switches needs no deep call stack.
type frame struct{ sw, next int }

// levels assigns levels bottom-up and finds the roots; a switch reached
// again while its own subtree is being visited is on a cycle.
func (t *Tree) levels() error {
	state := make([]uint8, len(t.Switches)) // 0 new, 1 visiting, 2 done
	var stack []frame
	for start := range t.Switches {
		if state[start] != 0 {
			continue
		}
		stack = append(stack[:0], frame{start, 0})
		state[start] = 1
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			sw := &t.Switches[f.sw]
			if f.next < len(sw.Children) {
				c := sw.Children[f.next]
				f.next++
				switch state[c] {
				case 1:
					return errSwitchAt(&t.Switches[c], "switch %s is on a cycle", t.Switches[c].Name)
				case 0:
					state[c] = 1
					stack = append(stack, frame{c, 0})
				}
				continue
			}
			sw.Level = 0
			for _, c := range sw.Children {
				sw.Level = max(sw.Level, t.Switches[c].Level+1)
			}
			state[f.sw] = 2
			stack = stack[:len(stack)-1]
		}
	}
	for i := range t.Switches {
		if t.Switches[i].Parent < 0 {
			t.Roots = append(t.Roots, i)
		}
		t.MaxLevel = max(t.MaxLevel, t.Switches[i].Level)
	}
	t.byLevel = make([][]int, t.MaxLevel+1)
	for i := range t.Switches {
		l := t.Switches[i].Level
		t.byLevel[l] = append(t.byLevel[l], i)
	}
	if len(t.Switches) > 0 && len(t.Roots) == 0 {
		return &Error{Msg: "every switch has a parent: the switches form a cycle"}
	}
	return nil
}

func errSwitchAt(sw *Switch, format string, args ...any) *Error {
	return errSwitch(&SwitchSpec{Name: sw.Name, Pos: sw.Pos}, format, args...)
}

// walk numbers the switches depth first from each root, lists the leaves
// in that order once (every switch's Leaves is a window on the list, as a
// subtree's leaves are consecutive), counts the nodes below each switch and
// builds each leaf's sparse membership words.
func (t *Tree) walk() {
	order := make([]int, 0, len(t.Switches))
	first := make([]int, len(t.Switches)) // where each switch's leaves start in order
	last := make([]int, len(t.Switches))  // and end
	clock := 0
	var stack []frame
	enter := func(s int) {
		t.Switches[s].pre, first[s] = clock, len(order)
		clock++
		stack = append(stack, frame{s, 0})
	}
	for _, r := range t.Roots {
		enter(r)
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			sw := &t.Switches[f.sw]
			if f.next < len(sw.Children) {
				f.next++
				enter(sw.Children[f.next-1])
				continue
			}
			if len(sw.Children) == 0 {
				order = append(order, f.sw)
				t.setLeafWords(sw)
			}
			for _, c := range sw.Children {
				sw.count += t.Switches[c].count
			}
			sw.post, last[f.sw] = clock, len(order)
			clock++
			stack = stack[:len(stack)-1]
		}
	}
	for i := range t.Switches {
		t.Switches[i].Leaves = order[first[i]:last[i]:last[i]]
	}
}

func (t *Tree) setLeafWords(sw *Switch) {
	sw.count = len(sw.nodes)
	for _, n := range sw.nodes {
		k := n / 64
		if len(sw.wordIx) == 0 || sw.wordIx[len(sw.wordIx)-1] != k {
			sw.wordIx = append(sw.wordIx, k)
			sw.bits = append(sw.bits, 0)
		}
		sw.bits[len(sw.bits)-1] |= 1 << (uint(n) % 64)
	}
}
