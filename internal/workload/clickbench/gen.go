package clickbench

import (
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
)

// The synthetic hits: not ClickBench's data (which is a real web-analytics
// sample of about 100 million rows), so results on it are not comparable with
// ClickBench's published ones. They exist so that tests and demos can run the
// 43 queries with no download, and the values are shaped for that: every
// query has rows to find, and the GROUP BY … ORDER BY count LIMIT 10 queries
// have top-10s worth ranking. The distributions, per row:
//
//   - CounterID: 62 (the site the last seven queries study) for 90 % of rows,
//     the rest log-uniform over 1…10 000 (zipf-like: P(k) ∝ 1/k).
//   - EventDate: July 2013 as in ClickBench's data; the 14th and 15th (the
//     days Q42 studies) weigh four times the other days. EventTime is a
//     uniform second of that day; ClientEventTime is it shifted by the
//     client's time zone (-12…12 h), LocalEventTime by Moscow's UTC+4.
//   - UserID: log-uniform over 2^20 users per seed, so a few users make many
//     hits (Q15–Q18); user number 3 is ClickBench's 435090932899640449,
//     which Q19 looks for. ClientIP is the user's address for 90 % of rows,
//     RegionID the user's region (log-uniform over 1…5 000).
//   - URL: a page of CounterID's site, log-uniform over 200 000 pages, except
//     that 20 % of rows are the site's home page, whose URLHash is
//     ClickBench's 2868770270353813622 (Q41 looks for it: with its random
//     WindowClientWidth × WindowClientHeight, more than 10 000 pairs from 60
//     000 rows up). Every 16th page (from page 5) is a www.google.com search
//     page, every 16th from page 9 a page of the site with "google" in its
//     path and "Google" in its title (Q20–Q23). URLHash is the URL's FNV-1a
//     hash otherwise. Titles are never empty.
//   - Referer: empty (typed in) for 7 % of rows, with ClickBench's
//     RefererHash 3594120000172545465 and TraficSourceID -1 or 6 (Q40);
//     a search engine's result page for 5 %, another site for 3 %, and for
//     the other 85 % a page of the same site, never its google.com pages (so
//     Q28's largest domain is site 62's, with 76.5 % of the rows).
//   - SearchPhrase: non-empty for 15 % of rows, log-uniform over 20 000
//     phrases; SearchEngineID is then 1…30 (log-uniform), else 0.
//   - AdvEngineID: 0 for 93 % of rows, else log-uniform over 1…30.
//   - MobilePhoneModel: non-empty for the 15 % of mobile rows, log-uniform
//     over 16 models.
//   - IsRefresh 1 for 10 %, DontCountHits 1 for 10 %, IsLink 1 for 20 %,
//     IsDownload 1 for 5 %; the other columns hold plausible constants or
//     small uniform values.
//
// What that gives (measured on SQLite with seeds 1–4): every query but Q27,
// Q28 and Q41 returns rows from 15 000 rows up, Q41 (OFFSET 10000) from
// 60 000. Q27 and Q28 keep only groups of more than 100 000 rows, so no data
// of 100 000 rows or fewer can give them any; here they return rows from
// 135 000 rows up (CounterID 62 has 90 % of the rows, the domain of its site
// 76.5 % of the referers). SQLite's Q42 is empty on any data (see Queries).

// ClickBench's constants that queries look for.
const (
	q19UserID   = 435090932899640449
	homeURLHash = 2868770270353813622
	noRefHash   = 3594120000172545465
)

// Generator makes synthetic hits rows.
type Generator struct {
	rows int64
	seed uint64
}

// NewSynthetic returns a generator of rows rows; equal seeds give equal rows.
func NewSynthetic(rows int64, seed uint64) *Generator {
	return &Generator{rows: rows, seed: seed}
}

// rowCount returns the number of rows.
func (g *Generator) rowCount() int64 { return g.rows }

// Chunk is a range of row numbers [Lo, Hi], 1-based and inclusive (as
// package ssb's chunks).
type Chunk struct{ Lo, Hi int64 }

// Chunks splits the rows into n ranges of nearly equal size (fewer when there
// are fewer rows than n), one per parallel loader.
func (g *Generator) Chunks(n int) []Chunk {
	if n < 1 {
		n = 1
	}
	if int64(n) > g.rows {
		n = int(max(g.rows, 1))
	}
	out := make([]Chunk, 0, n)
	for i := range int64(n) {
		out = append(out, Chunk{g.rows*i/int64(n) + 1, g.rows * (i + 1) / int64(n)})
	}
	return out
}

// Rows returns the rows of chunk c. Row i's values depend only on the seed
// and i, so any split gives the same rows. Values are int64 for the integer
// columns and strings for the others, dates as "2013-07-15" and times as
// "2013-07-15 10:11:12", which every driver's bulk load takes for its
// date and time types (and SQLite stores as ClickBench's CSV import does:
// text). The slice Values returns is reused from row to row.
func (g *Generator) Rows(c Chunk) driver.RowSource {
	pools.Do(buildPools)
	return &synthRows{g: g, next: c.Lo, hi: min(c.Hi, g.rows), row: driver.NewTypedRow(kinds)}
}

// kinds are the columns' kinds: integers for the integer types, strings
// for the others.
var kinds = func() (k []driver.Kind) {
	for _, c := range columns {
		switch c[1] {
		case "SMALLINT", "INTEGER", "BIGINT":
			k = append(k, driver.KindInt)
		default:
			k = append(k, driver.KindString)
		}
	}
	return k
}()

type synthRows struct {
	g        *Generator
	next, hi int64
	row      *driver.TypedRow
}

func (r *synthRows) Next() bool {
	if r.next > r.hi {
		return false
	}
	r.fill(r.next)
	r.next++
	return true
}

func (r *synthRows) Values() []any { return r.row.Values() }

func (r *synthRows) Kinds() []driver.Kind { return r.row.Kinds() }

func (r *synthRows) Typed() ([]int64, []string) { return r.row.Typed() }

// rng is splitmix64: a stream per row costs one seeding, no allocation.
type rng struct{ s uint64 }

func mix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	return mix(r.s)
}

func (r *rng) float() float64 { return float64(r.next()>>11) / (1 << 53) }

func (r *rng) intn(n int64) int64 { return int64(r.next() % uint64(n)) }

func (r *rng) chance(p float64) bool { return r.float() < p }

// zipf returns 0…n-1 log-uniformly: P(k) ≈ 1/((k+1)·ln(n+1)), zipf with
// exponent 1, drawn with one logarithm instead of a table.
func (r *rng) zipf(n int64) int64 { return zipfAt(r.float(), n) }

func zipfAt(u float64, n int64) int64 {
	k := int64(math.Exp(u*math.Log(float64(n+1)))) - 1
	return min(max(k, 0), n-1)
}

const (
	users    = 1 << 20
	pages    = 200_000
	hotPages = 4096 // pages whose URL and title are made once, not per row
	phrases  = 20_000
	counters = 10_000
)

var (
	pools      sync.Once
	hotURL     [hotPages]string
	hotTitle   [hotPages]string
	hotHash    [hotPages]int64
	phraseList [phrases]string
)

var words = [...]string{
	"buy", "cheap", "phone", "laptop", "review", "price", "weather", "moscow", "news", "football",
	"recipe", "cake", "movie", "online", "free", "download", "music", "car", "used", "rent",
	"flat", "hotel", "tickets", "train", "flight", "map", "bank", "credit", "loan", "job",
	"school", "english", "course", "game", "kids", "shoes", "dress", "sale", "garden", "tools",
}

var sections = [...]string{"catalog", "news", "blog", "item", "search", "help", "cart", "user"}

var phoneModels = [...]string{
	"iPhone", "iPad", "Galaxy S4", "Galaxy Note", "Lumia 920", "HTC One", "Xperia Z", "Nexus 4",
	"Optimus G", "Galaxy Tab", "iPod", "Desire", "Ascend", "One X", "Wildfire", "Nokia 5800",
}

var resolutions = [...][2]int64{{1366, 768}, {1920, 1080}, {1280, 1024}, {1280, 800}, {1440, 900}, {1600, 900}, {1024, 768}, {1680, 1050}}

func buildPools() {
	for k := range hotPages {
		var title string
		hotURL[k], title = page(62, int64(k))
		hotTitle[k], hotHash[k] = title, urlHash(hotURL[k])
	}
	hotHash[0] = homeURLHash
	for k := range phrases {
		n := len(words)
		p := words[k%n] + " " + words[(k/n)%n]
		if k >= n*n {
			p += " " + words[(k/(n*n))%n]
		}
		phraseList[k] = p
	}
}

// page returns the URL and title of page k of counter's site.
func page(counter, k int64) (url, title string) {
	site := "https://site" + strconv.FormatInt(counter, 10) + ".example/"
	ks := strconv.FormatInt(k, 10)
	switch {
	case k == 0:
		return site, "Site " + strconv.FormatInt(counter, 10) + ": home"
	case k%16 == 5:
		return "https://www.google.com/search?q=site" + strconv.FormatInt(counter, 10) + "&start=" + ks, "Google search results " + ks
	case k%16 == 9:
		return site + "pay/google-pay/" + ks, "Pay with Google Pay: order " + ks
	}
	s := sections[k%int64(len(sections))]
	return site + s + "/" + ks, "Site " + strconv.FormatInt(counter, 10) + ": " + s + " " + ks
}

func urlHash(u string) int64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(u); i++ {
		h ^= uint64(u[i])
		h *= 1099511628211
	}
	return int64(h)
}

func (r *synthRows) pageOf(counter, k int64) (url, title string, hash int64) {
	if counter == 62 && k < hotPages {
		return hotURL[k], hotTitle[k], hotHash[k]
	}
	url, t := page(counter, k)
	return url, t, urlHash(url)
}

var july = time.Date(2013, 7, 1, 0, 0, 0, 0, time.UTC).Unix()

// dayOf maps 0…36 to a day of July: the 14th and 15th take four slots each.
func dayOf(v int64) int64 {
	switch {
	case v < 13:
		return v + 1 // 1…13
	case v < 17:
		return 14
	case v < 21:
		return 15
	}
	return v - 5 // 16…31
}

// timeString formats unix as "2006-01-02 15:04:05" (UTC) without the time
// package's general formatter: the generator's times all fall in the few
// days of dayNames.
func (r *synthRows) timeString(unix int64) string {
	d := unix / 86400
	i := d - firstDay
	if unix < 0 || i < 0 || i >= int64(len(dayNames)) {
		return time.Unix(unix, 0).UTC().Format(time.DateTime)
	}
	sec := unix - d*86400
	var b [19]byte
	copy(b[:], dayNames[i])
	b[10] = ' '
	two := func(at int, n int64) { b[at], b[at+1] = byte('0'+n/10), byte('0'+n%10) }
	two(11, sec/3600)
	b[13] = ':'
	two(14, sec/60%60)
	b[16] = ':'
	two(17, sec%60)
	return string(b[:])
}

// dayNames are the dates of 2013-06-29 … 2013-08-03, the days a shifted
// event time can fall on.
var firstDay = time.Date(2013, 6, 29, 0, 0, 0, 0, time.UTC).Unix() / 86400

var dayNames = func() (d [36]string) {
	for i := range d {
		d[i] = time.Unix((firstDay+int64(i))*86400, 0).UTC().Format(time.DateOnly)
	}
	return
}()

// dates are July's days.
var dates = func() (d [32]string) {
	for i := 1; i <= 31; i++ {
		d[i] = time.Date(2013, 7, i, 0, 0, 0, 0, time.UTC).Format(time.DateOnly)
	}
	return
}()

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// visit is what a row's columns are drawn from: the values several columns
// share (the user's hash, the event time), or that depend on one another
// (a referer and its traffic source).
type visit struct {
	counter, day, eventTime  int64
	userID, clientIP, region int64
	userHash                 uint64
	url, title               string
	urlHash                  int64
	phrase                   string
	engine                   int64
	referer                  string
	refHash, traffic, adv    int64
	mobile                   bool
	phone                    int64
	model                    string
	res                      [2]int64
	tz                       int64
}

// fill makes row i (1-based) from a stream seeded by (seed, i) alone: the
// visit first, then the columns, drawing from the stream in that order.
func (r *synthRows) fill(i int64) {
	g := rng{s: mix(r.g.seed*0x9e3779b97f4a7c15 ^ mix(uint64(i)))}
	v := r.visit(&g)
	r.columns(&g, &v)
}

// visit draws the correlated values of a row.
func (r *synthRows) visit(g *rng) visit {
	var v visit
	v.counter = int64(62)
	if !g.chance(0.9) {
		v.counter = 1 + g.zipf(counters)
	}
	v.day = dayOf(g.intn(37))
	v.eventTime = july + (v.day-1)*86400 + g.intn(86400)
	userIdx := g.zipf(users)
	v.userID = int64(mix(r.g.seed^0x5851f42d4c957f2d^mix(uint64(userIdx))) >> 1)
	if userIdx == 3 {
		v.userID = q19UserID
	}
	v.userHash = mix(uint64(v.userID))
	v.clientIP = int64(int32(v.userHash))
	if !g.chance(0.9) {
		v.clientIP = int64(int32(g.next()))
	}
	v.region = 1 + zipfAt(float64(v.userHash>>11)/(1<<53), 5000)

	pageNo := g.zipf(pages)
	if g.chance(0.2) {
		pageNo = 0
	}
	v.url, v.title, v.urlHash = r.pageOf(v.counter, pageNo)

	if g.chance(0.15) {
		v.phrase = phraseList[g.zipf(phrases)]
		v.engine = 1 + g.zipf(30)
	}
	r.referer(g, &v)
	if !g.chance(0.93) {
		v.adv = 1 + g.zipf(30)
	}
	v.mobile = g.chance(0.15)
	if v.mobile {
		m := g.zipf(int64(len(phoneModels)))
		v.phone, v.model = 1+m, phoneModels[m]
	}
	v.res = resolutions[g.zipf(int64(len(resolutions)))]
	v.tz = g.intn(25) - 12
	return v
}

// referer draws where the visit came from: nowhere, a search engine, a news
// site or a page of the site itself.
func (r *synthRows) referer(g *rng, v *visit) {
	switch u := g.float(); {
	case u < 0.07:
		v.refHash, v.traffic = noRefHash, -1
		if g.chance(0.5) {
			v.traffic = 6
		}
	case u < 0.12:
		v.referer, v.traffic = "https://www.google.com/search?q=q"+strconv.FormatInt(g.zipf(phrases), 10), 2
	case u < 0.15:
		v.referer, v.traffic = "https://news"+strconv.FormatInt(g.zipf(100), 10)+".example/article/"+strconv.FormatInt(g.intn(100000), 10), 1
	default:
		k := g.zipf(pages)
		if k%16 == 5 {
			k-- // from the site itself, not from its google.com search pages
		}
		v.referer, _, v.refHash = r.pageOf(v.counter, k)
	}
	if v.referer != "" && v.refHash == 0 {
		v.refHash = urlHash(v.referer)
	}
}

// columns writes the row's columns in the table's order, drawing the
// independent ones as it goes.
func (r *synthRows) columns(g *rng, v *visit) {
	num, str := r.row.Ints, r.row.Strs
	num[0] = int64(g.next() >> 1)                   // WatchID
	num[1] = b2i(g.chance(0.7))                     // JavaEnable
	str[2] = v.title                                // Title
	num[3] = 1                                      // GoodEvent
	str[4] = r.timeString(v.eventTime)              // EventTime
	str[5] = dates[v.day]                           // EventDate
	num[6] = v.counter                              // CounterID
	num[7] = v.clientIP                             // ClientIP
	num[8] = v.region                               // RegionID
	num[9] = v.userID                               // UserID
	num[10] = g.intn(3)                             // CounterClass
	num[11] = g.zipf(100)                           // OS
	num[12] = g.zipf(50)                            // UserAgent
	str[13] = v.url                                 // URL
	str[14] = v.referer                             // Referer
	num[15] = b2i(g.chance(0.1))                    // IsRefresh
	num[16] = g.intn(10)                            // RefererCategoryID
	num[17] = v.region                              // RefererRegionID
	num[18] = g.intn(10)                            // URLCategoryID
	num[19] = v.region                              // URLRegionID
	num[20] = v.res[0]                              // ResolutionWidth
	num[21] = v.res[1]                              // ResolutionHeight
	num[22] = int64(24 + 8*g.intn(2))               // ResolutionDepth
	num[23] = g.intn(12)                            // FlashMajor
	num[24] = g.intn(10)                            // FlashMinor
	str[25] = ""                                    // FlashMinor2
	num[26] = g.intn(5)                             // NetMajor
	num[27] = g.intn(10)                            // NetMinor
	num[28] = g.intn(30)                            // UserAgentMajor
	str[29] = "0"                                   // UserAgentMinor
	num[30] = 1                                     // CookieEnable
	num[31] = 1                                     // JavascriptEnable
	num[32] = b2i(v.mobile)                         // IsMobile
	num[33] = v.phone                               // MobilePhone
	str[34] = v.model                               // MobilePhoneModel
	str[35] = ""                                    // Params
	num[36] = int64(int32(v.userHash >> 32))        // IPNetworkID
	num[37] = v.traffic                             // TraficSourceID
	num[38] = v.engine                              // SearchEngineID
	str[39] = v.phrase                              // SearchPhrase
	num[40] = v.adv                                 // AdvEngineID
	num[41] = 0                                     // IsArtifical
	num[42] = 200 + g.intn(2000)                    // WindowClientWidth
	num[43] = 100 + g.intn(1500)                    // WindowClientHeight
	num[44] = v.tz                                  // ClientTimeZone
	str[45] = r.timeString(v.eventTime + v.tz*3600) // ClientEventTime
	num[46] = g.intn(6)                             // SilverlightVersion1
	num[47] = g.intn(10)                            // SilverlightVersion2
	num[48] = g.intn(100000)                        // SilverlightVersion3
	num[49] = g.intn(10)                            // SilverlightVersion4
	str[50] = "utf-8"                               // PageCharset
	num[51] = 1000 + g.intn(100)                    // CodeVersion
	num[52] = b2i(g.chance(0.2))                    // IsLink
	num[53] = b2i(g.chance(0.05))                   // IsDownload
	num[54] = b2i(g.chance(0.5))                    // IsNotBounce
	num[55] = int64(g.next() >> 1)                  // FUniqID
	str[56] = ""                                    // OriginalURL
	num[57] = int64(int32(g.next()))                // HID
	num[58] = 0                                     // IsOldCounter
	num[59] = 0                                     // IsEvent
	num[60] = 0                                     // IsParameter
	num[61] = b2i(g.chance(0.1))                    // DontCountHits
	num[62] = 0                                     // WithHash
	str[63] = "5"                                   // HitColor
	str[64] = r.timeString(v.eventTime + 4*3600)    // LocalEventTime: Moscow's UTC+4 of 2013
	num[65] = g.intn(6)                             // Age
	num[66] = g.intn(3)                             // Sex
	num[67] = g.intn(5)                             // Income
	num[68] = g.intn(4096)                          // Interests
	num[69] = 0                                     // Robotness
	num[70] = v.clientIP                            // RemoteIP
	num[71] = g.intn(1 << 20)                       // WindowName
	num[72] = g.intn(1 << 20)                       // OpenerName
	num[73] = g.intn(20)                            // HistoryLength
	str[74] = "ru"                                  // BrowserLanguage
	str[75] = "RU"                                  // BrowserCountry
	str[76] = ""                                    // SocialNetwork
	str[77] = ""                                    // SocialAction
	num[78] = 0                                     // HTTPError
	num[79] = g.intn(1000)                          // SendTiming
	num[80] = g.intn(100)                           // DNSTiming
	num[81] = g.intn(200)                           // ConnectTiming
	num[82] = g.intn(500)                           // ResponseStartTiming
	num[83] = g.intn(1000)                          // ResponseEndTiming
	num[84] = g.intn(2000)                          // FetchTiming
	num[85] = 0                                     // SocialSourceNetworkID
	str[86] = ""                                    // SocialSourcePage
	num[87] = 0                                     // ParamPrice
	str[88] = ""                                    // ParamOrderID
	str[89] = ""                                    // ParamCurrency
	num[90] = 0                                     // ParamCurrencyID
	str[91] = ""                                    // OpenstatServiceName
	str[92] = ""                                    // OpenstatCampaignID
	str[93] = ""                                    // OpenstatAdID
	str[94] = ""                                    // OpenstatSourceID
	str[95] = ""                                    // UTMSource
	str[96] = ""                                    // UTMMedium
	str[97] = ""                                    // UTMCampaign
	str[98] = ""                                    // UTMContent
	str[99] = ""                                    // UTMTerm
	str[100] = ""                                   // FromTag
	num[101] = 0                                    // HasGCLID
	num[102] = v.refHash                            // RefererHash
	num[103] = v.urlHash                            // URLHash
	num[104] = 0                                    // CLID
}
