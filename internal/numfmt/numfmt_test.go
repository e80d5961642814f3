package numfmt

import (
	"math"
	"testing"
)

func TestRate(t *testing.T) {
	for f, want := range map[float64]string{0: "0.0", 999.94: "999.9", 1000: "1,000.0", 1234567.25: "1,234,567.2", -98765.4: "-98,765.4", 0.05: "0.1", 0.0123: "0.012", 0.00004: "0.000040", -0.01: "-0.010"} {
		if got := Rate(f); got != want {
			t.Errorf("Rate(%v) = %q, want %q", f, got, want)
		}
	}
}

func TestNumber(t *testing.T) {
	for _, c := range []struct {
		in   any
		want float64
	}{{int64(3), 3}, {float64(2.5), 2.5}, {"1e3", 1000}, {"x", 0}, {nil, 0}, {true, 0}, {uint64(7), 7}} {
		if got := Number(c.in); got != c.want {
			t.Errorf("Number(%#v) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestSignificant(t *testing.T) {
	for _, c := range []struct {
		f    float64
		want string
	}{{0.0634, "0.0634"}, {0.04, "0.0400"}, {0.000512345, "0.000512"}, {0.09996, "0.100"}, {1.2345, "1.23"}, {123.4, "123"},
		{12345.6, "12346"}, {0, "0"}, {-0.00123456, "-0.00123"}} {
		if got := Significant(c.f, 3); got != c.want {
			t.Errorf("Significant(%v, 3) = %q, want %q", c.f, got, c.want)
		}
	}
}

func TestWhole(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 300000: "300,000", -1234567: "-1,234,567"} {
		if got := Whole(n); got != want {
			t.Errorf("Whole(%d) = %q, want %q", n, got, want)
		}
	}
}

// Past 10^15 a float's digits are noise, and below 10^-9 its zeros fill a
// table: Rate and Significant write three significant digits and an
// exponent there, and in full between.
func TestHugeNumbersKeepThreeDigits(t *testing.T) {
	for _, c := range []struct {
		f          float64
		rate, sig3 string
	}{
		{math.MaxFloat64, "1.80e+308", "1.80e+308"},
		{-math.MaxFloat64, "-1.80e+308", "-1.80e+308"},
		{1e15, "1.00e+15", "1.00e+15"},
		{999_999_999_999_999, "999,999,999,999,999.0", "999999999999999"},
		{1e12, "1,000,000,000,000.0", "1000000000000"},
		{math.SmallestNonzeroFloat64, "4.94e-324", "4.94e-324"},
		{2e-9, "0.0000000020", "0.00000000200"},
	} {
		if got := Rate(c.f); got != c.rate {
			t.Errorf("Rate(%g) = %q, want %q", c.f, got, c.rate)
		}
		if got := Significant(c.f, 3); got != c.sig3 {
			t.Errorf("Significant(%g, 3) = %q, want %q", c.f, got, c.sig3)
		}
	}
	for f, want := range map[float64]string{math.MaxFloat64: "1.80e+308", -1e15: "-1.00e+15", 12.345: "12.3", -1e14: "-100000000000000.0", math.Inf(1): "+Inf"} {
		if got := Fixed(f, 1); got != want {
			t.Errorf("Fixed(%g, 1) = %q, want %q", f, got, want)
		}
	}
}
