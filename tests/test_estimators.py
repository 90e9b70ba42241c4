"""toolkit.estimators: scikit-learn's checks, the label convention, and every number from the functions.

The estimators are thin shells, so their numbers are compared with direct calls of the functions
on the labelled / unlabelled rows that the marker selects (the functions themselves are checked
against independent references in their own test modules). What is tested here is what the
shells add: reading the marker, coding the classes, one-vs-rest, scikit-learn's protocol.
"""
from __future__ import annotations

import pickle

import numpy as np
import pytest
import scipy.sparse as sparse
from sklearn.base import clone
from sklearn.datasets import make_blobs, make_moons
from sklearn.model_selection import GridSearchCV, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import _get_check_estimator_ids, check_estimator, parametrize_with_checks

import toolkit
from toolkit.specs import Kernel, LocalSearch, Solver
from toolkit import data
from toolkit._compat import SKLEARN_TAGS
from toolkit.estimators import MMC, RLSC, S2RLSC, TSVM, LapRLSC, LapSVM, LapSVMPath
from toolkit.selection import SemiSupervisedKFold

# ---------------------------------------------------------------------------- scikit-learn's checks

_MARKER_IS_A_CLASS = ("the check fits y in {-1, +1} without NaN: unlabeled=None then reads -1 as the marker of "
                      "unlabelled rows (scikit-learn's convention), so one class remains and fit refuses it, by "
                      "design (the USPS(2,5) trap)")
_NEEDS_UNLABELED = ("the semi-supervised estimators (S2RLSC, TSVM, LapSVM, LapRLSC, LapSVMPath) are undefined "
                    "without unlabelled rows and refuse y without the marker; this check fits on every row "
                    "labelled (the same API properties are tested below with unlabelled rows)")
# the checks that fit on a fully labelled y (measured with check_estimator(..., on_fail=None))
_FULLY_LABELED_CHECKS = (
    "check_fit_score_takes_y", "check_estimators_overwrite_params", "check_dont_overwrite_parameters",
    "check_estimators_fit_returns_self", "check_readonly_memmap_input", "check_n_features_in_after_fitting",
    "check_positive_only_tag_during_fit", "check_estimators_dtypes", "check_dtype_object",
    "check_pipeline_consistency", "check_estimators_nan_inf", "check_estimator_sparse_tag",
    "check_estimator_sparse_array", "check_estimator_sparse_matrix", "check_estimators_pickle",
    "check_f_contiguous_array_estimator", "check_classifier_data_not_an_array", "check_classifiers_train",
    "check_supervised_y_2d", "check_non_transformer_estimators_n_iter", "check_methods_sample_order_invariance",
    "check_methods_subset_invariance", "check_fit2d_1feature", "check_dict_unchanged",
    "check_fit_idempotent", "check_fit_check_is_fitted", "check_n_features_in", "check_fit2d_predict1d",
    "check_estimator_sparse_data",      # scikit-learn < 1.6: the sparse checks under their one former name
)


def _expected_failures(estimator):
    if isinstance(estimator, MMC):
        return {}
    failures = {"check_classifiers_classes": _MARKER_IS_A_CLASS}
    if not isinstance(estimator, RLSC):
        # an estimator without sparse input refuses sparse X before reading y: those checks pass
        sparse_input = estimator.__sklearn_tags__().input_tags.sparse if SKLEARN_TAGS else estimator._sparse
        failures.update({name: _NEEDS_UNLABELED for name in _FULLY_LABELED_CHECKS
                         if sparse_input or "sparse" not in name})
    return failures


def _parametrize_with_checks(estimators, expected_failed_checks):
    """scikit-learn's ``parametrize_with_checks(estimators, expected_failed_checks=...)`` (1.6); before 1.6,
    which has no such argument, the same parametrization: every check of ``check_estimator(estimator,
    generate_only=True)``, those named by ``expected_failed_checks(estimator)`` marked xfail with the reason."""
    if SKLEARN_TAGS:
        return parametrize_with_checks(estimators, expected_failed_checks=expected_failed_checks)
    params = []
    for estimator in estimators:
        failures = expected_failed_checks(estimator)
        for est, check in check_estimator(estimator, generate_only=True):
            name = getattr(check, "func", check).__name__
            marks = [pytest.mark.xfail(reason=failures[name])] if name in failures else []
            params.append(pytest.param(est, check, marks=marks))
    return pytest.mark.parametrize("estimator, check", params, ids=_get_check_estimator_ids)


@_parametrize_with_checks([RLSC(), S2RLSC(random_state=0, restarts=2), TSVM(), LapSVM(), LapRLSC(), LapSVMPath(), MMC(random_state=0)],
                          expected_failed_checks=_expected_failures)
def test_scikit_learn_checks(estimator, check):
    check(estimator)


# ---------------------------------------------------------------------------------- shared data

@pytest.fixture(scope="module")
def moons():
    """Two moons, 10 labels per class, -1 on the other 380 rows (the acceptance's setting)."""
    X, y_true = make_moons(400, noise=0.08, random_state=0)
    y = np.full(400, -1)
    rng = np.random.default_rng(0)
    for c in (0, 1):
        y[rng.choice(np.flatnonzero(y_true == c), 10, replace=False)] = c
    return X, y, y_true


_ESTIMATORS = {
    "RLSC": lambda: RLSC(kernel="rbf", sigma=0.3, lam=0.1),
    "S2RLSC": lambda: S2RLSC(kernel="rbf", sigma=0.3, lam=0.1, restarts=3, random_state=0),
    "TSVM": lambda: TSVM(kernel="rbf", sigma=0.3, C=10.0),
    "LapSVM": lambda: LapSVM(sigma=0.3, gamma_I=1.0),
    "LapRLSC": lambda: LapRLSC(sigma=0.3, gamma_I=1.0),
    "LapSVMPath": lambda: LapSVMPath(sigma=0.3, lam=0.05),
}
_FUNCTIONS = {
    "RLSC": lambda Xl, yl, Xu: toolkit.rlsc(Xl, yl, kernel="rbf", sigma=0.3, lam=0.1),
    "S2RLSC": lambda Xl, yl, Xu: toolkit.s2rlsc(Xl, yl, Xu, kernel=Kernel("rbf", sigma=0.3),
                                                search=LocalSearch(restarts=3), lam=0.1, rng=0),
    "TSVM": lambda Xl, yl, Xu: toolkit.tsvm(Xl, yl, Xu, kernel="rbf", sigma=0.3, C=10.0),
    "LapSVM": lambda Xl, yl, Xu: toolkit.lapsvm(Xl, yl, Xu, kernel=Kernel("rbf", sigma=0.3), gamma_I=1.0),
    "LapRLSC": lambda Xl, yl, Xu: toolkit.laprlsc(Xl, yl, Xu, kernel=Kernel("rbf", sigma=0.3), gamma_I=1.0),
    "LapSVMPath": lambda Xl, yl, Xu: toolkit.laplacian_svm_path(Xl, yl, Xu, kernel=Kernel("rbf", sigma=0.3)),
}


def _function_decision(name, result, X):
    if name == "LapSVMPath":
        return result.decision_function(X, 0.05)
    return result.decision_function(X)


# ------------------------------------------------------------------ every number from the function

@pytest.mark.parametrize("name", sorted(_ESTIMATORS))
def test_binary_fit_is_the_function_on_the_marked_rows(name, moons):
    """Rows in any order, labels 0 / 1: the same decision values as the function on (X_l, ±1, X_u)."""
    X, y, y_true = moons
    order = np.random.default_rng(1).permutation(len(y))        # labelled rows scattered among the others
    est = _ESTIMATORS[name]().fit(X[order], y[order])
    labeled = y[order] != -1
    result = _FUNCTIONS[name](X[order][labeled], np.where(y[order][labeled] == 1, 1.0, -1.0), X[order][~labeled])
    np.testing.assert_allclose(est.decision_function(X), _function_decision(name, result, X), rtol=1e-10,
                               atol=1e-12)
    np.testing.assert_array_equal(est.classes_, [0, 1])
    # decision > 0 means classes_[1] (scikit-learn's convention)
    np.testing.assert_array_equal(est.predict(X), np.where(est.decision_function(X) >= 0, 1, 0))
    # transduction_: the given labels on labelled rows, the labels found elsewhere; the model is good
    np.testing.assert_array_equal(est.transduction_[labeled], y[order][labeled])
    assert np.mean(est.transduction_[~labeled] == y_true[order][~labeled]) > (0.8 if name == "RLSC" else 0.97)


def test_labels_found_are_the_methods_own(moons):
    """S2RLSC and TSVM report the labels their search found for U, not sign f(x_u)."""
    X, y, _ = moons
    for est in (_ESTIMATORS["S2RLSC"]().fit(X, y), _ESTIMATORS["TSVM"]().fit(X, y)):
        found = np.where(np.asarray(est.result_.labels_unlabeled) > 0, 1, 0)
        np.testing.assert_array_equal(est.transduction_[y == -1], found)


def test_string_labels_and_other_markers(moons):
    """Strings with an object -1 marker, a string marker, NaN in float labels and None: one reading."""
    X, y, _ = moons
    reference = LapSVM(sigma=0.3, gamma_I=1.0).fit(X, y).decision_function(X)
    names = np.array(["cat", "dog"], dtype=object)
    as_object = np.where(y == -1, -1, names[np.clip(y, 0, 1)]).astype(object)
    as_strings = np.where(y == -1, "?", np.array(["cat", "dog"])[np.clip(y, 0, 1)])
    as_float = np.where(y == -1, np.nan, y.astype(float))
    as_none = np.where(y == -1, None, names[np.clip(y, 0, 1)])
    for target, marker in ((as_object, -1), (as_strings, "?"), (as_float, np.nan), (as_none, None)):
        est = LapSVM(sigma=0.3, gamma_I=1.0, unlabeled=marker).fit(X, target)
        np.testing.assert_allclose(est.decision_function(X), reference, rtol=1e-10, atol=1e-12)
        assert len(est.classes_) == 2
    assert set(LapSVM(sigma=0.3, gamma_I=1.0, unlabeled="?").fit(X, as_strings).predict(X[:5])) <= {"cat", "dog"}


def test_a_string_minus_one_is_a_class_only_under_a_text_marker(moons):
    """The text "-1" read with the default number -1 is ambiguous (issue 26: it silently became a third
    class): refused; under an explicit text marker it is a class like any other."""
    X, y, _ = moons
    target = np.where(y == -1, "-1", np.where(y == 1, "b", "a"))        # every row labelled, 3 string classes
    with pytest.raises(ValueError, match=r"the text '-1' on \d+ rows: text and numbers never match"):
        RLSC(kernel="rbf", sigma=0.3).fit(X, target)
    est = RLSC(kernel="rbf", sigma=0.3, unlabeled="u").fit(X, target)
    assert est.classes_.tolist() == ["-1", "a", "b"]


@pytest.fixture(scope="module")
def blobs():
    """Three classes, 5 labels each, -1 on the other 135 rows."""
    X, y_true = make_blobs(150, centers=[[0, 0], [6, 0], [0, 6]], cluster_std=1.0, random_state=0)
    y = np.full(150, -1)
    for c in (0, 1, 2):
        keep = np.flatnonzero(y_true == c)[:5]
        y[keep] = c
    return X, y, y_true


_ONE_CALL = {
    "LapRLSC direct": lambda: LapRLSC(sigma=2.0, gamma_I=0.1, method="direct"),
    "LapSVM newton": lambda: LapSVM(sigma=2.0, gamma_I=0.1, method="newton"),
    "LapSVM pcg separate": lambda: LapSVM(sigma=2.0, gamma_I=0.1, method="pcg", one_vs_all="separate"),
}


def _function_of(est):
    """The estimator's function with every one of its parameters (the marker apart)."""
    params = est._solver_params()                   # the estimator's hyper-parameters as the function's specs
    function = toolkit.laprlsc if isinstance(est, LapRLSC) else toolkit.lapsvm
    return lambda X_labeled, y_labeled, X_unlabeled, **kw: function(X_labeled, y_labeled, X_unlabeled,
                                                                      **{**params, **kw})


@pytest.mark.parametrize("name", sorted(_ONE_CALL))
def test_all_classes_in_one_call_give_the_one_vs_rest_numbers(name, blobs):
    """One call of the function with every class = the former loop of binary ±1 fits, one per class."""
    X, y, y_true = blobs
    order = np.random.default_rng(2).permutation(len(y))              # labelled rows scattered
    X, y, y_true = X[order], y[order], y_true[order]
    make = _ONE_CALL[name]
    est = make().fit(X, y)
    labeled = y != -1
    function = _function_of(est)                # binary problems: one_vs_all plays no part
    loop = [function(X[labeled], np.where(y[labeled] == c, 1.0, -1.0), X[~labeled]) for c in (0, 1, 2)]
    reference = np.column_stack([r.decision_function(X) for r in loop])
    np.testing.assert_allclose(est.decision_function(X), reference, rtol=1e-10, atol=1e-10)
    np.testing.assert_array_equal(est.predict(X), np.argmax(reference, axis=1))
    np.testing.assert_array_equal(est.n_iter_, [r.n_iter for r in loop])
    # one result: alpha (n, C), the classes coded 0 .. C-1 in the order of classes_
    assert isinstance(est.result_, toolkit.manifold.LapSVMResult) and est.result_.alpha.shape == (150, 3)
    np.testing.assert_array_equal(est.result_.classes, [0, 1, 2])
    np.testing.assert_array_equal(est.transduction_[~labeled], np.argmax(reference[~labeled], axis=1))
    assert np.mean(est.transduction_ == y_true) > 0.95
    # string classes, in another order than the codes' first appearance: the same columns
    names = np.array(["c", "a", "b"], dtype=object)                   # class 0 -> "c" sorts last
    target = np.where(y == -1, None, names[np.clip(y, 0, 2)])
    named = make().fit(X, target)
    assert named.classes_.tolist() == ["a", "b", "c"]
    np.testing.assert_allclose(named.decision_function(X), reference[:, [1, 2, 0]], rtol=1e-10, atol=1e-10)


def test_one_call_codes_the_validation_labels(blobs):
    """validation = (X_v, y_v) coded like y: the function receives the same codes as the labelled rows."""
    X, y, y_true = blobs
    X_v, y_v = X[::10], y_true[::10]
    est = LapSVM(sigma=2.0, gamma_I=0.1, stop="validation").fit(X, y, validation=(X_v, y_v))
    labeled = y != -1
    direct = _function_of(est)(X[labeled], y[labeled], X[~labeled], validation=(X_v, y_v))   # y_v: codes 0, 1, 2
    np.testing.assert_allclose(est.decision_function(X), direct.decision_function(X), rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(est.n_iter_, direct.n_iter_per_problem)
    with pytest.raises(ValueError, match=r"'validation' argument of LapSVM.fit must hold labels coded like y, among "
                                         r"the classes \[0, 1, 2\]\. Got 1 other labels \(e\.g\. 7\)"):
        LapSVM(sigma=2.0, stop="validation").fit(X, y, validation=(X_v, np.r_[y_v[:-1], 7]))


def test_mmc_is_the_function():
    X, truth = make_blobs(60, centers=2, cluster_std=0.8, random_state=3)
    est = MMC(kernel="linear", random_state=0, restarts=3)
    labels = est.fit_predict(X)
    result = toolkit.mmc(X, kernel="linear", rng=0, search=LocalSearch(restarts=3))
    np.testing.assert_array_equal(labels, (np.asarray(result.labels) > 0).astype(int))
    # the two blobs are found, up to the naming of the clusters
    assert max(np.mean(labels == truth), np.mean(labels != truth)) == 1.0
    np.testing.assert_array_equal(est.predict(X), (result.decision_function(X) >= 0).astype(int))


# --------------------------------------------------------------------------- the USPS(2,5) trap

@pytest.fixture(scope="module")
def usps25(mirror_dir, tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TOOLKIT_DATA_DIR", str(tmp_path_factory.getbasetemp() / "shared-data-cache"))
        mp.setenv("TOOLKIT_DATA_MIRROR", str(mirror_dir))
        ds = data.load("usps", 2, 5)
    return ds, data.split(ds, l=20, rng=0)


def test_usps25_trap_cannot_happen_silently(usps25):
    """Dataset.y codes USPS(2,5) +1 / -1: without NaN, unlabeled=None reads -1 as the marker and class 5
    would vanish into U."""
    ds, sp = usps25
    rows = np.concatenate([sp.labeled, sp.unlabeled])
    # yesterday's trap: every -1 row taken as unlabelled, every test fold of one class
    with pytest.raises(ValueError, match=r"only one class \(1\).*unlabelled by -1 \(unlabeled=None reads -1 as the "
                                         r"marker.*put NaN .* on the unlabelled rows.*Dataset.target"):
        list(SemiSupervisedKFold(n_splits=4, random_state=0).split(ds.X, ds.y))
    with pytest.raises(ValueError, match=r"LapSVM.fit needs labelled rows of at least two classes"):
        LapSVM(sigma=9.4).fit(ds.X[sp.labeled], ds.y[sp.labeled])
    # the target the estimators expect: the digits 2 and 5, NaN on the rows outside split.labeled
    y = ds.target(sp)
    assert y.dtype == np.float64 and set(np.unique(y[sp.labeled])) == {2, 5} and np.all(np.isnan(y[sp.unlabeled]))
    np.testing.assert_array_equal(ds.target()[sp.test], np.where(ds.y[sp.test] == 1, 2, 5))
    folds = list(SemiSupervisedKFold(n_splits=4, random_state=0).split(ds.X[rows], y[rows]))
    for train, test in folds:
        assert set(np.unique(y[rows][test])) == {2, 5}                     # both classes in every test fold
        assert not np.isnan(y[rows][test]).any()
    assert sorted(np.concatenate([test for _, test in folds]).tolist()) == list(range(len(sp.labeled)))
    model = LapSVM(sigma=9.4, gamma_A=1e-6, gamma_I=1e-2, weight="heat", graph_sigma=9.4).fit(ds.X[rows], y[rows])
    assert model.classes_.tolist() == [2, 5] and np.isnan(model.unlabeled_marker_)
    assert model.score(ds.X[sp.test], ds.target()[sp.test]) > 0.9


def test_dataset_target_refuses_a_marker_that_is_a_class(usps25):
    ds, sp = usps25
    with pytest.raises(ValueError, match=r"'unlabeled' parameter of Dataset.target must not be a class.*"
                                         r"keep the default unlabeled=None.*unlabeled=-1"):
        ds.target(sp, unlabeled=2)
    g = data.load("gaussian2c", rng=0)                               # original labels are -1 / +1
    with pytest.raises(ValueError, match=r"must not be a class .*classes \(-1, 1\).*e.g. unlabeled=0"):
        g.target(data.split(g, l=10, rng=0), unlabeled=-1)
    assert set(np.unique(g.target(data.split(g, l=10, rng=0), unlabeled=0))) == {-1, 0, 1}
    # explicit integer markers keep integer targets; the default writes NaN
    assert ds.target(sp, unlabeled=-1).dtype == np.int64 and np.all(ds.target(sp, unlabeled=-1)[sp.unlabeled] == -1)
    with pytest.raises(TypeError, match=r"'split' parameter of Dataset.target must be a toolkit.data.Split"):
        ds.target([1, 2, 3])


# -------------------------------------------------------------- scikit-learn's tools around them

@pytest.mark.parametrize("name", sorted(_ESTIMATORS))
def test_pickle_and_clone(name, moons):
    X, y, _ = moons
    est = _ESTIMATORS[name]().fit(X, y)
    again = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(again.decision_function(X), est.decision_function(X))
    np.testing.assert_array_equal(again.transduction_, est.transduction_)
    fresh = clone(est)
    assert fresh.get_params() == est.get_params() and not hasattr(fresh, "result_")


@pytest.mark.parametrize("name", ["S2RLSC", "TSVM"])
def test_protocol_of_the_methods_that_need_unlabelled_rows(name, moons):
    """What scikit-learn's checks test on fully labelled y, tested here with unlabelled rows."""
    from sklearn.exceptions import NotFittedError

    X, y, _ = moons
    est = _ESTIMATORS[name]()
    with pytest.raises(NotFittedError):
        est.predict(X)
    params = est.get_params()
    assert est.fit(X, y) is est and est.get_params() == params            # returns self, params untouched
    assert est.n_features_in_ == 2
    first = est.decision_function(X)
    np.testing.assert_array_equal(est.fit(X, y).decision_function(X), first)                   # idempotent
    np.testing.assert_allclose(np.concatenate([est.decision_function(X[:50]), est.decision_function(X[50:])]),
                               first, rtol=1e-12)                                      # subset invariance
    with pytest.raises(ValueError, match="X has 3 features, but .* is expecting 2 features"):
        est.predict(np.c_[X, X[:, :1]])
    with pytest.raises(ValueError, match="Input X contains NaN"):
        clone(est).fit(np.where(np.arange(800).reshape(400, 2) == 7, np.nan, X), y)


def test_grid_search_and_cross_validate_keep_unlabelled_rows_out_of_test_folds(moons):
    X, y, y_true = moons
    cv = SemiSupervisedKFold(n_splits=4, random_state=0)
    search = GridSearchCV(LapSVM(sigma=0.3), {"gamma_I": [1e-3, 1.0]}, cv=cv).fit(X, y)
    assert search.best_estimator_.classes_.tolist() == [0, 1]
    # the folds' scores are accuracies on labelled rows only: 20 labels / 4 folds = multiples of 1/5
    scores = np.array([search.cv_results_[f"split{k}_test_score"] for k in range(4)])
    np.testing.assert_allclose(scores * 5, np.round(scores * 5), atol=1e-12)
    result = cross_validate(S2RLSC(kernel="rbf", sigma=0.3, restarts=2, random_state=0), X, y, cv=cv)
    assert result["test_score"].shape == (4,)
    assert np.mean(search.predict(X) == y_true) > 0.97


def test_pipeline_with_a_scaler_and_pandas_output(moons):
    pd = pytest.importorskip("pandas")
    X, y, _ = moons
    frame = pd.DataFrame(X, columns=["x1", "x2"])
    pipe = make_pipeline(StandardScaler(), LapSVM(sigma=0.5, gamma_I=1.0)).set_output(transform="pandas")
    pipe.fit(frame, y)
    assert pipe[-1].feature_names_in_.tolist() == ["x1", "x2"]
    scaled = StandardScaler().fit_transform(X)
    direct = LapSVM(sigma=0.5, gamma_I=1.0).fit(scaled, y)
    # the DataFrame reaches BLAS in another memory order: the same model up to round-off
    np.testing.assert_allclose(pipe.decision_function(frame), direct.decision_function(scaled), rtol=1e-7, atol=1e-9)


def test_sparse_input_gives_the_dense_numbers(moons):
    X, y, _ = moons
    for make in (lambda: LapSVM(sigma=0.3, gamma_I=1.0), lambda: TSVM(kernel="rbf", sigma=0.3)):
        dense = make().fit(X, y).decision_function(X)
        np.testing.assert_allclose(make().fit(sparse.csr_matrix(X), y).decision_function(sparse.csr_matrix(X)),
                                   dense, rtol=1e-8, atol=1e-10)
    with pytest.raises(TypeError, match="Sparse data was passed for X, but dense data is required"):
        LapSVMPath(sigma=0.3).fit(sparse.csr_matrix(X), y)


def test_float32_is_kept_when_asked(moons):
    X, y, _ = moons
    # the paper's preconditioner takes the same path in both precisions (the two-level one adapts
    # its coarse space to the kernel's precision, so its early-stopped iterate differs)
    est = LapSVM(sigma=0.3, gamma_I=1.0, options={"dtype": "float32", "preconditioner": "kernel"}).fit(
        X.astype(np.float32), y)
    values = est.decision_function(X.astype(np.float32))
    assert values.dtype == np.float32
    reference = LapSVM(sigma=0.3, gamma_I=1.0, options={"preconditioner": "kernel"}).fit(X, y).decision_function(X)
    np.testing.assert_allclose(values, reference, atol=1e-3 * np.abs(reference).max())
    default = LapSVM(sigma=0.3, gamma_I=1.0, options={"dtype": "float32"}).fit(X.astype(np.float32), y)
    assert np.mean(default.predict(X) == LapSVM(sigma=0.3, gamma_I=1.0).fit(X, y).predict(X)) > 0.99
    assert LapSVM(sigma=0.3, gamma_I=1.0).fit(X.astype(np.float32), y).decision_function(X).dtype == np.float64


def test_validation_labels_are_coded_per_problem(moons):
    X, y, y_true = moons
    X_validation, y_validation = X[::20], y_true[::20]                 # labels coded like y (0 / 1)
    est = LapSVM(sigma=0.3, stop="validation").fit(X, y, validation=(X_validation, y_validation))
    labeled = y != -1
    result = toolkit.lapsvm(X[labeled], np.where(y[labeled] == 1, 1.0, -1.0), X[~labeled],
                            kernel=Kernel("rbf", sigma=0.3), solver=Solver(stop="validation"),
                            validation=(X_validation, np.where(y_validation == 1, 1.0, -1.0)))
    np.testing.assert_allclose(est.decision_function(X), result.decision_function(X), rtol=1e-10, atol=1e-12)
    assert est.n_iter_ == result.n_iter
    with pytest.raises(TypeError, match=r"'validation' argument of LapSVM.fit must be a pair"):
        LapSVM(sigma=0.3, stop="validation").fit(X, y, validation=X_validation[:3])


def test_path_lambda_changes_without_refitting(moons):
    X, y, _ = moons
    est = LapSVMPath(sigma=0.3, lam=0.05).fit(X, y)
    path = est.result_
    before = est.decision_function(X)
    est.set_params(lam=0.5)
    assert est.result_ is path                                   # no refit
    np.testing.assert_allclose(est.decision_function(X), path.decision_function(X, 0.5), rtol=1e-12)
    assert not np.allclose(est.decision_function(X), before)
    assert est.breakpoints_[0] == path.svm.breakpoints[0]


def test_the_path_estimator_reads_its_model_at_the_paths_end_by_default(moons):
    """``lam="end"``: the last breakpoint of each binary path (read off the data, no λ to choose); a
    number set afterwards is read at once."""
    X, y, _ = moons
    est = LapSVMPath(sigma=0.3).fit(X, y)
    assert est.lam == "end" and est.lam_ == est.result_.svm.breakpoints[-1] == est.breakpoints_[-1]
    np.testing.assert_array_equal(est.decision_function(X), est.result_.decision_function(X, est.lam_))
    assert len(np.unique(est.predict(X))) == 2
    est.set_params(lam=est.breakpoints_[0])
    assert est.lam_ == est.breakpoints_[0]
    np.testing.assert_array_equal(est.decision_function(X), est.result_.decision_function(X, est.breakpoints_[0]))
    with pytest.raises(ValueError, match=r"'lam' parameter of LapSVMPath must be a float in \(0.0, inf\) or 'end'"):
        LapSVMPath(sigma=0.3, lam="start").fit(X, y).predict(X)


def test_the_path_estimators_defaults_predict_both_classes_on_usps_with_ten_labels(usps25):
    """USPS(2,5) with 10 labels: the defaults' model predicts both classes, within 2 points of RLSC()."""
    ds = usps25[0]
    split = data.split(ds, l=10, rng=0)
    target, rows = ds.target(split), np.r_[split.labeled, split.unlabeled]
    truth = np.asarray(ds.target())[split.test]
    path = LapSVMPath().fit(ds.X[rows], target[rows]).predict(ds.X[split.test])
    rlsc = RLSC().fit(ds.X[rows], target[rows]).predict(ds.X[split.test])
    assert len(np.unique(path)) == 2
    assert np.mean(path == truth) >= np.mean(rlsc == truth) - 0.02


# ------------------------------------------------------------------------------------ bad input

_SEMI_SUPERVISED = ("S2RLSC", "TSVM", "LapSVM", "LapRLSC", "LapSVMPath")


@pytest.mark.parametrize("name", _SEMI_SUPERVISED)
def test_semi_supervised_methods_without_unlabelled_rows_say_so(name, moons):
    """One rule, one message: every semi-supervised estimator refuses y without unlabelled rows."""
    X, y, y_true = moons
    with pytest.raises(ValueError, match=rf"^{name}.fit needs unlabelled rows: {name} is a semi-supervised method.*"
                                         r"no row of 'y' marked unlabelled by -1 \(unlabeled=None reads -1 as the "
                                         r"marker.*among 400 rows instead\. .*use RLSC for labelled rows alone\.$"):
        _ESTIMATORS[name]().fit(X, y_true)
    # the labels hold the rows' real marker: the message names the value to pass
    with pytest.raises(ValueError, match=rf"{name}.fit needs unlabelled rows.*unlabelled by unlabeled=0 among 400 "
                                         r"rows.*'y' holds 380 labels -1: pass unlabeled=-1"):
        _ESTIMATORS[name]().set_params(unlabeled=0).fit(X, np.where(y == -1, -1, y + 1))
    with pytest.raises(ValueError, match=rf"{name}.fit needs unlabelled rows.*unlabelled by unlabeled=-1 among 400 "
                                         r"rows.*'y' holds 380 missing labels \(NaN or None\): pass unlabeled=None"):
        _ESTIMATORS[name]().set_params(unlabeled=-1).fit(X, np.where(y == -1, np.nan, y + 1.0))


def test_the_supervised_baseline_and_the_clusterer_need_no_unlabelled_row(moons):
    X, _, y_true = moons
    assert RLSC(kernel="rbf", sigma=0.3).fit(X, y_true).transduction_.tolist() == y_true.tolist()
    assert MMC(random_state=0, restarts=2).fit(X).labels_.shape == (400,)


def test_bad_parameters_name_themselves(moons):
    X, y, _ = moons
    with pytest.raises(ValueError, match=r"'gamma_I' parameter of lapsvm"):
        LapSVM(gamma_I=-1.0).fit(X, y)
    with pytest.raises(ValueError, match=r"'lam' parameter of s2rlsc"):
        S2RLSC(lam=-1.0).fit(X, y)
    with pytest.raises(ValueError, match=r"'lam' parameter of LapSVMPath must be a float in \(0.0, inf\)"):
        LapSVMPath(sigma=0.3, lam=-1.0).fit(X, y).predict(X)
    with pytest.raises(ValueError, match="Unknown label type"):
        LapSVM().fit(X, np.linspace(0, 1, len(y)))


def test_grid_search_on_a_dask_cluster_gives_the_local_results(moons):
    """GridSearchCV spread over 2 Dask workers (joblib's dask backend) scores exactly as locally."""
    distributed = pytest.importorskip("distributed")
    import joblib

    X, y, _ = moons
    grid = {"gamma_I": [1e-2, 1.0], "gamma_A": [1e-6, 1e-2]}

    def search(n_jobs):
        return GridSearchCV(LapSVM(sigma=0.3), grid, cv=SemiSupervisedKFold(n_splits=4, random_state=0),
                            n_jobs=n_jobs).fit(X, y)

    local = search(None)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster, distributed.Client(cluster):
        with joblib.parallel_config(backend="dask"):
            remote = search(-1)
    for key in ("mean_test_score", "std_test_score", "rank_test_score"):
        np.testing.assert_array_equal(remote.cv_results_[key], local.cv_results_[key])
    assert remote.best_params_ == local.best_params_
    np.testing.assert_array_equal(remote.predict(X), local.predict(X))


@pytest.mark.parametrize("cls", [RLSC, S2RLSC, TSVM, LapSVM, LapRLSC, LapSVMPath, MMC])
def test_every_estimator_documents_itself(cls):
    """Class docstrings built from shared pieces must still land in __doc__ (an expression does not)."""
    assert cls.__doc__ is not None and "Parameters" in cls.__doc__
    if cls is not MMC:
        assert "unlabeled" in cls.__doc__ and "transduction_" in cls.__doc__
