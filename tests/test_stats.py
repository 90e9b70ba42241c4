"""toolkit.stats against scipy / statsmodels, Demšar's (2006) tables and hand computations."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps
from statsmodels.stats.multitest import multipletests

from toolkit import stats


@pytest.fixture
def paired():
    rng = np.random.default_rng(0)
    a = rng.normal(10, 2, 15)
    b = a - 0.8 + rng.normal(0, 1, 15)
    return a, b


def test_paired_ttest_matches_scipy(paired):
    a, b = paired
    res = stats.paired_ttest(a, b)
    ref = sps.ttest_rel(a, b)
    assert res.statistic == pytest.approx(ref.statistic)
    assert res.pvalue == pytest.approx(ref.pvalue)
    lo, hi = res.conf_int(0.05)
    ref_ci = ref.confidence_interval(0.95)
    assert (lo, hi) == pytest.approx((ref_ci.low, ref_ci.high))
    d = a - b
    assert res.effect_size == pytest.approx(d.mean() / d.std(ddof=1))
    assert res.estimate == pytest.approx(d.mean())
    assert res.conf_int(0.01)[0] < lo  # wider at a smaller alpha
    assert "paired t-test" in res.summary()
    one_sided = stats.paired_ttest(a, b, alternative="greater")
    assert one_sided.pvalue == pytest.approx(sps.ttest_rel(a, b, alternative="greater").pvalue)


def test_wilcoxon_matches_scipy_and_rank_biserial(paired):
    a, b = paired
    res = stats.wilcoxon(a, b)
    ref = sps.wilcoxon(a, b)
    assert res.statistic == pytest.approx(ref.statistic)
    assert res.pvalue == pytest.approx(ref.pvalue)
    d = a - b
    ranks = sps.rankdata(np.abs(d))
    r = (ranks[d > 0].sum() - ranks[d < 0].sum()) / ranks.sum()
    assert res.effect_size == pytest.approx(r)
    walsh = [(d[i] + d[j]) / 2 for i in range(len(d)) for j in range(i, len(d))]
    assert res.estimate == pytest.approx(np.median(walsh))
    lo, hi = res.conf_int()
    assert lo <= res.estimate <= hi


def test_identical_samples_give_no_evidence():
    a = np.array([1.0, 2.0, 3.0])
    for test in (stats.paired_ttest, stats.wilcoxon):
        res = test(a, a)
        assert res.pvalue == 1.0 and res.effect_size == 0.0


def test_corrected_resampled_ttest_by_hand(paired):
    a, b = paired
    d = a - b
    J, n_train, n_test = len(d), 90, 10
    se = np.sqrt((1 / J + n_test / n_train) * d.var(ddof=1))
    t = d.mean() / se
    res = stats.corrected_ttest(a, b, n_train=n_train, n_test=n_test)
    assert res.statistic == pytest.approx(t)
    assert res.pvalue == pytest.approx(2 * sps.t.sf(abs(t), J - 1))
    assert res.df == J - 1
    # the correction only ever widens the interval of the naive paired t-test
    naive = stats.paired_ttest(a, b)
    assert res.pvalue > naive.pvalue
    assert res.conf_int()[1] - res.conf_int()[0] > naive.conf_int()[1] - naive.conf_int()[0]


def test_paired_inputs_are_validated():
    with pytest.raises(ValueError, match="paired samples must match"):
        stats.paired_ttest([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="finite"):
        stats.wilcoxon([1, np.nan, 3], [1, 2, 3])
    with pytest.raises(ValueError, match="alpha"):
        stats.paired_ttest([1, 2, 3], [2, 2, 2]).conf_int(1.5)


@pytest.fixture
def scores():
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(rng.normal(size=(12, 4)) + np.array([0.0, 0.3, 0.8, 1.5]),
                         columns=["a", "b", "c", "d"], index=[f"ds{i}" for i in range(12)])
    frame.iloc[0, :2] = 0.5  # a tie
    return frame


@pytest.mark.parametrize("test, kw", [(stats.paired_ttest, {}), (stats.wilcoxon, {}),
                                      (stats.corrected_ttest, {"n_train": 40, "n_test": 10})])
@pytest.mark.parametrize("a, b", [([1e308, -1e308, 1e308], [-1e308, 1e308, -1e308]),     # a - b overflows
                                  ([1e200, -1e200, 3e200], [0.0, 0.0, 0.0])])            # its variance does
def test_paired_tests_refuse_overflowing_differences_instead_of_nan(test, kw, a, b):
    """Issue 26: paired_ttest returned NaN / inf without a word on differences that overflow float64."""
    with np.errstate(all="raise"):         # and no floating-point warning on the way
        with pytest.raises(ValueError, match=rf"{test.__name__}: the differences 'a' - 'b' or their variance "
                                             r"overflow float64 .*Rescale 'a' and 'b'"):
            test(a, b, **kw)
    res = test(np.asarray(a) * 1e-300, np.asarray(b) * 1e-300, **kw)   # the same data in a smaller unit
    assert np.isfinite(res.statistic) and np.isfinite(res.pvalue)


def test_friedman_matches_scipy(scores):
    res = stats.friedman(scores)
    ref = sps.friedmanchisquare(*[scores[c] for c in scores.columns])
    assert res.statistic == pytest.approx(ref.statistic)
    assert res.pvalue == pytest.approx(ref.pvalue)
    N, k = scores.shape
    f = (N - 1) * res.statistic / (N * (k - 1) - res.statistic)
    assert res.iman_davenport == pytest.approx(f)
    assert res.pvalue_f == pytest.approx(sps.f.sf(f, k - 1, (k - 1) * (N - 1)))
    assert res.effect_size == pytest.approx(res.statistic / (N * (k - 1)))
    expected_ranks = scores.rank(axis=1).mean()
    pd.testing.assert_series_equal(res.ranks, expected_ranks)
    assert list(res.conf_int().columns) == ["lower", "upper"]


def test_friedman_two_methods_is_defined():
    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "b": [2.0, 3.0, 4.0, 5.0]})
    res = stats.friedman(frame)
    # all four data sets rank a first: chi2 = 12 N / (k (k+1)) * sum (R_j - (k+1)/2)^2 = 4
    assert res.statistic == pytest.approx(4.0)


# Demšar (2006), Table 5: critical values q_alpha of the two-tailed Nemenyi test, k = 2..10
DEMSAR_Q05 = [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164]
DEMSAR_Q10 = [1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920]


@pytest.mark.parametrize("alpha,table", [(0.05, DEMSAR_Q05), (0.10, DEMSAR_Q10)])
def test_nemenyi_critical_difference_matches_demsar_table(alpha, table):
    for k, q in zip(range(2, 11), table):
        N = 14
        assert stats.critical_difference(k, N, alpha) == pytest.approx(q * np.sqrt(k * (k + 1) / (6 * N)), abs=2e-3)
    # Demšar's worked example: four algorithms on 14 data sets, CD = 1.25 at alpha = 0.05
    if alpha == 0.05:
        assert stats.critical_difference(4, 14, 0.05) == pytest.approx(1.25, abs=0.005)


def test_nemenyi_pvalues_agree_with_the_critical_difference(scores):
    res = stats.nemenyi(scores, alpha=0.05)
    diff = np.abs(res.effect_size.to_numpy())
    significant = res.pvalues.to_numpy() < 0.05
    off = ~np.eye(len(diff), dtype=bool)
    assert np.array_equal(significant[off], (diff >= res.cd)[off])
    np.testing.assert_allclose(res.pvalues, res.pvalues.T)


def test_holm_matches_statsmodels(scores):
    res = stats.holm(scores, control="a")
    N, k = scores.shape
    ranks = scores.rank(axis=1).mean()
    z = (ranks["a"] - ranks[["b", "c", "d"]]) / np.sqrt(k * (k + 1) / (6 * N))
    raw = 2 * sps.norm.sf(np.abs(z))
    adjusted = multipletests(raw, method="holm")[1]
    np.testing.assert_allclose(res.pvalues.loc["a", ["b", "c", "d"]], adjusted)
    assert np.isnan(res.pvalues.loc["b", "c"])
    allpairs = stats.holm(scores)
    assert not allpairs.pvalues.isna().any().any()
    with pytest.raises(ValueError, match="control"):
        stats.holm(scores, control="zzz")


def test_cd_diagram_draws_the_critical_difference(scores):
    import matplotlib

    matplotlib.use("Agg")
    fig = stats.cd_diagram(scores, alpha=0.1)
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert any(t.startswith("CD = ") and "0.1" in t for t in texts)
    assert sum(name in " ".join(texts) for name in scores.columns) == 4


def test_unlabeled_data_helped():
    rows = []
    rng = np.random.default_rng(3)
    for split in range(8):
        base = rng.normal(10, 1)
        for method, value in (("rlsc", base), ("s2rlsc", base - 3 + rng.normal(0, 0.5)),
                              ("svc", base), ("lapsvm", base + rng.normal(0, 0.5))):
            rows.append({"dataset": "d", "task": "t", "split": split, "method": method, "params": "{}",
                         "scenario": "labeled-cv", "fold": "refit", "metric": "test_error", "value": value,
                         "seconds": 0.1, "seed": 0})
    out = stats.unlabeled_data_helped(pd.DataFrame(rows), baselines={"s2rlsc": "rlsc", "lapsvm": "svc"})
    helped = out.set_index("method")
    assert helped.loc["s2rlsc", "verdict"] == "helped"
    assert helped.loc["s2rlsc", "pvalue"] < 1e-3
    assert helped.loc["s2rlsc", "ci_high"] < 0
    assert helped.loc["lapsvm", "verdict"] == "no significant difference"
    assert helped.loc["s2rlsc", "baseline"] == "rlsc"


def test_nemenyi_agrees_with_scikit_posthocs():
    sp = pytest.importorskip("scikit_posthocs", reason="scikit-posthocs is an optional test dependency")
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(rng.normal(size=(12, 4)) + np.array([0.0, 0.3, 0.8, 1.5]), columns=list("abcd"))
    frame.iloc[0, :2] = 0.5
    ref = sp.posthoc_nemenyi_friedman(frame.to_numpy())
    np.testing.assert_allclose(stats.nemenyi(frame).pvalues.to_numpy(), ref.to_numpy(), atol=1e-10)


def test_unlabeled_data_helped_with_the_corrected_test():
    rows = []
    rng = np.random.default_rng(4)
    for split in range(6):
        base = rng.normal(10, 1)
        for method, value in (("rlsc", base), ("s2rlsc", base - 1 + rng.normal(0, 0.5))):
            rows.append({"dataset": "d", "task": "t", "split": split, "method": method, "params": "{}",
                         "scenario": "labeled-cv", "fold": "refit", "metric": "test_error", "value": value,
                         "seconds": 0.1, "seed": 0})
    frame = pd.DataFrame(rows)
    plain = stats.unlabeled_data_helped(frame, baselines={"s2rlsc": "rlsc"})
    corrected = stats.unlabeled_data_helped(frame, baselines={"s2rlsc": "rlsc"}, test="corrected",
                                            sizes={"t": (250, 250)})
    wide = frame.pivot(index="split", columns="method", values="value")
    ref = stats.corrected_ttest(wide["s2rlsc"], wide["rlsc"], n_train=250, n_test=250)
    assert corrected["pvalue"].iloc[0] == pytest.approx(ref.pvalue)
    assert corrected["pvalue"].iloc[0] > plain["pvalue"].iloc[0]
    with pytest.raises(ValueError, match="sizes"):
        stats.unlabeled_data_helped(frame, test="corrected")


def test_friedman_with_identical_rankings_does_not_claim_p_zero():
    """N = 2 data sets, k = 2 methods, same winner twice: W = 1, Iman-Davenport undefined, p from chi²."""
    res = stats.friedman(np.array([[1.0, 2.0], [3.0, 5.0]]))
    assert res.effect_size == pytest.approx(1.0)
    assert res.pvalue == pytest.approx(sps.chi2.sf(2.0, 1))          # 0.157
    assert np.isnan(res.iman_davenport) and res.pvalue_f == res.pvalue
    assert "undefined" in res.summary()


# ------------------------------------------------------------------ "did it help": one verdict, named test
def _tidy_rows(values, *, task="t", dataset="d", scenario="labeled-cv"):
    """Tidy refit rows from ``{method: [error per split]}``."""
    return pd.DataFrame([{"dataset": dataset, "task": task, "split": j, "method": method, "params": "{}",
                          "scenario": scenario, "fold": "refit", "metric": "test_error", "value": v,
                          "seconds": 0.1, "seed": 0}
                         for method, errors in values.items() for j, v in enumerate(errors)])


def test_unlabeled_data_helped_is_decided_by_the_corrected_test_where_sizes_are_known():
    """The t-test rejects, the corrected test does not: the verdict follows the corrected test (auto), the
    uncorrected p-value is kept beside it; a task without sizes falls back to the paired t-test."""
    errors = {"rlsc": [10.0, 12.0, 9.0], "s2rlsc": [4.0, 8.5, 2.5]}      # differences -6, -3.5, -6.5
    frame = pd.concat([_tidy_rows(errors, task="with sizes"), _tidy_rows(errors, task="without")])
    out = stats.unlabeled_data_helped(frame, baselines={"s2rlsc": "rlsc"}, sizes={"with sizes": (250, 250)})
    out = out.set_index("task")
    a, b = np.array(errors["s2rlsc"]), np.array(errors["rlsc"])
    plain, corrected = stats.paired_ttest(a, b), stats.corrected_ttest(a, b, n_train=250, n_test=250)
    assert plain.pvalue < 0.05 < corrected.pvalue                        # the two tests disagree
    row = out.loc["with sizes"]
    assert row["test"] == "corrected resampled t-test" and row["verdict"] == "no significant difference"
    assert row["pvalue"] == pytest.approx(corrected.pvalue)
    assert row["pvalue_uncorrected"] == pytest.approx(plain.pvalue)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(corrected.conf_int())
    row = out.loc["without"]
    assert row["test"] == "paired t-test" and row["verdict"] == "helped"
    assert row["pvalue"] == row["pvalue_uncorrected"] == pytest.approx(plain.pvalue)
    with pytest.raises(ValueError, match=r"sizes.*\['without'\]"):
        stats.unlabeled_data_helped(frame, baselines={"s2rlsc": "rlsc"}, test="corrected",
                                    sizes={"with sizes": (250, 250)})


def test_unlabeled_data_helped_says_hurt_when_the_method_is_significantly_worse():
    out = stats.unlabeled_data_helped(_tidy_rows({"svc": [20.0, 25.0, 22.0, 24.0],
                                                  "lapsvm": [35.0, 41.0, 36.0, 39.0]}), baselines={"lapsvm": "svc"})
    row = out.iloc[0]
    assert row["verdict"] == "hurt" and row["difference"] > 0 and row["ci_low"] > 0 and row["test"] == "paired t-test"
    assert set(out["verdict"]) <= set(stats.HELPED_VERDICTS)


def test_unlabeled_data_helped_without_the_baseline_raises_naming_what_is_missing():
    only_ssl = _tidy_rows({"s2rlsc": [4.0, 5.0, 6.0], "lapsvm": [3.0, 4.0, 5.0]})
    with pytest.raises(ValueError) as info:
        stats.unlabeled_data_helped(only_ssl)
    message = str(info.value)
    for word in ("baseline", "['rlsc', 'svc']", "s2rlsc -> rlsc", "lapsvm -> svc", "['lapsvm', 's2rlsc']"):
        assert word in message
    only_supervised = _tidy_rows({"rlsc": [4.0, 5.0, 6.0], "svc": [3.0, 4.0, 5.0]})
    with pytest.raises(ValueError, match=r"no semi-supervised method.*\['rlsc', 'svc'\].*s2rlsc -> rlsc"):
        stats.unlabeled_data_helped(only_supervised)
    # a method whose baseline ran on another task only: its row says so (never silently dropped)
    mixed = pd.concat([_tidy_rows({"rlsc": [9.0, 10.0, 11.0], "s2rlsc": [4.0, 5.5, 6.0]}, task="a"),
                       _tidy_rows({"s2rlsc": [4.0, 5.0, 6.0]}, task="b")])
    out = stats.unlabeled_data_helped(mixed, baselines={"s2rlsc": "rlsc"}).set_index("task")
    assert out.loc["b", "verdict"] == "no baseline" and out.loc["b", "n_splits"] == 0
    assert out.loc["a", "verdict"] in ("helped", "no significant difference")


# ------------------------------------------------------------------ every result reads like a statistics table
def test_every_result_has_a_summary_a_readable_repr_and_html(paired):
    a, b = paired
    scores = pd.DataFrame(np.random.default_rng(0).random((8, 3)), columns=["s2rlsc", "lapsvm", "rlsc"])
    results = [stats.paired_ttest(a, b), stats.wilcoxon(a, b), stats.corrected_ttest(a, b, n_train=90, n_test=10),
               stats.friedman(scores), stats.nemenyi(scores), stats.holm(scores, control="rlsc")]
    for res in results:
        text, line, page = res.summary(), repr(res), res._repr_html_()
        title = text.splitlines()[0]
        assert text.splitlines()[1].startswith("=====")                   # a title over a rule, rows under it
        assert line.startswith(type(res).__name__ + "(") and "\n" not in line
        assert "array(" not in line and "dtype" not in line and "_interval" not in line   # no raw dataclass dump
        assert page.startswith("<table><caption>") and title.split(" (")[0] in page
    t, w, c, fr, nem, hol = results
    assert f"p-value                    {t.pvalue:.4g}" in t.summary() and "95% CI" in t.summary()
    assert "Hodges-Lehmann" in w.summary() and "rank-biserial" in repr(w)
    assert "n_train / n_test           90 / 10" in c.summary()
    assert "Kendall's W" in fr.summary() and "Mean ranks" in fr.summary() and "Iman-Davenport" in repr(fr)
    assert "critical difference" in nem.summary() and "p-values" in nem.summary()
    assert "Holm-adjusted" in hol.summary() and repr(hol).startswith("PosthocResult(holm:")


def test_helped_verdict_reads_the_tests_sign_and_level_and_names_a_bad_result():
    from toolkit import stats

    better = stats.paired_ttest([1.0, 2.0, 1.5, 1.2], [5.0, 6.0, 5.5, 5.1])          # a lower error: helped
    assert stats.helped_verdict(better) == "helped" and stats.helped_verdict(better, alpha=1e-12) == \
        "no significant difference"
    assert stats.helped_verdict(stats.paired_ttest([5.0, 6.0, 5.5, 5.1], [1.0, 2.0, 1.5, 1.2])) == "hurt"
    with pytest.raises(TypeError, match="'result' parameter of helped_verdict must be a TestResult"):
        stats.helped_verdict(0.01)
