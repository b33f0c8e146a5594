package hostlist

import (
	"slices"
	"strconv"
	"strings"
)

// hostName is a name split around its last run of digits, the part a range
// can stand for.
type hostName struct {
	prefix, suffix string
	num            uint64
	width          int // digits as written, leading zeros included
	numeric        bool
}

func splitName(s string) hostName {
	end := len(s)
	for end > 0 && !isDigit(s[end-1]) {
		end--
	}
	start := end
	for start > 0 && isDigit(s[start-1]) {
		start--
	}
	if start == end || end-start > maxDigits {
		return hostName{prefix: s}
	}
	n, _ := strconv.ParseUint(s[start:end], 10, 64)
	return hostName{prefix: s[:start], suffix: s[end:], num: n, width: end - start, numeric: true}
}

// fits reports whether printing v at width reproduces a name of w digits;
// tux9 and tux10 share a width-1 range, tux09 and tux010 cannot.
func fits(v uint64, width, w int) bool {
	return max(digits(v), width) == w
}

// Compress writes hosts as a hostlist expression that expands back to the
// same names in the same order, like "scontrol show hostlist" without the
// sort: node01,node02,node03 becomes node[01-03]. Runs of consecutive
// numbers with the same prefix and suffix share a bracket group.
//
// Names containing '[', ']', ',' or white space cannot be represented and
// are written as they are; an empty name cannot be either, and is lost (an
// empty token expands to nothing). Compress never merges more than MaxRangeSize
// names into one range, so its output always parses; an output naming more
// than DefaultLimit hosts needs ExpandLimit.
func Compress(hosts []string) string {
	return CompressFunc(len(hosts), func(i int) string { return hosts[i] })
}

// CompressFunc is Compress over the n names name(0) ... name(n-1), for
// callers that keep names elsewhere than in a []string: a million names
// need not be copied into one to be compressed. name is called in order,
// a few times per name at most.
func CompressFunc(n int, name func(i int) string) string {
	var b strings.Builder
	for i := 0; i < n; {
		h := splitName(name(i))
		roomFor(&b, len(h.prefix)+len(h.suffix)+2*maxDigits+4)
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		if !h.numeric {
			b.WriteString(name(i))
			i++
			continue
		}
		j := i + 1
		for j < n {
			next := splitName(name(j))
			if !next.numeric || next.prefix != h.prefix || next.suffix != h.suffix {
				break
			}
			j++
		}
		writeGroup(&b, h, func(k int) string { return name(i + k) }, j-i)
		i = j
	}
	return b.String()
}

// roomFor makes room for n more bytes in b, doubling it when it is full:
// a Builder grows as append does, by a quarter once large, and a hostlist
// of a million runs written so costs five times its size in copies.
func roomFor(b *strings.Builder, n int) {
	if b.Cap()-b.Len() < n {
		b.Grow(max(n, b.Len()))
	}
}

// writeGroup writes names that share a prefix and suffix.
func writeGroup(b *strings.Builder, first hostName, name func(int) string, count int) {
	if count == 1 {
		b.WriteString(name(0))
		return
	}
	b.WriteString(first.prefix)
	b.WriteByte('[')
	for i := 0; i < count; {
		lo := splitName(name(i))
		hi := lo.num
		j := i + 1
		for j < count && hi-lo.num+1 < MaxRangeSize {
			n := splitName(name(j))
			if n.num != hi+1 || !fits(n.num, lo.width, n.width) {
				break
			}
			hi = n.num
			j++
		}
		roomFor(b, len(lo.prefix)+len(lo.suffix)+2*maxDigits+4)
		if i > 0 {
			b.WriteByte(',')
		}
		s := name(i)
		b.WriteString(s[len(lo.prefix) : len(s)-len(lo.suffix)])
		if hi != lo.num {
			b.WriteByte('-')
			var scratch [24]byte
			b.Write(appendPadded(scratch[:0], hi, lo.width))
		}
		i = j
	}
	b.WriteByte(']')
	b.WriteString(first.suffix)
}

// CompressSorted is Compress applied to a sorted copy of hosts (see Sort);
// it gives the shortest form for a set of names whose order does not matter.
func CompressSorted(hosts []string) string {
	s := slices.Clone(hosts)
	Sort(s)
	return Compress(s)
}

// Sort orders host names naturally: by prefix and suffix, then by number,
// so tux9 comes before tux10. Names without digits sort by their text.
func Sort(hosts []string) {
	slices.SortStableFunc(hosts, func(a, b string) int {
		x, y := splitName(a), splitName(b)
		if c := strings.Compare(x.prefix, y.prefix); c != 0 {
			return c
		}
		if c := strings.Compare(x.suffix, y.suffix); c != 0 {
			return c
		}
		if x.num != y.num {
			if x.num < y.num {
				return -1
			}
			return 1
		}
		return x.width - y.width
	})
}
