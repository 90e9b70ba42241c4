"""LapSVM / LapRLSC / dual checked against independent references (Melacci & Belkin 2011)."""
import dataclasses

import numpy as np
import pytest
import scipy.sparse as sp
from scipy import optimize

from toolkit import lapsvm, laprlsc, lapsvm_dual, laplacian_svm_path
from toolkit.manifold._core import exact_line_search
from toolkit.manifold._reference import knn_laplacian, lbfgs_reference, numpy_pcg, primal_objective
from toolkit.graphs import laplacian, laplacian_operator
from toolkit.early_stopping import (GradientNorm, MixedCheck, MixedProduct, PreconditionedGradientNorm,
                                    RelativeObjectiveDecrease, StabilityCheck, ValidationCheck)
from toolkit.manifold import ConvergenceWarning
from toolkit.specs import Graph, Kernel, Solver


# ------------------------------------------------------------------------------ references
def rbf(X, Z, sigma):
    d2 = ((X[:, None, :] - Z[None, :, :]) ** 2).sum(-1)
    return np.exp(-d2 / (2 * sigma ** 2))


def moons(n, seed, noise=0.1):
    rng = np.random.default_rng(seed)
    t = rng.uniform(0, np.pi, n)
    h = n // 2
    X = np.r_[np.c_[np.cos(t[:h]), np.sin(t[:h])], np.c_[1 - np.cos(t[h:]), 0.5 - np.sin(t[h:])]]
    X += noise * rng.normal(size=X.shape)
    y = np.r_[np.ones(h), -np.ones(n - h)]
    p = rng.permutation(n)
    X, y = X[p], y[p]
    # labelled first: make sure both classes are among the first l
    i_pos, i_neg = np.flatnonzero(y > 0)[0], np.flatnonzero(y < 0)[0]
    order = np.r_[i_pos, i_neg, np.setdiff1d(np.arange(n), [i_pos, i_neg])]
    return X[order], y[order]


CASES = [  # (seed, n, l, sigma, gamma_A, gamma_I, k, normalized, degree)
    (0, 80, 6, 0.4, 1e-2, 1.0, 6, True, 1),
    (1, 70, 10, 0.5, 1e-1, 10.0, 5, False, 1),
    (2, 60, 8, 0.3, 1e-3, 0.1, 4, True, 2),
]


# ------------------------------------------------------------------------------ optimum of eq. (7)
@pytest.mark.parametrize("case", CASES)
def test_newton_pcg_and_lbfgs_agree_on_eq7(case):
    seed, n, l, sigma, gA, gI, k, normalized, degree = case
    X, y = moons(n, seed)
    K = rbf(X, X, sigma)
    L = knn_laplacian(X, k, normalized, degree)
    f_ref = lbfgs_reference(K, L, y[:l], gA, gI)
    kw = dict(kernel=Kernel("rbf", sigma=sigma), gamma_A=gA, gamma_I=gI,
              graph=Graph(n_neighbors=k, normalized=normalized, power=degree, weight="binary"))   # a binary reference
    rn = lapsvm(X[:l], y[:l], X[l:], solver="newton", **kw)
    rp = lapsvm(X[:l], y[:l], X[l:], solver=Solver(method="pcg", stop=None, tol=1e-11), **kw)
    assert rn.converged and rn.status == 0 and rp.converged and rp.status == 0
    for r in (rn, rp):
        f = primal_objective(K, L, y[:l], r.alpha, r.b, gA, gI)
        assert r.objective == pytest.approx(f, rel=1e-9)           # reported = eq. (7) at (α, b)
        assert f == pytest.approx(f_ref, rel=1e-6)
        assert f <= f_ref * (1 + 1e-9)
    np.testing.assert_allclose(rp.decision_function(X), rn.decision_function(X), atol=1e-4)


def test_newton_solution_satisfies_optimality_conditions():
    X, y = moons(80, 3)
    l, gA, gI = 8, 1e-2, 1.0
    r = lapsvm(X[:l], y[:l], X[l:], kernel=Kernel("rbf", sigma=0.4),
               graph=Graph(n_neighbors=6, weight="binary", power=1), solver="newton", gamma_A=gA, gamma_I=gI)                         # the reference graph: binary, L^1
    K, L = rbf(X, X, 0.4), knn_laplacian(X, 6, True, 1)
    f = K @ r.alpha + r.b
    g_f = gI * L @ f
    g_f[:l] -= y[:l] * np.maximum(1 - y[:l] * f[:l], 0)
    grad = np.r_[g_f.sum(), K @ g_f + gA * K @ r.alpha]              # eq. (9)
    grad0 = np.r_[-y[:l].sum(), -K[:, :l] @ y[:l]]                    # gradient at z = 0
    assert np.linalg.norm(grad) < 1e-9 * np.linalg.norm(grad0)
    assert r.n_iter <= 6                                               # Table 5: at most 5-6 steps


@pytest.mark.parametrize("case", CASES)
def test_newton_full_step_reaches_the_same_optimum_in_no_more_steps(case):
    """line_search=False (s = 1, the paper's experiments) ends at eq. (7)'s optimum (L-BFGS) like the
    exact line search, in no more Newton steps; the result records the choice."""
    seed, n, l, sigma, gA, gI, k, normalized, degree = case
    X, y = moons(n, seed)
    K, L = rbf(X, X, sigma), knn_laplacian(X, k, normalized, degree)
    kw = dict(kernel=Kernel("rbf", sigma=sigma), gamma_A=gA, gamma_I=gI,
              graph=Graph(n_neighbors=k, normalized=normalized, power=degree, weight="binary"))
    exact = lapsvm(X[:l], y[:l], X[l:], solver="newton", **kw)
    full = lapsvm(X[:l], y[:l], X[l:], solver=Solver("newton", line_search=False), **kw)
    assert full.status == 0 and full.params["line_search"] is False and exact.params["line_search"] is True
    f_ref = lbfgs_reference(K, L, y[:l], gA, gI)
    assert primal_objective(K, L, y[:l], full.alpha, full.b, gA, gI) == pytest.approx(f_ref, rel=1e-6)
    assert full.n_iter <= exact.n_iter
    assert set(full.history["step"][~np.isnan(full.history["step"])]) == {1.0}
    with pytest.raises(TypeError, match="'line_search' field of Solver must be a bool. Got 'no'"):
        lapsvm(X[:l], y[:l], X[l:], solver=Solver("newton", line_search="no"), **kw)


# ------------------------------------------------------------------------------ line search
@pytest.mark.parametrize("seed", range(25))
def test_line_search_equals_brute_force_minimisation(seed):
    rng = np.random.default_rng(seed)
    l = rng.integers(1, 15)
    m, q = rng.normal(size=l) * 2, rng.normal(size=l) * 2
    c1 = rng.uniform(0.01, 3)
    c0 = -abs(rng.normal()) - np.dot(q, np.maximum(m, 0)) * rng.uniform(0, 1)

    def phi(s):
        return 0.5 * np.sum(np.maximum(m - s * q, 0) ** 2) + c0 * s + 0.5 * c1 * s * s

    s, pieces = exact_line_search(m, q, c0, c1, True)
    grid = np.linspace(0, max(5 * s, 10), 20001)
    s0 = grid[np.argmin([phi(g) for g in grid])]
    ref = optimize.minimize_scalar(phi, bounds=(max(0, s0 - 0.01), s0 + 0.01), method="bounded",
                                   options={"xatol": 1e-13})
    assert phi(s) <= min(ref.fun, phi(s0)) + 1e-12
    assert s == pytest.approx(max(ref.x, 0), abs=1e-6)
    assert 1 <= pieces <= l + 1


def test_line_search_on_the_lapsvm_objective_along_a_direction():
    """The step from (m, q, c0, c1) minimises eq. (7) itself along z + s d."""
    rng = np.random.default_rng(7)
    X, y = moons(50, 7)
    l, gA, gI = 10, 1e-2, 1.0
    K, L = rbf(X, X, 0.5), knn_laplacian(X, 5, True, 1)
    alpha, b = 0.1 * rng.normal(size=50), 0.1
    d_a, d_b = rng.normal(size=50), rng.normal()
    f, fd = K @ alpha + b, K @ d_a + d_b
    c0 = gA * (K @ alpha) @ d_a + gI * fd @ L @ f
    c1 = gA * d_a @ K @ d_a + gI * fd @ L @ fd
    m, q = 1 - y[:l] * f[:l], y[:l] * fd[:l]
    if c0 - q @ np.maximum(m, 0) > 0:                                  # make d a descent direction
        d_a, d_b, fd, c0, q = -d_a, -d_b, -fd, -c0, -q
    s, _ = exact_line_search(m, q, c0, c1, True)
    phi = lambda t: primal_objective(K, L, y[:l], alpha + t * d_a, b + t * d_b, gA, gI)
    ref = optimize.minimize_scalar(phi, bounds=(0, 10), method="bounded", options={"xatol": 1e-12})
    assert s == pytest.approx(ref.x, rel=1e-6, abs=1e-9)
    # squared loss: closed form s* = -∇ᵀd / dᵀHd
    s2, pieces = exact_line_search(m, q, c0, c1, False)
    assert pieces == 1 and s2 == pytest.approx(-(c0 - q @ m) / (c1 + q @ q))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("columns", [1, 3, 7])
def test_symmetric_product_equals_matmul(dtype, columns):
    """PCG's product by K reads one triangle (BLAS symv, up to SYMV_MAX_COLUMNS columns; one matmul
    beyond): the same K @ A up to the summation order, for C- and Fortran-ordered K."""
    from toolkit.manifold import _core as core
    rng = np.random.default_rng(5)
    B = rng.normal(size=(50, 50))
    K64 = B @ B.T
    A = rng.normal(size=(50, columns))
    tol = 1e-13 if dtype == "float64" else 2e-6
    for K in (K64.astype(dtype), np.asfortranarray(K64.astype(dtype))):
        out = np.full((50, columns), np.nan, dtype=K.dtype)
        got = core.symmetric_product(K)(A, out)
        assert got is out and out.dtype == K.dtype
        np.testing.assert_allclose(out, K64 @ A, rtol=0, atol=tol * np.abs(K64 @ A).max())
    # only the upper triangle is read: garbage below the diagonal changes nothing
    upper = np.triu(K64) + np.tril(np.full((50, 50), np.nan), -1)
    if columns <= core.SYMV_MAX_COLUMNS:
        out = np.empty((50, columns))
        core.symmetric_product(upper)(A, out)
        np.testing.assert_allclose(out, K64 @ A, rtol=1e-13, atol=1e-13 * np.abs(K64 @ A).max())


@pytest.mark.parametrize("dtype, hinge, operator", [("float64", True, False), ("float64", False, False),
                                                    ("float64", True, True), ("float32", True, False)])
def test_pcg_iterates_equal_a_numpy_reference(dtype, hinge, operator):
    """The compiled iteration (fused loops, L f_d inside the step for a sparse L) makes the same
    iterates as Algorithm 1 written with NumPy; float32 kernels: products in float32, everything
    else (norms included) in float64."""
    from toolkit.manifold import _core as core
    X, y = moons(120, 31)
    l, gA, gI = 10, 1e-2, 1.0
    K = rbf(X, X, 0.4).astype(dtype)
    L = laplacian(X, n_neighbors=6, weight="binary")
    Y = y[:l, None]
    # round-off is amplified along the iterations on this ill-conditioned K, quickly in float32 and
    # for the squared loss (linear CG: the previous NumPy solver drifts from this reference as fast)
    iters = 60 if dtype == "float64" and hinge else 6
    # the reference forms K's products as the solver does (one triangle, symv): the summation order
    # of the product is not under test here (test_symmetric_product_equals_matmul)
    symmetric = core.symmetric_product(K)
    ref, alpha, b = numpy_pcg(K, L, Y, gA, gI, iters, hinge,
                              product=lambda A: symmetric(A, np.empty(A.shape, dtype=K.dtype)))
    Lop = laplacian_operator(L, power=1) if operator else L
    r = core.pcg(K, Lop, Y, gA, gI, hinge=hinge, tol=0.0, max_iter=iters, dtype=np.dtype(dtype).type)
    assert r.n_iter == iters
    got = np.c_[r.history["objective"], r.history["grad_norm"], r.history["pgrad_norm"],
                r.history["mixed_product"]]
    # float32: 1e-12 catches float32 sums of float32 squares (norms must be summed in float64). float64:
    # the solver and the reference call symv on differently aligned copies of the same vectors, which
    # OpenBLAS may sum in another order; linear CG on this ill-conditioned K amplifies that to 1e-11
    # within six iterations (seen with the squared loss), so 1e-9, far below any error of the iteration
    rtol = 1e-12 if dtype == "float32" else 1e-9
    np.testing.assert_allclose(got, ref, rtol=rtol, atol=rtol * 1e-3 * np.abs(ref).max())
    np.testing.assert_allclose(r.alpha, alpha, rtol=1e-7, atol=1e-9 * np.abs(alpha).max())
    assert r.b == pytest.approx(b, rel=1e-7, abs=1e-12)


# ------------------------------------------------------------------------------ LapRLSC
def test_laprlsc_direct_pcg_and_dense_solve_agree():
    X, y = moons(70, 4)
    l, gA, gI, sigma = 8, 1e-2, 1.0, 0.5
    kw = dict(kernel=Kernel("rbf", sigma=sigma), gamma_A=gA, gamma_I=gI, graph=Graph(n_neighbors=5, weight="binary"))
    rd = laprlsc(X[:l], y[:l], X[l:], solver="direct", **kw)
    rp = laprlsc(X[:l], y[:l], X[l:], solver=Solver(method="pcg", stop=None, tol=1e-12), **kw)
    # independent: the symmetric normal equations of the squared-loss objective in (b, α)
    K, L = rbf(X, X, sigma), knn_laplacian(X, 5, True, 2)
    A = np.c_[np.ones(70), K]                                          # f = A z
    J = np.zeros((70, 70)); J[np.arange(l), np.arange(l)] = 1
    R = np.zeros((71, 71)); R[1:, 1:] = K
    H = A.T @ J @ A + gA * R + gI * A.T @ L @ A
    z = np.linalg.lstsq(H, A.T @ J @ np.r_[y[:l], np.zeros(62)], rcond=None)[0]
    f_ref = primal_objective(K, L, y[:l], z[1:], z[0], gA, gI, loss="squared")
    for r in (rd, rp):
        assert r.objective == pytest.approx(f_ref, rel=1e-7)
        np.testing.assert_allclose(r.decision_function(X), A @ z, atol=1e-5)
    np.testing.assert_allclose(rp.alpha, rd.alpha, atol=1e-4 * np.abs(rd.alpha).max())


# ------------------------------------------------------------------------------ gamma_I = 0
@pytest.mark.parametrize("intercept", [True, False])
def test_gamma_I_zero_laprlsc_is_ridge_regression(intercept):
    # γ_I = 0: the exact solve works on the labelled block alone (α_u = 0 by the representer theorem)
    from sklearn.linear_model import Ridge
    rng = np.random.default_rng(8)
    X = rng.normal(size=(40, 3))
    y = np.sign(X[:, 0] + 0.3 * rng.normal(size=40))
    l, gA = 15, 0.5
    r = laprlsc(X[:l], y[:l], X[l:], kernel="linear", gamma_A=gA, gamma_I=0.0, graph=Graph(n_neighbors=3),
                intercept=intercept)
    ridge = Ridge(alpha=gA, fit_intercept=intercept).fit(X[:l], y[:l])
    np.testing.assert_allclose(r.decision_function(X), ridge.predict(X), atol=1e-8)
    assert not np.any(r.alpha[l:])


@pytest.mark.parametrize("intercept", [True, False])
def test_gamma_I_zero_lapsvm_is_squared_hinge_svm(intercept):
    # Melacci & Belkin's SVM column: the squared-hinge SVM in the primal, with or without bias; Newton
    # solves the labelled block alone, PCG the whole system
    from sklearn.svm import LinearSVC
    rng = np.random.default_rng(9)
    X = rng.normal(size=(60, 2))
    y = np.sign(X[:, 0] + X[:, 1] + 0.5 * rng.normal(size=60))
    l, gA = 30, 0.1
    kw = dict(kernel="linear", gamma_A=gA, gamma_I=0.0, graph=Graph(n_neighbors=3), intercept=intercept)
    rn = lapsvm(X[:l], y[:l], X[l:], solver="newton", **kw)
    rp = lapsvm(X[:l], y[:l], X[l:], solver=Solver(stop=None, tol=1e-8), **kw)
    assert not np.any(rn.alpha[l:])
    # liblinear: ½||w||² + C Σ max(0, 1 - y(wx+b))²  <=>  eq. (7)/γ_A with C = 1/(2γ_A);
    # a large intercept_scaling makes liblinear's regularised bias (nearly) free; the primal solver, as
    # dual="auto" picks for more rows than features (scikit-learn >= 1.5; 1.4's default dual=True, the dual
    # coordinate descent, does not converge with a bias scaled by 1e3)
    svc = LinearSVC(C=1 / (2 * gA), loss="squared_hinge", dual=False, intercept_scaling=1e3, tol=1e-12,
                    max_iter=200000, fit_intercept=intercept).fit(X[:l], y[:l])
    for r in (rn, rp):
        np.testing.assert_allclose(r.decision_function(X), svc.decision_function(X), atol=2e-3)


def test_gamma_I_zero_dual_is_the_hinge_svm():
    from sklearn.svm import SVC
    X, y = moons(60, 10)
    l, gA, sigma = 20, 0.05, 0.5
    r = lapsvm_dual(X[:l], y[:l], X[l:], kernel=Kernel("rbf", sigma=sigma), graph=Graph(n_neighbors=4), gamma_A=gA,
                    gamma_I=0.0, tol=1e-8)
    K = rbf(X, X, sigma)
    svc = SVC(C=1 / (2 * gA), kernel="precomputed", tol=1e-8).fit(K[:l, :l], y[:l])
    np.testing.assert_allclose(r.decision_function(X), svc.decision_function(K[:, :l]), atol=1e-5)


def test_dual_solves_the_hinge_primal():
    """The dual's (α, b) attains the hinge primal (eq. 4) minimum: compare with an LP-free check."""
    X, y = moons(60, 11)
    l, gA, gI, sigma = 10, 1e-2, 1.0, 0.5
    r = lapsvm_dual(X[:l], y[:l], X[l:], kernel=Kernel("rbf", sigma=sigma),
                    graph=Graph(n_neighbors=5, weight="binary", power=1), gamma_A=gA, gamma_I=gI, tol=1e-10)                     # the reference graph: binary, L^1
    K, L = rbf(X, X, sigma), knn_laplacian(X, 5, True, 1)

    def obj(a, b):
        f = K @ a + b
        return np.maximum(1 - y[:l] * f[:l], 0).sum() + gA * a @ K @ a + gI * (K @ a) @ L @ (K @ a)

    assert r.objective == pytest.approx(obj(r.alpha, r.b), rel=1e-9)
    rng = np.random.default_rng(0)
    for _ in range(20):                                                # no random perturbation improves it
        da = 1e-3 * rng.normal(size=60)
        assert obj(r.alpha + da, r.b + 1e-3 * rng.normal()) >= r.objective - 1e-9
    assert np.mean(r.predict(X[l:]) == y[l:]) > 0.9


# ------------------------------------------------------------------------------ degenerate cases
@pytest.mark.parametrize("method", ["newton", "pcg"])
def test_one_labelled_point_per_class(method):
    # the graph under test: binary 6-NN weights, L^1 (with L^2 and gamma_I = 1 two labels no longer
    # propagate along the moons: about 60-70 % of U right, a property of that model, not of the solver)
    X, y = moons(100, 12, noise=0.05)
    r = lapsvm(X[:2], y[:2], X[2:], kernel=Kernel("rbf", sigma=0.3),
               graph=Graph(n_neighbors=6, weight="binary", power=1), solver=method, gamma_A=1e-4, gamma_I=1.0)
    assert r.converged
    assert np.mean(r.predict(X[2:]) == y[2:]) > 0.9


@pytest.mark.parametrize("method", ["newton", "pcg"])
def test_disconnected_graph(method):
    rng = np.random.default_rng(13)
    X = np.r_[rng.normal(0, 0.2, (30, 2)), rng.normal(20, 0.2, (30, 2))]
    y = np.r_[np.ones(30), -np.ones(30)]
    idx = np.r_[0, 30]
    rest = np.setdiff1d(np.arange(60), idx)
    r = lapsvm(X[idx], y[idx], X[rest], kernel=Kernel("rbf", sigma=1.0), graph=Graph(n_neighbors=3, weight="binary"),
               solver=method, gamma_A=1e-2, gamma_I=1.0)
    assert r.converged and np.all(np.isfinite(r.alpha))
    assert np.all(r.predict(X[rest]) == y[rest])


@pytest.mark.parametrize("method", ["newton", "pcg"])
def test_duplicate_points(method):
    X, y = moons(40, 14)
    X2, y2 = np.r_[X, X[2:12]], np.r_[y, y[2:12]]                     # exact duplicates (singular K)
    r = lapsvm(X2[:6], y2[:6], X2[6:], kernel=Kernel("rbf", sigma=0.5),
               graph=Graph(n_neighbors=4, weight="binary", power=1),
               solver=Solver(method=method, stop=None, tol=1e-8), gamma_A=1e-2, gamma_I=1.0)    # the reference graph: binary, L^1
    assert r.converged and np.all(np.isfinite(r.alpha))
    K, L = rbf(X2, X2, 0.5), knn_laplacian(X2, 4, True, 1)
    assert r.objective == pytest.approx(primal_objective(K, L, y2[:6], r.alpha, r.b, 1e-2, 1.0), rel=1e-8)


def test_sparse_text_input_with_cosine_graph():
    rng = np.random.default_rng(15)
    n, d = 80, 200
    topic = np.r_[np.zeros(40, int), np.ones(40, int)]
    X = sp.random(n, d, density=0.03, random_state=15, format="lil")
    for i in range(n):                                                 # topic words
        X[i, rng.choice(np.arange(10) + 10 * topic[i], 4, replace=False)] = 1.0
    X = sp.csr_matrix(X)
    y = np.where(topic == 0, -1.0, 1.0)
    lab = np.r_[0, 1, 40, 41]
    rest = np.setdiff1d(np.arange(n), lab)
    kw = dict(kernel="linear", gamma_A=1e-2, gamma_I=1.0, graph=Graph(n_neighbors=5, metric="cosine"))
    rs = lapsvm(X[lab], y[lab], X[rest], **kw)
    rd = lapsvm(X[lab].toarray(), y[lab], X[rest].toarray(), **kw)
    np.testing.assert_allclose(rs.alpha, rd.alpha, atol=1e-10)
    assert np.mean(rs.predict(X[rest]) == y[rest]) > 0.9


# ------------------------------------------------------------------------------ solver contract
def test_warm_start_reuses_the_solution():
    X, y = moons(80, 16)
    kw = dict(kernel=Kernel("rbf", sigma=0.4), gamma_I=1.0, graph=Graph(n_neighbors=6))
    pcg = Solver(stop=None, tol=1e-8)
    r1 = lapsvm(X[:6], y[:6], X[6:], gamma_A=1e-2, solver=pcg, **kw)
    again = lapsvm(X[:6], y[:6], X[6:], gamma_A=1e-2, x0=r1, solver=pcg, **kw)
    assert again.n_iter <= 2 and again.objective == pytest.approx(r1.objective, rel=1e-9)
    cold = lapsvm(X[:6], y[:6], X[6:], gamma_A=2e-2, solver=pcg, **kw)
    warm = lapsvm(X[:6], y[:6], X[6:], gamma_A=2e-2, x0=(r1.alpha, r1.b), solver=pcg, **kw)
    assert warm.objective == pytest.approx(cold.objective, rel=1e-7)
    assert warm.n_iter < cold.n_iter
    rn = lapsvm(X[:6], y[:6], X[6:], gamma_A=2e-2, x0=r1, solver=Solver("newton", stop=None, tol=1e-8), **kw)
    assert rn.objective == pytest.approx(cold.objective, rel=1e-7)


def test_callback_stops_and_max_iter_warns():
    X, y = moons(60, 17)
    seen = []

    def cb(intermediate_result):
        t = intermediate_result.n_iter
        seen.append(t)
        assert intermediate_result.x.shape == (60,) and np.isfinite(intermediate_result.objective)
        if t == 3:
            raise StopIteration

    r = lapsvm(X[:4], y[:4], X[4:], kernel=Kernel("rbf", sigma=0.4), solver=Solver(stop=None), gamma_A=1e-2,
               gamma_I=1.0, callback=cb)
    assert r.status == 3 and r.n_iter == 3 and seen == [1, 2, 3] and not r.converged
    assert "iteration 3" in r.message
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        r = lapsvm(X[:4], y[:4], X[4:], kernel=Kernel("rbf", sigma=0.4), solver=Solver(stop=None, max_iter=2),
                   gamma_A=1e-2, gamma_I=1.0)
    assert r.status == 2 and not r.converged and r.n_iter == 2
    assert len(r.history["objective"]) == 3


def test_early_stopping_rules_are_recorded():
    X, y = moons(120, 18)
    Xv, yv = moons(40, 19)
    # the paper's PCG (P = diag(1, K)): it runs long enough here for every rule to fire
    kw = dict(kernel=Kernel("rbf", sigma=0.4), gamma_A=1e-2, gamma_I=1.0, graph=Graph(n_neighbors=6),
              validation=(Xv, yv), y_unlabeled=y[6:])
    rules = [StabilityCheck(), ValidationCheck(), MixedCheck(), GradientNorm(tol=1e-3),
             PreconditionedGradientNorm(tol=1e-2), MixedProduct(tol=1e-2), RelativeObjectiveDecrease(tol=1e-4)]
    for stop in rules + ["stability", "gradient"]:
        r = lapsvm(X[:6], y[:6], X[6:], solver=Solver(stop=stop, tol=1e-3 if isinstance(stop, str) else 1e-12,
                                                      preconditioner="kernel"), **kw)
        name = stop if isinstance(stop, str) else stop.name
        assert r.status == 1 and r.stop is not None and r.stop.rule == name
        assert r.stop.iteration == r.n_iter and str(r.n_iter) in r.stop_reason
        assert len(r.history["objective"]) == r.n_iter + 1
        assert np.all(np.diff(r.history["objective"]) <= 1e-12)       # exact line search: monotone
    assert np.isfinite(r.history["check_error_U"]).all() and np.isfinite(r.history["check_error_V"]).all()
    with pytest.raises(ValueError, match="validation"):
        lapsvm(X[:6], y[:6], X[6:], solver=Solver(stop="validation"))


def test_stability_check_agrees_with_newton_on_decisions():
    X, y = moons(200, 20)
    kw = dict(kernel=Kernel("rbf", sigma=0.35), gamma_A=1e-2, gamma_I=1.0, graph=Graph(n_neighbors=6))
    rn = lapsvm(X[:6], y[:6], X[6:], solver="newton", **kw)
    rp = lapsvm(X[:6], y[:6], X[6:], solver=Solver(method="pcg", stop="stability", preconditioner="kernel"), **kw)
    assert np.mean(rp.predict(X[6:]) == rn.predict(X[6:])) >= 0.95
    assert rp.n_iter % 7 == 0                                           # θ = round(√200 / 2) = 7
    two_level = lapsvm(X[:6], y[:6], X[6:], solver=Solver(method="pcg", stop="stability"), **kw)
    assert np.mean(two_level.predict(X[6:]) == rn.predict(X[6:])) >= 0.95


def test_float32_kernel_and_laplacian_operator_give_the_same_model():
    X, y = moons(100, 21)
    kw = dict(kernel=Kernel("rbf", sigma=0.4), gamma_A=1e-2, gamma_I=1.0)
    pcg = Solver(stop=None, tol=1e-8)
    graph = Graph(n_neighbors=6, weight="binary", power=3)
    r64 = lapsvm(X[:6], y[:6], X[6:], graph=graph, solver=pcg, **kw)            # binary weights: the graph of L1 below
    r32 = lapsvm(X[:6], y[:6], X[6:], solver=Solver(stop=None, tol=1e-4, dtype="float32"), graph=graph, **kw)
    assert np.mean(r32.predict(X) == r64.predict(X)) >= 0.99
    assert r32.objective == pytest.approx(r64.objective, rel=1e-3)
    L1 = laplacian(X, n_neighbors=6)
    rop = lapsvm(X[:6], y[:6], X[6:], graph=laplacian_operator(L1, power=3), solver=pcg, **kw)
    assert rop.objective == pytest.approx(r64.objective, rel=1e-7)
    K = rbf(X, X, 0.4)                                   # the same model from kernel rows
    rg = lapsvm(K[:6], y[:6], K[6:], **{**kw, "kernel": "precomputed"}, graph=laplacian_operator(L1, power=3),
                solver=pcg)
    assert rg.objective == pytest.approx(r64.objective, rel=1e-7)
    rn = lapsvm(X[:6], y[:6], X[6:], graph=laplacian_operator(L1, power=3), solver=Solver("newton", tol=1e-8), **kw)
    assert rn.objective == pytest.approx(r64.objective, rel=1e-6)


def test_labels_of_any_type_and_result_display():
    X, y = moons(60, 22)
    ys = np.where(y[:6] > 0, "pos", "neg")
    r = lapsvm(X[:6], ys, X[6:], kernel=Kernel("rbf", sigma=0.4), gamma_A=1e-2, gamma_I=1.0)
    assert set(r.predict(X)) <= {"pos", "neg"}
    assert list(r.classes) == ["neg", "pos"]
    np.testing.assert_array_equal(r.predict(X) == "pos", r.decision_function(X) > 0)
    text = r.summary()
    assert "lapsvm" in text and "gamma_I = 1" in text and "kernel" in text
    assert "LapSVMResult" in repr(r) and r._repr_html_().startswith("<table>")
    assert set(r.timings) == {"validation", "kernel", "graph", "laplacian", "compile", "solve"}
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.alpha = None                                                 # frozen


def test_loading_compiled_code_is_not_solve_time(monkeypatch):
    """The first PCG solve of a process loads numba's machine code: that goes to timings["compile"],
    once per kind of problem, never into "solve"."""
    from toolkit.manifold import _core as core
    monkeypatch.setattr(core, "_WARM", set())
    X, y = moons(60, 5)
    kw = dict(kernel=Kernel("rbf", sigma=0.5), graph=Graph(power=1), solver="pcg")   # L^1: sparse (L^2: an operator)
    first = lapsvm(X[:6], y[:6], X[6:], **kw)
    second = lapsvm(X[:6], y[:6], X[6:], **kw)
    assert first.timings["compile"] > 0 and second.timings["compile"] == 0.0
    assert ("float64", "sparse", True) in core._WARM
    np.testing.assert_array_equal(first.alpha, second.alpha)          # the warm-up changes nothing


# ------------------------------------------------------------------------------ multi-class
def blobs3(seed):
    rng = np.random.default_rng(seed)
    centers = np.array([[0, 0], [4, 0], [2, 3.5]])
    X = np.concatenate([c + 0.6 * rng.normal(size=(30, 2)) for c in centers])
    y = np.repeat([0, 1, 2], 30)
    lab = np.r_[0, 1, 30, 31, 60, 61]
    rest = np.setdiff1d(np.arange(90), lab)
    return X[lab], y[lab], X[rest], y[rest]


def test_multiclass_joint_pcg_equals_separate_binary_problems():
    Xl, yl, Xu, yu = blobs3(23)
    kw = dict(kernel=Kernel("rbf", sigma=1.0), gamma_A=1e-2, gamma_I=1.0, graph=Graph(n_neighbors=5))
    r = lapsvm(Xl, yl, Xu, solver=Solver(stop=None, tol=1e-10), **kw)
    newton = Solver("newton", stop=None, tol=1e-10)
    rn = lapsvm(Xl, yl, Xu, solver=newton, **kw)
    assert r.alpha.shape == (90, 3) and r.b.shape == (3,)
    for c in range(3):
        rb = lapsvm(Xl, np.where(yl == c, 1, -1), Xu, solver=newton, **kw)
        np.testing.assert_allclose(r.alpha[:, c], rb.alpha, atol=1e-5 * np.abs(rb.alpha).max())
        np.testing.assert_allclose(rn.alpha[:, c], rb.alpha, atol=1e-10 * np.abs(rb.alpha).max() + 1e-12)
        assert r.objective[c] == pytest.approx(rb.objective, rel=1e-8)
    assert np.mean(r.predict(Xu) == yu) > 0.95
    rs = lapsvm(Xl, yl, Xu, kernel=Kernel("rbf", sigma=1.0), graph=Graph(n_neighbors=5), gamma_A=1e-2, gamma_I=1.0)   # joint stability check
    assert rs.stop.rule == "stability" and np.mean(rs.predict(Xu) == yu) > 0.9
    rl = laprlsc(Xl, yl, Xu, kernel=Kernel("rbf", sigma=1.0), graph=Graph(n_neighbors=5), gamma_A=1e-2, gamma_I=1.0)
    rd = lapsvm_dual(Xl, yl, Xu, kernel=Kernel("rbf", sigma=1.0), graph=Graph(n_neighbors=5), gamma_A=1e-2,
                     gamma_I=1.0)
    assert np.mean(rl.predict(Xu) == yu) > 0.9 and np.mean(rd.predict(Xu) == yu) > 0.9


@pytest.mark.parametrize("stop", ["stability", "validation", "mixed"])
@pytest.mark.parametrize("solver", [lapsvm, laprlsc])
def test_separate_one_vs_all_is_each_binary_pcg_with_its_own_rule(solver, stop):
    # LapSVMp trains binary classifiers: each one-vs-all problem, with its own early-stopping rule on its
    # own sign decisions and its validation targets (the class against the rest), is the binary run
    Xl, yl, Xu, yu = blobs3(5)
    rng = np.random.default_rng(2)
    Xv = Xu[::7] + 0.3 * rng.normal(size=Xu[::7].shape)
    yv = yu[::7]
    kw = dict(kernel=Kernel("rbf", sigma=1.0), gamma_A=1e-2, gamma_I=1.0, graph=Graph(n_neighbors=5),
              solver=Solver("pcg", stop=stop, preconditioner="kernel"), validation=(Xv, yv))
    sep = solver(Xl, yl, Xu, one_vs_all="separate", y_unlabeled=yu, **kw)
    assert sep.alpha.shape == (90, 3) and sep.params["one_vs_all"] == "separate"
    counts = []
    for c in range(3):
        one = solver(Xl, np.where(yl == c, 1, -1), Xu, **{**kw, "validation": (Xv, np.where(yv == c, 1, -1))})
        np.testing.assert_array_equal(sep.alpha[:, c], one.alpha)
        assert sep.b[c] == one.b and sep.objective[c] == one.objective
        counts.append(one.n_iter)
    np.testing.assert_array_equal(sep.n_iter_per_problem, counts)
    assert sep.n_iter == max(counts) and sep.n_iter_per_problem.shape == (3,)
    h = sep.history
    assert len(h["problem"]) == len(h["objective"]) == sum(counts) + 3 and set(h["check_problem"]) <= {0, 1, 2}
    assert f"class {int(np.argmax(counts))}" in sep.message and sep.converged


def test_separate_and_joint_one_vs_all_share_the_minimiser_and_report_per_problem_iterations():
    Xl, yl, Xu, _ = blobs3(23)
    kw = dict(kernel=Kernel("rbf", sigma=1.0), gamma_A=1e-2, gamma_I=1.0, graph=Graph(n_neighbors=5))
    pcg = Solver(stop=None, tol=1e-10)
    joint = lapsvm(Xl, yl, Xu, solver=pcg, **kw)
    sep = lapsvm(Xl, yl, Xu, one_vs_all="separate", solver=pcg, **kw)
    np.testing.assert_allclose(sep.objective, joint.objective, rtol=1e-8)
    np.testing.assert_array_equal(joint.n_iter_per_problem, [joint.n_iter] * 3)   # every problem moves each iteration
    newton = lapsvm(Xl, yl, Xu, solver=Solver("newton", stop=None, tol=1e-10), **kw)
    np.testing.assert_array_equal(newton.n_iter_per_problem, newton.history["newton_steps"])
    binary = lapsvm(Xl[:4], np.where(yl[:4] == 0, 1, -1), Xu, solver=pcg, **kw)
    np.testing.assert_array_equal(binary.n_iter_per_problem, [binary.n_iter])
    with pytest.raises(ValueError, match="'one_vs_all' parameter of lapsvm can be 'separate' for the exact model"):
        lapsvm(Xl, yl, Xu, one_vs_all="separate", low_rank=20, solver=pcg, **kw)
    with pytest.raises(ValueError, match="'one_vs_all' parameter of laprlsc"):
        laprlsc(Xl, yl, Xu, one_vs_all="each")


def test_select_records_a_one_vs_all_models_iterations_per_binary_problem():
    from toolkit.selection import select

    Xl, yl, Xu, yu = blobs3(3)                      # Newton's steps per problem: 1, 2, 1
    X, y = np.vstack([Xl, Xu]), np.r_[yl, yu]
    split = {"labeled": np.arange(6), "unlabeled": np.arange(6, 60), "test": np.arange(60, 90)}
    fixed = dict(kernel="rbf", sigma=1.0, n_neighbors=5, weight="binary", laplacian_power=1, method="newton", gamma_A=1e-2,
                 gamma_I=1.0)
    sel = select("lapsvm", X, y, split, grid={}, fixed=fixed, scenario="test-set", rng=0, progress=False)
    refit = sel.results[(sel.results["fold"].astype(str) == "refit") & (sel.results["metric"] == "n_iter")]
    steps = lapsvm(Xl, yl, X[6:60], kernel=Kernel("rbf", sigma=1.0), graph=Graph(n_neighbors=5, weight="binary", power=1),
                   solver="newton", gamma_A=1e-2, gamma_I=1.0).history["newton_steps"]
    assert len(set(steps)) > 1
    assert refit["value"].iloc[0] == pytest.approx(np.mean(steps)) and sel.refit_n_iter == steps.max()


def test_select_records_line_search_iterations_per_pcg_iteration():
    """Melacci & Belkin's Table 6 "LS Iters": the linear pieces the exact line searches examine, per PCG
    iteration, over every binary problem of a one-vs-all model trained separately."""
    from toolkit.selection import select

    Xl, yl, Xu, yu = blobs3(3)
    X, y = np.vstack([Xl, Xu]), np.r_[yl, yu]
    split = {"labeled": np.arange(6), "unlabeled": np.arange(6, 60), "test": np.arange(60, 90)}
    fixed = dict(kernel="rbf", sigma=1.0, n_neighbors=5, weight="binary", laplacian_power=1, method="pcg", stop=None,
                 gamma_A=1e-2, gamma_I=1.0, one_vs_all="separate")
    sel = select("lapsvm", X, y, split, grid={}, fixed=fixed, scenario="test-set", rng=0, progress=False)
    rows = sel.results[sel.results["fold"].astype(str) == "refit"].set_index("metric")["value"]
    fit = lapsvm(Xl, yl, X[6:60], kernel=Kernel("rbf", sigma=1.0), graph=Graph(n_neighbors=5, weight="binary", power=1),
                 solver=Solver("pcg", stop=None), gamma_A=1e-2, gamma_I=1.0, one_vs_all="separate")
    assert fit.n_line_search > 0
    assert rows["line_search_per_iter"] == pytest.approx(fit.n_line_search / np.sum(fit.n_iter_per_problem))
    # Newton with full steps searches no line: no such row
    newton = select("lapsvm", X, y, split, grid={}, fixed={**fixed, "method": "newton", "line_search": False},
                    scenario="test-set", rng=0, progress=False)
    assert "line_search_per_iter" not in set(newton.results["metric"])


# ------------------------------------------------------------------------------ bad input
@pytest.mark.parametrize("change, match", [
    (dict(neighbors=60), "'neighbors' parameter of lapsvm"),
    (dict(gamma_A=-1.0), r"'gamma_A' parameter of lapsvm must be a float in \[0.0, inf\). Got -1.0"),
    (dict(gamma_I=-1.0), "'gamma_I' parameter of lapsvm"),
    (dict(gamma_A=0.0, gamma_I=0.0), "cannot both be 0"),
    (dict(sigma=0.0), "'sigma'"),
    (dict(method="cg"), "'method'"),
    (dict(stop="never"), "'stop'"),
    (dict(degree=0), "'degree'"),
    (dict(kernel="polynomial", kernel_degree=0), "'kernel_degree'"),
    (dict(kernel="sigmoid"), "'kernel'"),
    (dict(x0=(np.zeros(3), 0.0)), "'x0'"),
    (dict(callback=3), "'callback' parameter of lapsvm must be callable"),
    (dict(rng=-1), "'rng'"),
])
@pytest.mark.filterwarnings("ignore::FutureWarning")      # the previous release's keywords, still checked
def test_bad_parameters_give_clear_errors(change, match):
    X, y = moons(60, 24)
    kw = dict(sigma=0.4, gamma_A=1e-2, gamma_I=1.0)
    kw.update(change)
    with pytest.raises((ValueError, TypeError), match=match):
        lapsvm(X[:4], y[:4], X[4:], **kw)


def test_bad_data_gives_clear_errors():
    X, y = moons(60, 25)
    Xn = X.copy(); Xn[10, 0] = np.nan
    with pytest.raises(ValueError, match="finite"):
        lapsvm(Xn[:4], y[:4], Xn[4:])
    with pytest.raises(ValueError, match="'X_labeled' has 4 rows but 'y_labeled' has 5"):
        lapsvm(X[:4], y[:5], X[4:])
    with pytest.raises(ValueError, match="features"):
        lapsvm(X[:4], y[:4], np.c_[X[4:], X[4:]])
    with pytest.raises(ValueError, match="at least two classes"):
        lapsvm(X[:4], np.ones(4), X[4:])
    with pytest.raises(ValueError, match="at least two classes"):
        laprlsc(X[:4], np.ones(4), X[4:])
    with pytest.raises(ValueError, match="gamma_A"):
        lapsvm_dual(X[:4], y[:4], X[4:], gamma_A=0.0, gamma_I=1.0)
    with pytest.raises(ValueError, match="'y_labeled' parameter of lapsvm must contain only finite"):
        lapsvm(X[:4], np.r_[1.0, -1.0, np.nan, 1.0], X[4:])
    # true labels of U outside the labelled classes: refused, not clamped into a class
    y_u = np.where(np.arange(56) == 3, 7.0, np.sign(y[4:]))
    with pytest.raises(ValueError, match=r"'y_unlabeled' contains labels not in y_labeled's classes.*\[7\.0\]"):
        lapsvm(X[:4], y[:4], X[4:], kernel=Kernel("rbf", sigma=0.4), gamma_A=1e-2, gamma_I=1.0, y_unlabeled=y_u)


def test_graph_read_off_the_kernel_gives_the_same_model():
    X, y = moons(90, 26)
    kw = dict(kernel=Kernel("rbf", sigma=0.4), gamma_A=1e-2, gamma_I=1.0, solver="newton")
    a = lapsvm(X[:6], y[:6], X[6:], graph=Graph(n_neighbors=6, neighbor_search="kernel"), **kw)
    b = lapsvm(X[:6], y[:6], X[6:], graph=Graph(n_neighbors=6, neighbor_search="sklearn"), **kw)
    assert a.objective == pytest.approx(b.objective, rel=1e-10)
    assert (a.params["neighbor_search"], b.params["neighbor_search"]) == ("kernel", "sklearn")
    # the approximate search finds the same 6-NN graph on 90 points, so the same model
    c = lapsvm(X[:6], y[:6], X[6:], graph=Graph(n_neighbors=6, neighbor_search="pynndescent"), rng=1, **kw)
    assert c.params["neighbor_search"] == "pynndescent"
    assert c.objective == pytest.approx(b.objective, rel=1e-6)
    # auto on 2-d points: SciPy's k-d tree, recorded, the same graph, hence the same model
    d = lapsvm(X[:6], y[:6], X[6:], graph=Graph(n_neighbors=6), **kw)
    assert d.params["neighbor_search"] == "kdtree"
    assert d.objective == b.objective
    with pytest.raises(ValueError, match="'neighbor_search'"):
        lapsvm(X[:6], y[:6], X[6:], graph=Graph(neighbor_search="kd"))


def test_top_level_names_are_the_functions_whatever_the_import_order():
    """Importing the family modules first must not shadow the top-level functions (PEP 562 exports)."""
    import importlib
    import toolkit
    for module in ("toolkit.manifold", "toolkit.rls", "toolkit.paths"):
        importlib.import_module(module)
    from toolkit import lapsvm as top, s2rlsc as top_s2rlsc
    assert top is lapsvm and callable(top_s2rlsc) and top_s2rlsc.__module__ == "toolkit.rls"
    assert toolkit.laprlsc is laprlsc and toolkit.lapsvm_dual is lapsvm_dual


# ------------------------------------------------------------------------------ one L^p
@pytest.mark.parametrize("weight, power", [("heat", 1), ("binary", 2), ("heat", 4)])
@pytest.mark.parametrize("solver", [lapsvm, laprlsc, lapsvm_dual])
def test_the_solvers_build_the_iterated_laplacian_of_graphs(solver, weight, power):
    """lapsvm's own L^p is graphs.laplacian(..., max_density=POWER_MAX_DENSITY): the same model, bit for bit
    (heat weights at p = 1: the exactly symmetric L; p = 4 on 60 points: the matrix-free operator)."""
    from toolkit.graphs import POWER_MAX_DENSITY
    X, y = moons(60, 31)
    model = dict(kernel=Kernel("rbf", sigma=0.4), gamma_A=1e-2, gamma_I=1.0)
    L = laplacian(X, n_neighbors=5, weight=weight, power=power, max_density=POWER_MAX_DENSITY)
    assert isinstance(L, sp.linalg.LinearOperator) == (power == 4)
    own = solver(X[:6], y[:6], X[6:], graph=Graph(n_neighbors=5, weight=weight, power=power), **model)
    given = solver(X[:6], y[:6], X[6:], graph=L, **model)          # L^p as given
    assert given.params["laplacian_matrix"] == "given" and given.params["degree"] is None
    np.testing.assert_array_equal(own.alpha, given.alpha)
    np.testing.assert_array_equal(own.b, given.b)
    # the previous release's spelling: a given L (p = 1) raised by the solver to `degree`, the same model
    L1 = laplacian(X, n_neighbors=5, weight=weight)
    with pytest.warns(FutureWarning, match="iterated_laplacian"):
        raised = solver(X[:6], y[:6], X[6:], laplacian_matrix=L1, degree=power, **model)
    assert raised.params["degree"] == power
    np.testing.assert_array_equal(own.alpha, raised.alpha)
    np.testing.assert_array_equal(own.b, raised.b)


@pytest.mark.parametrize("solver", [lapsvm, laprlsc, lapsvm_dual, laplacian_svm_path])
@pytest.mark.parametrize("idle", [{"neighbors": 3}, {"weight": "distance"}, {"normalized": False},
                                  {"graph_sigma": 0.5}, {"metric": "cosine"}, {"neighbor_search": "sklearn"}])
@pytest.mark.filterwarnings("ignore::FutureWarning")      # the previous release's keywords: graph= has no idle ones
def test_graph_arguments_next_to_a_given_laplacian_are_refused_by_name(solver, idle):
    """With laplacian_matrix the graph is given: an argument that would build one is refused, never
    ignored and recorded (issue 26: degree=3 was ignored and recorded as 3)."""
    X, y = moons(40, 33)
    L = laplacian(X, n_neighbors=5)
    name, value = next(iter(idle.items()))
    with pytest.raises(ValueError, match=rf"{name}={value!r}.*cannot act when 'laplacian_matrix' is given"):
        solver(X[:6], y[:6], X[6:], sigma=0.4, laplacian_matrix=L, **idle)


@pytest.mark.parametrize("power", [1, 2, 4])
def test_select_fits_lapsvm_with_the_same_laplacian_power(power):
    """select('lapsvm') refits exactly lapsvm() on L ∪ U with select's kernel (its adapter shares L^p
    across the grid; it must be the L^p lapsvm would build)."""
    from toolkit.selection import CachedKernel, select
    X, y = moons(60, 32)
    params = dict(gamma_A=1e-2, gamma_I=1.0, n_neighbors=5, laplacian_power=power, weight="heat", method="newton")
    split = {"labeled": np.arange(6), "unlabeled": np.arange(6, 60), "test": np.arange(6, 60)}
    sel = select("lapsvm", X, y, split, grid={}, fixed={"kernel": "rbf", "sigma": 0.4, **params},
                 scenario="test-set", refit="min", rng=0, progress=False)        # the registry's flat names
    direct = lapsvm(X[:6], y[:6], X[6:], kernel=CachedKernel("rbf", sigma=0.4), gamma_A=1e-2, gamma_I=1.0,
                    graph=Graph(n_neighbors=5, power=power, weight="heat"), solver="newton")
    np.testing.assert_array_equal(sel.model.alpha, direct.alpha)
    np.testing.assert_array_equal(sel.model.b, direct.b)
    assert sel.refit_n_iter == direct.n_iter >= 1                      # recorded, also in the tidy table
    refit = sel.results.query("fold == 'refit' and metric == 'n_iter'")
    assert refit["value"].tolist() == [direct.n_iter]


# ------------------------------------------------------------------------------ intercept=False
@pytest.mark.parametrize("solver, kw", [
    ("lapsvm", dict(solver=Solver("newton"))), ("lapsvm", dict(solver=Solver("newton", line_search=False))),
    ("lapsvm", dict(solver=Solver("pcg", stop=None, tol=1e-10, preconditioner="kernel"))),
    ("lapsvm", dict(solver=Solver("pcg", stop=None, tol=1e-10))),
    ("laprlsc", dict(solver="direct")), ("laprlsc", dict(solver=Solver("pcg", stop=None, tol=1e-10))),
    ("lapsvm", dict(solver=Solver("newton"), low_rank=80, normalized=False)),
    ("lapsvm", dict(solver=Solver("pcg", stop=None, tol=1e-10), low_rank=80, normalized=False)),
])
def test_without_intercept_b_is_zero_and_the_objective_is_eq7_minimum_without_bias(solver, kw):
    """intercept=False (LapSVMp's UseBias = 0, its only option with the normalised Laplacian): b = 0
    exactly and eq. (7) restricted to b = 0 at its minimum (L-BFGS reference); the bias matters
    (the two minima differ)."""
    from toolkit.manifold._reference import lbfgs_reference, primal_objective
    X, y = moons(80, 40)
    y = np.where(np.arange(80) < 9, np.where(X[:, 0] > 0.5, 1.0, -1.0), y)     # lopsided labelled set
    l, sigma, gA, gI = 9, 0.5, 1e-2, 1.0
    kw = dict(kw)
    normalized = kw.pop("normalized", True)
    K, L = rbf(X, X, sigma), knn_laplacian(X, 5, normalized, 1)
    loss = "squared_hinge" if solver == "lapsvm" else "squared"
    graph = Graph(n_neighbors=5, weight="binary", power=1, normalized=normalized)    # the reference graph
    fit = (lapsvm if solver == "lapsvm" else laprlsc)(X[:l], y[:l], X[l:], kernel=Kernel("rbf", sigma=sigma), gamma_A=gA,
                                                      gamma_I=gI, graph=graph, intercept=False, **kw)
    assert np.all(fit.b == 0) and fit.params["intercept"] is False
    f_ref = lbfgs_reference(K, L, y[:l], gA, gI, intercept=False, loss=loss)
    with_bias = lbfgs_reference(K, L, y[:l], gA, gI, loss=loss)
    assert with_bias < f_ref * (1 - 1e-3)
    if "low_rank" in kw:      # every point's kernel column spanned by 80 basis points: the exact minimum
        F = fit.decision_function(X)
        alpha = np.linalg.lstsq(K, F, rcond=None)[0]
        assert primal_objective(K, L, y[:l], alpha, 0.0, gA, gI, loss) == pytest.approx(f_ref, rel=1e-5)
    else:
        assert primal_objective(K, L, y[:l], fit.alpha, 0.0, gA, gI, loss) == pytest.approx(f_ref, rel=1e-6)
        assert fit.objective == pytest.approx(f_ref, rel=1e-6)


def test_without_intercept_refuses_a_warm_start_with_a_bias():
    X, y = moons(60, 41)
    kw = dict(kernel=Kernel("rbf", sigma=0.5), gamma_A=1e-2, gamma_I=1.0, graph=Graph(n_neighbors=5))
    with_bias = lapsvm(X[:6], y[:6], X[6:], **kw)
    with pytest.raises(ValueError, match=r"'x0' parameter of lapsvm holds a bias b = .*intercept=False"):
        lapsvm(X[:6], y[:6], X[6:], intercept=False, x0=with_bias, **kw)
    with pytest.raises(TypeError, match=r"'intercept' parameter of lapsvm must be a bool"):
        lapsvm(X[:6], y[:6], X[6:], intercept="no", **kw)



def test_blas_threads_go_to_the_product_by_K_alone(monkeypatch):
    """With blas_threads=2 the product by K (BLAS symv) runs on two BLAS threads and the rest of an
    iteration (the callback included) on one; the model is the one fitted on one thread."""
    import scipy.linalg.blas as blas

    from toolkit.kernels import _blas_threads, thread_pools
    if not thread_pools().select(user_api="blas").info() or max(
            d["num_threads"] for d in thread_pools().select(user_api="blas").info()) < 2:
        pytest.skip("the BLAS library runs on one thread here")
    X, y = moons(200, 3)
    kw = dict(kernel=Kernel("rbf", sigma=0.5), graph=Graph(n_neighbors=6), gamma_A=1e-2, gamma_I=1.0)
    pcg = Solver("pcg", stop=None, tol=1e-9, max_iter=2000)
    one = lapsvm(X[:10], y[:10], X[10:], solver=dataclasses.replace(pcg, blas_threads=1), **kw)
    in_product, in_callback = [], []
    real = blas.dsymv

    def dsymv(*args, **kwargs):
        in_product.append(_blas_threads())
        return real(*args, **kwargs)
    monkeypatch.setattr(blas, "dsymv", dsymv)
    two = lapsvm(X[:10], y[:10], X[10:], solver=dataclasses.replace(pcg, blas_threads=2),
                 callback=lambda r: in_callback.append(_blas_threads()), **kw)
    assert in_product and set(in_product) == {2}
    assert in_callback and set(in_callback) == {1}
    # the two products sum in different orders: the same optimum, not the same iterates
    assert one.converged and two.converged
    assert two.objective == pytest.approx(one.objective, rel=1e-10)
    np.testing.assert_allclose(two.decision_function(X), one.decision_function(X), rtol=1e-6, atol=1e-8)
