"""Statistics for A/B comparison: descriptive stats, Welch's t-test, bootstrap CI.

Welch (unequal variances) as mmtests uses it; the bootstrap resamples each side
with replacement (numpy Generator, seeded, so a report is reproducible) and
gives a percentile interval of the difference of means B - A."""
import math
import warnings

import numpy as np
from scipy import stats as sst


def describe(values):
    v = np.asarray([x for x in values if x is not None], dtype=float)
    n = int(v.size)
    if n == 0:
        return {"n": 0, "mean": None, "stddev": None, "cv_pct": None, "min": None, "max": None}
    mean = float(v.mean())
    sd = float(v.std(ddof=1)) if n > 1 else 0.0
    return {"n": n, "mean": mean, "stddev": sd,
            "cv_pct": (100.0 * sd / abs(mean)) if mean else None,
            "min": float(v.min()), "max": float(v.max())}


def welch_p(a, b):
    """Two-sided Welch t-test p-value; 1.0 when both sides are constant and equal."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.size < 2 or b.size < 2:
        return None
    if a.std(ddof=1) == 0 and b.std(ddof=1) == 0:
        return 1.0 if a.mean() == b.mean() else 0.0
    with warnings.catch_warnings():
        # one constant side: scipy warns of precision loss; the p-value stands
        warnings.simplefilter("ignore", RuntimeWarning)
        p = float(sst.ttest_ind(b, a, equal_var=False).pvalue)
    return 1.0 if math.isnan(p) else p


def bootstrap_ci(a, b, level=0.95, resamples=5000, seed=1):
    """Percentile bootstrap CI of mean(b) - mean(a)."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.size == 0 or b.size == 0:
        return None, None
    rng = np.random.default_rng(seed)
    ia = rng.integers(0, a.size, size=(resamples, a.size))
    ib = rng.integers(0, b.size, size=(resamples, b.size))
    d = b[ib].mean(axis=1) - a[ia].mean(axis=1)
    lo, hi = np.quantile(d, [(1 - level) / 2, 1 - (1 - level) / 2])
    return float(lo), float(hi)
