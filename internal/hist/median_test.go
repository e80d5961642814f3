package hist

import (
	"reflect"
	"testing"
)

func TestMedian(t *testing.T) {
	cases := []struct {
		in   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{}, 0},
		{[]float64{7}, 7},
		{[]float64{3, 1, 2}, 2},
		{[]float64{100, 1, 5, 2, 90}, 5},
		{[]float64{4, 1}, 2.5},
		{[]float64{10, 40, 20, 30}, 25},
		{[]float64{1, 1, 1, 1000}, 1},
	}
	for _, c := range cases {
		in := append([]float64(nil), c.in...)
		if got := Median(c.in); got != c.want {
			t.Errorf("Median(%v) = %v, want %v", in, got, c.want)
		}
		if !reflect.DeepEqual(in, c.in) && len(in) > 0 {
			t.Errorf("Median reordered its input: %v, was %v", c.in, in)
		}
	}
}
