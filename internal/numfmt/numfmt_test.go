package numfmt

import "testing"

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
