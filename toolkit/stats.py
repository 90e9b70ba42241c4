"""Statistical comparison of classifiers: across splits of one data set and across data sets.

Across the splits (or CV folds) of one data set, paired samples ``a_j``, ``b_j`` (errors of two
methods on the same split ``j``; differences ``d_j = a_j - b_j``):

* :func:`paired_ttest` -- Student's paired t-test, effect size Cohen's ``d_z = mean(d) / sd(d)``.
* :func:`wilcoxon` -- Wilcoxon signed-rank test, effect size the matched-pairs rank-biserial
  correlation, confidence interval for the Hodges-Lehmann pseudo-median (Walsh averages).
* :func:`corrected_ttest` -- Nadeau & Bengio's (2003) corrected resampled t-test for repeated
  train/test splits or CV folds, whose training sets overlap: the variance of the mean is
  ``(1/J + n_test/n_train) s²`` instead of ``s²/J``.

Across data sets (Demšar 2006), a table ``scores`` of data sets × methods:

* :func:`friedman` -- Friedman's test on the within-data-set ranks (and the Iman-Davenport F),
  effect size Kendall's W.
* :func:`nemenyi` -- all pairwise comparisons with the critical difference
  ``CD = q_α sqrt(k (k + 1) / (6 N))``, ``q_α`` the studentized range quantile / √2.
* :func:`holm` -- pairwise (or versus a control) z-tests on the mean ranks, Holm-adjusted with
  statsmodels' ``multipletests``.
* :func:`cd_diagram` -- the critical-difference diagram (matplotlib), configurable α, CD drawn.

"Did the unlabelled data help?": :func:`unlabeled_data_helped` pairs every semi-supervised method
with its supervised baseline on the same splits and reports the difference, p-value, effect size,
confidence interval and one verdict ("helped", "hurt", "no significant difference"). The deciding
test is Nadeau & Bengio's corrected t-test where the training and test sizes are known (the
splits are random partitions of one data set), the paired t-test elsewhere; the uncorrected
p-value is reported beside it. The comparison reports (:mod:`toolkit.reports`) render this one
verdict everywhere: summary, results tables and the "did it help" table.

Every test returns a frozen dataclass with ``statistic``, ``pvalue``, ``effect_size`` and
``conf_int(alpha=0.05)``; every result has ``summary()`` (a text table in the layout of
statsmodels' summaries), a one-line ``repr`` and ``_repr_html_`` for notebooks.

Units (the user guide's "Units: errors in percent" states them in full): errors are in percent
wherever the toolkit names a value *error* (:func:`toolkit.selection.select`'s ``test_error`` and
tidy ``results``, ``results.csv``, the reports, the CV estimators' ``cv_results_["mean_test_error"]``,
the paths' ``error``, the solvers' ``check_error_*`` histories); differences of errors are
percentage points. scikit-learn's ``score``, ``*_test_score`` and ``best_score_`` are accuracies in
[0, 1]; the early-stopping rules read the validation error as a rate (Melacci & Belkin's Algorithm 3).

References
----------
Demšar, J. (2006). Statistical comparisons of classifiers over multiple data sets. JMLR 7, 1-30.
Nadeau, C., Bengio, Y. (2003). Inference for the generalization error. Machine Learning 52, 239-281.
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar

import numpy as np

from toolkit._display import Result
from toolkit._validation import _as_real_array, check_option, check_scalar

__all__ = [
    "TestResult", "FriedmanResult", "PosthocResult", "paired_ttest", "wilcoxon", "corrected_ttest",
    "friedman", "nemenyi", "holm", "critical_difference", "cd_diagram", "average_ranks",
    "unlabeled_data_helped", "helped_verdict", "HELPED_VERDICTS",
]


ALTERNATIVES = ("two-sided", "less", "greater")


def _check_alpha(alpha, func):
    """The significance level: a float in (0, 1)."""
    return check_scalar(alpha, "alpha", func, low=0.0, high=1.0, low_closed=False, high_closed=False)


def _pair(a, b, func, alternative="two-sided"):
    check_option(alternative, "alternative", func, ALTERNATIVES)
    a = _as_real_array(a, "a", func)
    b = _as_real_array(b, "b", func)
    for name, x in (("a", a), ("b", b)):
        if x.ndim != 1:
            raise ValueError(f"The {name!r} parameter of {func} must be a 1-d array of paired values. "
                             f"Got an array of shape {x.shape} instead.")
    if a.shape != b.shape:
        raise ValueError(f"{func}: 'a' has {a.size} values but 'b' has {b.size}; paired samples must match.")
    if a.size < 2:
        raise ValueError(f"{func} needs at least 2 paired values in 'a' and 'b'. Got {a.size} instead.")
    for name, x in (("a", a), ("b", b)):
        if not np.all(np.isfinite(x)):
            raise ValueError(f"The {name!r} parameter of {func} must contain only finite values (no NaN or inf). "
                             f"Got {int(np.sum(~np.isfinite(x)))} non-finite values instead.")
    with np.errstate(over="ignore", invalid="ignore"):
        d = a - b
        spread = np.var(d, ddof=1) if np.all(np.isfinite(d)) else np.inf
    if not np.isfinite(spread):          # every test here needs the differences and their variance
        raise ValueError(f"{func}: the differences 'a' - 'b' or their variance overflow float64 (values up to "
                         f"{max(np.abs(a).max(), np.abs(b).max()):.3g}). Rescale 'a' and 'b' (e.g. errors in % "
                         "rather than raw counts); the tests do not depend on the unit.")
    return a, b


def _g(value, digits=4):
    """A number for a summary: ``digits`` significant digits, NaN as "–"."""
    if value is None:
        return "–"
    value = float(value)
    return "–" if value != value else f"{value:.{digits}g}"


@dataclass(frozen=True, repr=False)
class TestResult(Result):
    """A two-sample paired test.

    Attributes
    ----------
    test : str
        Name of the test.
    statistic : float
    pvalue : float
    effect_size : float
    effect_size_name : str
    estimate : float
        Mean difference ``mean(a - b)`` (Hodges-Lehmann pseudo-median for the Wilcoxon test), in
        the unit of ``a`` and ``b`` (percentage points for errors in percent).
    n : int
        Number of pairs.
    df : float or None
        Degrees of freedom of t-tests.
    alternative : str
    estimate_name : str
        What ``estimate`` is.
    settings : tuple of (str, str)
        Further settings shown by :meth:`summary` (the corrected test's ``n_train`` and ``n_test``).

    Examples
    --------
    >>> from toolkit import stats
    >>> res = stats.paired_ttest([3.1, 2.4, 5.0, 4.2], [9.8, 11.5, 10.2, 12.0])
    >>> print(repr(res))
    TestResult(paired t-test: t = -8.699, df = 3, p = 0.003197; mean difference a - b = -7.2 [95% CI -9.834, -4.566]; Cohen's d_z = -4.35; n = 4)
    """

    test: str
    statistic: float
    pvalue: float
    effect_size: float
    effect_size_name: str
    estimate: float
    n: int
    df: float | None = None
    alternative: str = "two-sided"
    estimate_name: str = "mean difference a - b"
    settings: tuple = ()
    _interval: Callable[[float], tuple[float, float]] = field(default=None, repr=False, compare=False)

    def conf_int(self, alpha: float = 0.05) -> tuple[float, float]:
        """(1 - alpha) confidence interval for ``estimate``."""
        return self._interval(_check_alpha(alpha, "conf_int"))

    def _statistic_text(self):
        name = "t" if self.df is not None else "W"
        return f"{name} = {_g(self.statistic)}" + (f", df = {self.df:g}" if self.df is not None else "")

    def _rows(self):
        lo, hi = self.conf_int()
        return [("pairs (n)", self.n), ("alternative", self.alternative), *self.settings,
                ("statistic", self._statistic_text()), ("p-value", _g(self.pvalue)),
                (self.estimate_name, _g(self.estimate)), ("95% CI", f"[{_g(lo)}, {_g(hi)}]"),
                (f"effect size ({self.effect_size_name})", _g(self.effect_size, 3))]

    @property
    def _title(self):
        return self.test

    def _brief(self):
        lo, hi = self.conf_int()
        return (f"{self.test}: {self._statistic_text()}, p = {_g(self.pvalue)}; {self.estimate_name} = "
                f"{_g(self.estimate)} [95% CI {_g(lo)}, {_g(hi)}]; {self.effect_size_name} = "
                f"{_g(self.effect_size)}; n = {self.n}")


def _t_interval(mean, se, df):
    from scipy import stats

    def interval(alpha):
        if se == 0:
            return (mean, mean)
        half = stats.t.ppf(1 - alpha / 2, df) * se
        return (float(mean - half), float(mean + half))

    return interval


def paired_ttest(a, b, *, alternative="two-sided") -> TestResult:
    """Paired t-test of ``mean(a - b) = 0`` (scipy ``ttest_rel``).

    Parameters
    ----------
    a, b : array-like of shape (n_pairs,)
        Paired measurements (e.g. test errors of two methods on the same splits).
    alternative : {"two-sided", "less", "greater"}, default="two-sided"

    Returns
    -------
    TestResult
        Effect size Cohen's ``d_z = mean(d) / sd(d)``; ``conf_int`` for the mean difference.
    """
    from scipy import stats

    a, b = _pair(a, b, "paired_ttest", alternative)
    d = a - b
    sd = d.std(ddof=1)
    res = stats.ttest_rel(a, b, alternative=alternative)
    statistic, pvalue = float(res.statistic), float(res.pvalue)
    if sd == 0:  # all differences equal: no evidence either way if they are 0
        statistic, pvalue = (0.0, 1.0) if d[0] == 0 else (float(np.sign(d[0]) * np.inf), 0.0)
    return TestResult("paired t-test", statistic, pvalue, float(d.mean() / sd) if sd > 0 else 0.0,
                      "Cohen's d_z", float(d.mean()), d.size, float(d.size - 1), alternative,
                      _interval=_t_interval(d.mean(), sd / np.sqrt(d.size), d.size - 1))


def corrected_ttest(a, b, *, n_train, n_test, alternative="two-sided") -> TestResult:
    """Nadeau & Bengio's corrected resampled t-test for overlapping training sets.

    ``t = mean(d) / sqrt((1/J + n_test/n_train) s²)`` with ``J`` the number of resamples (folds ×
    repeats), ``s²`` the sample variance of the differences, ``J - 1`` degrees of freedom
    (Nadeau & Bengio 2003; Bouckaert & Frank 2004).

    Parameters
    ----------
    a, b : array-like of shape (n_resamples,)
    n_train, n_test : int
        Training and test set sizes of one resample (for k-fold CV, ``n_test/n_train = 1/(k-1)``).
    alternative : {"two-sided", "less", "greater"}, default="two-sided"
    """
    from scipy import stats

    a, b = _pair(a, b, "corrected_ttest", alternative)
    n_train = check_scalar(n_train, "n_train", "corrected_ttest", low=0.0, low_closed=False)
    n_test = check_scalar(n_test, "n_test", "corrected_ttest", low=0.0, low_closed=False)
    d = a - b
    J = d.size
    var = d.var(ddof=1)
    se = float(np.sqrt((1.0 / J + n_test / n_train) * var))
    mean = float(d.mean())
    df = J - 1
    if se == 0:
        statistic = 0.0 if mean == 0 else float(np.sign(mean) * np.inf)
    else:
        statistic = mean / se
    if alternative == "two-sided":
        pvalue = 2 * stats.t.sf(abs(statistic), df)
    elif alternative == "less":
        pvalue = stats.t.cdf(statistic, df)
    elif alternative == "greater":
        pvalue = stats.t.sf(statistic, df)
    else:
        raise ValueError(f"The 'alternative' parameter of corrected_ttest must be one of 'two-sided', 'less', "
                         f"'greater'. Got {alternative!r} instead.")
    return TestResult("corrected resampled t-test", float(statistic), float(min(pvalue, 1.0)),
                      mean / np.sqrt(var) if var > 0 else 0.0, "Cohen's d_z", mean, J, float(df), alternative,
                      settings=(("n_train / n_test", f"{n_train:g} / {n_test:g}"),
                                ("variance factor", f"1/J + n_test/n_train = {1.0 / J + n_test / n_train:.4g}")),
                      _interval=_t_interval(mean, se, df))


def wilcoxon(a, b, *, alternative="two-sided") -> TestResult:
    """Wilcoxon signed-rank test of ``a - b`` symmetric about 0 (scipy ``wilcoxon``, zero differences
    dropped as in Wilcoxon's original test).

    Effect size: the matched-pairs rank-biserial correlation ``r = (W+ - W-) / (W+ + W-)`` (Kerby
    2014), in [-1, 1]. ``estimate`` and ``conf_int`` are the Hodges-Lehmann pseudo-median of the
    differences (median of the Walsh averages) and its distribution-free interval (normal
    approximation of the signed-rank statistic's critical value).
    """
    from scipy import stats

    a, b = _pair(a, b, "wilcoxon", alternative)
    d = a - b
    nz = d[d != 0]
    walsh = np.sort(((d[:, None] + d[None, :]) / 2)[np.triu_indices(d.size)])
    estimate = float(np.median(walsh))
    if nz.size == 0:
        statistic, pvalue, r = 0.0, 1.0, 0.0
    else:
        res = stats.wilcoxon(nz, alternative=alternative, zero_method="wilcox")
        statistic, pvalue = float(res.statistic), float(res.pvalue)
        ranks = stats.rankdata(np.abs(nz))
        w_plus, w_minus = ranks[nz > 0].sum(), ranks[nz < 0].sum()
        r = float((w_plus - w_minus) / (w_plus + w_minus))
    n = d.size

    def interval(alpha):
        m = walsh.size
        z = stats.norm.ppf(1 - alpha / 2)
        k = int(np.floor(n * (n + 1) / 4 - z * np.sqrt(n * (n + 1) * (2 * n + 1) / 24)))
        k = min(max(k, 0), m - 1)
        return (float(walsh[k]), float(walsh[m - 1 - k]))

    return TestResult("Wilcoxon signed-rank", statistic, pvalue, r, "rank-biserial r", estimate, n, None,
                      alternative, "Hodges-Lehmann pseudo-median of a - b", _interval=interval)


# ----------------------------------------------------------------------------------------------
# Across data sets
# ----------------------------------------------------------------------------------------------
def _scores_frame(scores, func="the comparison"):
    import pandas as pd

    if isinstance(scores, pd.DataFrame):
        if any(getattr(dtype, "kind", "O") == "c" for dtype in scores.dtypes):
            raise TypeError(f"The 'scores' parameter of {func} must hold real numbers. "
                            f"Got columns of dtypes {sorted({str(d) for d in scores.dtypes})} instead.")
        try:
            frame = scores.astype(float)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"The 'scores' parameter of {func} must hold real numbers. "
                            f"Got columns of dtypes {sorted({str(d) for d in scores.dtypes})} instead.") from exc
    else:
        values = _as_real_array(scores, "scores", func)
        if values.ndim != 2:
            raise ValueError(f"The 'scores' parameter of {func} must be a 2-d table (data sets × methods). "
                             f"Got an array of shape {values.shape} instead.")
        frame = pd.DataFrame(values)
    if frame.shape[0] < 2 or frame.shape[1] < 2:
        raise ValueError(f"The 'scores' parameter of {func} must be a table of at least 2 data sets (rows) and "
                         f"2 methods (columns). Got a table of shape {frame.shape} instead.")
    if frame.isna().any().any():
        bad = frame.index[frame.isna().any(axis=1)].tolist()
        raise ValueError(f"The 'scores' parameter of {func} has missing values for the data sets {bad}; "
                         "compare methods on the data sets they all have.")
    if not np.isfinite(frame.to_numpy()).all():
        bad = frame.index[~np.isfinite(frame.to_numpy()).all(axis=1)].tolist()
        raise ValueError(f"The 'scores' parameter of {func} must contain only finite values. "
                         f"Got inf for the data sets {bad} instead.")
    return frame


def average_ranks(scores, *, lower_is_better=True):
    """Mean rank of each method over the data sets (rank 1 = best; ties get the average rank)."""
    frame = _scores_frame(scores, "average_ranks")
    ranks = frame.rank(axis=1, ascending=lower_is_better, method="average")
    return ranks.mean(axis=0)


def critical_difference(k: int, n_datasets: int, alpha: float = 0.05) -> float:
    """Nemenyi's critical difference ``q_α sqrt(k (k + 1) / (6 N))`` (Demšar 2006, §3.2.2).

    ``k`` methods (at least 2) compared on ``n_datasets`` data sets (at least 1) at level ``alpha``
    in (0, 1).
    """
    from scipy import stats

    func = "critical_difference"
    k = check_scalar(k, "k", func, kind=numbers.Integral, low=2)
    n_datasets = check_scalar(n_datasets, "n_datasets", func, kind=numbers.Integral, low=1)
    alpha = _check_alpha(alpha, func)
    q = stats.studentized_range.ppf(1 - alpha, k, np.inf) / np.sqrt(2)
    return float(q * np.sqrt(k * (k + 1) / (6.0 * n_datasets)))


@dataclass(frozen=True, repr=False)
class FriedmanResult(Result):
    """Friedman's test over data sets.

    ``statistic`` is Friedman's chi² (``k - 1`` df), ``iman_davenport`` the F statistic with its
    p-value ``pvalue_f`` (when all rankings agree, W = 1, the F statistic has a zero denominator: it
    is NaN and ``pvalue_f`` equals ``pvalue``); ``effect_size`` is Kendall's W = chi² / (N (k - 1)). ``conf_int(alpha)``
    gives every method's mean rank ± CD/2 (Nemenyi intervals: two methods differ when their
    intervals do not overlap).
    """

    statistic: float
    pvalue: float
    effect_size: float
    iman_davenport: float
    pvalue_f: float
    ranks: Any
    n_datasets: int
    n_methods: int
    effect_size_name: str = "Kendall's W"

    _title: ClassVar[str] = "Friedman test over data sets (Demšar 2006)"

    def conf_int(self, alpha: float = 0.05):
        import pandas as pd

        half = critical_difference(self.n_methods, self.n_datasets, alpha) / 2
        return pd.DataFrame({"lower": self.ranks - half, "upper": self.ranks + half})

    def _rows(self):
        rows = [("data sets (N)", self.n_datasets), ("methods (k)", self.n_methods),
                ("Friedman chi2", f"{_g(self.statistic)} (df = {self.n_methods - 1})"), ("p-value", _g(self.pvalue))]
        if np.isfinite(self.iman_davenport):
            rows += [("Iman-Davenport F", f"{_g(self.iman_davenport)} (df = {self.n_methods - 1}, "
                                          f"{(self.n_methods - 1) * (self.n_datasets - 1)})"),
                     ("p-value (F)", _g(self.pvalue_f))]
        else:
            rows += [("Iman-Davenport F", "undefined (all rankings agree)"), ("p-value (F)", _g(self.pvalue_f))]
        return rows + [(f"effect size ({self.effect_size_name})", _g(self.effect_size, 3))]

    def _tables(self):
        table = self.conf_int().assign(**{"mean rank": self.ranks})[["mean rank", "lower", "upper"]]
        return [("Mean ranks (1 = best) ± CD/2, Nemenyi intervals at alpha = 0.05",
                 table.sort_values("mean rank", kind="stable").round(3))]

    def _brief(self):
        f = (f"Iman-Davenport F = {_g(self.iman_davenport)}, p = {_g(self.pvalue_f)}"
             if np.isfinite(self.iman_davenport) else "Iman-Davenport F undefined (all rankings agree)")
        return (f"chi2 = {_g(self.statistic)}, df = {self.n_methods - 1}, p = {_g(self.pvalue)}; {f}; "
                f"{self.effect_size_name} = {_g(self.effect_size, 3)}; N = {self.n_datasets}, k = {self.n_methods}")


def friedman(scores, *, lower_is_better=True) -> FriedmanResult:
    """Friedman's rank test of ``scores`` (rows: data sets, columns: methods).

    The statistic (with scipy's tie correction) equals scipy's ``friedmanchisquare`` on the
    columns, and is also defined for k = 2 methods; the Iman-Davenport
    correction ``F = (N-1) chi² / (N (k-1) - chi²)`` has ``(k-1, (k-1)(N-1))`` df (Demšar 2006).
    """
    from scipy import stats

    frame = _scores_frame(scores, "friedman")
    N, k = frame.shape
    within = frame.rank(axis=1, ascending=lower_is_better, method="average").to_numpy()
    rank_sums = within.sum(axis=0)
    chi2 = 12.0 / (N * k * (k + 1)) * float(rank_sums @ rank_sums) - 3.0 * N * (k + 1)
    ties = sum(float((c**3 - c).sum()) for c in (np.unique(row, return_counts=True)[1] for row in within))
    correction = 1.0 - ties / (N * k * (k * k - 1))
    chi2 = chi2 / correction if correction > 0 else 0.0
    pvalue = float(stats.chi2.sf(chi2, k - 1))
    ranks = average_ranks(frame, lower_is_better=lower_is_better)
    denom = N * (k - 1) - chi2
    if denom > 1e-12 * N * (k - 1):
        f = (N - 1) * chi2 / denom
        pf = float(stats.f.sf(f, k - 1, (k - 1) * (N - 1)))
    else:
        # Perfect agreement of all rankings (Kendall's W = 1): the Iman-Davenport statistic has a
        # zero denominator. Its limit (F = inf, p = 0) would overstate the evidence for small N
        # (N = 2, k = 2 gives p = 0 while the exact Friedman p is 0.157), so it is reported as
        # undefined (NaN) and ``pvalue_f`` falls back to the chi-squared p-value.
        f, pf = np.nan, pvalue
    return FriedmanResult(chi2, pvalue, chi2 / (N * (k - 1)), float(f), pf, ranks, N, k)


@dataclass(frozen=True, repr=False)
class PosthocResult(Result):
    """Post-hoc comparisons after Friedman's test.

    Attributes
    ----------
    method : str
        ``"nemenyi"`` or ``"holm"``.
    ranks : pandas.Series
        Mean ranks.
    pvalues : pandas.DataFrame
        Pairwise p-values (adjusted for Holm; Nemenyi's are family-wise by construction).
    statistic : pandas.DataFrame
        Pairwise z statistics ``(R_i - R_j) / sqrt(k (k + 1) / (6 N))``.
    cd : float
        Critical difference at ``alpha``.
    alpha : float
    effect_size : pandas.DataFrame
        Pairwise mean-rank differences ``R_i - R_j``.
    """

    method: str
    ranks: Any
    pvalues: Any
    statistic: Any
    cd: float
    alpha: float
    effect_size: Any
    n_datasets: int

    @property
    def pvalue(self):
        return self.pvalues

    def significant(self, alpha: float | None = None):
        """Boolean table of the pairs that differ at ``alpha`` (default: the result's alpha)."""
        return self.pvalues < (self.alpha if alpha is None else _check_alpha(alpha, "significant"))

    def conf_int(self, alpha: float | None = None):
        """Mean rank ± CD/2 per method (Nemenyi intervals) at ``alpha``."""
        import pandas as pd

        alpha = self.alpha if alpha is None else alpha
        half = critical_difference(len(self.ranks), self.n_datasets, alpha) / 2
        return pd.DataFrame({"lower": self.ranks - half, "upper": self.ranks + half})

    @property
    def _title(self):
        return ("Nemenyi all-pairs test on mean ranks (Demšar 2006)" if self.method == "nemenyi" else
                "Pairwise z-tests on mean ranks, Holm-adjusted (Demšar 2006)")

    def _pairs(self):
        names = list(self.ranks.index)
        return [(a, b) for i, a in enumerate(names) for b in names[i + 1:] if np.isfinite(self.pvalues.at[a, b])]

    def _rows(self):
        pairs = self._pairs()
        significant = [f"{a} vs {b}" for a, b in pairs if self.pvalues.at[a, b] < self.alpha]
        return [("data sets (N)", self.n_datasets), ("methods (k)", len(self.ranks)), ("alpha", f"{self.alpha:g}"),
                ("critical difference", _g(self.cd)), ("pairs compared", len(pairs)),
                ("pairs that differ", ", ".join(significant) if significant else "none")]

    def _tables(self):
        order = list(self.ranks.sort_values(kind="stable").index)
        return [("Mean ranks (1 = best)", self.ranks[order].round(3).to_frame("mean rank")),
                ("p-values" + (" (Holm-adjusted)" if self.method == "holm" else ""),
                 self.pvalues.loc[order, order].round(4))]

    def _brief(self):
        pairs = self._pairs()
        differ = sum(self.pvalues.at[a, b] < self.alpha for a, b in pairs)
        best = self.ranks.idxmin()
        return (f"{self.method}: k = {len(self.ranks)}, N = {self.n_datasets}, CD = {_g(self.cd)} at "
                f"alpha = {self.alpha:g}; best mean rank {best} ({self.ranks[best]:.3g}); {differ} of {len(pairs)} "
                f"pairs differ")


def _rank_z(frame, lower_is_better):
    import pandas as pd

    N, k = frame.shape
    ranks = average_ranks(frame, lower_is_better=lower_is_better)
    se = np.sqrt(k * (k + 1) / (6.0 * N))
    diff = ranks.to_numpy()[:, None] - ranks.to_numpy()[None, :]
    names = list(frame.columns)
    return ranks, pd.DataFrame(diff / se, index=names, columns=names), pd.DataFrame(diff, index=names, columns=names)


def nemenyi(scores, *, alpha=0.05, lower_is_better=True) -> PosthocResult:
    """Nemenyi's all-pairs test: ``p = P(Q_k,inf > sqrt(2) |z|)`` with the studentized range ``Q``.

    Two methods differ at level ``alpha`` when their mean ranks differ by at least ``cd``.
    """
    import pandas as pd
    from scipy import stats

    alpha = _check_alpha(alpha, "nemenyi")
    frame = _scores_frame(scores, "nemenyi")
    N, k = frame.shape
    ranks, z, diff = _rank_z(frame, lower_is_better)
    p = stats.studentized_range.sf(np.abs(z.to_numpy()) * np.sqrt(2), k, np.inf)
    np.fill_diagonal(p, 1.0)
    pvalues = pd.DataFrame(np.clip(p, 0, 1), index=z.index, columns=z.columns)
    return PosthocResult("nemenyi", ranks, pvalues, z, critical_difference(k, N, alpha), alpha, diff, N)


def holm(scores, *, control=None, alpha=0.05, lower_is_better=True) -> PosthocResult:
    """Pairwise z-tests on mean ranks with Holm's step-down adjustment (statsmodels ``multipletests``).

    With ``control`` (a method name) only the k - 1 comparisons with the control are adjusted and
    reported (Demšar 2006, §3.2.2); the other p-values are NaN.
    """
    import pandas as pd
    from scipy import stats
    from statsmodels.stats.multitest import multipletests

    alpha = _check_alpha(alpha, "holm")
    frame = _scores_frame(scores, "holm")
    N, k = frame.shape
    ranks, z, diff = _rank_z(frame, lower_is_better)
    names = list(frame.columns)
    if control is not None and control not in names:
        raise ValueError(f"The 'control' parameter of holm must be one of {names}. Got {control!r} instead.")
    if control is None:
        pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    else:
        c = names.index(control)
        pairs = [(c, j) for j in range(k) if j != c]
    raw = [2 * stats.norm.sf(abs(z.iat[i, j])) for i, j in pairs]
    adjusted = multipletests(raw, alpha=alpha, method="holm")[1]
    p = np.full((k, k), np.nan)
    np.fill_diagonal(p, 1.0)
    for (i, j), value in zip(pairs, adjusted):
        p[i, j] = p[j, i] = value
    return PosthocResult("holm", ranks, pd.DataFrame(p, index=names, columns=names), z,
                         critical_difference(k, N, alpha), alpha, diff, N)


def cd_diagram(scores=None, *, ranks=None, n_datasets=None, alpha=0.05, lower_is_better=True, ax=None,
               title=None):
    """Critical-difference diagram (Demšar 2006, Fig. 1): mean ranks on an axis, the CD drawn above,
    and thick bars joining groups of methods that do not differ significantly (Nemenyi).

    Parameters
    ----------
    scores : DataFrame (data sets × methods), default=None
        Either ``scores`` or ``ranks`` with ``n_datasets``.
    ranks : pandas.Series, default=None
    n_datasets : int, default=None
    alpha : float, default=0.05
    lower_is_better : bool, default=True
        True for errors, False for accuracies.
    ax : matplotlib Axes, default=None

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    alpha = _check_alpha(alpha, "cd_diagram")
    if scores is not None:
        frame = _scores_frame(scores, "cd_diagram")
        ranks = average_ranks(frame, lower_is_better=lower_is_better)
        n_datasets = frame.shape[0]
    if ranks is None or n_datasets is None:
        raise ValueError("cd_diagram needs 'scores', or 'ranks' together with 'n_datasets'.")
    ranks = ranks.sort_values()
    k = len(ranks)
    cd = critical_difference(k, n_datasets, alpha)
    names, values = list(ranks.index), ranks.to_numpy()
    half = (k + 1) // 2
    height = 1.2 + 0.3 * max(half, k - half)
    if ax is None:
        fig, ax = plt.subplots(figsize=(7, height))
    else:
        fig = ax.figure
    lo, hi = 1, max(k, 2)
    ax.set_xlim(lo - 0.3, hi + 0.3)
    ax.set_ylim(-height, 1.0)
    ax.axis("off")
    ax.hlines(0, lo, hi, color="black", lw=1)
    for r in range(lo, hi + 1):
        ax.vlines(r, 0, 0.1, color="black", lw=1)
        ax.text(r, 0.18, str(r), ha="center", va="bottom", fontsize=9)
    # critical difference bar
    ax.hlines(0.75, lo, lo + cd, color="black", lw=2)
    ax.vlines([lo, lo + cd], 0.68, 0.82, color="black", lw=1)
    ax.text(lo + cd / 2, 0.85, f"CD = {cd:.2f} (α = {alpha:g})", ha="center", va="bottom", fontsize=9)
    step = 0.3
    for i, (name, r) in enumerate(zip(names, values)):
        if i < half:
            y = -(i + 1) * step
            ax.vlines(r, y, 0, color="black", lw=0.8)
            ax.hlines(y, lo - 0.2, r, color="black", lw=0.8)
            ax.text(lo - 0.25, y, f"{name} ({r:.2f})", ha="right", va="center", fontsize=9)
        else:
            y = -(k - i) * step
            ax.vlines(r, y, 0, color="black", lw=0.8)
            ax.hlines(y, r, hi + 0.2, color="black", lw=0.8)
            ax.text(hi + 0.25, y, f"({r:.2f}) {name}", ha="left", va="center", fontsize=9)
    # cliques: maximal runs of methods whose rank range is below the CD
    cliques = []
    for i in range(k):
        j = i
        while j + 1 < k and values[j + 1] - values[i] < cd:
            j += 1
        if j > i and not any(a <= i and j <= b for a, b in cliques):
            cliques.append((i, j))
    for c, (i, j) in enumerate(cliques):
        y = -0.12 - 0.08 * c
        ax.hlines(y, values[i] - 0.03, values[j] + 0.03, color="tab:red", lw=3)
    if title:
        ax.set_title(title, fontsize=10)
    fig.subplots_adjust(left=0.25, right=0.75)
    return fig


# ----------------------------------------------------------------------------------------------
# Did the unlabelled data help?
# ----------------------------------------------------------------------------------------------
#: The verdicts of :func:`unlabeled_data_helped`, one per semi-supervised method and task.
HELPED_VERDICTS = ("helped", "hurt", "no significant difference", "too few splits", "no baseline")

#: The name of each paired test in the tables (``unlabeled_data_helped``'s ``test`` column).
TEST_NAMES = {"ttest": "paired t-test", "wilcoxon": "Wilcoxon signed-rank",
              "corrected": "corrected resampled t-test"}

HELPED_COLUMNS = ["dataset", "task", "scenario", "method", "baseline", "n_splits", "mean", "mean_baseline",
                  "difference", "ci_low", "ci_high", "test", "statistic", "pvalue", "pvalue_uncorrected",
                  "effect_size", "effect_size_name", "verdict"]


def _check_tidy(results, func):
    import pandas as pd

    if not isinstance(results, pd.DataFrame):
        raise TypeError(f"The 'results' parameter of {func} must be a pandas DataFrame of tidy results. "
                        f"Got {type(results).__name__} instead.")
    missing = [c for c in ("dataset", "task", "split", "method", "scenario", "fold", "metric", "value")
               if c not in results.columns]
    if missing:
        raise ValueError(f"The 'results' parameter of {func} must have the tidy columns dataset, task, split, "
                         f"method, scenario, fold, metric, value. Got a table of {len(results)} rows without "
                         f"{missing} instead.")


def helped_verdict(result, alpha=0.05):
    """The verdict of a paired test of a semi-supervised error ``a`` against its supervised baseline's ``b``.

    "helped" when the test rejects ``mean(a - b) = 0`` at ``alpha`` with a lower semi-supervised
    error, "hurt" when it rejects with a higher one, else "no significant difference": the words
    of :func:`unlabeled_data_helped`, the reports and the CV estimators' comparison.

    Parameters
    ----------
    result : TestResult
        Of :func:`paired_ttest`, :func:`corrected_ttest` or :func:`wilcoxon` on ``(a, b)``.
    alpha : float, default=0.05

    Returns
    -------
    str
    """
    if not isinstance(result, TestResult):
        raise TypeError("The 'result' parameter of helped_verdict must be a TestResult (of paired_ttest, "
                        f"corrected_ttest or wilcoxon). Got {type(result).__name__} instead.")
    alpha = _check_alpha(alpha, "helped_verdict")
    return "no significant difference" if not result.pvalue < alpha else "helped" if result.estimate < 0 else "hurt"


def _compare_with_baselines(results, *, baselines=None, metric="test_error", test="auto", alpha=0.05, sizes=None,
                            func="unlabeled_data_helped"):
    """The rows of :func:`unlabeled_data_helped` (possibly none) and the baselines looked for.

    The one computation of the verdict per task × method: :func:`unlabeled_data_helped` and the
    reports (:mod:`toolkit.reports`) both call it. Validates its arguments.
    """
    import pandas as pd

    _check_tidy(results, func)
    check_option(test, "test", func, ("auto", "ttest", "wilcoxon", "corrected"))
    alpha = _check_alpha(alpha, func)
    if test == "corrected" and sizes is None:
        raise ValueError(f"{func}(test='corrected') needs 'sizes': task -> (n_train, n_test).")
    sizes = {} if sizes is None else dict(sizes)
    if baselines is None:
        from toolkit._methods import METHODS

        baselines = {name: m.baseline for name, m in METHODS.items() if m.baseline}
    baselines = dict(baselines)
    refit = results[(results["fold"].astype(str) == "refit") & (results["metric"] == metric)]
    if refit.empty:
        metrics = sorted(map(str, results.loc[results["fold"].astype(str) == "refit", "metric"].unique()))
        raise ValueError(f"The 'results' parameter of {func} must have refit rows (fold == 'refit') of the metric "
                         f"{metric!r}. Got {len(results)} rows, whose refit rows have the metrics {metrics} instead.")
    if test == "corrected":
        lacking = sorted(set(map(str, refit["task"])) - set(map(str, sizes)))
        if lacking:
            raise ValueError(f"{func}(test='corrected') needs 'sizes' (task -> (n_train, n_test)) for every task. "
                             f"Got none for {lacking}.")
    rows = []
    for (dataset, task, scenario), group in refit.groupby(["dataset", "task", "scenario"], sort=False):
        wide = group.pivot_table(index="split", columns="method", values="value", aggfunc="mean")
        for method, baseline in baselines.items():
            if method not in wide:
                continue
            row = dict.fromkeys(HELPED_COLUMNS, np.nan)
            row.update(dataset=dataset, task=task, scenario=scenario, method=method, baseline=baseline, n_splits=0,
                       mean=wide[method].mean(), test=None, effect_size_name=None)
            if baseline not in wide:
                rows.append({**row, "verdict": "no baseline"})
                continue
            pair = wide[[method, baseline]].dropna()
            row.update(n_splits=len(pair), mean=pair[method].mean(), mean_baseline=pair[baseline].mean(),
                       difference=(pair[method] - pair[baseline]).mean())
            if len(pair) < 2:
                rows.append({**row, "verdict": "too few splits"})
                continue
            a, b = pair[method].to_numpy(), pair[baseline].to_numpy()
            plain = paired_ttest(a, b)
            kind = ("corrected" if task in sizes else "ttest") if test == "auto" else test
            if kind == "corrected":
                n_train, n_test = sizes[task]
                res = corrected_ttest(a, b, n_train=n_train, n_test=n_test)
            else:
                res = plain if kind == "ttest" else wilcoxon(a, b)
            lo, hi = res.conf_int(alpha)
            verdict = helped_verdict(res, alpha)
            row.update(ci_low=lo, ci_high=hi, test=TEST_NAMES[kind], statistic=res.statistic, pvalue=res.pvalue,
                       pvalue_uncorrected=plain.pvalue, effect_size=res.effect_size,
                       effect_size_name=res.effect_size_name, verdict=verdict)
            rows.append(row)
    return pd.DataFrame(rows, columns=HELPED_COLUMNS), baselines


def unlabeled_data_helped(results, *, baselines=None, metric="test_error", test="auto", alpha=0.05, sizes=None):
    """Compare every semi-supervised method with its supervised baseline on the same splits.

    For each (dataset, task, scenario) and each semi-supervised method that ran there, the paired
    errors ``a_j`` (the method) and ``b_j`` (its baseline) over the splits both ran are tested for
    ``mean(a - b) = 0``; the verdict is "helped" when the deciding test rejects at ``alpha`` with
    ``mean(a - b) < 0``, "hurt" when it rejects with ``mean(a - b) > 0``, else "no significant
    difference". This is the one verdict of the comparison reports.

    Parameters
    ----------
    results : pandas.DataFrame
        Tidy results (columns dataset, task, split, method, scenario, fold, metric, value); only the
        refit rows (``fold == "refit"``) of ``metric`` are used. Errors in percent.
    baselines : mapping, default=None
        Method -> its supervised baseline; ``None`` uses the method registry
        (``toolkit._methods.METHODS[m].baseline``: s2rlsc, laprlsc -> rlsc; tsvm, lapsvm -> svc;
        lapsvm_path -> svm_path).
    metric : str, default="test_error"
        Lower is better.
    test : {"auto", "ttest", "wilcoxon", "corrected"}, default="auto"
        The deciding paired test over the splits the two methods share. ``"corrected"`` is Nadeau &
        Bengio's corrected resampled t-test (:func:`corrected_ttest`), for random partitions of one
        data set whose training sets overlap (needs ``sizes`` for every task); ``"auto"`` takes it
        for the tasks in ``sizes`` and the paired t-test (:func:`paired_ttest`) for the others.
    alpha : float, default=0.05
        Significance level of the verdict and level of the confidence interval (``1 - alpha``).
    sizes : mapping, default=None
        Task -> ``(n_train, n_test)`` (training = labelled + unlabelled points) for the corrected test.

    Returns
    -------
    pandas.DataFrame
        One row per (dataset, task, scenario, method): ``baseline``, ``n_splits`` (shared), the two
        means, ``difference`` (method - baseline in the unit of ``metric``, percentage points for
        errors; negative = the unlabelled data helped), its ``ci_low`` / ``ci_high`` from the
        deciding test, ``test`` (its name), ``statistic``, ``pvalue`` (the deciding test's),
        ``pvalue_uncorrected`` (the plain paired t-test's, equal to ``pvalue`` when that test
        decides), ``effect_size`` and its name, and ``verdict``, one of :data:`HELPED_VERDICTS`:
        "helped", "hurt", "no significant difference", "too few splits" (fewer than 2 shared
        splits) or "no baseline" (the method ran on this task, its baseline did not).

    Raises
    ------
    ValueError
        When no semi-supervised method of ``baselines`` ran together with its baseline in
        ``results``: the message names the methods found, the baselines looked for and those missing.

    Examples
    --------
    >>> import pandas as pd
    >>> from toolkit import stats
    >>> rows = [{"dataset": "g50c", "task": "G50C", "split": j, "method": m, "scenario": "labeled-cv",
    ...          "fold": "refit", "metric": "test_error", "value": v}
    ...         for j, (a, b) in enumerate([(5.1, 9.8), (6.0, 11.2), (4.4, 8.7), (7.2, 10.9)])
    ...         for m, v in (("laprlsc", a), ("rlsc", b))]
    >>> out = stats.unlabeled_data_helped(pd.DataFrame(rows), sizes={"G50C": (500, 50)})
    >>> row = out.iloc[0]
    >>> print(row["method"], row["baseline"], round(row["difference"], 2), row["test"], row["verdict"])
    laprlsc rlsc -4.47 corrected resampled t-test helped
    """
    func = "unlabeled_data_helped"
    table, baselines = _compare_with_baselines(results, baselines=baselines, metric=metric, test=test,
                                               alpha=alpha, sizes=sizes, func=func)
    if table.empty or (table["verdict"] == "no baseline").all():
        methods = sorted(map(str, results["method"].unique()))
        found = [m for m in baselines if m in methods]
        if not found:
            raise ValueError(f"{func} found no semi-supervised method to compare: the results have the methods "
                             f"{methods}, and it looks for {sorted(baselines)} (each with its supervised baseline: "
                             f"{_pairs_text(baselines)}). Pass 'baselines' to name other pairs.")
        missing = sorted({baselines[m] for m in found})
        raise ValueError(f"{func} found no supervised baseline to compare with: the results have the methods "
                         f"{methods}; the semi-supervised methods {found} are compared with "
                         f"{_pairs_text({m: baselines[m] for m in found})}, but the baselines {missing} are "
                         f"missing from the refit rows of {metric!r} of every task in which those methods ran. "
                         "Run the baselines on the same splits, or pass 'baselines' to name other pairs.")
    return table


def _pairs_text(baselines):
    return ", ".join(f"{m} -> {b}" for m, b in baselines.items())
