package slurmconf

import "strings"

// defaultSet holds the Extra pairs of DEFAULT lines: one per key (a later
// DEFAULT line overrides an earlier one key by key), in the order last
// given. Overriding marks the old slot dead instead of searching and
// copying, so merging costs O(1) per pair however long the lines are.
type defaultSet struct {
	pairs []Pair // dead slots have an empty Key
	index map[string]int
	dead  int
}

func (d *defaultSet) add(p Pair) {
	if d.index == nil {
		d.index = map[string]int{}
	}
	k := strings.ToLower(p.Key)
	if i, ok := d.index[k]; ok {
		d.pairs[i].Key = ""
		d.dead++
	}
	d.index[k] = len(d.pairs)
	d.pairs = append(d.pairs, p)
	if d.dead > len(d.pairs)/2 {
		d.compact()
	}
}

func (d *defaultSet) compact() {
	live := d.pairs[:0]
	for _, p := range d.pairs {
		if p.Key != "" {
			d.index[strings.ToLower(p.Key)] = len(live)
			live = append(live, p)
		}
	}
	clear(d.pairs[len(live):])
	d.pairs, d.dead = live, 0
}

func (d *defaultSet) len() int { return len(d.pairs) - d.dead }

// appendTo appends the live pairs to dst.
func (d *defaultSet) appendTo(dst []Pair) []Pair {
	for _, p := range d.pairs {
		if p.Key != "" {
			dst = append(dst, p)
		}
	}
	return dst
}

// inherit gives a record built from a DEFAULT template its own copy of the
// template's Extra pairs, counted against the budget.
func inherit(b *budget, d *defaultSet, pos Pos) ([]Pair, error) {
	if d.len() == 0 {
		return nil, nil
	}
	if err := b.inherit(d.len(), pos); err != nil {
		return nil, err
	}
	return d.appendTo(make([]Pair, 0, d.len())), nil
}

// keep files an unmodelled pair: a template keeps it in d, where a later
// DEFAULT line can override it; a record appends it to its own extra.
func (d *defaultSet) keep(b *budget, extra *[]Pair, p Pair, template bool) error {
	if err := b.keep(1, p.Pos); err != nil {
		return err
	}
	if template {
		d.add(p)
		return nil
	}
	*extra = append(*extra, p)
	return nil
}

// applier is a record being built, a template or a line.
type applier interface {
	apply(b *budget, p Pair, template bool) error
}

// applyAll applies pairs in order, stopping at the first error.
func applyAll(b *budget, a applier, pairs []Pair, template bool) error {
	for _, p := range pairs {
		if err := a.apply(b, p, template); err != nil {
			return err
		}
	}
	return nil
}
