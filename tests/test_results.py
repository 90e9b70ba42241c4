"""One result base and one display: every result class shows itself through ``toolkit._display.Result``,
and every solver's result carries the contract's fields of ``toolkit._contract.SolverResult``."""
from __future__ import annotations

import dataclasses
import importlib
import inspect
import pickle
import pkgutil

import numpy as np
import pandas as pd
import pytest

import toolkit
from toolkit import stats
from toolkit._contract import SOLVER_STATUS, SolverResult, is_converged
from toolkit._display import Result
from toolkit.manifold import LapSVMResult
from toolkit.paths import LaplacianSvmPath, PathSelection, RlscPath, SvmPath
from toolkit.rls import MMCResult, RLSCResult, S2RLSCResult
from toolkit.selection import Selection
from toolkit.specs import Kernel
from toolkit.transductive import TSVMResult

CONTRACT = ("converged", "status", "message", "n_iter", "history", "stop", "fallbacks")
SOLVER_RESULTS = (S2RLSCResult, MMCResult, TSVMResult, LapSVMResult, SvmPath, LaplacianSvmPath)
OTHER_RESULTS = (RLSCResult, RlscPath, PathSelection, Selection, stats.TestResult, stats.FriedmanResult,
                 stats.PosthocResult)


def _toolkit_classes():
    """Every class defined in a module of ``toolkit/``; the data sets (data, not results) and the
    scikit-learn estimators (whose HTML view is scikit-learn's) aside."""
    from sklearn.base import BaseEstimator

    found = {}
    for info in pkgutil.walk_packages(toolkit.__path__, "toolkit."):
        if info.name.startswith(("toolkit.data", "toolkit.__main__")):
            continue
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == module.__name__ and not issubclass(cls, BaseEstimator):
                found[f"{cls.__module__}.{cls.__qualname__}"] = cls
    return found


def test_every_class_with_a_summary_is_a_result_and_shows_itself_through_the_one_display():
    showing = {name: cls for name, cls in _toolkit_classes().items()
               if any(hasattr(cls, attr) for attr in ("summary", "_repr_html_"))}
    assert set(SOLVER_RESULTS + OTHER_RESULTS) <= set(showing.values())
    not_results = sorted(name for name, cls in showing.items() if not issubclass(cls, Result))
    assert not_results == [], f"classes with a display of their own, not a toolkit._display.Result: {not_results}"
    for name, cls in showing.items():
        for attr in ("summary", "_repr_html_", "__repr__"):
            assert getattr(cls, attr) is getattr(Result, attr), f"{name}.{attr} is hand-rolled"


@pytest.mark.parametrize("cls", SOLVER_RESULTS + OTHER_RESULTS, ids=lambda c: c.__name__)
def test_result_classes_are_frozen_dataclasses(cls):
    assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen
    assert not cls.__dataclass_params__.repr            # the one repr, not the dataclass's field dump


@pytest.mark.parametrize("cls", SOLVER_RESULTS, ids=lambda c: c.__name__)
def test_solver_results_derive_from_the_contract_base_and_have_its_fields(cls):
    assert issubclass(cls, SolverResult)
    names = {f.name for f in dataclasses.fields(cls)}
    assert set(CONTRACT) <= names


# ------------------------------------------------------------------ results of real (tiny) runs
@pytest.fixture(scope="module")
def results():
    from toolkit import (laplacian_svm_path, laprlsc, lapsvm, lapsvm_dual, mmc, rlsc, rlsc_path, s2rlsc,
                         svm_path, tsvm)
    from toolkit.paths import cv_svm_path

    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(-1.0, 0.5, (15, 2)), rng.normal(1.0, 0.5, (15, 2))]
    y = np.r_[-np.ones(15), np.ones(15)]
    lab = np.array([0, 1, 15, 16])
    unl = np.setdiff1d(np.arange(30), lab)
    K = X @ X.T + 1.0
    rbf = Kernel("rbf", sigma=0.5)
    scores = pd.DataFrame(rng.random((6, 3)), columns=["a", "b", "c"])
    a, b = rng.random(8), rng.random(8) + 0.5
    return {
        "lapsvm": lapsvm(X[lab], y[lab], X[unl], kernel=rbf),
        "laprlsc": laprlsc(X[lab], y[lab], X[unl], kernel=rbf),
        "lapsvm_dual": lapsvm_dual(X[lab], y[lab], X[unl], kernel=rbf),
        "s2rlsc": s2rlsc(X[lab], y[lab], X[unl], rng=0),
        "mmc": mmc(X, rng=0),
        "tsvm": tsvm(X[lab], y[lab], X[unl]),
        "svm_path": svm_path(K, y),
        "laplacian_svm_path": laplacian_svm_path(X[lab], y[lab], X[unl], kernel=rbf),
        "rlsc": rlsc(X[lab], y[lab]),
        "rlsc_path": rlsc_path(K, y),
        "cv_svm_path": cv_svm_path(K, y, n_folds=3, rng=0),
        "paired_ttest": stats.paired_ttest(a, b),
        "friedman": stats.friedman(scores),
        "nemenyi": stats.nemenyi(scores),
    }


def test_every_run_shows_a_title_over_a_rule_rows_html_and_a_one_line_repr(results):
    for name, res in results.items():
        assert isinstance(res, Result), name
        text, page, line = res.summary(), res._repr_html_(), repr(res)
        lines = text.splitlines()
        assert lines[0] == res._title and set(lines[1]) == {"="}, name
        assert len(lines) - 2 >= len(res._rows()), name               # one line per row at least
        assert page.startswith("<table><caption>"), name
        assert line.startswith(type(res).__name__ + "(") and line.endswith(")") and "\n" not in line, name
        assert "array(" not in line and "dtype" not in line, name     # no raw dataclass dump


def test_a_solver_result_reports_its_status_as_the_contract_table_says(results):
    solver_results = {k: r for k, r in results.items() if isinstance(r, SolverResult)}
    assert set(solver_results) == {"lapsvm", "laprlsc", "lapsvm_dual", "s2rlsc", "mmc", "tsvm", "svm_path",
                                   "laplacian_svm_path"}
    for name, res in solver_results.items():
        info = SOLVER_STATUS[res.status]
        assert res.converged is is_converged(res.status) is info.converged, name
        head, _, tail = info.template.partition("{detail}")
        assert res.message.startswith(head) and res.message.endswith(tail), name
        assert isinstance(res.n_iter, int) and res.n_iter >= 0, name
        assert isinstance(res.fallbacks, tuple) and all(isinstance(t, str) for t in res.fallbacks), name
        assert "objective" in res.history or "lambda" in res.history, name
        text = res.summary()
        assert f"{res.converged} (status {res.status})" in text and res.message in text, name
        assert all(t in text for t in res.fallbacks), name
        with pytest.raises(dataclasses.FrozenInstanceError):
            res.status = 0


def test_the_laplacian_path_carries_the_contract_of_its_svm_path(results):
    path = results["laplacian_svm_path"]
    for field in CONTRACT:
        assert getattr(path, field) is getattr(path.svm, field)
    again = dataclasses.replace(path, gamma_ratio=path.gamma_ratio)       # the fields follow svm on a copy too
    assert again.status == path.status and again.history is path.svm.history
    back = pickle.loads(pickle.dumps(path))
    assert back.message == path.message and back.n_iter == path.n_iter


def test_results_pickle_with_their_contract(results):
    for name in ("lapsvm", "s2rlsc", "tsvm", "svm_path"):
        res = results[name]
        back = pickle.loads(pickle.dumps(res))
        assert type(back) is type(res)
        assert (back.status, back.message, back.n_iter, back.fallbacks) == (res.status, res.message, res.n_iter,
                                                                          res.fallbacks), name
