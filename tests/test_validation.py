"""One validation layer: what the public API used to accept without a word is refused, once, at the
boundary, with a ValueError / TypeError naming the argument, what was expected and what was given.

The first part pins each case of the issue "One house" with its message; the second drives every
public function with small random valid and invalid inputs (hypothesis, deterministic profile) and
asserts "a valid result (finite decisions) or an error naming the argument".
"""
from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolkit
from toolkit import data, stats
from toolkit._validation import PSD_RTOL, check_indices, check_kernel_matrix
from toolkit.selection import Indices, select
from toolkit.specs import Graph, Kernel, LocalSearch

COMPLEX_WARNING = getattr(np, "exceptions", np).ComplexWarning


# ----------------------------------------------------------------------------- shared data
def _points(seed=0, l_per_class=4, u=10, d=2):
    rng = np.random.default_rng(seed)
    y_l = np.repeat([1.0, -1.0], l_per_class)
    X_l = rng.normal(size=(y_l.size, d)) + 1.5 * y_l[:, None]
    X_u = rng.normal(size=(u, d)) + 1.5 * rng.choice([-1.0, 1.0], size=u)[:, None]
    return X_l, y_l, X_u


def _select_problem(n=60, l=10):
    rng = np.random.default_rng(1)
    y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    X = rng.normal(size=(n, 2)) + 1.5 * y[:, None]
    split = Indices(np.arange(l), np.arange(l, 40), np.arange(40, n))
    return X, y, split


SELECT_KW = dict(grid={"lam": [0.1, 1.0]}, fixed={"kernel": "linear"}, n_folds=2, rng=0, progress=False)


# ----------------------------------------------------------------------------- select
def test_select_refuses_test_indices_overlapping_the_labelled_ones():
    X, y, s = _select_problem()
    bad = Indices(s.labeled, s.unlabeled, np.r_[s.labeled[:3], s.test])
    with pytest.raises(ValueError, match=r"select: the 'labeled' and 'test' indices must be disjoint\. "
                                         r"Got 3 shared indices \(0, 1, 2\) instead\."):
        select("rlsc", X, y, bad, **SELECT_KW)


def test_select_refuses_test_indices_partly_overlapping_the_unlabelled_ones():
    X, y, s = _select_problem()
    bad = Indices(s.labeled, s.unlabeled, np.r_[s.unlabeled[:2], s.test])
    with pytest.raises(ValueError, match=r"the 'unlabeled' and 'test' indices must be disjoint\. Got 2 shared"):
        select("rlsc", X, y, bad, **SELECT_KW)


def test_select_accepts_a_transductive_split_whose_test_set_is_the_unlabelled_set():
    X, y, s = _select_problem()
    cv = select("rlsc", X, y, Indices(s.labeled, s.unlabeled, s.unlabeled), **SELECT_KW)
    assert cv.test_error == pytest.approx(cv.unlabeled_error)


@pytest.mark.parametrize("test, error, match", [
    (np.r_[-1, 41], ValueError, r"The 'test' indices of the split given to select must be non-negative row "
                                r"indices\. Got -1 instead\."),
    (np.r_[41, 60], ValueError, r"The 'test' indices of the split given to select must be row indices in "
                                r"\[0, 60\) \(60 rows\)\. Got 60 instead\."),
    (np.r_[41.0, 42.5], TypeError, r"The 'test' indices .* must be a 1-d array of integer row indices\. "
                                   r"Got an array of shape \(2,\) and dtype float64 instead\."),
    (np.arange(60) >= 40, TypeError, r"integer row indices \(a boolean mask: use np\.flatnonzero\(mask\)\)"),
    (np.r_[41, 41, 42], ValueError, r"The 'test' indices .* must not repeat an index\. Got 1 repeated "
                                    r"\(e\.g\. 41\) instead\."),
    (np.array([], dtype=int), ValueError, r"The 'test' indices of the split given to select must not be empty"),
])
def test_select_refuses_bad_test_indices(test, error, match):
    X, y, s = _select_problem()
    with pytest.raises(error, match=match):
        select("rlsc", X, y, Indices(s.labeled, s.unlabeled, test), **SELECT_KW)


def test_select_refuses_nan_labels_in_test_rows_but_not_in_unlabelled_rows():
    X, y, s = _select_problem()
    y_nan = y.copy()
    y_nan[s.test[:3]] = np.nan
    with pytest.raises(ValueError, match=r"The 'y' parameter of select must give every test row a label of the "
                                         r"labelled classes \[-1\.0, 1\.0\] .* Got 3 test rows labelled otherwise "
                                         r"\(e\.g\. row 40: nan\) instead\."):
        select("rlsc", X, y_nan, s, **SELECT_KW)
    y_unknown = y.copy()
    y_unknown[s.unlabeled] = np.nan               # unknown labels of unlabelled rows are allowed
    cv = select("rlsc", X, y_unknown, s, **SELECT_KW)
    assert np.isnan(cv.unlabeled_error) and np.isfinite(cv.test_error)
    y_other = y.copy()
    y_other[s.unlabeled[0]] = 3.0
    with pytest.raises(ValueError, match=r"every unlabelled row a label of the labelled classes .* or NaN"):
        select("rlsc", X, y_other, s, **SELECT_KW)


def test_select_refuses_an_empty_grid_entry():
    X, y, s = _select_problem()
    with pytest.raises(ValueError, match=r"The 'grid' parameter of select must give at least one value for every "
                                         r"parameter .* Got no values for 'lam' instead\."):
        select("rlsc", X, y, s, **{**SELECT_KW, "grid": {"lam": []}})
    with pytest.raises(TypeError, match=r"The 'grid' parameter of select must be a mapping"):
        select("rlsc", X, y, s, **{**SELECT_KW, "grid": [0.1, 1.0]})
    fit = select("rlsc", X, y, s, **{**SELECT_KW, "grid": {}, "fixed": {"kernel": "linear", "lam": 0.5}})
    assert fit.best_params == {"kernel": "linear", "lam": 0.5}     # {} fits the fixed parameters


def test_select_names_n_folds_and_the_class_counts_when_a_class_has_too_few_labelled_points():
    X, y, s = _select_problem(l=6)                 # 3 labelled points per class
    with pytest.raises(ValueError, match=r"The 'n_folds' parameter of select \(scenario 'labeled-cv'\) needs at least "
                                         r"n_folds=4 labelled points in some class.*"
                                         r"Got \{-1\.0: 3, 1\.0: 3\} labelled points per class instead"):
        select("rlsc", X, y, s, **{**SELECT_KW, "n_folds": 4})


def test_select_refuses_complex_and_mismatched_data():
    X, y, s = _select_problem()
    with pytest.raises(TypeError, match=r"The 'X' parameter of select must be a real-valued array"):
        select("rlsc", X + 1j, y, s, **SELECT_KW)
    with pytest.raises(ValueError, match=r"select: 'X' has 60 rows but 'y' has 59; they must match\."):
        select("rlsc", X, y[:-1], s, **SELECT_KW)
    with pytest.raises(TypeError, match=r"The 'y' parameter of select must hold real class labels"):
        select("rlsc", X, y + 0j, s, **SELECT_KW)


# ----------------------------------------------------------------------------- splits
def test_split_refuses_l_larger_than_the_training_half():
    labels = np.r_[np.ones(250), -np.ones(250)]
    with pytest.raises(ValueError, match=r"The 'l' parameter of split must be at most the training part "
                                         r"\(250 of 500 points\)\. Got 10000 instead\."):
        data.split(labels, l=10000, rng=0)


def test_split_refuses_l_larger_than_the_data_on_a_registered_data_set(mirror_dir):
    ds = data.load("gaussian2c", rng=0)
    with pytest.raises(ValueError, match=r"'l' parameter of split must be at most the training part"):
        data.split(ds, l=10000, rng=0)


def test_split_objects_refuse_overlapping_negative_or_float_indices():
    s = data.split(np.r_[np.ones(50), -np.ones(50)], l=10, rng=0)
    with pytest.raises(ValueError, match=r"Split: the 'labeled' and 'test' indices must be disjoint\. Got 3 shared"):
        dataclasses.replace(s, test=np.r_[s.labeled[:3], s.test])
    with pytest.raises(ValueError, match=r"The 'labeled' parameter of Split must be non-negative row indices\. "
                                         r"Got -1 instead\."):
        dataclasses.replace(s, labeled=np.r_[-1, s.labeled[1:]])
    with pytest.raises(TypeError, match=r"The 'test' parameter of Split must be a 1-d array of integer row indices"):
        dataclasses.replace(s, test=s.test + 0.5)
    transductive = dataclasses.replace(s, test=s.unlabeled)          # test = U: fixed_splits' protocol
    assert np.array_equal(transductive.test, s.unlabeled)


def test_split_refuses_nan_and_complex_labels():
    labels = np.r_[np.ones(50), -np.ones(50)]
    with pytest.raises(ValueError, match=r"The 'dataset' parameter of split must have a finite label on every row\. "
                                         r"Got 1 NaN or inf labels instead\."):
        data.split(np.r_[labels, np.nan], l=10, rng=0)
    with pytest.raises(TypeError, match=r"The 'dataset' parameter of cv_splits must have real class labels"):
        data.cv_splits(labels + 0j, l=10, v=10, rng=0)


def test_semi_supervised_kfold_names_y_and_n_splits():
    X = np.zeros((10, 1))
    y = np.r_[0.0, 1.0, 0.0, 1.0, 0.0, 1.0, -1.0, -1.0, -1.0, -1.0]
    with pytest.raises(TypeError, match=r"The 'y' parameter of SemiSupervisedKFold.split must hold real class labels"):
        list(toolkit.SemiSupervisedKFold(2).split(X, y + 1j))
    # with an explicit marker a NaN is a label, and refused; the default unlabeled=None reads it as missing
    with pytest.raises(ValueError, match=r"The 'y' parameter of SemiSupervisedKFold.split must contain only finite"):
        list(toolkit.SemiSupervisedKFold(2, unlabeled=-1).split(X, np.r_[np.nan, y[1:]]))
    folds = list(toolkit.SemiSupervisedKFold(2, random_state=0).split(X, np.r_[np.nan, y[1:]]))
    assert all(0 not in test and 0 in train for train, test in folds)   # -1 is then a class
    with pytest.raises(ValueError, match=r"The 'n_splits' parameter of SemiSupervisedKFold must be at most the number "
                                         r"of labelled rows of the largest class .* Got n_splits=4 with "
                                         r"\{0\.0: 3, 1\.0: 3\} labelled rows per class instead\."):
        list(toolkit.SemiSupervisedKFold(4).split(X, y))
    folds = list(toolkit.SemiSupervisedKFold(2, unlabeled=np.nan).split(X, np.where(y < 0, np.nan, y)))
    assert all(set(test) <= set(range(6)) for _, test in folds)        # NaN as the unlabelled marker


def test_a_callable_kernel_returning_complex_values_is_refused():
    with pytest.raises(TypeError, match=r"The callable 'kernel' of kernel_matrix must return a real-valued array"):
        toolkit.kernel_matrix(np.eye(3), kernel=lambda a, b: a @ b.T + 1j)


def test_check_indices_unit():
    assert check_indices([], "test", "f", 3).dtype == np.int64
    with pytest.raises(ValueError, match=r"The 'test' parameter of f must be a 1-d array"):
        check_indices(np.zeros((2, 2), int), "test", "f", 3, owner="")


# ----------------------------------------------------------------------------- kernel matrices
NON_SYMMETRIC = np.eye(20) + np.triu(np.ones((20, 20)), 1)
INDEFINITE_WITH_POSITIVE_DIAGONAL = np.kron(np.eye(10), np.array([[1.0, 2.0], [2.0, 1.0]]))   # eigenvalues 3, -1
Y20 = np.tile([1.0, -1.0], 10)


@pytest.mark.parametrize("call, func", [
    (lambda K: toolkit.rlsc_path(K, Y20), "rlsc_path"),
    (lambda K: toolkit.svm_path(K, Y20), "svm_path"),
    (lambda K: toolkit.cv_svm_path(K, Y20, n_folds=2), "svm_path"),
])
def test_paths_refuse_indefinite_and_non_symmetric_kernels(call, func):
    with pytest.raises(ValueError, match=rf"The 'X' parameter of {func} \(the kernel matrix K with kernel='precomputed'\) must be a positive semi-definite kernel "
                                         r"matrix; its diagonal \(k\(x, x\) >= 0\) has the entry -1\."):
        call(-np.eye(20))
    with pytest.raises(ValueError, match=rf"The 'X' parameter of {func} \(the kernel matrix K with kernel='precomputed'\) must be a positive semi-definite kernel "
                                         r"matrix \(eigenvalues >= -1e-08 · \|\|K\|\|_inf = -3e-08\)\. Got smallest "
                                         r"eigenvalue -1 instead; use a Mercer kernel\."):
        call(INDEFINITE_WITH_POSITIVE_DIAGONAL)
    with pytest.raises(ValueError, match=rf"The 'X' parameter of {func} \(the kernel matrix K with kernel='precomputed'\) must be a symmetric kernel matrix "
                                         r"\(\|K - Kᵀ\| <= 1e-10 · max \|K\|\)\. Got largest \|K - Kᵀ\| = 1 with "
                                         r"max \|K\| = 1 instead\."):
        call(NON_SYMMETRIC)
    with pytest.raises(ValueError, match=rf"The 'X' parameter of {func} \(the kernel matrix K with kernel='precomputed'\) must be a square \(n, n\) kernel matrix"):
        call(np.ones((20, 3)))


def test_the_precomputed_kernels_of_rlsc_s2rlsc_and_mmc_follow_the_same_rule():
    K = -np.eye(8)
    y = np.tile([1.0, -1.0], 2)
    for call in (lambda: toolkit.rlsc(K[:4, :4], y, kernel="precomputed"),
                 lambda: toolkit.s2rlsc(K[:4], y, K[4:], kernel="precomputed", search=LocalSearch(restarts=1), rng=0),
                 lambda: toolkit.mmc(K, kernel="precomputed", search=LocalSearch(restarts=1), rng=0)):
        with pytest.raises(ValueError, match=r"must be a positive semi-definite kernel matrix"):
            call()
    with pytest.raises(ValueError, match=r"The precomputed training kernel matrix \[X_labeled; X_unlabeled\] of "
                                         r"s2rlsc must be a symmetric kernel matrix"):
        toolkit.s2rlsc(NON_SYMMETRIC[:8, :8][:4], y, NON_SYMMETRIC[:8, :8][4:], kernel="precomputed")
    with pytest.raises(ValueError, match=r"The 'X' parameter of mmc must be a symmetric kernel matrix"):
        toolkit.mmc(NON_SYMMETRIC, kernel="precomputed")


def test_kernels_within_round_off_of_symmetric_psd_are_accepted():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    X[10:20] = X[:10]                                    # duplicated points: singular, PSD
    K = toolkit.kernel_matrix(X, kernel="rbf", sigma=1.0)
    w, V = np.linalg.eigh(K)
    K_round = (V * np.where(w < 1e-12, -1e-13, w)) @ V.T  # tiny negative eigenvalues from round-off
    K_round[0, 1] += 1e-13                               # and a round-off asymmetry
    out = check_kernel_matrix(K_round, "K", "f", symmetrize=True)
    assert np.array_equal(out, out.T)
    y = np.tile([1.0, -1.0], 15)
    assert np.all(np.isfinite(toolkit.rlsc_path(K_round, y).loo_predictions))
    assert toolkit.svm_path(K_round, y).breakpoints.size > 0
    assert PSD_RTOL == 1e-8


# ----------------------------------------------------------------------------- overflow
@pytest.mark.parametrize("kernel", ["linear", "rbf", "polynomial"])
def test_kernel_matrix_refuses_overflow_without_runtime_warnings(kernel):
    X = np.random.default_rng(0).normal(size=(40, 3)) * 1e200
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=r"The 'X' parameter of kernel_matrix has rows too large for float64 "
                                             r"kernels and distances: the squared norm of row 0 is inf .* Scale the "
                                             r"features"):
            toolkit.kernel_matrix(X, kernel=kernel, sigma=1.0)
        with pytest.raises(ValueError, match=r"The 'Z' parameter of rbf_kernel has rows too large"):
            toolkit.rbf_kernel(X[:3] / 1e200, X, sigma=1.0)
        with pytest.raises(ValueError, match=r"polynomial_kernel gives a kernel matrix with non-finite entries "
                                             r"\(overflow of float64 with kernel_degree=9"):
            toolkit.polynomial_kernel(X / 1e200 * 1e40, kernel_degree=9)
        with pytest.raises(ValueError, match=r"The 'X' parameter of width_heuristic spans a bounding box whose "
                                             r"diagonal overflows float64"):
            toolkit.width_heuristic(np.array([[-1e308, 0.0], [1e308, 0.0]]))


@pytest.mark.parametrize("name", ["rlsc", "s2rlsc", "mmc", "lapsvm", "laprlsc", "lapsvm_dual", "laplacian_svm_path"])
def test_solvers_refuse_overflowing_features_by_name(name):
    X_l, y_l, X_u = _points()
    X_l, X_u = X_l * 1e200, X_u * 1e200
    calls = {
        "rlsc": lambda: toolkit.rlsc(X_l, y_l, kernel="rbf", sigma=1.0),
        "s2rlsc": lambda: toolkit.s2rlsc(X_l, y_l, X_u, kernel=Kernel("rbf", sigma=1.0),
                                         search=LocalSearch(restarts=1), rng=0),
        "mmc": lambda: toolkit.mmc(np.vstack([X_l, X_u]), kernel=Kernel("rbf", sigma=1.0),
                                   search=LocalSearch(restarts=1), rng=0),
        "lapsvm": lambda: toolkit.lapsvm(X_l, y_l, X_u, kernel=Kernel("rbf", sigma=1.0), graph=Graph(n_neighbors=3)),
        "laprlsc": lambda: toolkit.laprlsc(X_l, y_l, X_u, kernel=Kernel("rbf", sigma=1.0), graph=Graph(n_neighbors=3)),
        "lapsvm_dual": lambda: toolkit.lapsvm_dual(X_l, y_l, X_u, kernel=Kernel("rbf", sigma=1.0),
                                                   graph=Graph(n_neighbors=3)),
        "laplacian_svm_path": lambda: toolkit.laplacian_svm_path(X_l, y_l, X_u, kernel=Kernel("rbf", sigma=1.0),
                                                                 graph=Graph(n_neighbors=3, weight="binary", power=1)),
    }
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(ValueError, match=r"rows too large for float64 kernels and distances.*Scale the features"):
            calls[name]()


def test_graphs_refuse_overflowing_features_instead_of_a_reshape_error():
    X = np.random.default_rng(0).normal(size=(12, 2)) * 1e200
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for call, func in ((lambda: toolkit.graphs.laplacian(X, n_neighbors=3), "knn_graph"),
                           (lambda: toolkit.graphs.epsilon_graph(X, radius=1.0), "epsilon_graph")):
            with pytest.raises(ValueError, match=rf"The 'X' parameter of {func} has rows too large for float64 "
                                                 r"kernels and distances"):
                call()


# ----------------------------------------------------------------------------- statistics
def test_stats_alpha_outside_zero_one():
    scores = np.random.default_rng(1).random((8, 3))
    for call, func in ((lambda a: stats.nemenyi(scores, alpha=a), "nemenyi"),
                       (lambda a: stats.holm(scores, alpha=a), "holm"),
                       (lambda a: stats.critical_difference(3, 8, a), "critical_difference"),
                       (lambda a: stats.paired_ttest([1.0, 2, 3], [1.0, 3, 2]).conf_int(a), "conf_int"),
                       (lambda a: stats.friedman(scores).conf_int(a), "critical_difference"),
                       (lambda a: stats.nemenyi(scores).significant(a), "significant")):
        for alpha in (2, 0.0, 1.0, -0.1, float("nan")):
            with pytest.raises(ValueError, match=rf"The 'alpha' parameter of {func} must be a float in "
                                                 rf"\(0\.0, 1\.0\)\. Got {alpha!r} instead\."):
                call(alpha)


def test_critical_difference_refuses_degenerate_sizes():
    with pytest.raises(ValueError, match=r"The 'n_datasets' parameter of critical_difference must be an int in "
                                         r"\[1, inf\)\. Got 0 instead\."):
        stats.critical_difference(3, 0)
    with pytest.raises(ValueError, match=r"The 'k' parameter of critical_difference must be an int in \[2, inf\)"):
        stats.critical_difference(1, 5)
    with pytest.raises(TypeError, match=r"The 'k' parameter of critical_difference must be an int"):
        stats.critical_difference(2.5, 5)


def test_unlabeled_data_helped_refuses_an_empty_table():
    with pytest.raises(ValueError, match=r"The 'results' parameter of unlabeled_data_helped must have the tidy "
                                         r"columns .* Got a table of 0 rows without \['dataset'"):
        stats.unlabeled_data_helped(pd.DataFrame())
    tidy = pd.DataFrame(columns=["dataset", "task", "split", "method", "scenario", "fold", "metric", "value"])
    with pytest.raises(ValueError, match=r"must have refit rows \(fold == 'refit'\) of the metric 'test_error'\. "
                                         r"Got 0 rows"):
        stats.unlabeled_data_helped(tidy)
    with pytest.raises(TypeError, match=r"The 'results' parameter of unlabeled_data_helped must be a pandas DataFrame"):
        stats.unlabeled_data_helped([])
    with pytest.raises(ValueError, match=r"The 'alpha' parameter of unlabeled_data_helped"):
        stats.unlabeled_data_helped(tidy, alpha=5)


def test_stats_refuse_complex_and_name_the_table():
    with pytest.raises(TypeError, match=r"The 'a' parameter of paired_ttest must be a real-valued array"):
        stats.paired_ttest(np.array([1, 2, 3 + 1j]), [1, 3, 2])
    with pytest.raises(TypeError, match=r"The 'scores' parameter of friedman must hold real numbers"):
        stats.friedman(pd.DataFrame(np.ones((3, 3)) + 1j))
    with pytest.raises(ValueError, match=r"The 'scores' parameter of nemenyi must be a table of at least 2 data sets"):
        stats.nemenyi(np.ones((1, 3)))
    with pytest.raises(ValueError, match=r"The 'alternative' parameter of wilcoxon must be one of"):
        stats.wilcoxon([1.0, 2, 3], [1.0, 3, 2], alternative="bigger")


# ----------------------------------------------------------------------------- complex input
@pytest.mark.parametrize("name, call, arg", [
    ("kernel_matrix", lambda Xl, yl, Xu: toolkit.kernel_matrix(Xl + 1j), "X"),
    ("rlsc", lambda Xl, yl, Xu: toolkit.rlsc(Xl + 1j, yl), "X_labeled"),
    ("s2rlsc", lambda Xl, yl, Xu: toolkit.s2rlsc(Xl, yl, Xu + 1j), "X_unlabeled"),
    ("lapsvm", lambda Xl, yl, Xu: toolkit.lapsvm(Xl + 1j, yl, Xu), "X_labeled"),
    ("mmc", lambda Xl, yl, Xu: toolkit.mmc(Xu + 1j), "X"),
    ("svm_path", lambda Xl, yl, Xu: toolkit.svm_path(np.eye(8) + 0j, yl), "X"),
    ("rlsc_path", lambda Xl, yl, Xu: toolkit.rlsc_path(np.eye(8), yl + 0j), "y"),
])
def test_complex_input_is_refused_naming_the_argument(name, call, arg):
    X_l, y_l, X_u = _points()
    with warnings.catch_warnings():
        warnings.simplefilter("error", COMPLEX_WARNING)
        with pytest.raises(TypeError, match=rf"The '{arg}' parameter of {name} must be a real-valued array"):
            call(X_l, y_l, X_u)


# ----------------------------------------------------------------------------- class labels
# Issue 24: every solver reads two-class labels the same way (toolkit._validation.encode_binary_labels):
# any two values, classes[1] of the sorted pair is +1, so a coding of the classes changes nothing but
# the labels predict returns. name: (argument, fit(X_l, y_l, X_u), decision(result, X), predict(result, X)).
_LAP_KW = dict(kernel=Kernel("rbf", sigma=1.0), graph=Graph(n_neighbors=3))
TWO_CLASS_SOLVERS = {
    "rlsc": ("y_labeled", lambda Xl, yl, Xu: toolkit.rlsc(Xl, yl, lam=0.1),
             lambda r, X: r.decision_function(X), lambda r, X: r.predict(X)),
    "s2rlsc": ("y_labeled", lambda Xl, yl, Xu: toolkit.s2rlsc(Xl, yl, Xu, lam=0.1, search=LocalSearch(restarts=1),
                                                              rng=0),
               lambda r, X: r.decision_function(X), lambda r, X: r.predict(X)),
    "tsvm": ("y_labeled", lambda Xl, yl, Xu: toolkit.tsvm(Xl, yl, Xu),
             lambda r, X: r.decision_function(X), lambda r, X: r.predict(X)),
    "lapsvm": ("y_labeled", lambda Xl, yl, Xu: toolkit.lapsvm(Xl, yl, Xu, **_LAP_KW),
               lambda r, X: r.decision_function(X), lambda r, X: r.predict(X)),
    "laprlsc": ("y_labeled", lambda Xl, yl, Xu: toolkit.laprlsc(Xl, yl, Xu, **_LAP_KW),
                lambda r, X: r.decision_function(X), lambda r, X: r.predict(X)),
    "svm_path": ("y", lambda Xl, yl, Xu: toolkit.svm_path(Xl, yl, kernel="rbf", sigma=1.0),
                 lambda r, X: r.decision_function(X, 0.1), lambda r, X: r.predict(X, 0.1)),
    "rlsc_path": ("y", lambda Xl, yl, Xu: toolkit.rlsc_path(Xl, yl, kernel="rbf", sigma=1.0, n_lambdas=5,
                                                            task="classification"),     # auto: 3 numbers regress
                  lambda r, X: r.decision_function(X, 0.1), lambda r, X: r.predict(X, 0.1)),
    "laplacian_svm_path": ("y_labeled", lambda Xl, yl, Xu: toolkit.laplacian_svm_path(Xl, yl, Xu,
                                                                                      kernel=Kernel("rbf", sigma=1.0),
                                                                                      graph=Graph(n_neighbors=3, weight="binary", power=1)),
                           lambda r, X: r.decision_function(X, 0.1), lambda r, X: r.predict(X, 0.1)),
    "cv_svm_path": ("y", lambda Xl, yl, Xu: toolkit.cv_svm_path(Xl, yl, kernel="rbf", sigma=1.0, n_folds=2,
                                                                n_lambdas=5, rng=0).path,
                    lambda r, X: r.decision_function(X, 0.1), lambda r, X: r.predict(X, 0.1)),
    "cv_laplacian_svm_path": ("y_labeled", lambda Xl, yl, Xu: toolkit.cv_laplacian_svm_path(Xl, yl, Xu,
                                                                                            kernel=Kernel("rbf", sigma=1.0),
                                                                                            graph=Graph(n_neighbors=3, weight="binary", power=1),
                                                                                            n_folds=2, n_lambdas=5,
                                                                                            rng=0).path,
                              lambda r, X: r.decision_function(X, 0.1), lambda r, X: r.predict(X, 0.1)),
}
MULTI_CLASS = {"lapsvm", "laprlsc"}          # one-vs-all beyond two classes


@pytest.mark.parametrize("name", sorted(TWO_CLASS_SOLVERS))
def test_every_solver_reads_two_labels_as_the_signed_coding(name):
    _, fit, decision, predict = TWO_CLASS_SOLVERS[name]
    X_l, y_l, X_u = _points()
    signed = fit(X_l, y_l, X_u)
    f = decision(signed, X_u)
    for negative, positive in ((0, 1), ("ham", "spam"), (-1, 1)):
        labels = np.where(y_l > 0, positive, negative)
        result = fit(X_l, labels, X_u)
        assert np.asarray(result.classes).tolist() == [negative, positive]
        np.testing.assert_allclose(decision(result, X_u), f, rtol=1e-12, atol=1e-12)    # the same fit
        assert predict(result, X_u).tolist() == np.where(f >= 0, positive, negative).tolist()


@pytest.mark.parametrize("name", sorted(TWO_CLASS_SOLVERS))
@pytest.mark.parametrize("case", ["one class", "three classes", "NaN", "missing"])
def test_every_solver_refuses_bad_labels_naming_the_argument(name, case):
    arg, fit, _, _ = TWO_CLASS_SOLVERS[name]
    X_l, y_l, X_u = _points()
    labels, match = {
        "one class": (np.ones_like(y_l), r"must contain (exactly|at least) two classes"),
        "three classes": (np.arange(y_l.size) % 3, r"must contain exactly two classes\. Got 3 class\(es\) \[0, 1, 2\]"),
        "NaN": (np.r_[np.nan, y_l[1:]], r"must contain only finite values \(no NaN or inf\)"),
        "missing": (np.r_[[None], y_l[1:]].astype(object), r"must contain only finite values \(no NaN or inf\)"),
    }[case]
    if case == "three classes" and name in MULTI_CLASS:
        pytest.skip(f"{name} trains more than two classes one-vs-all")
    with pytest.raises(ValueError, match=rf"The '{arg}' parameter of {name} {match}"):
        fit(X_l, labels, X_u)


# ============================================================================= hypothesis driver
# Every public function with small random inputs, valid or with one argument corrupted. The contract:
# a valid result (finite decisions) or a ValueError / TypeError whose message names the argument;
# corruptions that are never valid (NaN, inf, complex, a wrong number of dimensions, rows that no
# longer match) must raise. Kinds of argument: "X" points whose rows match the labels, "Xu" points
# with free rows, "y" labels, "K" a kernel matrix, "vec" a real vector, "pos" a positive scalar,
# "count" a positive int, "alpha" a level in (0, 1).
ALWAYS_INVALID = {
    "X": {"nan", "inf", "complex", "extra_dim", "drop_row", "drop_col"},
    "Xalone": {"nan", "inf", "complex", "extra_dim", "drop_row"},       # no second matrix to match columns with
    "Xu": {"nan", "inf", "complex", "extra_dim", "drop_col"},
    "Xfree": {"nan", "inf", "complex", "extra_dim"},
    "y": {"nan", "inf", "complex", "extra_dim", "drop_row", "three_classes", "one_class"},
    "ylab": {"nan", "inf", "complex", "extra_dim", "drop_row", "three_classes"},      # one class is fine
    "K": {"nan", "inf", "complex", "extra_dim", "drop_row", "negate", "skew"},
    "vec": {"nan", "inf", "complex", "extra_dim"},
    "pos": {"nan", "inf", "complex", "negative", "zero"},
    "nonneg": {"nan", "inf", "complex", "negative"},
    "ymulti": {"nan", "inf", "complex", "extra_dim", "drop_row", "one_class"},       # more than two classes too
    "yfolds": {"nan", "inf", "complex", "extra_dim", "drop_row"},                    # any number of classes
    "rows": {"drop_row"},                                                           # only its row count is read
    "count": {"complex", "negative", "zero", "float"},
    "alpha": {"nan", "complex", "negative", "zero", "above_one"},
    # issue 26's classes: degenerate rows, NaN in precomputed matrices, overflow
    "Xwidth": {"nan", "inf", "complex", "extra_dim", "one_row", "identical_rows"},      # a width needs spread
    "Xcos": {"nan", "inf", "complex", "extra_dim", "zero_row"},                         # cosine needs angles
    "diffs": {"nan", "inf", "complex", "extra_dim", "overflow"},                        # paired differences
    "Kgraph": {"nan", "inf", "complex", "extra_dim", "drop_row"},   # read as given: finite and square, no PSD test
}
OPTIONAL = {"Xu": {"empty"}, "X": {"empty"}, "Xalone": {"empty"}, "y": {"empty"}, "vec": {"empty"}}


def _corrupt(value, how):
    if how in ("negative", "zero", "above_one", "float") or np.isscalar(value):
        return {"nan": float("nan"), "inf": float("inf"), "complex": complex(value, 1.0),
                "negative": -abs(value) - 1, "zero": 0, "above_one": 1.5, "float": value + 0.5}[how]
    a = np.array(value, dtype=float)
    if how == "nan":
        a.flat[0] = np.nan
    elif how == "inf":
        a.flat[-1] = np.inf
    elif how == "complex":
        a = a + 1j
    elif how == "extra_dim":
        a = a[..., None]
    elif how == "drop_row":
        a = a[:-1]
    elif how == "drop_col":
        a = a[:, :-1] if a.shape[1] > 1 else np.hstack([a, a])
    elif how == "empty":
        a = a[:0]
    elif how == "three_classes":
        a[0] = 7.0
    elif how == "one_class":
        a[:] = a[0]
    elif how == "negate":
        a = -a - np.eye(a.shape[0])
    elif how == "skew":
        a = a + np.triu(np.ones_like(a), 1)
    elif how == "one_row":
        a = a[:1]
    elif how == "identical_rows":
        a = np.repeat(a[:1], len(a), axis=0)
    elif how == "zero_row":
        a[0] = 0.0
    elif how == "overflow":
        a = np.where(np.arange(a.size) % 2 == 0, 1e308, -1e308) * (1 if a.flat[0] >= 0 else -1)
    return a


def _finite(*arrays):
    return all(np.all(np.isfinite(np.asarray(a, dtype=float))) for a in arrays)


def _cases():
    """name -> (make(rng) -> (call, args, kinds), valid(result, args) -> bool)."""
    def points(rng, lpc=None, u=None, d=None):
        """Two Gaussian classes: lpc labelled points per class (2-4), u unlabelled (3-6), d features (1-3)."""
        lpc = int(rng.integers(2, 5)) if lpc is None else lpc
        u = int(rng.integers(3, 7)) if u is None else u
        d = int(rng.integers(1, 4)) if d is None else d
        y = np.repeat([1.0, -1.0], lpc)
        X = rng.normal(size=(y.size, d)) + y[:, None]
        return X, y, rng.normal(size=(u, d))

    def kernel(rng, n=8):
        X, y, _ = points(rng, n // 2, 0)
        return toolkit.kernel_matrix(X, kernel="rbf", sigma=float(rng.uniform(0.5, 2.0))), y

    def fit_case(fn, param, param_kind="pos", labels="y"):
        """A solver ``fn(X_labeled, y_labeled, X_unlabeled, **{param: value})`` with one scalar parameter."""
        def make(rng):
            X, y, Xu = points(rng)
            return fn, {"X_labeled": X, "y_labeled": y, "X_unlabeled": Xu, param: 1e-2}, \
                {"X_labeled": "X", "y_labeled": labels, "X_unlabeled": "Xu", param: param_kind}
        return make

    lap_kw = dict(sigma=1.0, neighbors=3)
    cases = {
        "kernel_matrix": (lambda rng: (lambda X, Z, sigma: toolkit.kernel_matrix(X, Z, kernel="rbf", sigma=sigma),
                                       dict(X=rng.normal(size=(4, 2)), Z=rng.normal(size=(3, 2)), sigma=1.0),
                                       dict(X="Xfree", Z="Xfree", sigma="pos")),
                          lambda r, a: r.shape == (len(a["X"]), len(a["Z"])) and _finite(r)),
        "polynomial_kernel": (lambda rng: (lambda X, kernel_degree, scale: toolkit.polynomial_kernel(X, kernel_degree=kernel_degree,
                                                                                              scale=scale),
                                           dict(X=rng.normal(size=(4, 2)), kernel_degree=2, scale=1.0),
                                           dict(X="Xfree", kernel_degree="count", scale="pos")),
                              lambda r, a: _finite(r)),
        "width_heuristic": (lambda rng: (toolkit.width_heuristic, dict(X=rng.normal(size=(4, 2))), dict(X="Xwidth")),
                            lambda r, a: np.isfinite(r)),
        "rlsc": (lambda rng: (lambda X_labeled, y_labeled, lam: toolkit.rlsc(X_labeled, y_labeled, lam=lam),
                              dict(zip(("X_labeled", "y_labeled"), points(rng)[:2]), lam=0.1),
                              dict(X_labeled="Xalone", y_labeled="y", lam="pos")),
                 lambda r, a: _finite(r.decision_function(a["X_labeled"]))),
        "s2rlsc": (fit_case(lambda X_labeled, y_labeled, X_unlabeled, lam_u: toolkit.s2rlsc(X_labeled, y_labeled,
                                                                                            X_unlabeled, lam_u=lam_u,
                                                                                            eps=0.3,
                                                                                            search=LocalSearch(restarts=1),
                                                                                            rng=0), "lam_u"),
                   lambda r, a: _finite(r.decision_function(a["X_labeled"]))),
        "tsvm": (fit_case(lambda X_labeled, y_labeled, X_unlabeled, C: toolkit.tsvm(
                     X_labeled, y_labeled, X_unlabeled, C=C, C_star=0.5), "C"),
                 lambda r, a: _finite(r.decision_function(a["X_labeled"]))),
        "lapsvm": (fit_case(lambda X_labeled, y_labeled, X_unlabeled, gamma_A: toolkit.lapsvm(
                       X_labeled, y_labeled, X_unlabeled, gamma_A=gamma_A, **lap_kw), "gamma_A", "nonneg", "ymulti"),
                   lambda r, a: _finite(r.decision_function(a["X_labeled"]))),
        "laprlsc": (fit_case(lambda X_labeled, y_labeled, X_unlabeled, gamma_I: toolkit.laprlsc(
                        X_labeled, y_labeled, X_unlabeled, gamma_I=gamma_I, **lap_kw), "gamma_I", "nonneg", "ymulti"),
                    lambda r, a: _finite(r.decision_function(a["X_labeled"]))),
        "lapsvm_dual": (fit_case(lambda X_labeled, y_labeled, X_unlabeled, gamma_A: toolkit.lapsvm_dual(
                            X_labeled, y_labeled, X_unlabeled, gamma_A=gamma_A, **lap_kw), "gamma_A", "nonneg",
                                 "ymulti"),
                        lambda r, a: _finite(r.decision_function(a["X_labeled"]))),
        "laplacian_svm_path": (fit_case(lambda X_labeled, y_labeled, X_unlabeled, sigma: toolkit.laplacian_svm_path(X_labeled,
                                                                                                                    y_labeled,
                                                                                                                    X_unlabeled,
                                                                                                                    kernel=Kernel("rbf", sigma=sigma),
                                                                                                                    graph=Graph(n_neighbors=3, weight="binary", power=1)), "sigma"),
                               lambda r, a: _finite(r.decision_function(a["X_labeled"], 0.1))),
        "cv_laplacian_svm_path": (fit_case(lambda X_labeled, y_labeled, X_unlabeled, sigma:
                                           toolkit.cv_laplacian_svm_path(X_labeled, y_labeled, X_unlabeled, n_folds=2,
                                                                         n_lambdas=5,
                                                                         kernel=Kernel("rbf", sigma=sigma),
                                                                         graph=Graph(n_neighbors=3, weight="binary", power=1),
                                                                         rng=0),
                                           "sigma"),
                                  lambda r, a: _finite(r.error)),
        "mmc": (lambda rng: (lambda X, lam: toolkit.mmc(X, lam=lam, search=LocalSearch(restarts=1), rng=0),
                             dict(X=np.vstack(points(rng)[::2]), lam=1.0), dict(X="Xfree", lam="pos")),
                lambda r, a: _finite(r.decision_function(a["X"]))),
        "svm_path": (lambda rng: (lambda X, y, lambda_min: toolkit.svm_path(X, y, lambda_min=lambda_min),
                                  dict(zip(("X", "y"), kernel(rng)), lambda_min=1e-3),
                                  dict(X="K", y="y", lambda_min="pos")),       # X: the precomputed kernel
                     lambda r, a: _finite(r.decision_function(a["X"], 0.1))),
        "rlsc_path": (lambda rng: (lambda X, y, weights: toolkit.rlsc_path(X, y, weights=weights, n_lambdas=5),
                                   dict(zip(("X", "y"), kernel(rng)), weights=np.full(8, 0.125)),
                                   dict(X="K", y="vec", weights="vec")),       # y: any real targets
                      lambda r, a: _finite(r.decision_function(a["X"], 0.1))),
        "cv_svm_path": (lambda rng: (lambda X, y, n_folds: toolkit.cv_svm_path(X, y, n_folds=n_folds, n_lambdas=5,
                                                                               rng=0),
                                     dict(zip(("X", "y"), kernel(rng)), n_folds=2), dict(X="K", y="y", n_folds="count")),
                        lambda r, a: _finite(r.error)),
        "validation_curve": (lambda rng: (lambda X_val, y_val: toolkit.validation_curve(
                                              toolkit.svm_path(*kernel(np.random.default_rng(0))), X_val, y_val),
                                          dict(X_val=rng.random((6, 8)), y_val=np.tile([1.0, -1.0], 3)),
                                          dict(X_val="X", y_val="ylab")),
                             lambda r, a: _finite(r.error)),
        "select": (lambda rng: (lambda X, y, n_folds: select("rlsc", X, y, Indices(np.arange(8), np.arange(8, 14),
                                                                                    np.arange(14, 20)),
                                                             **{**SELECT_KW, "n_folds": n_folds}),
                                dict(X=rng.normal(size=(20, 2)), y=np.tile([1.0, -1.0], 10), n_folds=2),
                                dict(X="Xalone", y="y", n_folds="count")),
                   lambda r, a: np.isfinite(r.test_error)),
        "SemiSupervisedKFold": (lambda rng: (lambda X, y, n_splits: list(toolkit.SemiSupervisedKFold(
                                                 n_splits, random_state=0).split(X, y)),
                                             dict(X=rng.normal(size=(12, 2)), y=np.r_[np.tile([0.0, 1.0], 4), -np.ones(4)],
                                                  n_splits=2),
                                             dict(X="rows", y="yfolds", n_splits="count")),
                                lambda r, a: len(r) == a["n_splits"] and all(np.all(a["y"][t] != -1) for _, t in r)),
        "data.split": (lambda rng: (lambda dataset, l: data.split(dataset, l=l, rng=0),
                                    dict(dataset=np.tile([1.0, -1.0], 10), l=4), dict(dataset="vec", l="count")),
                       lambda r, a: len(r.labeled) == a["l"]),
        "data.cv_splits": (lambda rng: (lambda dataset, v: data.cv_splits(dataset, l=4, v=v, folds=2, repeats=1,
                                                                          rng=0),
                                        dict(dataset=np.tile([1.0, -1.0], 10), v=2), dict(dataset="vec", v="count")),
                           lambda r, a: len(r) == 2),
        "graphs.knn_graph": (lambda rng: (lambda X, n_neighbors: toolkit.graphs.knn_graph(X, n_neighbors=n_neighbors,
                                                                                            metric="cosine"),
                                          dict(X=rng.normal(size=(8, 3)), n_neighbors=3),
                                          dict(X="Xcos", n_neighbors="count")),
                             lambda r, a: r.shape == (len(a["X"]),) * 2 and _finite(r.data)),
        "graphs.knn_graph_from_kernel": (lambda rng: (lambda K, n_neighbors: toolkit.graphs.knn_graph_from_kernel(
                                                          K, n_neighbors=n_neighbors),
                                                      dict(K=kernel(rng)[0], n_neighbors=3),
                                                      dict(K="Kgraph", n_neighbors="count")),
                                         lambda r, a: _finite(r.data)),
        "stats.paired_ttest": (lambda rng: (stats.paired_ttest, dict(a=rng.random(6), b=rng.random(6)),
                                            dict(a="diffs", b="diffs")),
                               lambda r, a: 0 <= r.pvalue <= 1),
        "stats.wilcoxon": (lambda rng: (stats.wilcoxon, dict(a=rng.random(6), b=rng.random(6)),
                                        dict(a="diffs", b="diffs")),
                           lambda r, a: 0 <= r.pvalue <= 1),
        "stats.corrected_ttest": (lambda rng: (stats.corrected_ttest, dict(a=rng.random(6), b=rng.random(6),
                                                                           n_train=30, n_test=10),
                                               dict(a="diffs", b="diffs", n_train="pos", n_test="pos")),
                                  lambda r, a: 0 <= r.pvalue <= 1),
        "stats.helped_verdict": (lambda rng: (stats.helped_verdict,
                                              dict(result=stats.paired_ttest(rng.random(6), rng.random(6)), alpha=0.05),
                                              dict(result="object", alpha="alpha")),       # result: not corrupted
                                 lambda r, a: r in stats.HELPED_VERDICTS),
        "stats.friedman": (lambda rng: (stats.friedman, dict(scores=rng.random((5, 3))), dict(scores="Xfree")),
                           lambda r, a: 0 <= r.pvalue <= 1),
        "stats.nemenyi": (lambda rng: (stats.nemenyi, dict(scores=rng.random((5, 3)), alpha=0.05),
                                       dict(scores="Xfree", alpha="alpha")),
                          lambda r, a: np.isfinite(r.cd)),
        "stats.holm": (lambda rng: (stats.holm, dict(scores=rng.random((5, 3)), alpha=0.05),
                                    dict(scores="Xfree", alpha="alpha")),
                       lambda r, a: np.isfinite(r.cd)),
        "stats.average_ranks": (lambda rng: (stats.average_ranks, dict(scores=rng.random((5, 3))),
                                             dict(scores="Xfree")),
                                lambda r, a: _finite(r)),
        "stats.critical_difference": (lambda rng: (stats.critical_difference, dict(k=3, n_datasets=5, alpha=0.1),
                                                   dict(k="count", n_datasets="count", alpha="alpha")),
                                      lambda r, a: np.isfinite(r) and r > 0),
        "stats.unlabeled_data_helped": (lambda rng: (lambda results, alpha: stats.unlabeled_data_helped(
                                                         results, baselines={"s2rlsc": "rlsc"}, alpha=alpha),
                                                     dict(results=_tidy(rng), alpha=0.05),
                                                     dict(results="table", alpha="alpha")),
                                        lambda r, a: len(r) == 1),
    }
    return cases


def _tidy(rng):
    rows = [{"dataset": "d", "task": "t", "split": s, "method": m, "scenario": "labeled-cv", "fold": "refit",
             "metric": "test_error", "value": float(rng.random())} for s in range(4) for m in ("rlsc", "s2rlsc")]
    return pd.DataFrame(rows)


CASES = _cases()
CORRUPTIONS = sorted(set().union(*ALWAYS_INVALID.values(), *OPTIONAL.values()))


def _drive(name, seed, target_index, how_index):
    make, valid = CASES[name]
    call, args, kinds = make(np.random.default_rng(seed))
    target = None
    if target_index < len(args) and kinds[list(args)[target_index]] in ALWAYS_INVALID:
        target = list(args)[target_index]
        kind = kinds[target]
        choices = sorted(ALWAYS_INVALID[kind] | OPTIONAL.get(kind, set()))
        how = choices[how_index % len(choices)]
        args = {**args, target: _corrupt(args[target], how)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")                    # convergence notes on tiny problems
        warnings.simplefilter("error", COMPLEX_WARNING)    # a silent cast of complex input is a failure
        try:
            result = call(**args)
        except (ValueError, TypeError) as exc:
            assert target is not None, f"{name} refused valid input: {exc}"
            assert f"'{target}'" in str(exc), f"{name}({target}={how}) raised without naming {target!r}: {exc}"
            return
    assert target is None or how not in ALWAYS_INVALID[kinds[target]], \
        f"{name} accepted {target}={how} without an error"
    assert valid(result, args), f"{name} returned an invalid result for {target}={how if target else None}"


@pytest.mark.parametrize("name", sorted(CASES))
@settings(max_examples=12)
@given(seed=st.integers(0, 2**16), target_index=st.integers(0, 4), how_index=st.integers(0, 16))
def test_every_public_function_returns_a_valid_result_or_names_the_argument(name, seed, target_index, how_index):
    _drive(name, seed, target_index, how_index)


def test_the_driver_covers_the_public_functions():
    import inspect

    covered = {n.split(".")[-1] for n in CASES}
    functions = {n for n in toolkit._EXPORTS if inspect.isfunction(getattr(toolkit, n))}
    functions |= {n for n in stats.__all__ if inspect.isfunction(getattr(stats, n))} - {"cd_diagram"}
    functions |= {"split", "cv_splits"}
    assert functions - covered <= {"linear_kernel", "rbf_kernel"}, functions - covered   # as kernel_matrix


# ------------------------------------------------------------- select names what the caller wrote (issue 26)
@pytest.mark.parametrize("grid, fixed, message", [
    ({"lam": [1.0]}, {"kernel": "rbf", "sigma_scale": -1.0},
     r"The \"fixed\['sigma_scale'\]\" parameter of select must be a float in \(0.0, inf\). Got -1.0"),
    ({"lam": [1.0], "sigma_scale": [1.0, 0.0]}, {"kernel": "rbf"},
     r"The \"grid\['sigma_scale'\]\" parameter of select must be a float in \(0.0, inf\). Got 0.0"),
    ({"lam": [1.0]}, {"kernel": "polynomial", "kernel_degree": 0},
     r"The \"fixed\['kernel_degree'\]\" parameter of select must be an int in \[1, inf\)"),
    ({"lam": [-1.0]}, {"kernel": "linear"},
     r"select\('rlsc'\): grid\['lam'\] = \[-1.0\] is refused by rlsc: The 'lam' parameter of rlsc must be"),
])
def test_select_names_the_grid_or_fixed_entry_a_solver_refuses(grid, fixed, message):
    """sigma_scale = -1 was reported as "sigma -3.66" of kernel_matrix; a solver's refusal now names the
    caller's grid / fixed entry first."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    y[:8] = np.tile([1.0, -1.0], 4)
    with pytest.raises(ValueError, match=message):
        select("rlsc", X, y, Indices(np.arange(8), np.arange(8, 30), np.arange(30, 40)), grid=grid, fixed=fixed,
               rng=0, progress=False, n_folds=2)


def test_select_names_a_graph_argument_refused_inside_the_laplacian():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    y[:8] = np.tile([1.0, -1.0], 4)
    with pytest.raises(ValueError, match=r"select\('lapsvm'\): fixed\['n_neighbors'\] = 0 is refused by Graph"):
        select("lapsvm", X, y, Indices(np.arange(8), np.arange(8, 30), np.arange(30, 40)), grid={"gamma_A": [1.0]},
               fixed={"kernel": "rbf", "sigma": 1.0, "n_neighbors": 0}, rng=0, progress=False, n_folds=2)


def test_laplacian_svm_path_runs_with_its_own_defaults_and_names_itself():
    """Issue 26: its defaults failed, naming kernel_matrix; sigma="scale" is lapsvm's width rule."""
    from toolkit.kernels import scale_width

    rng = np.random.default_rng(0)
    Xl, Xu = rng.normal(size=(6, 3)), rng.normal(size=(10, 3))
    yl = np.array([1, -1, 1, -1, 1, -1.0])
    path = toolkit.laplacian_svm_path(Xl, yl, Xu)
    assert path.sigma == scale_width(np.vstack([Xl, Xu]))
    with pytest.raises(ValueError, match=r"The 'sigma' parameter of laplacian_svm_path is required for kernel='rbf'"):
        toolkit.laplacian_svm_path(Xl, yl, Xu, kernel=Kernel("rbf", sigma=None))
