package tpcc

import (
	"math/rand/v2"
	"strconv"
)

// rnd holds a client's or a loader chunk's random state and TPC-C's random
// functions (clause 4.3.2).
type rnd struct {
	*rand.Rand
	c nurandC
}

// nurandC are the C constants of NURand (clause 2.1.6): one per A.
type nurandC struct {
	last, id, item int // A = 255 (C_LAST), 1023 (C_ID), 8191 (OL_I_ID)
}

func newRnd(seed int64, c nurandC) *rnd {
	return &rnd{Rand: rand.New(rand.NewPCG(uint64(seed), 0x7c_c0)), c: c}
}

// between returns a uniform integer in [lo, hi].
func (r *rnd) between(lo, hi int) int { return lo + r.IntN(hi-lo+1) }

// nurand is NURand(A, x, y) = (((random(0, A) | random(x, y)) + C) % (y − x + 1)) + x.
func (r *rnd) nurand(a, x, y int) int {
	var c int
	switch a {
	case 255:
		c = r.c.last
	case 1023:
		c = r.c.id
	default:
		c = r.c.item
	}
	return ((r.between(0, a)|r.between(x, y))+c)%(y-x+1) + x
}

// money returns a uniform amount in [lo, hi] in cents, as a float64 of
// units with two decimals.
func (r *rnd) money(lo, hi int) float64 { return float64(r.between(lo, hi)) / 100 }

const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// astring is a random alphanumeric string of a length in [lo, hi].
func (r *rnd) astring(lo, hi int) string {
	b := make([]byte, r.between(lo, hi))
	for i := range b {
		b[i] = alnum[r.IntN(len(alnum))]
	}
	return string(b)
}

// nstring is a random numeric string of a length in [lo, hi].
func (r *rnd) nstring(lo, hi int) string {
	b := make([]byte, r.between(lo, hi))
	for i := range b {
		b[i] = byte('0' + r.IntN(10))
	}
	return string(b)
}

// data is I_DATA or S_DATA: 26–50 characters, 10 % holding "ORIGINAL".
func (r *rnd) data() string {
	s := r.astring(26, 50)
	if r.IntN(10) == 0 {
		at := r.IntN(len(s) - 8 + 1)
		s = s[:at] + "ORIGINAL" + s[at+8:]
	}
	return s
}

// zip is 4 random digits and "11111".
func (r *rnd) zip() string { return r.nstring(4, 4) + "11111" }

var syllables = [10]string{"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"}

// lastName is C_LAST for a number in [0, 999] (clause 4.3.2.3).
func lastName(n int) string {
	return syllables[n/100] + syllables[n/10%10] + syllables[n%10]
}

// runLastName picks the last name of a customer to find by name: NURand over
// the names the data set has (all 1000 at full scale).
func (r *rnd) runLastName(customers int) string {
	return lastName(r.nurand(255, 0, min(999, customers-1)))
}

// cRun picks C_LAST's run-time constant from the load-time one: the
// difference must lie in [65, 119] and not be 96 or 112 (clause 2.1.6.1).
func cRun(cLoad int, r *rand.Rand) int {
	for {
		delta := 65 + r.IntN(55)
		if delta == 96 || delta == 112 {
			continue
		}
		if c := cLoad - delta; c >= 0 {
			return c
		}
		return cLoad + delta
	}
}

// validCRun tells whether cRun is a valid run-time C_LAST for cLoad.
func validCRun(cLoad, cRun int) bool {
	d := cLoad - cRun
	if d < 0 {
		d = -d
	}
	return d >= 65 && d <= 119 && d != 96 && d != 112 && cRun >= 0 && cRun <= 255
}

func itoa(n int) string { return strconv.Itoa(n) }
