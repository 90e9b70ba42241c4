"""The marker of unlabelled rows: one default rule, and the traps of a marked target refuse loudly.

* :func:`toolkit._validation.resolve_unlabeled` -- ``unlabeled=None`` reads NaN / None as missing
  labels, else scikit-learn's -1; explicit markers keep their exact meaning;
* :meth:`toolkit.data.Dataset.target` writes NaN, so it works on ±1-coded data sets (G50C);
* ``score`` on marked rows, scikit-learn's cross-validation with a splitter that puts marked rows
  in a test fold, and a semi-supervised fit without unlabelled rows each raise a ``ValueError``
  naming the marker.
"""
from __future__ import annotations

import re

import numpy as np
import pytest
from sklearn.datasets import make_moons
from sklearn.model_selection import GridSearchCV, KFold, StratifiedKFold, cross_val_predict, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from toolkit import data
from toolkit._validation import resolve_unlabeled, unlabeled_mask
from toolkit.estimators import RLSC, S2RLSC, LapRLSC, LapSVM
from toolkit.selection import SemiSupervisedKFold

# ------------------------------------------------------------------------------- the one rule


def test_default_reads_nan_as_missing_labels_and_keeps_minus_one_a_class():
    y = np.array([1.0, -1.0, np.nan, -1.0, np.nan])
    assert np.isnan(resolve_unlabeled(y, None))
    assert unlabeled_mask(y, None).tolist() == [False, False, True, False, True]


def test_default_reads_none_and_nan_in_object_labels():
    y = np.array(["a", None, "b", float("nan"), -1], dtype=object)
    assert resolve_unlabeled(y, None) is None
    assert unlabeled_mask(y, None).tolist() == [False, True, False, True, False]
    only_nan = np.array(["a", float("nan"), "b"], dtype=object)
    assert np.isnan(resolve_unlabeled(only_nan, None))
    assert unlabeled_mask(only_nan, None).tolist() == [False, True, False]


def test_default_falls_back_to_scikit_learns_minus_one_without_missing_labels():
    y = np.array([0, 1, -1, -1, 2])
    assert resolve_unlabeled(y, None) == -1
    assert unlabeled_mask(y, None).tolist() == [False, False, True, True, False]
    assert unlabeled_mask(np.array([0.0, -1.0]), None).tolist() == [False, True]
    # strings hold no -1: nothing is unlabelled, and "a" / "b" are classes
    assert not unlabeled_mask(np.array(["b", "a"]), None).any()


@pytest.mark.parametrize(("y", "marker", "found"), [
    (np.array(["-1", "a", "b"]), None, "the text '-1' on 1 rows"),        # the default reads the number -1
    (np.array(["-1", "a"], dtype=object), -1, "the text '-1' on 1 rows"),
    (np.array(["-1.0", "a"]), -1.0, "the text '-1.0' on 1 rows"),
    (np.array([0, 1, -1, -1]), "-1", "numbers, 2 of them equal to -1"),
    (np.array([0.0, 1.0, -1.0]), "-1", "numbers, 1 of them equal to -1"),
])
def test_a_marker_that_only_its_twin_of_the_other_kind_would_match_is_refused(y, marker, found):
    """Issue 26: the text "-1" on the unlabelled rows with the (default) number -1, or unlabeled="-1"
    on numeric labels, made those rows a class of their own, silently; now refused naming both."""
    with pytest.raises(ValueError, match=rf"marker of unlabelled rows in effect is {marker if marker is not None else -1!r}.*"
                                         rf"'y' holds {re.escape(found)}: text and numbers never match"):
        resolve_unlabeled(y, marker)
    with pytest.raises(ValueError, match=r"text and numbers never match"):
        RLSC(unlabeled=marker).fit(np.arange(2 * y.size, dtype=float).reshape(-1, 2), y)


@pytest.mark.parametrize(("y", "marker", "expected"), [
    (np.array([1.0, -1.0, np.nan]), -1, [False, True, False]),            # NaN is not the marker -1
    (np.array([1, 0, -1]), 0, [False, True, False]),
    (np.array(["a", "u", "b"]), "u", [False, True, False]),
    (np.array([1.0, np.nan, -1.0]), float("nan"), [False, True, False]),
    (np.array([1, -1, 0], dtype=object), -1, [False, True, False]),
])
def test_an_explicit_marker_keeps_its_exact_meaning(y, marker, expected):
    assert resolve_unlabeled(y, marker) is marker
    assert unlabeled_mask(y, marker).tolist() == expected


# --------------------------------------------------------------------- Dataset.target on ±1 data

@pytest.fixture(scope="module")
def g50c(mirror_dir, tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TOOLKIT_DATA_DIR", str(tmp_path_factory.getbasetemp() / "shared-data-cache"))
        mp.setenv("TOOLKIT_DATA_MIRROR", str(mirror_dir))
        ds = data.load("g50c")
    return ds, data.split(ds, l=50, rng=0)


def test_dataset_target_works_on_a_plus_minus_one_data_set(g50c):
    """G50C's classes are -1 / +1: the target holds NaN on the rows outside split.labeled."""
    ds, sp = g50c
    y = ds.target(sp)
    assert y.dtype == np.float64
    assert set(np.unique(y[sp.labeled]).tolist()) == {-1.0, 1.0}
    outside = np.setdiff1d(np.arange(len(y)), sp.labeled)
    assert np.isnan(y[outside]).all() and not np.isnan(y[sp.labeled]).any()
    rows = np.concatenate([sp.labeled, sp.unlabeled])
    model = LapSVM(sigma=17.5).fit(ds.X[rows], y[rows])
    assert model.classes_.tolist() == [-1, 1] and np.isnan(model.unlabeled_marker_)
    assert model.transduction_.shape == (len(rows),) and not np.isnan(model.transduction_).any()
    assert model.score(ds.X[sp.test], ds.target()[sp.test]) > 0.8
    # the splitter reads the same rows as unlabelled; the grid search runs with it
    folds = list(SemiSupervisedKFold(4, random_state=0).split(ds.X[rows], y[rows]))
    assert all(not np.isnan(y[rows][test]).any() for _, test in folds)
    # an explicit marker that is a class is still refused
    with pytest.raises(ValueError, match=r"'unlabeled' parameter of Dataset.target must not be a class .*"
                                         r"classes \(-1, 1\)\)\. Got unlabeled=-1 instead"):
        ds.target(sp, unlabeled=-1)


def test_dataset_target_writes_none_for_string_classes(g50c):
    ds, sp = g50c
    named = data.Dataset(X=ds.X, y=ds.y, classes=("neg", "pos"), name="named", description="", citation="",
                         licence="", labels=np.where(ds.y > 0, "pos", "neg"))
    y = named.target(sp)
    assert y.dtype == object and sum(v is None for v in y) == len(y) - len(sp.labeled)
    rows = np.concatenate([sp.labeled, sp.unlabeled])
    assert RLSC(kernel="linear").fit(ds.X[rows], y[rows]).classes_.tolist() == ["neg", "pos"]


# --------------------------------------------------------------------------- the traps refuse

@pytest.fixture(scope="module")
def moons():
    X, y_true = make_moons(200, noise=0.08, random_state=0)
    y = np.full(200, -1)
    rng = np.random.default_rng(0)
    for c in (0, 1):
        y[rng.choice(np.flatnonzero(y_true == c), 10, replace=False)] = c
    return X, y, y_true


def test_score_refuses_rows_with_the_fit_time_marker(moons):
    X, y, y_true = moons
    model = LapSVM(sigma=0.3, gamma_I=1.0).fit(X, y)                  # unlabeled=None read as -1
    assert model.unlabeled_marker_ == -1
    with pytest.raises(ValueError, match=r"LapSVM.score: 'y' holds 180 of 200 rows marked unlabelled by -1 "
                                         r"\(as the fit read unlabeled=None\) or by a missing label \(NaN or None\); "
                                         r"they are not among the classes \[0, 1\].*"
                                         r"toolkit.selection.SemiSupervisedKFold"):
        model.score(X, y)
    with pytest.raises(ValueError, match=r"holds 1 of 3 rows marked unlabelled by -1 \(as the fit read"):
        model.score(X[:3], np.array([0.0, 1.0, np.nan]))              # the default rule: missing labels too
    assert model.score(X, y_true) > 0.95
    # an explicit marker: its rows are refused, and named
    explicit = LapSVM(sigma=0.3, gamma_I=1.0, unlabeled=7).fit(X, np.where(y == -1, 7, y))
    with pytest.raises(ValueError, match=r"holds 180 of 200 rows marked unlabelled by unlabeled=7"):
        explicit.score(X, np.where(y == -1, 7, y))


def test_score_keeps_minus_one_a_class_when_the_fit_read_nan(moons):
    X, y, y_true = moons
    coded = np.where(y == -1, np.nan, 2.0 * y - 1)                    # classes -1 / +1, NaN unlabelled
    model = LapSVM(sigma=0.3, gamma_I=1.0).fit(X, coded)
    assert model.classes_.tolist() == [-1, 1] and np.isnan(model.unlabeled_marker_)
    assert model.score(X, 2 * y_true - 1) > 0.95                       # -1 rows are a class
    with pytest.raises(ValueError, match=r"holds 180 of 200 rows marked unlabelled by NaN \(unlabeled=None: "
                                         r"missing labels\)"):
        model.score(X, coded)


@pytest.mark.parametrize("cv", [5, None, KFold(5, shuffle=True, random_state=0)])
@pytest.mark.parametrize("nan", [False, True])
def test_grid_search_with_a_plain_splitter_raises_before_splitting(cv, nan, moons):
    """Refused when scikit-learn reads the estimator's tags, before check_cv reads y: also for NaN markers,
    on which StratifiedKFold would fail with scikit-learn's own 'Input y contains NaN'."""
    X, y, _ = moons
    y = np.where(y == -1, np.nan, y) if nan else y
    marker = r"NaN \(unlabeled=None: missing labels\)" if nan else "-1"
    with pytest.raises(ValueError, match=rf"LapSVM is cross-validated by scikit-learn with cv=.*180 rows marked "
                                         rf"unlabelled by {marker}(.|\n)*toolkit.selection.SemiSupervisedKFold"):
        GridSearchCV(LapSVM(sigma=0.3), {"gamma_I": [0.01, 1.0]}, cv=cv).fit(X, y)


def test_folds_given_as_pairs_are_checked_fold_by_fold(moons):
    """(train, test) pairs are the user's own folds: fit refuses a test fold that holds marked rows."""
    X, y, _ = moons
    labeled, unlabeled = np.flatnonzero(y != -1), np.flatnonzero(y == -1)
    bad = [(np.r_[labeled[:10], unlabeled[20:]], np.r_[labeled[10:], unlabeled[:20]])]
    with pytest.raises(ValueError, match=r"All the 2 fits failed(.|\n)*LapSVM.fit was called by scikit-learn's "
                                         r"cross-validation with a test fold holding 20 of its 30 rows marked "
                                         r"unlabelled by -1(.|\n)*toolkit.selection.SemiSupervisedKFold"):
        GridSearchCV(LapSVM(sigma=0.3), {"gamma_I": [0.01, 1.0]}, cv=bad).fit(X, y)
    good = [(np.r_[labeled[:10], unlabeled], labeled[10:])]
    assert np.isfinite(GridSearchCV(LapSVM(sigma=0.3), {"gamma_I": [0.01, 1.0]}, cv=good).fit(X, y).best_score_)


def test_cross_validate_and_pipelines_raise_as_well(moons):
    X, y, _ = moons
    with pytest.raises(ValueError, match=r"LapRLSC is cross-validated by scikit-learn with cv=StratifiedKFold"):
        cross_validate(LapRLSC(sigma=0.3), X, y, cv=StratifiedKFold(5))
    with pytest.raises(ValueError, match=r"LapSVM is cross-validated by scikit-learn with cv="):
        cross_validate(make_pipeline(StandardScaler(), LapSVM(sigma=0.5)), X, y, cv=5)
    with pytest.raises(ValueError, match=r"LapSVM is cross-validated by scikit-learn with cv="):
        cross_val_predict(LapSVM(sigma=0.5), X, y, cv=3)


def test_a_marker_that_differs_between_estimator_and_splitter_raises(moons):
    """The splitter reads -1, the estimator 7: the splitter's test folds hold the estimator's marked rows."""
    X, y, _ = moons
    y7 = np.where(y == -1, 7, y)
    with pytest.raises(ValueError, match=r"All the 4 fits failed(.|\n)*marked unlabelled by unlabeled=7"):
        cross_validate(LapSVM(sigma=0.3, unlabeled=7), X, y7, cv=SemiSupervisedKFold(4, random_state=0))
    # the same marker on both: it runs
    scores = cross_validate(LapSVM(sigma=0.3, unlabeled=7), X, y7,
                            cv=SemiSupervisedKFold(4, random_state=0, unlabeled=7))["test_score"]
    assert scores.shape == (4,) and np.isfinite(scores).all()


@pytest.mark.parametrize("n_jobs", [None, 2])
def test_grid_search_with_the_semi_supervised_splitter_still_works(n_jobs, moons):
    X, y, y_true = moons
    for target in (y, np.where(y == -1, np.nan, y)):                  # -1 and NaN markers, read alike
        search = GridSearchCV(LapSVM(sigma=0.3), {"gamma_I": [0.01, 1.0]}, n_jobs=n_jobs,
                              cv=SemiSupervisedKFold(4, random_state=0)).fit(X, target)
        assert np.isfinite(search.cv_results_["mean_test_score"]).all()
        assert np.mean(search.predict(X) == y_true) > 0.95
    scores = cross_validate(S2RLSC(kernel="rbf", sigma=0.3, restarts=2, rng=0), X, np.where(y == -1, np.nan, y),
                            cv=SemiSupervisedKFold(4, random_state=0), n_jobs=n_jobs)["test_score"]
    assert np.isfinite(scores).all()


def test_a_plain_fit_outside_cross_validation_is_not_checked(moons):
    """Marked rows in a plain call are the unlabelled rows; only scikit-learn's _fit_and_score is watched."""
    X, y, _ = moons

    def _fit_and_score(estimator, X, y, test):       # same name, another module: not scikit-learn's
        return estimator.fit(X, y)

    assert _fit_and_score(LapSVM(sigma=0.3), X, y, test=np.arange(200)).classes_.tolist() == [0, 1]
