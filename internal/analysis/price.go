package analysis

// TargetPrice is what one target's declared price buys (price_per_hour in
// the study): per scenario the peak over its clients sweep and that peak per
// dollar, and, where the scenarios share a headline, their sum: the "total
// points" per server that published comparisons put beside its rental price.
type TargetPrice struct {
	Target       string
	PricePerHour float64
	Peaks        []*Peak   // one per scenario the target ran, in the groups' order
	PerDollar    []float64 // Peaks[i]'s value × 3600 / price (per headline unit), 0 for a time
	// Total sums the peaks where there are several and they are one rate
	// (same headline name and unit, higher is better); HasTotal says so.
	Total, TotalPerDollar float64
	HasTotal              bool
}

// Prices computes TargetPrice for every target that declared a price, in the
// groups' target order; nil when none did.
func Prices(groups []*Group) []*TargetPrice {
	price := map[string]float64{}
	for _, g := range groups {
		if _, ok := price[g.Target]; !ok || price[g.Target] == 0 {
			price[g.Target] = pricePerHour(g)
		}
	}
	var out []*TargetPrice
	by := map[string]*TargetPrice{}
	for _, t := range sortedTargets(groups) {
		if price[t] > 0 {
			by[t] = &TargetPrice{Target: t, PricePerHour: price[t]}
			out = append(out, by[t])
		}
	}
	for _, p := range Peaks(groups, "") {
		tp := by[p.Target]
		if tp == nil {
			continue
		}
		tp.Peaks = append(tp.Peaks, p)
		tp.PerDollar = append(tp.PerDollar, perDollarOf(p.Headline, p.Value, tp.PricePerHour))
	}
	for _, tp := range out {
		if len(tp.Peaks) < 2 {
			continue
		}
		h0 := tp.Peaks[0].Headline
		tp.HasTotal = h0.HigherIsBetter
		for _, p := range tp.Peaks {
			tp.HasTotal = tp.HasTotal && p.Headline.Name == h0.Name && p.Headline.Unit == h0.Unit
			tp.Total += p.Value
		}
		if tp.HasTotal {
			tp.TotalPerDollar = perDollarOf(h0, tp.Total, tp.PricePerHour)
		} else {
			tp.Total = 0
		}
	}
	return out
}
