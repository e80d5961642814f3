package ssb

// The value lists of dbgen's dists.dss (all weights there are equal, so a
// uniform pick is dbgen's pick_str).

// nation is one of TPC-H's 25 nations with the index of its region.
type nation struct {
	Name   string
	Region int
}

// nations in dists.dss order; the region indexes are the running sums of the
// weights dists.dss gives (its "nations" list stores deltas).
var nations = []nation{
	{"ALGERIA", 0}, {"ARGENTINA", 1}, {"BRAZIL", 1}, {"CANADA", 1}, {"EGYPT", 4},
	{"ETHIOPIA", 0}, {"FRANCE", 3}, {"GERMANY", 3}, {"INDIA", 2}, {"INDONESIA", 2},
	{"IRAN", 4}, {"IRAQ", 4}, {"JAPAN", 2}, {"JORDAN", 4}, {"KENYA", 0},
	{"MOROCCO", 0}, {"MOZAMBIQUE", 0}, {"PERU", 1}, {"CHINA", 2}, {"ROMANIA", 3},
	{"SAUDI ARABIA", 4}, {"VIETNAM", 2}, {"RUSSIA", 3}, {"UNITED KINGDOM", 3}, {"UNITED STATES", 1},
}

// regions by index.
var regions = []string{"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"}

// mktSegments is c_mktsegment's domain ("msegmnt").
var mktSegments = []string{"AUTOMOBILE", "BUILDING", "FURNITURE", "HOUSEHOLD", "MACHINERY"}

// orderPriorities is lo_orderpriority's domain ("o_oprio").
var orderPriorities = []string{"1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"}

// shipModes is lo_shipmode's domain ("smode").
var shipModes = []string{"REG AIR", "AIR", "RAIL", "TRUCK", "MAIL", "FOB", "SHIP"}

// containers is p_container's domain ("p_cntr"): 5 sizes × 8 kinds.
var containers = cross([]string{"SM", "LG", "MED", "JUMBO", "WRAP"},
	[]string{"CASE", "BOX", "BAG", "JAR", "PACK", "PKG", "CAN", "DRUM"})

// partTypes is p_type's domain ("p_types"): 6 × 5 × 5 = 150 types.
var partTypes = cross(cross([]string{"STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"},
	[]string{"ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"}),
	[]string{"TIN", "NICKEL", "BRASS", "STEEL", "COPPER"})

// colors is the word list of part names and p_color ("colors", 92 words).
var colors = []string{
	"almond", "antique", "aquamarine", "azure", "beige", "bisque", "black", "blanched", "blue", "blush",
	"brown", "burlywood", "burnished", "chartreuse", "chiffon", "chocolate", "coral", "cornflower", "cornsilk", "cream",
	"cyan", "dark", "deep", "dim", "dodger", "drab", "firebrick", "floral", "forest", "frosted",
	"gainsboro", "ghost", "goldenrod", "green", "grey", "honeydew", "hot", "indian", "ivory", "khaki",
	"lace", "lavender", "lawn", "lemon", "light", "lime", "linen", "magenta", "maroon", "medium",
	"metallic", "midnight", "mint", "misty", "moccasin", "navajo", "navy", "olive", "orange", "orchid",
	"pale", "papaya", "peach", "peru", "pink", "plum", "powder", "puff", "purple", "red",
	"rose", "rosy", "royal", "saddle", "salmon", "sandy", "seashell", "sienna", "sky", "slate",
	"smoke", "snow", "spring", "steel", "tan", "thistle", "tomato", "turquoise", "violet", "wheat",
	"white", "yellow",
}

func cross(a, b []string) []string {
	out := make([]string, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = append(out, x+" "+y)
		}
	}
	return out
}
