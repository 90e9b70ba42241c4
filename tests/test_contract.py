"""The one solver contract (toolkit._contract) across the six iterative solvers.

For s2rlsc, mmc, lapsvm, laprlsc, svm_path and laplacian_svm_path: the callback gets one
argument (an IntermediateResult), StopIteration stops with status 3, max_iter gives status 2 and
toolkit.ConvergenceWarning, a normal run status 0, the history is complete, fallbacks are
recorded, and an early-stopping rule is a callback like any other (status 1, result.stop).
"""
from __future__ import annotations

import pathlib
import re
import warnings

import numpy as np
import pytest

import toolkit
from toolkit import (kernel_matrix, laplacian_svm_path, laprlsc, lapsvm, lapsvm_dual, mmc, s2rlsc,
                     svm_path)
from toolkit._contract import (CALLBACK, CONVERGED, EARLY_STOP, MAX_ITER, SOLVER_STATUS, IntermediateResult,
                               RuleFired, is_converged, lazy, run_callback, status_message)
from toolkit.early_stopping import EarlyStopping, StabilityCheck, StopEvent, ValidationCheck
from toolkit.graphs import laplacian
from toolkit.specs import Kernel, LocalSearch, Solver


def _data(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=n) > 0, 1, -1)
    lab = np.r_[np.flatnonzero(y > 0)[:4], np.flatnonzero(y < 0)[:4]]
    unl = np.setdiff1d(np.arange(n), lab)
    return X, y, lab, unl


X, Y, LAB, UNL = _data()
XL, YL, XU = X[LAB], Y[LAB], X[UNL]
K40 = kernel_matrix(X[:40], kernel="rbf", sigma=1.0)
Y40 = Y[:40].astype(float)

# name -> (call with keyword arguments, keywords that make it stop at max_iter)
SOLVERS = {
    "s2rlsc": (lambda **kw: s2rlsc(XL, YL, XU, rng=0, **{"search": LocalSearch(restarts=2), **kw}),
               dict(init="random", search=LocalSearch(restarts=2, max_iter=1))),
    "mmc": (lambda **kw: mmc(X, rng=0, **{"search": LocalSearch(restarts=2), **kw}),
            dict(search=LocalSearch(restarts=2, max_iter=1))),
    "lapsvm": (lambda **kw: lapsvm(XL, YL, XU, kernel=Kernel("rbf", sigma=1.0), gamma_A=1e-2, gamma_I=1.0,
                                   **{"solver": Solver(method="pcg", stop=None), **kw}),
               dict(solver=Solver(method="pcg", stop=None, max_iter=2, tol=1e-15))),
    "laprlsc": (lambda **kw: laprlsc(XL, YL, XU, kernel=Kernel("rbf", sigma=1.0), gamma_A=1e-2, gamma_I=1.0,
                                     **{"solver": "pcg", **kw}),
                dict(solver=Solver(method="pcg", stop=None, max_iter=1, tol=1e-15))),
    "svm_path": (lambda **kw: svm_path(K40, Y40, **kw), dict(max_iter=2)),
    "laplacian_svm_path": (lambda **kw: laplacian_svm_path(XL, YL.astype(float), XU, kernel=Kernel("rbf", sigma=1.0),
                                                           **kw),
                           dict(max_iter=2)),
}


# ----------------------------------------------------------------------------- the one module
def test_one_convergence_warning_class_everywhere():
    root = pathlib.Path(toolkit.__file__).parent
    found = [p for p in root.rglob("*.py")
             for _ in re.finditer(r"^class ConvergenceWarning\b", p.read_text(encoding="utf-8"), re.M)]
    assert len(found) == 1 and found[0].name == "_contract.py"
    assert issubclass(toolkit.ConvergenceWarning, UserWarning)
    assert toolkit.ConvergenceWarning is toolkit.rls.ConvergenceWarning is toolkit.manifold.ConvergenceWarning
    assert toolkit.SOLVER_STATUS is SOLVER_STATUS and toolkit.IntermediateResult is IntermediateResult


def test_status_table_has_one_meaning_per_code():
    assert (CONVERGED, EARLY_STOP, MAX_ITER, CALLBACK) == (0, 1, 2, 3)
    assert len({info.name for info in SOLVER_STATUS.values()}) == len(SOLVER_STATUS)
    assert all(code == info.code for code, info in SOLVER_STATUS.items())
    assert [c for c in SOLVER_STATUS if is_converged(c)] == [0, 1, 5, 6]
    assert status_message(MAX_ITER, "max_iter=3").endswith("max_iter=3.")


def test_intermediate_result_is_read_only_lazy_mapping():
    calls = []
    r = IntermediateResult(4, np.zeros(2), 1.5, extra=lazy(lambda: calls.append(1) or 7.0), name="x")
    assert r.iteration == r.n_iter == 4 and r["objective"] == 1.5 and set(r) >= {"n_iter", "x", "objective"}
    assert "computed on access" in repr(r) and calls == []
    assert r.extra == 7.0 and r["extra"] == 7.0 and calls == [1]
    with pytest.raises(AttributeError, match="read-only"):
        r.x = 1
    with pytest.raises(AttributeError, match="no field 'missing'"):
        r.missing


def test_run_callback_translates_stop_iteration():
    report = IntermediateResult(3, None)
    assert run_callback(None, report, "iteration 3") is None
    assert run_callback(lambda r: None, report, "iteration 3") is None

    def plain(r):
        raise StopIteration

    stop = run_callback(plain, report, "iteration 3")
    assert stop.status == CALLBACK and stop.event is None and stop.detail == "at iteration 3"
    event = StopEvent("validation", 3, 0.2, 0.1)

    def rule(r):
        raise RuleFired(event)

    stop = run_callback(rule, report, "iteration 3")
    assert stop.status == EARLY_STOP and stop.event is event and "validation rule" in stop.detail
    with pytest.raises(ZeroDivisionError):                  # anything else propagates
        run_callback(lambda r: 1 / 0, report, "iteration 3")


# ----------------------------------------------------------------------------- the six solvers
@pytest.mark.parametrize("name", list(SOLVERS))
def test_callback_gets_one_intermediate_result_and_stop_iteration_gives_status_3(name):
    call, _ = SOLVERS[name]
    seen = []

    def cb(*args, **kwargs):
        seen.append((args, kwargs))
        if len(seen) == 2:
            raise StopIteration

    res = call(callback=cb)
    assert len(seen) == 2 and all(len(a) == 1 and not kw for a, kw in seen)
    first, second = seen[0][0][0], seen[1][0][0]
    assert isinstance(first, IntermediateResult) and {"n_iter", "x", "objective"} <= set(first)
    assert second.n_iter > first.n_iter
    assert res.status == CALLBACK and not res.converged and "callback" in res.message
    assert res.stop is None


@pytest.mark.parametrize("name", list(SOLVERS))
def test_max_iter_gives_status_2_and_the_convergence_warning(name):
    call, short = SOLVERS[name]
    with pytest.warns(toolkit.ConvergenceWarning, match="max_iter") as record:
        res = call(**short)
    assert res.status == MAX_ITER and not res.converged and "max_iter" in res.message
    text = str(record[0].message)
    limit = short["max_iter"] if "max_iter" in short else (short.get("search") or short.get("solver")).max_iter
    assert str(limit) in text and "Increase max_iter" in text        # numbers and a remedy


@pytest.mark.parametrize("name", list(SOLVERS))
def test_a_normal_run_converges_with_status_0_and_a_complete_history(name):
    call, _ = SOLVERS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error", toolkit.ConvergenceWarning)
        res = call()
    assert res.status == CONVERGED and res.converged and res.message.startswith("Converged")
    assert res.fallbacks == () and res.stop is None
    h = res.history
    if name in ("s2rlsc", "mmc"):
        best = res.restarts[res.best_restart]
        assert len(h["objective"]) == best.n_iter + 1
        np.testing.assert_allclose(h["restart_objective"], res.restart_objectives)
        assert h["restart_converged"].all() and len(h["best_objective"]) == len(res.restarts)
    elif name in ("lapsvm", "laprlsc"):
        assert len(h["objective"]) == res.n_iter + 1 and len(h["grad_norm"]) == res.n_iter + 1
        assert h["objective"][-1] == pytest.approx(res.objective, rel=1e-8)
    else:
        np.testing.assert_array_equal(h["lambda"], res.breakpoints)
        assert len(h["kkt_violation"]) == len(h["event"]) == len(res.breakpoints)


@pytest.mark.parametrize("name", list(SOLVERS))
def test_a_callback_that_returns_changes_nothing(name):
    call, _ = SOLVERS[name]
    count = []
    plain = call()
    watched = call(callback=lambda r: count.append(r.n_iter))
    assert count == sorted(count) and len(count) >= 1
    assert watched.status == plain.status == CONVERGED
    if name in ("svm_path", "laplacian_svm_path"):
        np.testing.assert_allclose(watched.breakpoints, plain.breakpoints, rtol=1e-9)
        np.testing.assert_allclose(watched.alphas, plain.alphas, atol=1e-8)
        assert count == list(range(len(count))) and count[-1] < watched.n_iter
    elif name in ("lapsvm", "laprlsc"):
        np.testing.assert_allclose(watched.alpha, plain.alpha, rtol=1e-12, atol=1e-14)
        assert count == list(range(1, watched.n_iter + 1))
    else:
        assert watched.objective == plain.objective and count == [1, 2]


# ----------------------------------------------------------------------------- what the reports hold
def test_path_report_holds_the_solution_at_the_breakpoint():
    reports = []
    path = svm_path(K40, Y40, callback=reports.append)
    for r in reports[::5]:
        alpha, alpha0 = path.coef(r.lam)
        np.testing.assert_allclose(r.x, alpha, atol=1e-8)
        f = (K40 @ (Y40 * alpha) + alpha0) / r.lam                 # primal objective from scratch
        primal = np.maximum(1 - Y40 * f, 0).sum() + 0.5 * (Y40 * alpha) @ K40 @ (Y40 * alpha) / r.lam
        assert r.objective == pytest.approx(primal, rel=1e-8, abs=1e-10)
        np.testing.assert_allclose(r.decision_function(K40[:5]), f[:5], rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(r.margins, Y40 * f, rtol=1e-8, atol=1e-10)


def test_laplacian_path_report_decides_on_raw_points():
    reports = []
    path = laplacian_svm_path(XL, YL.astype(float), XU, kernel=Kernel("rbf", sigma=1.0), callback=reports.append)
    r = reports[len(reports) // 2]
    np.testing.assert_allclose(r.decision_function(X[:7]), path.decision_function(X[:7], r.lam),
                               rtol=1e-8, atol=1e-10)
    beta, beta0 = path.expansion(r.lam)
    np.testing.assert_allclose(r.beta, beta, rtol=1e-8, atol=1e-10)
    assert r.beta0 == pytest.approx(beta0, rel=1e-8, abs=1e-12)


def test_pcg_report_matches_the_history():
    reports = []
    res = lapsvm(XL, YL, XU, kernel=Kernel("rbf", sigma=1.0), solver=Solver(method="pcg", stop=None), gamma_A=1e-2,
                 gamma_I=1.0, callback=reports.append)
    assert len(reports) == res.n_iter
    np.testing.assert_allclose([r.objective for r in reports], res.history["objective"][1:], rtol=1e-12)
    np.testing.assert_allclose([r.grad_norm for r in reports], res.history["grad_norm"][1:], rtol=1e-12)
    last = reports[-1]
    np.testing.assert_allclose(last.alpha, res.alpha, rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(last.decisions, np.where(res.decision_function(XU) >= 0, 1, -1))


# ----------------------------------------------------------------------------- Newton's history
def test_newton_history_has_one_objective_per_step():
    res = lapsvm(XL, YL, XU, kernel=Kernel("rbf", sigma=1.0), solver="newton", gamma_A=1e-2, gamma_I=1.0)
    h = res.history
    assert res.status == CONVERGED and len(h["objective"]) == res.n_iter + 1 >= 2
    assert np.all(np.diff(h["objective"]) <= 1e-12 * h["objective"][0])        # exact line search: descent
    assert h["objective"][-1] == pytest.approx(res.objective, rel=1e-10)
    assert np.isnan(h["step"][0]) and np.all(h["step"][1:] > 0) and not h["lstsq"].any()
    # one-vs-all: one column start per class, steps counted over all columns for the callback
    y3 = np.r_[YL, 2, 2]
    X3 = np.vstack([XL, XU[:2] + 4.0])
    steps = []
    res3 = lapsvm(X3, y3, XU[2:], kernel=Kernel("rbf", sigma=1.0), solver="newton", gamma_A=1e-2, gamma_I=1.0,
                  callback=lambda r: steps.append((r.n_iter, r.column)))
    assert [c for _, c in steps] == sorted(c for _, c in steps)
    assert [n for n, _ in steps] == list(range(1, len(steps) + 1)) == list(range(1, res3.history["newton_steps"].sum() + 1))
    assert len(res3.history["objective"]) == len(steps) + 3 and set(res3.history["column"]) == {0, 1, 2}


# ----------------------------------------------------------------------------- fallbacks, never silent
def test_singular_systems_are_solved_by_least_squares_and_recorded():
    # K = 0 and γ_A = 0: the matrices of eq. (11) and eq. (14) are singular, LU breaks down
    zero = np.zeros((60, 60))
    graph = laplacian(np.vstack([XL, XU]))          # the graph of the points; the kernel is all zeros
    with pytest.warns(toolkit.DegenerateFitWarning, match="predicts one class"):    # f = b: K = 0 cannot separate
        direct = laprlsc(zero[:len(XL)], YL, zero[len(XL):], kernel="precomputed", gamma_A=0.0, graph=graph)
    assert len(direct.fallbacks) == 1 and "least squares" in direct.fallbacks[0] and "eq. (14)" in direct.fallbacks[0]
    assert direct.history["lstsq"][-1] and "least squares" in direct.message
    assert "fallback" in direct.summary()
    with pytest.warns(toolkit.DegenerateFitWarning, match="predicts one class"):
        newton = lapsvm(zero[:len(XL)], YL, zero[len(XL):], kernel="precomputed", graph=graph, solver="newton",
                        gamma_A=0.0)
    assert newton.fallbacks and newton.history["lstsq"][1:].all() and "Newton step 1" in newton.fallbacks[0]
    regular = lapsvm(XL, YL, XU, solver="newton", gamma_A=1e-2, gamma_I=1.0)
    assert regular.fallbacks == () and not regular.history["lstsq"].any()


def test_singular_elbow_steps_are_recorded_as_fallbacks():
    Xd = np.vstack([X[:30], X[:10]])
    yd = np.r_[Y[:30], Y[:10]].astype(float)
    Kd = kernel_matrix(Xd, kernel="rbf", sigma=1.0)
    path = svm_path(Kd, yd)
    assert path.n_singular_steps > 0 and len(path.fallbacks) == 1
    assert f"{path.n_singular_steps} singular elbow system" in path.fallbacks[0]
    assert "ridge step" in path.fallbacks[0] and "fallback" in path.summary()


# ----------------------------------------------------------------------------- lapsvm_dual and SVC
def test_lapsvm_dual_reports_libsvm_stopping_at_max_iter():
    with pytest.warns(toolkit.ConvergenceWarning, match="max_iter=1") as record:
        res = lapsvm_dual(XL, YL, XU, kernel=Kernel("rbf", sigma=1.0), gamma_A=1e-2, max_iter=1)
    assert res.status == MAX_ITER and not res.converged and "libsvm" in res.message
    # scikit-learn's own ConvergenceWarning is folded into the toolkit's, not passed on twice
    from sklearn.exceptions import ConvergenceWarning as SklearnConvergenceWarning
    assert not any(issubclass(w.category, SklearnConvergenceWarning) for w in record)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ok = lapsvm_dual(XL, YL, XU, kernel=Kernel("rbf", sigma=1.0), gamma_A=1e-2)
    assert ok.status == CONVERGED and ok.converged and len(ok.history["objective"]) == 2
    assert ok.history["objective"][-1] == pytest.approx(ok.objective)


# ----------------------------------------------------------------------------- rules as callbacks
def test_stability_rule_as_callback_equals_the_stop_parameter():
    kw = dict(kernel=Kernel("rbf", sigma=1.0), gamma_A=1e-2, gamma_I=1.0)
    by_stop = lapsvm(XL, YL, XU, solver=Solver("pcg", stop="stability"), **kw)
    stopper = EarlyStopping(StabilityCheck())
    by_callback = lapsvm(XL, YL, XU, solver=Solver("pcg", stop=None), callback=stopper, **kw)
    assert by_stop.status == by_callback.status == EARLY_STOP
    assert by_callback.n_iter == by_stop.n_iter == by_callback.stop.iteration
    assert by_callback.stop.rule == "stability" and "stability rule" in by_callback.message
    np.testing.assert_array_equal(by_callback.alpha, by_stop.alpha)
    assert stopper.history["stop"][-1] and stopper.event == by_callback.stop


def test_rule_callback_restarts_with_each_run():
    stopper = EarlyStopping(StabilityCheck(period=1))
    first = s2rlsc(XL, YL, XU, search=LocalSearch(restarts=10), rng=0, callback=stopper)
    checks = len(stopper.history["iteration"])
    second = s2rlsc(XL, YL, XU, search=LocalSearch(restarts=10), rng=0, callback=stopper)
    assert len(stopper.history["iteration"]) == checks and first.stop == second.stop
    assert first.status == EARLY_STOP and len(first.restarts) == first.stop.iteration


def test_validation_rule_can_stop_a_restart_loop_of_s2rlsc():
    rng = np.random.default_rng(5)
    Xa = rng.normal(size=(140, 4))
    ya = np.where(Xa[:, 0] + 0.8 * rng.normal(size=140) > 0, 1, -1)
    lab = np.r_[np.flatnonzero(ya > 0)[:3], np.flatnonzero(ya < 0)[:3]]
    val = np.setdiff1d(np.arange(100, 140), lab)
    unl = np.setdiff1d(np.arange(100), lab)
    kw = dict(kernel=Kernel("rbf", sigma=2.0), lam=0.5, init="random")

    def error(r):
        return float(np.mean(np.where(r.decision_function(Xa[val]) >= 0, 1, -1) != ya[val]))

    stopper = EarlyStopping(ValidationCheck(), n_validation=len(val), validation_error=error)
    res = s2rlsc(Xa[lab], ya[lab], Xa[unl], search=LocalSearch(restarts=20), rng=3, callback=stopper, **kw)
    k = len(res.restarts)
    assert res.status == EARLY_STOP and res.stop.rule == "validation" and k == res.stop.iteration < 20
    # independent check: the fits with 1..k restarts (same seed: the same restarts), their errors
    errs = [np.mean(s2rlsc(Xa[lab], ya[lab], Xa[unl], search=LocalSearch(restarts=j), rng=3, **kw).predict(Xa[val]) != ya[val])
            for j in range(1, k + 1)]
    best = 1.0
    for e in errs[:-1]:                                       # improved by one example at every check
        assert e <= best - 1 / len(val) + 1e-12
        best = e
    assert errs[-1] > best - 1 / len(val)                     # and not at the last one
    same = s2rlsc(Xa[lab], ya[lab], Xa[unl], search=LocalSearch(restarts=k), rng=3, **kw)
    np.testing.assert_array_equal(res.labels_unlabeled, same.labels_unlabeled)


@pytest.mark.parametrize("laplacian", [False, True])
def test_validation_rule_stops_a_path_when_the_validation_error_stops_improving(laplacian):
    rng = np.random.default_rng(11)
    Xa = rng.normal(size=(160, 2))
    ya = np.where(Xa[:, 0] + Xa[:, 1] ** 2 - 1 + 0.6 * rng.normal(size=160) > 0, 1.0, -1.0)
    tr, va = np.arange(60), np.arange(60, 160)
    if laplacian:
        def run(**kw):
            return laplacian_svm_path(Xa[tr], ya[tr], Xa[va[:40]], kernel=Kernel("rbf", sigma=0.5), gamma_ratio=0.5,
                                      **kw)

        def decide(path, lam):
            return path.decision_function(Xa[va], lam)

        def error(r):
            return float(np.mean(np.where(r.decision_function(Xa[va]) >= 0, 1.0, -1.0) != ya[va]))
    else:
        Kt = kernel_matrix(Xa[tr], kernel="rbf", sigma=0.5)
        Kv = kernel_matrix(Xa[va], Xa[tr], kernel="rbf", sigma=0.5)

        def run(**kw):
            return svm_path(Kt, ya[tr], **kw)

        def decide(path, lam):
            return path.decision_function(Kv, lam)

        def error(r):
            return float(np.mean(np.where(r.decision_function(Kv) >= 0, 1.0, -1.0) != ya[va]))

    full = run()
    stopper = EarlyStopping(ValidationCheck(eta=0.0), validation_error=error)
    stopped = run(callback=stopper)
    assert stopped.status == EARLY_STOP and stopped.stop.rule == "validation" and stopped.converged
    assert stopped.breakpoints.size < full.breakpoints.size
    # independent check on the complete path: the validation error at its breakpoints (distinct λ)
    errs = [np.mean(np.where(decide(full, lam) >= 0, 1.0, -1.0) != ya[va]) for lam in full.breakpoints]
    k = next(j for j in range(1, len(errs)) if errs[j] > errs[j - 1])
    assert stopped.breakpoints[-1] == pytest.approx(full.breakpoints[k], rel=1e-8)
    np.testing.assert_allclose(stopped.breakpoints, full.breakpoints[:k + 1], rtol=1e-8)
    assert stopped.stop.value == pytest.approx(errs[k]) and stopped.stop.threshold == pytest.approx(errs[k - 1])
    with pytest.raises(ValueError, match="status 1"):
        stopped.coef(full.breakpoints[k] / 2)


def test_results_pickle_and_stay_read_only():
    """Frozen results travel (pickle, Dask workers, estimators); their dict fields refuse assignment."""
    import pickle

    import toolkit
    from toolkit._contract import ReadOnlyDict

    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    for result in (toolkit.lapsvm(X[:8], y[:8], X[8:], kernel=Kernel("rbf", sigma=1.0)), toolkit.s2rlsc(X[:8], y[:8], X[8:], rng=0),
                   toolkit.mmc(X, rng=0)):
        again = pickle.loads(pickle.dumps(result))
        assert isinstance(again.history, ReadOnlyDict)
        assert list(again.history) == list(result.history)
        np.testing.assert_array_equal(again.decision_function(X), result.decision_function(X))
        with pytest.raises(TypeError, match="does not support item assignment"):
            again.history["objective"] = None
