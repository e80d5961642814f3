# The fixtures of TestMannWhitneyMatchesScipy: scipy 1.17.1 in a venv,
#   python3 -m venv /tmp/v && /tmp/v/bin/pip install scipy==1.17.1
#   /tmp/v/bin/python internal/analysis/testdata/mannwhitneyu_scipy.py
# The samples are the tests' own formulas (integers, with ties).
from scipy.stats import mannwhitneyu
def xs(m): return [float((i*37 % 101)//3) for i in range(m)]
def ys(n): return [float((j*53 % 97)//3 + 4) for j in range(n)]
for m,n in [(40,40),(50,200),(8,120),(300,300)]:
    r = mannwhitneyu(xs(m), ys(n), alternative='two-sided', method='asymptotic', use_continuity=True)
    print(m, n, repr(float(r.statistic)), repr(float(r.pvalue)))
a=[float(i*7 % 23) for i in range(5)]; b=[float(j*5 % 29)+0.5 for j in range(7)]
r = mannwhitneyu(a, b, method='exact'); print('exact', a, b, repr(float(r.statistic)), repr(float(r.pvalue)))
