"""Low-rank LapSVM / LapRLSC (``n_basis``): eq. (7) restricted to a reduced expansion.

References are independent of the production code: the restricted objective written out densely
with scipy's kNN-free Laplacian (:func:`toolkit.manifold._reference.knn_laplacian`) and minimised
by L-BFGS-B in the raw coordinates ``(w, b)``; and the exact solver when every training point is a
basis point.
"""
from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pytest
from scipy import optimize

from toolkit import ConvergenceWarning, laprlsc, lapsvm
from toolkit.early_stopping import ValidationCheck
from toolkit.estimators import LapSVM
from toolkit.graphs import graph_laplacian, knn_graph
from toolkit.kernels import kernel_matrix
from toolkit.manifold._reference import knn_laplacian
from toolkit.manifold._solvers import SWITCH_ITERATIONS
from toolkit.specs import Graph, Kernel, LowRank, Solver


def _moons(n, seed=0, noise=0.1):
    rng = np.random.default_rng(seed)
    t = rng.uniform(0, np.pi, n)
    upper = rng.random(n) < 0.5
    X = np.where(upper[:, None], np.c_[np.cos(t), np.sin(t)], np.c_[1 - np.cos(t), 0.5 - np.sin(t)])
    X = X + noise * rng.normal(size=(n, 2))
    y = np.where(upper, 1.0, -1.0)
    labeled = np.r_[np.flatnonzero(y > 0)[:3], np.flatnonzero(y < 0)[:3]]
    rest = np.setdiff1d(np.arange(n), labeled)
    return X[labeled], y[labeled], X[rest], y[rest]


def _restricted_objective(theta, Kxz, Kzz, L, y, gA, gI, scale, hinge):
    """½ (Σ ℓ(1 − y_i s_i h_i) + γ_A wᵀ K_ZZ w + γ_I (S h)ᵀ L (S h)),  h = K_XZ w + b (written out)."""
    b, w = theta[0], theta[1:]
    h = Kxz @ w + b
    f = scale * h
    m = 1 - y * f[:len(y)]
    m = np.maximum(m, 0) if hinge else m
    return 0.5 * (m @ m + gA * w @ Kzz @ w + gI * f @ L @ f)


def _lbfgs(Kxz, Kzz, L, y, gA, gI, scale, hinge):
    def fun(theta):
        return _restricted_objective(theta, Kxz, Kzz, L, y, gA, gI, scale, hinge)

    def grad(theta):
        b, w = theta[0], theta[1:]
        f = scale * (Kxz @ w + b)
        m = 1 - y * f[:len(y)]
        r = np.zeros(len(f))
        r[:len(y)] = -(np.maximum(m, 0) if hinge else m) * y
        g_f = scale * (r + gI * (L @ f))
        return np.r_[g_f.sum(), Kxz.T @ g_f + gA * (Kzz @ w)]

    best = optimize.minimize(fun, np.zeros(Kxz.shape[1] + 1), jac=grad, method="L-BFGS-B",
                             options={"maxiter": 20000, "ftol": 1e-15, "gtol": 1e-12})
    return best.fun


@pytest.mark.parametrize("hinge", [True, False])
@pytest.mark.parametrize("normalized", [False, True])
@pytest.mark.parametrize("method", ["newton", "pcg"])
def test_reduced_solution_minimises_the_restricted_objective(hinge, normalized, method):
    Xl, yl, Xu, _ = _moons(80)
    # the reference's graph: binary 5-NN weights (knn_graph), L^1 (knn_laplacian below)
    kw = dict(kernel=Kernel("rbf", sigma=0.5), gamma_A=1e-2, gamma_I=0.5,
              graph=Graph(n_neighbors=5, weight="binary", power=1, normalized=normalized), low_rank=25, rng=3)
    solver = lapsvm if hinge else laprlsc
    method = method if hinge or method == "pcg" else "direct"
    fit = solver(Xl, yl, Xu, solver=Solver(method, stop=None, tol=1e-10), **kw)
    X = np.r_[Xl, Xu]
    Z = fit.X_train
    Kxz, Kzz = kernel_matrix(X, Z, kernel="rbf", sigma=0.5), kernel_matrix(Z, kernel="rbf", sigma=0.5)
    W = knn_graph(X, n_neighbors=5)
    L = knn_laplacian(X, 5, normalized, 1)
    degrees = np.asarray(W.sum(axis=1)).ravel()
    scale = np.sqrt(degrees / degrees.mean()) if normalized else np.ones(len(X))
    ours = _restricted_objective(np.r_[fit.b, fit.alpha], Kxz, Kzz, L, yl, 0.01, 0.5, scale, hinge)
    reference = _lbfgs(Kxz, Kzz, L, yl, 0.01, 0.5, scale, hinge)
    assert ours == pytest.approx(fit.objective, rel=1e-8)          # the reported objective is this one
    assert ours <= reference + 1e-7 * abs(reference)                # and it is the minimum
    assert ours == pytest.approx(reference, rel=1e-6)
    # every labelled point is a basis point
    np.testing.assert_array_equal(Z[:6], Xl)


def test_every_point_a_basis_point_is_the_exact_model():
    Xl, yl, Xu, _ = _moons(60)
    kw = dict(kernel=Kernel("rbf", sigma=0.5), gamma_A=1e-2, gamma_I=0.5, graph=Graph(n_neighbors=5, normalized=False),
              solver="newton")
    exact = lapsvm(Xl, yl, Xu, **kw)
    reduced = lapsvm(Xl, yl, Xu, low_rank=60, rng=0, **kw)
    X = np.r_[Xl, Xu]
    assert reduced.objective == pytest.approx(exact.objective, rel=1e-7)
    np.testing.assert_allclose(reduced.decision_function(X), exact.decision_function(X), atol=1e-5)


def test_large_n_keeps_the_exact_models_accuracy():
    """Two moons, 6 labels, n = 20 000 unlabelled: the degree-normalised reduced model stays accurate."""
    Xl, yl, Xu, yu = _moons(20_006, noise=0.08)
    kw = dict(kernel=Kernel("rbf", sigma=0.3), gamma_A=1e-6, gamma_I=1.0, graph=Graph(n_neighbors=20, weight="heat"),
              low_rank=200, rng=0)
    fit = lapsvm(Xl, yl, Xu, **kw)
    assert np.mean(fit.predict(Xu) != yu) < 0.01
    assert fit.X_train.shape == (200, 2) and fit.params["n_basis"] == 200
    assert fit.converged and fit.n_iter < 50


def test_basis_choices_are_seeded():
    Xl, yl, Xu, _ = _moons(300)
    for basis in ("uniform", "kmeans++"):
        a = lapsvm(Xl, yl, Xu, kernel=Kernel("rbf", sigma=0.5), low_rank=LowRank(40, basis=basis), rng=7)
        b = lapsvm(Xl, yl, Xu, kernel=Kernel("rbf", sigma=0.5), low_rank=LowRank(40, basis=basis), rng=7)
        c = lapsvm(Xl, yl, Xu, kernel=Kernel("rbf", sigma=0.5), low_rank=LowRank(40, basis=basis), rng=8)
        np.testing.assert_array_equal(a.X_train, b.X_train)
        assert not np.array_equal(a.X_train, c.X_train)
        assert a.params["basis"] == basis


def test_the_stopping_rules_work_unchanged():
    Xl, yl, Xu, yu = _moons(2000)
    fit = lapsvm(Xl, yl, Xu, kernel=Kernel("rbf", sigma=0.3), graph=Graph(n_neighbors=10),
                 solver=Solver(stop=ValidationCheck(period=1), tol=0.0, max_iter=200), low_rank=100, gamma_I=1.0,
                 rng=0, validation=(Xu[:100], yu[:100]), y_unlabeled=yu)
    assert fit.status in (0, 1)
    checked = fit.history["check_iteration"]
    assert len(checked) >= 1 and checked.tolist() == list(range(1, len(checked) + 1))
    # the errors the rule saw are those of the iterate's decisions on V and U
    assert np.all(np.isfinite(fit.history["check_error_V"])) and np.all(np.isfinite(fit.history["check_error_U"]))
    if fit.status == 1:
        assert fit.stop.rule == "validation" and fit.stop.iteration == checked[-1]


def test_the_estimator_passes_n_basis_on():
    Xl, yl, Xu, yu = _moons(500)
    X = np.r_[Xl, Xu]
    y = np.r_[yl, np.zeros(len(Xu))]
    est = LapSVM(sigma=0.3, gamma_I=1.0, n_basis=50, random_state=0, unlabeled=0).fit(X, y)
    direct = lapsvm(Xl, yl, Xu, kernel=Kernel("rbf", sigma=0.3), low_rank=50, gamma_I=1.0, rng=0)
    np.testing.assert_allclose(est.decision_function(X), direct.decision_function(X), rtol=1e-10, atol=1e-12)


def test_bad_low_rank_input_names_itself():
    Xl, yl, Xu, _ = _moons(50)
    with pytest.raises(ValueError, match=r"'n_basis' parameter of lapsvm must be an int in \[1, 50\]"):
        lapsvm(Xl, yl, Xu, low_rank=51)
    with pytest.raises(ValueError, match=r"'n_basis' parameter of LowRank must be an int in \[1, inf\)"):
        lapsvm(Xl, yl, Xu, low_rank=0)
    with pytest.raises(ValueError, match=r"'basis' parameter of LowRank must be one of"):
        lapsvm(Xl, yl, Xu, low_rank=LowRank(10, basis="leverage"))
    with pytest.raises(ValueError, match=r"'x0' parameter of lapsvm is not supported with n_basis"):
        lapsvm(Xl, yl, Xu, low_rank=10, x0=(np.zeros(50), 0.0))
    K = kernel_matrix(np.r_[Xl, Xu], kernel="rbf", sigma=1.0)
    with pytest.raises(ValueError, match=r"'n_basis' parameter of lapsvm needs points"):
        lapsvm(K[:6], yl, K[6:], kernel="precomputed", low_rank=10)


# ------------------------------------------------------------------ the two-level preconditioner

def test_two_level_pcg_reaches_newtons_optimum():
    """The preconditioner changes the path, never the minimiser of eq. (7)."""
    Xl, yl, Xu, _ = _moons(400)
    kw = dict(kernel=Kernel("rbf", sigma=0.4), gamma_A=1e-3, gamma_I=1.0, graph=Graph(n_neighbors=8))
    newton = lapsvm(Xl, yl, Xu, solver="newton", **kw)
    for n_coarse in (20, 100):
        pcg = lapsvm(Xl, yl, Xu,
                     solver=Solver(method="pcg", stop=None, tol=1e-10, preconditioner="two-level", n_coarse=n_coarse),
                     rng=0, **kw)
        assert pcg.converged and pcg.status == 0
        assert pcg.objective == pytest.approx(newton.objective, rel=1e-8)
        X = np.r_[Xl, Xu]
        np.testing.assert_allclose(pcg.decision_function(X), newton.decision_function(X), atol=1e-4)
        assert np.all(np.diff(pcg.history["objective"]) <= 1e-12 * abs(pcg.history["objective"][0]))


def test_two_level_iterations_do_not_grow_with_n():
    """Iterations to a 1e-3 relative gradient: flat in n with the default coarse space (4 √n centres),
    many more without it (measured: 15, 7, 9, 10 at n = 500 … 4000 against 141, 71, 124, 181)."""
    counts = {}
    for n in (500, 2000):
        Xl, yl, Xu, _ = _moons(n, noise=0.08)
        kw = dict(kernel=Kernel("rbf", sigma=0.3), gamma_A=1e-6, gamma_I=1.0, graph=Graph(n_neighbors=10, weight="heat"))
        pcg = Solver("pcg", stop=None, tol=1e-3, max_iter=5000)
        counts[n] = (lapsvm(Xl, yl, Xu, solver=dataclasses.replace(pcg, preconditioner="two-level"), **kw).n_iter,
                     lapsvm(Xl, yl, Xu, solver=dataclasses.replace(pcg, preconditioner="kernel"), **kw).n_iter)
    (small_two, small_kernel), (large_two, large_kernel) = counts[500], counts[2000]
    assert large_two <= 1.5 * small_two + 5, counts
    assert large_two * 3 < large_kernel, counts


def test_default_fit_is_deterministic_and_records_its_preconditioner():
    Xl, yl, Xu, _ = _moons(300)
    a, b = lapsvm(Xl, yl, Xu, kernel=Kernel("rbf", sigma=0.4)), lapsvm(Xl, yl, Xu, kernel=Kernel("rbf", sigma=0.4))
    np.testing.assert_array_equal(a.alpha, b.alpha)
    # "auto" below TWO_LEVEL_MIN_SAMPLES: the paper's preconditioner, recorded; n_coarse asks for the two-level one
    assert a.params["preconditioner"] == "kernel" and "n_coarse" not in a.params
    two = lapsvm(Xl, yl, Xu, kernel=Kernel("rbf", sigma=0.4), solver=Solver(n_coarse=100))
    assert two.params["preconditioner"] == "two-level" and two.params["n_coarse"] == 100
    forced = lapsvm(Xl, yl, Xu, kernel=Kernel("rbf", sigma=0.4), solver=Solver(preconditioner="two-level"))
    assert forced.params["preconditioner"] == "two-level" and forced.params["n_coarse"] == 100
    paper = lapsvm(Xl, yl, Xu, kernel=Kernel("rbf", sigma=0.4), solver=Solver(preconditioner="kernel"))
    np.testing.assert_array_equal(paper.alpha, a.alpha)
    assert paper.params["preconditioner"] == "kernel" and "n_coarse" not in paper.params
    with pytest.raises(ValueError, match=r"'preconditioner' parameter of Solver must be one of"):
        lapsvm(Xl, yl, Xu, solver=Solver(preconditioner="jacobi"))


def test_auto_preconditioner_takes_the_two_level_one_from_its_threshold():
    from toolkit.manifold._solvers import TWO_LEVEL_MIN_SAMPLES
    kw = dict(kernel=Kernel("rbf", sigma=0.4), graph=Graph(n_neighbors=10, weight="heat"), gamma_I=1.0,
              solver=Solver(max_iter=3))
    Xl, yl, Xu, _ = _moons(TWO_LEVEL_MIN_SAMPLES)            # n = l + u = the threshold: two-level
    with pytest.warns(ConvergenceWarning, match="max_iter=3"):   # three iterations suffice to see the choice
        assert lapsvm(Xl, yl, Xu, **kw).params["preconditioner"] == "two-level"
    with pytest.warns(ConvergenceWarning, match="max_iter=3"):
        assert lapsvm(Xl, yl, Xu[1:], **kw).params["preconditioner"] == "kernel"   # one point fewer


def test_two_level_preconditioner_stays_under_100_iterations_on_a_hard_setting():
    """Few neighbours and a small γ_I (issue 27): at n = 2000 the paper's preconditioner needs 572
    iterations to the stability rule, the two-level one (the default from TWO_LEVEL_MIN_SAMPLES) few."""
    from toolkit.data import load
    ds = load("moons", n=4000, rng=0)
    X, y = np.asarray(ds.X), np.where(np.asarray(ds.y) > 0, 1, -1)
    rng = np.random.default_rng(100)
    tr = rng.permutation(len(y))[:2000]
    lab = np.r_[rng.choice(tr[y[tr] > 0], 5, replace=False), rng.choice(tr[y[tr] < 0], 5, replace=False)]
    unl = np.setdiff1d(tr, lab)
    kw = dict(kernel=Kernel("rbf", sigma=0.3), gamma_A=1e-6, gamma_I=1e-2,
              graph=Graph(n_neighbors=6, power=1, weight="heat"))
    stability = Solver(stop="stability", max_iter=1000)
    two = lapsvm(X[lab], y[lab], X[unl], solver=dataclasses.replace(stability, preconditioner="two-level"), **kw)
    assert two.n_iter <= 100
    paper = lapsvm(X[lab], y[lab], X[unl], solver=dataclasses.replace(stability, preconditioner="kernel"), **kw)
    assert paper.n_iter > 300 and "preconditioner_switch" not in paper.params
    # the default: the paper's preconditioner for SWITCH_ITERATIONS, then the coarse correction added
    auto = lapsvm(X[lab], y[lab], X[unl], solver=stability, **kw)
    assert auto.params["preconditioner"] == "kernel" and auto.params["preconditioner_switch"] == SWITCH_ITERATIONS + 1
    assert SWITCH_ITERATIONS < auto.n_iter <= SWITCH_ITERATIONS + 30 and auto.params["n_coarse"] >= 100


@pytest.mark.parametrize("C, one_vs_all", [(1, "joint"), (3, "joint"), (3, "separate")])
def test_switched_preconditioner_converges_to_newtons_solution(C, one_vs_all):
    """A run that switches to the two-level preconditioner (no early stop, tol 1e-10) reaches the
    minimiser of eq. (7) that Newton's method finds: objective and decision values (independent
    reference); the paper's preconditioner alone, capped at the switch, is still far from it."""
    rng = np.random.default_rng(4)
    X = np.vstack([rng.normal(size=(150, 2)) + [2.0 * c, 0.0] for c in range(max(C, 2))])
    y = np.repeat(np.arange(max(C, 2)), 150)
    lab = np.r_[[np.flatnonzero(y == c)[:3] for c in range(max(C, 2))]].ravel()
    unl = np.setdiff1d(np.arange(len(y)), lab)
    kw = dict(kernel=Kernel("rbf", sigma=0.5), gamma_A=1e-6, gamma_I=1e-3, graph=Graph(n_neighbors=4, power=1, weight="heat"))
    newton = lapsvm(X[lab], y[lab], X[unl], solver="newton", **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        auto = lapsvm(X[lab], y[lab], X[unl], solver=Solver(method="pcg", stop=None, tol=1e-10, max_iter=3000),
                      one_vs_all=one_vs_all, **kw)
    assert auto.params["preconditioner_switch"] == SWITCH_ITERATIONS + 1 and auto.converged
    np.testing.assert_allclose(np.sum(auto.objective), np.sum(newton.objective), rtol=1e-7)
    np.testing.assert_allclose(auto.decision_function(X), newton.decision_function(X), atol=1e-4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        capped = lapsvm(X[lab], y[lab], X[unl],
                        solver=Solver(method="pcg", stop=None, tol=1e-10, max_iter=SWITCH_ITERATIONS, preconditioner="kernel"),
                        **kw)
    assert not capped.converged


@pytest.mark.parametrize("method", ["lapsvm", "laprlsc", "lapsvm_path"])
def test_selection_runs_the_low_rank_model_as_the_function_does(method):
    """select(..., fixed={"n_basis": r}) fits each grid point with the low-rank model, and its refit is
    the function's own low-rank fit with the selected parameters (the same decisions)."""
    from toolkit import data, laplacian_svm_path
    from toolkit.selection import select

    ds = data.load("moons", n=600, noise=0.1, rng=0)
    part = data.split(ds, l=20, rng=0)
    grid = {"lam": [0.1, 1.0]} if method == "lapsvm_path" else {"gamma_A": [1e-4, 1e-2], "gamma_I": [0.1, 1.0]}
    fixed = {"kernel": "rbf", "sigma": 0.3, "n_neighbors": 8, "n_basis": 60}
    if method == "lapsvm_path":
        fixed.update(gamma_ratio=1.0)
    sel = select(method, ds.X, ds.y, part, grid=grid, fixed=fixed, n_folds=3, rng=0, progress=False)
    best = {**fixed, **sel.best_params}
    Xl, yl, Xu = ds.X[part.labeled], ds.y[part.labeled], ds.X[part.unlabeled]
    test = ds.X[part.test]
    kernel = Kernel("rbf", sigma=0.3)              # fixed's kernel, graph and basis as the functions' specs
    if method == "lapsvm_path":
        ref = laplacian_svm_path(Xl, np.where(yl > 0, 1.0, -1.0), Xu, kernel=kernel, low_rank=60, gamma_ratio=1.0,
                                 graph=Graph(n_neighbors=8, weight="binary", power=1)).predict(test, best["lam"])
        ref = np.where(ref > 0, ds.y.max(), ds.y.min())
    else:
        direct = (lapsvm if method == "lapsvm" else laprlsc)(Xl, yl, Xu, kernel=kernel, graph=Graph(n_neighbors=8),
                                                             low_rank=60, gamma_A=best["gamma_A"],
                                                             gamma_I=best["gamma_I"])
        assert sel.model.X_train.shape == direct.X_train.shape == (60, 2)      # the refit is low-rank
        assert sel.model.params["degree_normalized"] and direct.params["degree_normalized"]
        ref = direct.predict(test)
    # the refit's basis is drawn with the selection's seed, the direct one evenly spaced: the same
    # model up to the basis, so nearly the same labels (two moons, 580 test points)
    assert abs(sel.test_error - 100 * np.mean(ref != ds.y[part.test])) <= 1.0


def test_fewer_basis_points_than_labels_draws_among_the_labelled_points():
    from toolkit.training import choose_basis

    X = np.arange(40.0)[:, None]
    np.testing.assert_array_equal(choose_basis(X, 10, 4, "uniform", None), [0, 3, 6, 9])   # evenly spaced
    drawn = choose_basis(X, 10, 4, "uniform", np.random.default_rng(0))
    assert len(np.unique(drawn)) == 4 and drawn.max() < 10
    Xl, yl, Xu, _ = _moons(80, seed=4)
    fit = lapsvm(Xl, yl, Xu, kernel=Kernel("rbf", sigma=0.4), low_rank=4, gamma_A=1e-2, gamma_I=1.0, rng=0)
    assert fit.X_train.shape == (4, 2) and all(any(np.array_equal(z, x) for x in Xl) for z in fit.X_train)
