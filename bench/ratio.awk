# bench/ratio.awk — the ratio of two tools' paired runs, with a 95 % confidence
# interval, for bench/pgbench.sh and bench/sysbench.sh.
#
# Input lines: KEY,TOOL,REP,VALUE (KEY names the cell; KEY must not hold a comma).
# Runs of the same KEY and REP are a pair: the scripts run them back to back, so
# whatever the machine does at that moment (a noisy neighbour, a slow minute)
# touches both. Per KEY it prints: KEY, the number of pairs, the geometric mean of
# new/ref over the pairs, and the two ends of its 95 % interval (Student's t on
# the logarithms of the pair ratios; NA with fewer than 2 pairs).
#
#   awk -F, -v ref=pgbench -v new=fairbench -f bench/ratio.awk rows.csv
BEGIN {
    # two-sided 95 % Student t quantiles by degrees of freedom
    split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228 2.201 2.179 2.160 2.145 2.131 " \
          "2.120 2.110 2.101 2.093 2.086 2.080 2.074 2.069 2.064 2.060 2.056 2.052 2.048 2.045 2.042", T, " ")
}
$4 != "" && $4 + 0 > 0 { v[$1, $3, $2] = $4; keys[$1] = 1; reps[$1, $3] = 1 }
END {
    for (k in keys) {
        n = 0; s = 0; ss = 0
        for (kr in reps) {
            split(kr, p, SUBSEP)
            if (p[1] != k || !((k, p[2], ref) in v) || !((k, p[2], new) in v)) continue
            l = log(v[k, p[2], new] / v[k, p[2], ref]); n++; s += l; ss += l * l
        }
        if (n == 0) { print k ",0,NA,NA,NA"; continue }
        m = s / n
        if (n < 2) { printf "%s,%d,%.3f,NA,NA\n", k, n, exp(m); continue }
        d = ss - n * m * m; sd = d > 0 ? sqrt(d / (n - 1)) : 0
        t = (n - 1 <= 30) ? T[n - 1] : 1.960
        h = t * sd / sqrt(n)
        printf "%s,%d,%.3f,%.3f,%.3f\n", k, n, exp(m), exp(m - h), exp(m + h)
    }
}
