package tpcc

import (
	"math/rand/v2"
	"strconv"
)

// Cardinalities of clause 1.2 and 4.3.3.1.
const (
	itemsCount            = 100_000
	districtsPerWarehouse = 10
	customersPerDistrict  = 3_000
	ordersPerDistrict     = 3_000
	stockPerWarehouse     = itemsCount
	// newOrdersFrom is the first of the 900 undelivered orders per district
	// (orders 2 101–3 000 have a new_order row, no carrier and no delivery date).
	newOrdersFrom = 2_101
)

// cConstants are the C values of NURand (clause 2.1.6): one set for the load
// and one for the run, whose C for last names must differ from the load's by
// 65–119 but not 96 or 112 (clause 2.1.6.1), so that the run's last names
// are not the load's distribution replayed.
type cConstants struct {
	last, id, item int64
}

// loadConstants are drawn from the data's seed: a resumed load uses the same.
func loadConstants(seed uint64) cConstants {
	r := rand.New(rand.NewPCG(seed, 0xc0))
	return cConstants{last: r.Int64N(256), id: r.Int64N(1024), item: r.Int64N(8192)}
}

// runConstants draws a run's C values against the load's (clause 2.1.6.1).
func runConstants(load cConstants, r *rand.Rand) cConstants {
	for {
		c := r.Int64N(256)
		d := c - load.last
		if d < 0 {
			d = -d
		}
		if d >= 65 && d <= 119 && d != 96 && d != 112 {
			return cConstants{last: c, id: r.Int64N(1024), item: r.Int64N(8192)}
		}
	}
}

// between returns a uniform integer in [lo, hi].
func between(r *rand.Rand, lo, hi int64) int64 { return lo + r.Int64N(hi-lo+1) }

// nuRand is NURand(A, x, y) of clause 2.1.6.
func nuRand(r *rand.Rand, a, c, x, y int64) int64 {
	return ((between(r, 0, a)|between(r, x, y))+c)%(y-x+1) + x
}

const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// aString appends a random alphanumeric string of length lo–hi (clause 4.3.2.2).
func aString(b []byte, r *rand.Rand, lo, hi int64) []byte {
	n := between(r, lo, hi)
	for i := int64(0); i < n; i++ {
		b = append(b, alnum[r.IntN(len(alnum))])
	}
	return b
}

// nString appends a random numeric string of length n.
func nString(b []byte, r *rand.Rand, n int) []byte {
	for i := 0; i < n; i++ {
		b = append(b, byte('0'+r.IntN(10)))
	}
	return b
}

// dataString is i_data or s_data: 26–50 characters, of which 10 % hold
// "ORIGINAL" at a random position (clause 4.3.3.1).
func dataString(r *rand.Rand) string {
	b := aString(make([]byte, 0, 50), r, 26, 50)
	if r.IntN(10) == 0 {
		at := r.IntN(len(b) - 8 + 1)
		copy(b[at:], "ORIGINAL")
	}
	return string(b)
}

// zip is 4 random digits followed by "11111" (clause 4.3.2.7).
func zip(r *rand.Rand) string { return string(nString(make([]byte, 0, 9), r, 4)) + "11111" }

var syllables = [...]string{"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"}

// lastName is C_LAST for a number 0–999 (clause 4.3.2.3).
func lastName(n int64) string {
	return syllables[n/100] + syllables[n/10%10] + syllables[n%10]
}

// money formats cents as an exact decimal with two places.
func money(cents int64) string {
	neg := cents < 0
	if neg {
		cents = -cents
	}
	s := strconv.FormatInt(cents/100, 10) + "." + string(byte('0'+cents/10%10)) + string(byte('0'+cents%10))
	if neg {
		return "-" + s
	}
	return s
}

// rate formats ten-thousandths as a decimal with four places (w_tax, d_tax, c_discount).
func rate(tenThousandths int64) string {
	s := strconv.FormatInt(10000+tenThousandths, 10) // "10500" for 500: the digits after the point
	return "0." + s[1:]
}
