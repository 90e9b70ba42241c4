"""Defaults read off the data, the warnings of fits that cannot be right, the cross-validated estimators.

References: the width is checked against SciPy's pairwise distances (brute force), the CV
estimators' fold errors against scikit-learn's ``GridSearchCV`` with the toolkit's splitter and
the plain estimator, fold by fold; the defaults against the signatures of the functions.
"""
from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest
from scipy.spatial.distance import pdist
from sklearn.datasets import make_blobs, make_moons
from sklearn.model_selection import GridSearchCV

import toolkit
from toolkit import DegenerateFitWarning, laprlsc, lapsvm
from toolkit.estimators import LapRLSC, LapRLSCCV, LapSVM, LapSVMCV, S2RLSCCV
from toolkit.kernels import MEDIAN_SAMPLE, scale_width
from toolkit.selection import SemiSupervisedKFold
from toolkit.specs import Graph, Kernel


def _moons(n=200, labels=4, seed=0):
    X, y_true = make_moons(n, noise=0.08, random_state=seed)
    y = np.full(n, np.nan)
    rng = np.random.default_rng(seed)
    for c in (0, 1):
        y[rng.choice(np.flatnonzero(y_true == c), labels, replace=False)] = c
    return X, y, y_true


# ----------------------------------------------------------------------------- sigma="scale"
def test_scale_width_is_half_the_median_pairwise_distance():
    X = np.random.default_rng(0).normal(size=(300, 7))
    assert scale_width(X) == pytest.approx(np.median(pdist(X)) / 2, rel=1e-9)


def test_scale_width_samples_a_fixed_subset_beyond_median_sample():
    X = np.random.default_rng(1).normal(size=(MEDIAN_SAMPLE + 500, 3))
    rows = np.sort(np.random.default_rng(0).choice(X.shape[0], MEDIAN_SAMPLE, replace=False))
    assert scale_width(X) == pytest.approx(np.median(pdist(X[rows])) / 2, rel=1e-9)
    assert scale_width(X) == scale_width(X.copy())


def test_scale_width_refuses_what_gives_no_width():
    with pytest.raises(ValueError, match="at least 2 rows"):
        scale_width(np.ones((1, 3)))
    with pytest.raises(ValueError, match="median distance of 0"):
        scale_width(np.r_[np.zeros((10, 2)), np.ones((1, 2))])


@pytest.mark.parametrize("func", [lapsvm, laprlsc])
def test_sigma_scale_is_resolved_from_the_training_rows_and_recorded(func):
    X, y, _ = _moons()
    lab = ~np.isnan(y)
    fit = func(X[lab], y[lab], X[~lab])
    assert fit.params["sigma_rule"] == "scale"
    assert fit.params["sigma"] == pytest.approx(np.median(pdist(np.vstack([X[lab], X[~lab]]))) / 2, rel=1e-9)
    explicit = func(X[lab], y[lab], X[~lab], kernel=Kernel("rbf", sigma=fit.params["sigma"]))
    assert explicit.params["sigma_rule"] is None
    np.testing.assert_allclose(explicit.decision_function(X), fit.decision_function(X), rtol=0, atol=1e-12)


def test_sigma_rule_must_be_known():
    X, y, _ = _moons()
    lab = ~np.isnan(y)
    with pytest.raises(ValueError, match="'sigma'.*'scale'"):
        lapsvm(X[lab], y[lab], X[~lab], kernel=Kernel("rbf", sigma="median"))


# ----------------------------------------------------------------------------- the defaults
@pytest.mark.parametrize("func, estimator", [(lapsvm, LapSVM), (laprlsc, LapRLSC)])
def test_estimator_defaults_equal_the_functions(func, estimator):
    """The estimator's flat hyper-parameters, as the specs the estimator builds, are the function's defaults."""
    from toolkit.specs import Graph, Kernel

    function = inspect.signature(func).parameters
    est = estimator()
    params = est._solver_params()                   # what fit passes to the function
    assert params["kernel"] == Kernel.of(function["kernel"].default, func.__name__)
    assert params["graph"] == Graph() and function["graph"].default is None          # None: Graph()
    from toolkit.manifold._solvers import LAPRLSC_SOLVER, LAPSVM_SOLVER
    assert params["solver"] == (LAPSVM_SOLVER if func is lapsvm else LAPRLSC_SOLVER)
    for name, parameter in inspect.signature(estimator).parameters.items():
        if name in function and name not in ("kernel", "graph", "solver", "low_rank") and parameter.default != "deprecated":
            assert parameter.default == function[name].default, name


def test_the_registry_graph_defaults_are_the_functions():
    from toolkit.graphs import GRAPH_PARAMS
    from toolkit.specs import Graph

    assert {k: Graph().flat()[k] for k in GRAPH_PARAMS} == GRAPH_PARAMS     # lapsvm's graph=None is Graph()


def test_defaults_separate_pixel_data_where_a_unit_width_warns():
    """The failure this issue names: sigma=1 on 64-dimensional pixel data makes K close to the identity."""
    from sklearn.datasets import load_digits

    digits = load_digits()
    keep = np.isin(digits.target, (3, 8))
    X, truth = digits.data[keep], digits.target[keep]
    rng = np.random.default_rng(0)
    labeled = np.concatenate([rng.choice(np.flatnonzero(truth == c), 5, replace=False) for c in (3, 8)])
    rest = np.setdiff1d(np.arange(len(truth)), labeled)
    with pytest.warns(DegenerateFitWarning, match="below half the typical distance between a row and its nearest"):
        lapsvm(X[labeled], truth[labeled], X[rest], kernel=Kernel("rbf", sigma=1.0),
               graph=Graph(n_neighbors=6, weight="binary", power=1), gamma_I=1e-2)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DegenerateFitWarning)
        fit = lapsvm(X[labeled], truth[labeled], X[rest])
    assert np.mean(fit.predict(X[rest]) == truth[rest]) > 0.9


def test_one_class_fit_warns_with_the_numbers():
    X, y, _ = _moons(labels=6)
    y[np.flatnonzero(y == 0)[2:]] = np.nan      # 2 labels of class 0, 6 of class 1: the bias decides alone
    lab = ~np.isnan(y)
    with pytest.warns(DegenerateFitWarning, match=r"predicts one class \(1.0\) for all 200 training rows.*gamma_A=1e\+06"):
        fit = lapsvm(X[lab], y[lab], X[~lab], gamma_A=1e6, gamma_I=1e6)
    assert np.unique(fit.predict(X)).tolist() == [1.0]


def test_selection_candidates_do_not_warn_but_the_refit_does():
    from toolkit.selection import Indices, select

    X, y, y_true = _moons(labels=6)
    lab, unl = np.flatnonzero(~np.isnan(y)), np.flatnonzero(np.isnan(y))
    with warnings.catch_warnings():
        warnings.simplefilter("error", DegenerateFitWarning)
        select("lapsvm", X, y, Indices(lab, unl, np.empty(0, dtype=int)), grid={"gamma_A": [1e-6, 1e6]},
               fixed={"kernel": "rbf", "sigma": 0.3, "gamma_I": 1e6}, n_folds=3, refit=False, rng=0, progress=False)


# ----------------------------------------------------------------------------- the CV estimators
def test_cv_errors_equal_gridsearchcv_with_the_splitter_fold_by_fold():
    """LapRLSCCV's CV errors are those of scikit-learn's GridSearchCV over LapRLSC with SemiSupervisedKFold."""
    X, y, _ = _moons(labels=6)
    grid = {"gamma_I": [0.01, 1.0], "n_neighbors": [6, 10]}
    cv = LapRLSCCV(sigma=0.3, gamma_A=1e-6, laplacian_power=2, random_state=3, n_folds=3, supervised="off",
                   **grid).fit(X, y)
    reference = GridSearchCV(LapRLSC(sigma=0.3, gamma_A=1e-6, unlabeled=np.nan), grid,
                             cv=SemiSupervisedKFold(3, random_state=3, unlabeled=np.nan)).fit(X, y)
    ours = {(p["gamma_I"], p["n_neighbors"]): s for p, s in zip(cv.cv_results_["params"],
                                                                cv.cv_results_["mean_test_score"])}
    theirs = {(p["gamma_I"], p["n_neighbors"]): s for p, s in zip(reference.cv_results_["params"],
                                                               reference.cv_results_["mean_test_score"])}
    assert ours.keys() == theirs.keys()
    for key in ours:
        assert ours[key] == pytest.approx(theirs[key], abs=1e-12), key


def test_cv_estimator_refits_the_best_candidate_and_predicts_with_it():
    X, y, y_true = _moons(labels=6)
    cv = LapSVMCV(random_state=0, supervised="off").fit(X, y)          # the semi-supervised search alone
    assert set(cv.best_params_) == {"sigma", "gamma_A", "gamma_I", "n_neighbors", "laplacian_power"}
    errors = cv.cv_results_["mean_test_error"]
    assert errors[cv.best_index_] == errors.min()
    # one unit for errors (percent, as select's test_error and results.csv); scores stay scikit-learn's fractions
    scores = cv.cv_results_["mean_test_score"]
    np.testing.assert_allclose(errors, 100 * (1 - scores))
    np.testing.assert_allclose(cv.cv_results_["std_test_error"], 100 * cv.cv_results_["std_test_score"])
    np.testing.assert_allclose(cv.cv_results_["se_test_error"], 100 * cv.cv_results_["se_test_score"])
    np.testing.assert_allclose(errors, cv.selection_.summary_table["mean"])
    assert cv.best_score_ == scores[cv.best_index_] and 0.5 < cv.best_score_ <= 1.0
    assert cv.cv_results_["params"][cv.best_index_] == cv.best_params_
    assert cv.best_estimator_.get_params()["gamma_I"] == cv.best_params_["gamma_I"]
    np.testing.assert_array_equal(cv.predict(X), cv.best_estimator_.predict(X))
    assert np.mean(cv.transduction_[np.isnan(y)] == y_true[np.isnan(y)]) > 0.95
    assert cv.n_folds_ == 3 and len(cv.cv_results_["params"]) == 16
    width = scale_width(X)
    assert sorted(set(cv.cv_results_["param_sigma"])) == pytest.approx([width, 2 * width])


def test_cv_estimator_is_deterministic_with_a_seed_and_1se_is_no_less_regularised():
    X, y, _ = _moons(labels=6)
    a, b = LapSVMCV(random_state=7).fit(X, y), LapSVMCV(random_state=7).fit(X, y)
    np.testing.assert_array_equal(a.cv_results_["mean_test_score"], b.cv_results_["mean_test_score"])
    assert a.best_params_ == b.best_params_
    one_se = LapSVMCV(random_state=7, refit="1se").fit(X, y)
    assert one_se.best_params_["gamma_I"] >= a.best_params_["gamma_I"]
    within = a.cv_results_["mean_test_error"] <= a.cv_results_["mean_test_error"].min() \
        + a.cv_results_["se_test_error"][a.best_index_] + 1e-12
    assert one_se.best_params_["gamma_I"] == max(p["gamma_I"] for p, ok in zip(a.cv_results_["params"], within) if ok)
    from toolkit.estimators._base import FUNCTION_NAMES      # the selection's names of the renamed ones
    assert one_se.best_params_ == {k: one_se.selection_.lambda_1se[FUNCTION_NAMES.get(k, k)] for k in one_se.best_params_}


def test_cv_estimator_multiclass_and_string_labels():
    X, truth = make_blobs(240, centers=3, cluster_std=1.0, random_state=0)
    names = np.array(["a", "b", "c"], dtype=object)[truth]
    y = np.full(240, None, dtype=object)
    rng = np.random.default_rng(0)
    for c in range(3):
        idx = rng.choice(np.flatnonzero(truth == c), 4, replace=False)
        y[idx] = names[idx]
    cv = LapRLSCCV(random_state=0, gamma_I=(0.01, 0.1), n_neighbors=6, supervised="off").fit(X, y)
    assert cv.classes_.tolist() == ["a", "b", "c"]
    assert np.mean(cv.predict(X) == names) > 0.9
    safe = LapRLSCCV(random_state=0, gamma_I=(0.01, 0.1), n_neighbors=6).fit(X, y)     # with the supervised limit
    assert safe.classes_.tolist() == ["a", "b", "c"] and safe.comparison_.test.n == 3
    assert np.mean(safe.predict(X) == names) >= 0.85


def test_cv_estimator_plot_draws_the_curve():
    import matplotlib

    matplotlib.use("Agg")
    X, y, _ = _moons(labels=6)
    fig = LapSVMCV(random_state=0, n_neighbors=10, laplacian_power=2, supervised="off").fit(X, y).plot()
    ax = fig.axes[0]
    assert ax.get_xlabel() == "gamma_I" and ax.get_ylabel() == "selection error (%)"
    assert len(ax.lines[0].get_xdata()) == 2          # the two default candidates of gamma_I


def test_s2rlsccv_selects_lambda_on_two_classes_and_refuses_more():
    X, y, y_true = _moons(labels=6)
    cv = S2RLSCCV(random_state=0, restarts=1, supervised="off").fit(X, y)
    assert set(cv.best_params_) == {"sigma", "lam", "lam_u"}
    assert np.mean(cv.predict(X) == y_true) > 0.9
    Xb, truth = make_blobs(90, centers=3, random_state=0)
    yb = np.full(90, np.nan)
    yb[:12] = truth[:12]
    with pytest.raises(ValueError, match="two-class method"):
        S2RLSCCV(random_state=0).fit(Xb, yb)


@pytest.mark.parametrize("params, match", [
    ({"refit": "best"}, "'refit' parameter of LapSVMCV must be 'min' or '1se'"),
    ({"n_folds": 9}, "'n_folds' parameter of LapSVMCV"),
    ({"sigma": "median"}, "'sigma' parameter of LapSVMCV.fit"),
    ({"gamma_I": []}, "'gamma_I' parameter of LapSVMCV.fit must hold at least one candidate"),
    ({"gamma_A": [-1.0]}, "'gamma_A' parameter of LapSVMCV.fit"),
])
def test_cv_estimator_bad_parameters_are_named(params, match):
    X, y, _ = _moons(labels=6)
    with pytest.raises(ValueError, match=match):
        LapSVMCV(**params).fit(X, y)


def test_a_class_with_one_labelled_row_stays_in_every_training_fold():
    """A class of one label cannot be held out without a training fold missing it: it stays in every
    training fold, the other class's labelled rows are cross-validated, and both classes are predicted."""
    X, y, truth = _moons(labels=6)
    y[np.flatnonzero(y == 1)[1:]] = np.nan
    model = LapSVMCV().fit(X, y)
    assert model.n_folds_ == 3 and model.cv_results_ is not None
    assert len(np.unique(model.predict(X))) == 2
    folds = model.selection_.results.query("metric == 'cv_error'")["fold"].unique()
    assert sorted(folds.tolist()) == ["0", "1", "2"]


def test_with_a_single_labelled_row_per_class_the_first_candidates_are_fitted_with_a_warning():
    X, y, _ = _moons(labels=6)
    y[np.flatnonzero(y == 1)[1:]] = np.nan
    y[np.flatnonzero(y == 0)[1:]] = np.nan
    with pytest.warns(UserWarning, match=r"every class has a single labelled row .* no cross-validation is possible"):
        model = LapSVMCV().fit(X, y)
    assert model.n_folds_ == 0 and model.selection_ is None and model.cv_results_ is None
    assert model.best_params_["gamma_I"] == 0.1 and model.best_params_["n_neighbors"] == 10
    assert len(np.unique(model.predict(X))) == 2
    with pytest.raises(ValueError, match="ran no cross-validation"):
        model.plot()


def test_ties_go_to_the_measured_defaults():
    """Two far-apart blobs: every candidate errs 0 % in every fold, and the first in grid order is chosen,
    which is LapSVM's default setting (sigma='scale', gamma_I=0.1, 10 neighbours, L^2)."""
    X, truth = make_blobs(120, centers=[[-10, 0], [10, 0]], cluster_std=0.5, random_state=0)
    y = np.full(120, np.nan)
    for c in (0, 1):
        y[np.flatnonzero(truth == c)[:6]] = c
    cv = LapSVMCV(random_state=0, supervised="off").fit(X, y)
    assert np.all(cv.cv_results_["mean_test_error"] == 0.0)
    default = LapSVM().get_params()
    assert cv.best_params_ == {"sigma": pytest.approx(scale_width(X)), "gamma_A": default["gamma_A"],
                               "gamma_I": default["gamma_I"], "n_neighbors": default["n_neighbors"],
                               "laplacian_power": default["laplacian_power"]}
    safe = LapSVMCV(random_state=0).fit(X, y)        # a tie between the two kinds goes to the supervised model
    assert safe.comparison_.refitted == "supervised" and safe.comparison_.verdict == "no significant difference"


def test_a_fit_with_no_argument_is_the_same_every_time():
    X, y, _ = _moons(labels=6)
    a, b = LapSVMCV().fit(X, y), LapSVMCV().fit(X, y)
    np.testing.assert_array_equal(a.cv_results_["mean_test_score"], b.cv_results_["mean_test_score"])
    assert a.selection_.seed == b.selection_.seed == 0


def test_cv_estimator_refuses_y_without_unlabelled_rows_and_scores_labelled_rows_only():
    """No unlabelled row: refused before any candidate is fitted. A scikit-learn test fold holding marked
    rows is scored on its labelled rows (the refitted model's accuracy on them)."""
    X, y, y_true = _moons(labels=6)
    with pytest.raises(ValueError, match=r"LapSVMCV.fit needs unlabelled rows.*marked unlabelled by -1"):
        LapSVMCV().fit(X, y_true)
    zeros, ones, unlabeled = np.flatnonzero(y == 0), np.flatnonzero(y == 1), np.flatnonzero(np.isnan(y))
    kept = np.r_[zeros[3:], ones[3:]]                         # the labelled rows of the test fold
    train, test = np.r_[zeros[:3], ones[:3], unlabeled[20:]], np.r_[kept, unlabeled[:20]]
    small = {"sigma": 0.3, "gamma_I": 1.0, "n_neighbors": 6, "laplacian_power": 1, "n_folds": 2}
    search = GridSearchCV(LapSVMCV(**small), {"refit": ["min"]}, cv=[(train, test)], error_score="raise").fit(X, y)
    model = LapSVMCV(**small).fit(X[train], y[train])
    assert search.cv_results_["split0_test_score"][0] == np.mean(model.predict(X[kept]) == y[kept])


# ------------------------------------------------------------------ the supervised limit as a candidate
def _linear_problem(n=400, labels=20, seed=0):
    """A linear problem without cluster structure: standard normal points labelled by a direction."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 8))
    truth = (X @ np.random.default_rng(12345).standard_normal(8) > 0).astype(int)
    y = np.full(n, np.nan)
    for c in (0, 1):
        y[rng.choice(np.flatnonzero(truth == c), labels // 2, replace=False)] = c
    return X, y, truth


def test_the_supervised_limit_is_a_candidate_on_the_same_folds():
    """The default candidates hold the model without the graph (gamma_I = 0, RBF widths and linear),
    cross-validated on the semi-supervised search's folds; comparison_ pairs their fold errors."""
    X, y, _ = _moons(labels=6)
    model = LapSVMCV().fit(X, y)
    res = model.cv_results_
    supervised = [p for p, semi in zip(res["params"], res["semi_supervised"]) if not semi]
    assert supervised and all(p["gamma_I"] == 0.0 for p in supervised)
    assert {p["kernel"] for p in supervised} == {"rbf", "linear"}
    assert res["params"][model.best_index_] == model.best_params_
    c = model.comparison_
    assert c.test.n == model.n_folds_ and c.verdict in ("helped", "hurt", "no significant difference")
    assert c.rule == "min" and c.refitted == ("semi-supervised" if c.semi_supervised_error < c.supervised_error
                                              else "supervised")
    one_se = LapSVMCV(supervised="1se").fit(X, y).comparison_
    assert one_se.refitted == ("semi-supervised" if one_se.semi_supervised_error + one_se.semi_supervised_se
                               < one_se.supervised_error else "supervised")
    assert "Did the unlabelled data help?" in model.summary() and c.verdict in model.summary()


def test_where_the_graph_does_not_help_the_supervised_model_is_refitted_exactly():
    X, y, _ = _linear_problem()
    model = LapSVMCV().fit(X, y)
    c = model.comparison_
    assert c.refitted == "supervised" and model.best_params_["gamma_I"] == 0.0
    direct = LapSVM(**model.best_params_, method="newton", stop=None).fit(X, y)      # exactly, as it was validated
    np.testing.assert_array_equal(model.decision_function(X), direct.decision_function(X))


def test_on_the_moons_the_semi_supervised_model_is_kept():
    X, y, truth = _moons(labels=4)
    model = LapSVMCV().fit(X, y)
    assert model.comparison_.refitted == "semi-supervised" and model.best_params_["gamma_I"] > 0
    assert np.mean(model.predict(X) != truth) < 0.05


def test_supervised_off_is_the_semi_supervised_search_alone_and_a_bad_rule_is_named():
    X, y, _ = _moons(labels=6)
    off = LapSVMCV(supervised="off").fit(X, y)
    assert off.comparison_ is None and off.cv_results_["semi_supervised"].all()
    default = LapSVMCV().fit(X, y)
    n = len(off.cv_results_["params"])
    assert default.cv_results_["params"][:n] == off.cv_results_["params"]
    np.testing.assert_array_equal(default.cv_results_["mean_test_error"][:n], off.cv_results_["mean_test_error"])
    with pytest.raises(ValueError, match="'supervised' parameter of LapSVMCV must be one of"):
        LapSVMCV(supervised="never").fit(X, y)


def test_s2rlsccv_compares_with_the_rlsc_it_starts_from():
    X, y, _ = _linear_problem()
    model = S2RLSCCV().fit(X, y)
    supervised = [p for p, semi in zip(model.cv_results_["params"], model.cv_results_["semi_supervised"]) if not semi]
    assert supervised and all(set(p) <= {"lam", "sigma", "kernel"} for p in supervised)
    if model.comparison_.refitted == "supervised":
        assert type(model.best_estimator_).__name__ == "RLSC"
