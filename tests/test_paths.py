"""Tests of toolkit.paths: the SVM path against SVC and against optimality certificates,
Lemmas 1-2, degenerate cases, the Laplacian path, the RLS path's LOO, and path-based selection.

scikit-learn's libsvm keeps the kernel cache in float32, so its own solution is only accurate to
about ε₃₂ · C in relative terms (its duality gap grows with C). Agreement with ``SVC`` at 1e-6
(widened to 5e-8 · C when C > 20, see ``_svc_tol``) is therefore checked where ``C = 1/λ`` is
moderate (λ within two decades below λ⁰), at 1e-4 down to four decades below λ⁰; over the whole
path the float64 certificates (duality gap, KKT recomputed from K) are used instead.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.svm import SVC

from toolkit import kernel_matrix, laplacian_svm_path, rlsc_path, svm_path
from toolkit.paths import (cv_laplacian_svm_path, cv_svm_path, effective_kernel, select_lambda,
                           validation_curve)
from toolkit.specs import Graph, Kernel


# ----------------------------------------------------------------------------- helpers
def _problem(seed, n=60, d=3, n_pos=None, noise=0.5, sigma=1.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    score = X[:, 0] + noise * rng.normal(size=n)
    if n_pos is None:
        y = np.where(score > 0, 1.0, -1.0)
    else:
        y = -np.ones(n)
        y[np.argsort(-score)[:n_pos]] = 1.0
    Xt = rng.normal(size=(25, d))
    return X, y, kernel_matrix(X, kernel="rbf", sigma=sigma), kernel_matrix(Xt, X, kernel="rbf", sigma=sigma)


def _svc(K, y, lam):
    return SVC(C=1.0 / lam, kernel="precomputed", tol=1e-12).fit(K, y)


def _svc_tol(lam):
    """1e-6 relative, widened to 5e-8 · C where libsvm's float32 kernel cache (ε ≈ 6e-8) limits SVC."""
    return max(1e-6, 5e-8 / lam)


def _rel(a, b):
    return np.max(np.abs(a - b)) / max(1e-12, np.max(np.abs(b)))


def _primal_dual_gap(K, y, path, lam):
    """Primal minus dual objective of Σ hinge + λ/2 ‖w‖² (zero exactly at the optimum)."""
    alpha, alpha0 = path.coef(lam)
    ya = y * alpha
    f = (K @ ya + alpha0) / lam
    quad = ya @ K @ ya / lam
    primal = np.maximum(0.0, 1.0 - y * f).sum() + 0.5 * quad
    dual = alpha.sum() - 0.5 * quad
    return primal - dual, primal


def _kkt_from_scratch(K, y, alpha, alpha0, lam):
    """Largest KKT violation recomputed from K (margin units) and the equality constraint."""
    margin = y * (K @ (y * alpha) + alpha0) / lam - 1.0
    tol = 1e-9
    v = 0.0
    v = max(v, np.max(-margin[alpha <= tol], initial=0.0))           # α = 0  ⇒ y f >= 1
    v = max(v, np.max(margin[alpha >= 1 - tol], initial=0.0))        # α = 1  ⇒ y f <= 1
    free = (alpha > tol) & (alpha < 1 - tol)
    v = max(v, np.max(np.abs(margin[free]), initial=0.0))            # free   ⇒ y f = 1
    return max(v, abs(y @ alpha), -alpha.min(), alpha.max() - 1.0)


# ----------------------------------------------------------------------------- SVM path vs SVC
@pytest.mark.parametrize("seed, n_pos", [(0, None), (1, 30), (2, 18)])
def test_decision_values_equal_svc_at_random_lambdas(seed, n_pos):
    X, y, K, Kt = _problem(seed, n_pos=n_pos)
    path = svm_path(K, y)
    bps = path.breakpoints
    assert bps.size >= 5 and np.all(np.diff(bps) < 0)
    rng = np.random.default_rng(100 + seed)
    n_lam = 17 if seed < 2 else 16                                    # 50 λ in all
    for lam in np.exp(rng.uniform(np.log(bps[0]) - np.log(1e2), np.log(bps[0]) + 1.0, n_lam)):
        ref = _svc(K, y, lam)
        assert _rel(path.decision_function(Kt, lam), ref.decision_function(Kt)) < _svc_tol(lam)
        dual, intercept = path.dual_coef(lam)
        full = np.zeros_like(y)
        full[ref.support_] = ref.dual_coef_[0]
        assert np.max(np.abs(dual - full)) < 1e-5 / lam               # same α (unique here)
        assert abs(intercept - ref.intercept_[0]) < _svc_tol(lam) * max(1.0, abs(intercept))
    for lam in np.exp(rng.uniform(np.log(bps[0]) - np.log(1e4), np.log(bps[0]) - np.log(1e2), 5)):
        ref = _svc(K, y, lam)
        assert _rel(path.decision_function(Kt, lam), ref.decision_function(Kt)) < 1e-4


def test_duality_gap_vanishes_along_the_whole_path():
    X, y, K, _ = _problem(3, n=80)
    path = svm_path(K, y)
    bps = path.breakpoints
    lams = np.concatenate([np.exp(np.linspace(np.log(bps[-1]), np.log(bps[0]) + 1, 40)), bps[::7]])
    for lam in lams:
        gap, primal = _primal_dual_gap(K, y, path, lam)
        assert abs(gap) <= 1e-9 * max(1.0, primal), lam


def test_kkt_holds_at_every_breakpoint():
    for seed, n_pos in [(4, None), (5, 20)]:
        X, y, K, _ = _problem(seed, n=70, n_pos=n_pos)
        path = svm_path(K, y)
        lam0 = path.breakpoints[0]
        for lam, alpha, alpha0 in zip(path.breakpoints, path.alphas, path.alpha0s):
            viol = _kkt_from_scratch(K, y, alpha, alpha0, lam)
            # margins are y h / λ: absolute rounding in h is amplified by λ⁰/λ
            assert viol <= 1e-9 * max(1.0, lam0 / lam), (lam, viol)
        assert np.all(path.history["kkt_violation"][path.breakpoints > 1e-4 * lam0] < 1e-9)


# ----------------------------------------------------------------------------- start and end
def test_balanced_start_follows_lemma1():
    X, y, K, Kt = _problem(6, n=40, n_pos=20)
    path = svm_path(K, y)
    assert path.initialization == "lemma1"
    np.testing.assert_array_equal(path.alphas[0], np.ones(40))
    h = K @ y                                                          # (α⁰)ᵀPᵀk(x_i) with α⁰ = 1
    i_pos = np.flatnonzero(y > 0)[np.argmax(h[y > 0])]                 # eq. (19)
    i_neg = np.flatnonzero(y < 0)[np.argmin(h[y < 0])]                 # eq. (20)
    lam0 = (h[i_pos] - h[i_neg]) / 2                                   # eq. (21)
    beta0 = -(h[i_pos] + h[i_neg]) / (h[i_pos] - h[i_neg])             # eq. (22)
    assert path.breakpoints[0] == pytest.approx(lam0, rel=1e-12)
    assert path.alpha0s[0] / path.breakpoints[0] == pytest.approx(beta0, rel=1e-10, abs=1e-12)
    assert np.allclose(path.margins(K)[0][[i_pos, i_neg]], 1.0)
    for lam in (1.5 * lam0, 10 * lam0):                                # above λ⁰: α stays at 1
        alpha, _ = path.coef(lam)
        np.testing.assert_array_equal(alpha, 1.0)
        assert _rel(path.decision_function(Kt, lam), _svc(K, y, lam).decision_function(Kt)) < _svc_tol(lam)


def test_unbalanced_start_follows_lemma2():
    X, y, K, Kt = _problem(7, n=50, n_pos=14)
    path = svm_path(K, y)
    assert path.initialization == "lemma2"
    alpha = path.alphas[0]
    minority, majority = y > 0, y < 0
    np.testing.assert_array_equal(alpha[minority], 1.0)
    assert alpha[majority].sum() == pytest.approx(minority.sum(), abs=1e-10)
    # optimality of the QP min αᵀQα: majority α free ⇒ equal c·h*, α = 0 ⇒ larger, α = 1 ⇒ smaller
    score = -(K @ (y * alpha))[majority]                              # c h* with c = -1
    a = alpha[majority]
    free = (a > 1e-12) & (a < 1 - 1e-12)
    level = score[free].mean() if free.any() else None
    if free.any():
        assert np.ptp(score[free]) < 1e-9
        assert np.all(score[a <= 1e-12] >= level - 1e-9)
        assert np.all(score[a >= 1 - 1e-12] <= level + 1e-9)
    else:
        assert score[a >= 1 - 1e-12].max() <= score[a <= 1e-12].min() + 1e-9
    # the QP value is not beaten by a generic solver
    from scipy.optimize import minimize
    Q = (y[:, None] * y[None, :]) * K
    Qmm, Qmn = Q[np.ix_(majority, majority)], Q[np.ix_(majority, minority)].sum(axis=1)
    res = minimize(lambda v: v @ Qmm @ v + 2 * v @ Qmn, np.full(majority.sum(), minority.sum() / majority.sum()),
                   jac=lambda v: 2 * Qmm @ v + 2 * Qmn, bounds=[(0, 1)] * int(majority.sum()),
                   constraints=[{"type": "eq", "fun": lambda v: v.sum() - minority.sum()}], method="SLSQP",
                   options={"ftol": 1e-14, "maxiter": 500})
    assert a @ Qmm @ a + 2 * a @ Qmn <= res.fun + 1e-8
    lam0 = path.breakpoints[0]
    for lam in (1.2 * lam0, 5 * lam0):
        np.testing.assert_allclose(path.coef(lam)[0], alpha)
        assert _rel(path.decision_function(Kt, lam), _svc(K, y, lam).decision_function(Kt)) < _svc_tol(lam)


def test_path_ends_when_left_set_empties_or_at_lambda_min():
    X, y, K, Kt = _problem(8, n=40, noise=0.0, sigma=0.7)
    path = svm_path(K, y)
    assert path.status == 0 and path.converged
    last = path.alphas[-1]
    at_one = last >= 1 - 1e-12                                         # L is empty: α = 1 only on the elbow
    np.testing.assert_allclose(path.margins(K)[-1][at_one], 1.0, atol=1e-6)
    # below the last breakpoint the solution scales with λ: f is constant (hard margin)
    f_last = path.decision_function(Kt, path.breakpoints[-1])
    np.testing.assert_allclose(path.decision_function(Kt, path.breakpoints[-1] / 10), f_last, rtol=1e-9, atol=1e-9)
    stop = path.breakpoints[len(path.breakpoints) // 2] * 0.999
    short = svm_path(K, y, lambda_min=stop)
    assert short.status == 5 and short.converged and short.breakpoints[-1] == pytest.approx(stop)
    assert "lambda_min" in short.message
    np.testing.assert_allclose(short.decision_function(Kt, stop * 1.5), path.decision_function(Kt, stop * 1.5),
                               rtol=1e-10, atol=1e-10)
    with pytest.raises(ValueError, match="lambda_min"):
        short.coef(stop / 2)
    # the requested end itself is on the path (it used to need the tail direction, absent there)
    np.testing.assert_allclose(short.decision_function(Kt, stop), path.decision_function(Kt, stop),
                               rtol=1e-9, atol=1e-9)



def test_max_iter_and_callback_cut_the_path_at_an_exact_breakpoint():
    import toolkit
    X, y, K, Kt = _problem(14, n=40)
    full = svm_path(K, y)
    with pytest.warns(toolkit.ConvergenceWarning, match="max_iter=5 events"):
        short = svm_path(K, y, max_iter=5)
    assert short.status == 2 and not short.converged and short.n_iter == 5
    k = short.breakpoints.size
    np.testing.assert_allclose(short.breakpoints, full.breakpoints[:k], rtol=1e-10)
    np.testing.assert_allclose(short.alphas, full.alphas[:k], atol=1e-9)
    with pytest.raises(ValueError, match="larger max_iter"):
        short.coef(short.breakpoints[-1] / 2)

    def stop_at_5(r):
        if r.n_iter == 5:
            raise StopIteration

    cut = svm_path(K, y, callback=stop_at_5)
    assert cut.status == 3 and not cut.converged and "event 5" in cut.message
    np.testing.assert_allclose(cut.breakpoints, short.breakpoints, rtol=1e-10)
    np.testing.assert_allclose(cut.decision_function(Kt, cut.breakpoints[-1]),
                               full.decision_function(Kt, cut.breakpoints[-1]), rtol=1e-8, atol=1e-10)


# ----------------------------------------------------------------------------- degenerate cases
def test_unbalanced_classes_match_svc():
    X, y, K, Kt = _problem(9, n=60, n_pos=8)
    path = svm_path(K, y)
    for lam in np.geomspace(path.breakpoints[0] * 2, path.breakpoints[0] / 100, 7):
        assert _rel(path.decision_function(Kt, lam), _svc(K, y, lam).decision_function(Kt)) < _svc_tol(lam)


def test_duplicated_points_take_recorded_least_squares_steps():
    X, y, K, Kt = _problem(10, n=40)
    rng = np.random.default_rng(0)
    same = rng.choice(40, 10, replace=False)
    Xd = np.vstack([X, X[same], X[same[:3]]])
    yd = np.concatenate([y, y[same], y[same[:3]]])
    Kd = kernel_matrix(Xd, kernel="rbf", sigma=1.0)
    Ktd = kernel_matrix(np.random.default_rng(1).normal(size=(20, 3)), Xd, kernel="rbf", sigma=1.0)
    path = svm_path(Kd, yd)
    assert path.n_singular_steps > 0 and path.history["singular"].any()
    for lam in np.geomspace(path.breakpoints[0] * 2, path.breakpoints[0] / 100, 8):
        assert _rel(path.decision_function(Ktd, lam), _svc(Kd, yd, lam).decision_function(Ktd)) < _svc_tol(lam)
        gap, primal = _primal_dual_gap(Kd, yd, path, lam)
        assert abs(gap) <= 1e-9 * max(1.0, primal)
    # the ridge step is an accepted alternative
    ridged = svm_path(Kd, yd, ridge=1e-10)
    lam = path.breakpoints[0] / 30
    assert _rel(ridged.decision_function(Ktd, lam), path.decision_function(Ktd, lam)) < 1e-6


def test_duplicates_with_opposite_labels():
    X, y, K, Kt = _problem(11, n=40)
    Xo = np.vstack([X, X[:4]])
    yo = np.concatenate([y, -y[:4]])
    Ko = kernel_matrix(Xo, kernel="rbf", sigma=1.0)
    Kto = kernel_matrix(X[5:15] + 0.05, Xo, kernel="rbf", sigma=1.0)
    path = svm_path(Ko, yo)
    for lam in np.geomspace(path.breakpoints[0], path.breakpoints[0] / 100, 6):
        assert _rel(path.decision_function(Kto, lam), _svc(Ko, yo, lam).decision_function(Kto)) < _svc_tol(lam)


def test_linear_kernel_rank_deficient():
    rng = np.random.default_rng(12)
    X = rng.normal(size=(40, 2))
    y = np.where(X[:, 0] + 0.8 * rng.normal(size=40) > 0, 1.0, -1.0)
    K = X @ X.T + 1.0
    Kt = X[:10] @ X.T + 1.0
    path = svm_path(K, y)
    for lam in np.geomspace(path.breakpoints[0], path.breakpoints[0] / 100, 6):
        assert _rel(path.decision_function(Kt, lam), _svc(K, y, lam).decision_function(Kt)) < _svc_tol(lam)


def test_two_points_have_no_event():
    X = np.array([[0.0, 0.0], [1.0, 2.0]])
    y = np.array([1.0, -1.0])
    K = kernel_matrix(X, kernel="rbf", sigma=1.0)
    path = svm_path(K, y)
    assert path.breakpoints.size == 1 and path.n_iter == 0 and path.status == 0
    assert path.breakpoints[0] == pytest.approx((K[0, 0] + K[1, 1] - 2 * K[0, 1]) / 2)
    Kt = kernel_matrix(np.array([[0.5, 0.5], [2.0, 0.0]]), X, kernel="rbf", sigma=1.0)
    for lam in (10.0, path.breakpoints[0], 0.3, 1e-3):
        assert _rel(path.decision_function(Kt, lam), _svc(K, y, lam).decision_function(Kt)) < 1e-9


def test_path_without_any_event():
    # linear kernel of rank 3, 3 vs 11 points: the minority never reaches the elbow at λ > 0
    rng = np.random.default_rng(2)
    n = int(rng.integers(4, 16))
    X = rng.normal(size=(n, 2))
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    y[0], y[1] = 1.0, -1.0
    K = X @ X.T + 1.0
    path = svm_path(K, y)
    assert path.status == 0 and path.breakpoints.size == 1 and path.n_iter == 0
    assert "no point ever reaches the elbow" in path.message
    # (libsvm needs 1e8 iterations on this degenerate problem: the float64 certificate is used)
    for lam in (50.0, 5.0, 0.5, 1e-3):
        gap, primal = _primal_dual_gap(K, y, path, lam)
        assert abs(gap) <= 1e-9 * max(1.0, primal)
        assert _kkt_from_scratch(K, y, *path.coef(lam), lam) < 1e-9


@settings(max_examples=25)
@given(st.integers(2, 14), st.integers(0, 2**31 - 1), st.booleans())
def test_random_small_problems(n, seed, duplicate):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    y[0], y[1] = 1.0, -1.0
    if duplicate and n > 3:
        X[2] = X[3] if y[2] == y[3] else X[2]
    K = kernel_matrix(X, kernel="rbf", sigma=1.0)
    path = svm_path(K, y)
    assert np.all(np.diff(path.breakpoints) < 0)
    assert np.all((path.alphas >= 0) & (path.alphas <= 1))
    np.testing.assert_allclose(path.alphas @ y, 0.0, atol=1e-9)
    for lam in (path.breakpoints[0] * 2, np.sqrt(path.breakpoints[0] * path.breakpoints[-1]),
                path.breakpoints[0] / 20):
        gap, primal = _primal_dual_gap(K, y, path, lam)
        assert abs(gap) <= 1e-8 * max(1.0, primal)
        assert _rel(path.decision_function(K, lam), _svc(K, y, lam).decision_function(K)) < _svc_tol(lam)


# ----------------------------------------------------------------------------- path object
def test_path_object_api(tmp_path):
    X, y, K, Kt = _problem(13, n=30)
    path = svm_path(K, y)
    with pytest.raises(dataclasses.FrozenInstanceError):
        path.status = 5
    with pytest.raises(ValueError):
        path.breakpoints[0] = 1.0
    lams = path.breakpoints[[0, 3, 5]]
    F = path.decision_function(Kt, lams)
    assert F.shape == (25, 3)
    np.testing.assert_allclose(F[:, 1], path.decision_function(Kt, lams[1]))
    alphas, alpha0s = path.coef(lams)
    np.testing.assert_allclose(alphas, path.alphas[[0, 3, 5]], atol=1e-12)
    np.testing.assert_allclose(alpha0s, path.alpha0s[[0, 3, 5]], atol=1e-12)
    assert set(np.unique(path.predict(Kt, 0.1))) <= {-1.0, 1.0}
    text = path.summary()
    assert "breakpoints" in text and "lemma" in text
    import matplotlib
    matplotlib.use("Agg")
    ax = path.plot()
    path.plot("margin", K=K, ax=ax)
    ax.figure.savefig(tmp_path / "path.png")
    with pytest.raises(ValueError, match="'s' parameter"):
        path.coef(-1.0)
    with pytest.raises(ValueError, match="columns"):
        path.decision_function(Kt[:, :5], 0.1)


def test_input_validation_messages():
    K = np.eye(4)
    with pytest.raises(ValueError, match=r"The 'y' parameter of svm_path must contain exactly two classes\. "
                                         r"Got 1 class\(es\) \[1\.0\] instead"):
        svm_path(K, np.ones(4))
    with pytest.raises(ValueError, match="square"):
        svm_path(np.ones((4, 3)), np.array([1.0, -1, 1, -1]))
    with pytest.raises(ValueError, match=r"'X' \(the kernel matrix K\) has 4 rows but 'y' has 3"):
        svm_path(K, np.array([1.0, -1, 1]))
    with pytest.raises(ValueError, match="The 'lambda_min' parameter of svm_path must be a float in \\(0.0, inf\\)"):
        svm_path(K, np.array([1.0, -1, 1, -1]), lambda_min=-1.0)


# ----------------------------------------------------------------------------- Laplacian path
def _moons_like(seed=0, n=80):
    rng = np.random.default_rng(seed)
    t = rng.uniform(0, np.pi, n)
    upper = rng.random(n) < 0.5
    X = np.where(upper[:, None], np.c_[np.cos(t), np.sin(t)], np.c_[1 - np.cos(t), 0.5 - np.sin(t)])
    X += 0.05 * rng.normal(size=X.shape)
    y = np.where(upper, 1.0, -1.0)
    lab = np.concatenate([np.flatnonzero(y > 0)[:3], np.flatnonzero(y < 0)[:3]])
    rest = np.setdiff1d(np.arange(n), lab)
    return X[lab], y[lab], X[rest], y[rest]


def test_zero_graph_weight_gives_the_supervised_path():
    Xl, yl, Xu, _ = _moons_like()
    Kl = kernel_matrix(Xl, kernel="rbf", sigma=0.5)
    sup = svm_path(Kl, yl)
    n = len(yl) + len(Xu)
    for ssl in (laplacian_svm_path(Xl, yl, Xu, kernel=Kernel("rbf", sigma=0.5), gamma_ratio=0.0),
                laplacian_svm_path(Xl, yl, Xu, kernel=Kernel("rbf", sigma=0.5), graph=np.zeros((n, n)),
                                   gamma_ratio=3.0)):
        np.testing.assert_allclose(ssl.breakpoints, sup.breakpoints, rtol=1e-12)
        Xnew = Xu[:10]
        for lam in (sup.breakpoints[0] * 2, sup.breakpoints[-1]):
            np.testing.assert_allclose(ssl.decision_function(Xnew, lam),
                                       sup.decision_function(kernel_matrix(Xnew, Xl, kernel="rbf", sigma=0.5), lam),
                                       rtol=1e-10, atol=1e-12)


def test_laplacian_path_solves_the_primal():
    from toolkit.graphs import laplacian
    Xl, yl, Xu, yu = _moons_like(1)
    r = 4.0
    path = laplacian_svm_path(Xl, yl, Xu, kernel=Kernel("rbf", sigma=0.4),
                              graph=Graph(n_neighbors=5, weight="binary", power=1), gamma_ratio=r)
    X = path.X_train
    K = kernel_matrix(X, kernel="rbf", sigma=0.4)
    L = laplacian(X, n_neighbors=5).toarray()
    l = len(yl)
    for lam in list(path.breakpoints[:: max(1, path.breakpoints.size // 5)]) + [path.breakpoints[0] * 3]:
        beta, beta0 = path.expansion(lam)
        alpha, _ = path.coef(lam)
        # stationarity in β: λ (K + r K L K) β = K Jᵀ Y α
        np.testing.assert_allclose(lam * (K @ beta + r * K @ (L @ (K @ beta))), K[:, :l] @ (yl * alpha), atol=1e-9)
        f = K @ beta + beta0
        np.testing.assert_allclose(path.decision_function(X, lam), f, atol=1e-9)
        assert _kkt_from_scratch(path.effective_kernel, yl, alpha, beta0 * lam, lam) < 1e-8
    # equal to SVC on the effective kernel (the LapSVM dual, Melacci & Belkin eq. 6)
    G = path.effective_kernel
    lam = path.breakpoints[0] / 5
    ref = SVC(C=1 / lam, kernel="precomputed", tol=1e-12).fit(G, yl)
    assert _rel(path.decision_function(Xu, lam), ref.decision_function(path.cross_kernel(Xu))) < 1e-6


def test_effective_kernel_is_symmetric_psd():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 2))
    K = kernel_matrix(X, kernel="rbf", sigma=1.0)
    from toolkit.graphs import laplacian
    G, B = effective_kernel(K, laplacian(X, n_neighbors=4, normalized=False), 8, 10.0)
    assert G.shape == (8, 8) and B.shape == (30, 8)
    np.testing.assert_allclose(G, G.T, atol=1e-12)
    assert np.linalg.eigvalsh(G).min() > -1e-10
    # the graph shrinks the kernel: G <= K_LL in the Loewner order
    assert np.linalg.eigvalsh(K[:8, :8] - G).min() > -1e-10


@pytest.mark.parametrize("r", [0.0, 0.5, 10.0])
def test_effective_kernel_is_the_lapsvm_dual_kernel(r):
    """One construction: J K (I + r L K)⁻¹ Jᵀ written out densely, and lapsvm_dual's kernel
    J K (2γ_A I + 2γ_I L K)⁻¹ Jᵀ = G / (2γ_A) at r = γ_I / γ_A."""
    from toolkit.graphs import laplacian
    from toolkit.training import lapsvm_dual_kernel as dual_kernel
    rng = np.random.default_rng(5)
    X = rng.normal(size=(25, 2))
    K = kernel_matrix(X, kernel="rbf", sigma=1.0)
    L = laplacian(X, n_neighbors=4, power=2)
    G, B = effective_kernel(K, L, 6, r)
    B_dense = np.linalg.solve(np.eye(25) + r * L.toarray() @ K, np.eye(25)[:, :6])
    np.testing.assert_allclose(B, B_dense, atol=1e-12)
    np.testing.assert_allclose(G, K[:6] @ B_dense, atol=1e-12)
    G2, B2 = dual_kernel(K, L, 6, 0.5, 0.5 * r)
    np.testing.assert_array_equal(G, G2)
    np.testing.assert_array_equal(B, B2)
    gamma_A = 0.01
    Gd, Bd = dual_kernel(K, L, 6, gamma_A, r * gamma_A)
    np.testing.assert_allclose(2 * gamma_A * Gd, G, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(2 * gamma_A * Bd, B, rtol=1e-12, atol=1e-12)


# ----------------------------------------------------------------------------- RLS path
def test_rlsc_path_loo_equals_brute_force_refits():
    X, y, K, _ = _problem(14, n=30)
    w = np.random.default_rng(2).uniform(0.5, 2.0, 30)
    for weights in (None, w):
        path = rlsc_path(K, y, weights=weights, n_lambdas=20)
        wt = np.full(30, 1 / 30) if weights is None else w
        for j in (0, 7, 19):
            lam = path.lambdas[j]
            for i in range(30):
                keep = np.arange(30) != i
                c = np.linalg.solve(wt[keep, None] * K[np.ix_(keep, keep)] + lam * np.eye(29), wt[keep] * y[keep])
                assert K[i, keep] @ c == pytest.approx(path.loo_predictions[j, i], rel=1e-8, abs=1e-10)
        err = 100 * np.mean(np.where(path.loo_predictions >= 0, 1, -1) != y, axis=1)   # percent
        np.testing.assert_allclose(path.loo_error, err)


def test_rlsc_path_coefficients_and_gcv():
    X, y, K, Kt = _problem(15, n=40)
    path = rlsc_path(K, y, lambdas=[1e-1, 1e-2, 1e-3])
    for lam in (0.1, 0.0137):
        c = np.linalg.solve(K + lam * 40 * np.eye(40), y)             # RLSC eq. (4): (K + λ l I)⁻¹ y
        np.testing.assert_allclose(path.coef(lam), c, rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(path.decision_function(Kt, lam), Kt @ c, rtol=1e-8, atol=1e-10)
    H = K @ np.linalg.solve(K + 1e-2 * 40 * np.eye(40), np.eye(40))
    gcv = np.mean((y - H @ y) ** 2) / (1 - np.trace(H) / 40) ** 2
    assert path.gcv[1] == pytest.approx(gcv, rel=1e-8)
    assert path.df[1] == pytest.approx(np.trace(H), rel=1e-8)
    assert path.lambda_min in path.lambdas and path.lambda_1se >= path.lambda_min
    from toolkit import rlsc
    fit = rlsc(K, y, kernel="precomputed", lam=0.01)
    np.testing.assert_allclose(fit.decision_function(Kt), path.decision_function(Kt, 0.01), rtol=1e-7, atol=1e-9)


# ----------------------------------------------------------------------------- selection
def test_select_lambda_rule():
    lambdas = np.array([10.0, 5.0, 2.0, 1.0, 0.5])
    err = np.array([0.40, 0.22, 0.20, 0.18, 0.25])
    se = np.full(5, 0.05)
    assert select_lambda(lambdas, err, se) == (3, 1)


def test_validation_curve_and_cv():
    X, y, K, _ = _problem(16, n=120)
    tr, va = np.arange(80), np.arange(80, 120)
    path = svm_path(K[np.ix_(tr, tr)], y[tr])
    sel = validation_curve(path, K[np.ix_(va, tr)], y[va])
    f = path.decision_function(K[np.ix_(va, tr)], sel.lambda_min)
    assert 100 * np.mean(np.where(f >= 0, 1, -1) != y[va]) == pytest.approx(sel.error[sel.index_min])   # percent
    p = sel.error[sel.index_min] / 100
    assert sel.error_se[sel.index_min] == pytest.approx(100 * np.sqrt(p * (1 - p) / va.size))
    assert sel.lambda_1se >= sel.lambda_min
    cv1 = cv_svm_path(K[np.ix_(tr, tr)], y[tr], n_folds=4, n_lambdas=30, rng=3)
    cv2 = cv_svm_path(K[np.ix_(tr, tr)], y[tr], n_folds=4, n_lambdas=30, rng=3)
    assert cv1.fold_error.shape == (4, 30) and cv1.seed == 3
    np.testing.assert_array_equal(cv1.error, cv2.error)
    assert cv1.lambda_1se >= cv1.lambda_min and "lambda_1se" in cv1.summary()
    with pytest.raises(ValueError, match="n_folds"):
        cv_svm_path(K[:6, :6], np.array([1.0, -1, -1, -1, -1, 1]), n_folds=3)
    Xl, yl, Xu, yu = _moons_like(2, n=60)
    cvl = cv_laplacian_svm_path(Xl, yl, Xu, n_folds=3, n_lambdas=15, kernel=Kernel("rbf", sigma=0.4),
                                graph=Graph(n_neighbors=5, weight="binary", power=1), gamma_ratio=2.0, rng=0)
    assert cvl.fold_error.shape == (3, 15)
    assert np.isfinite(cvl.error).all()
    # the graph given as an operator (never formed) is permuted per fold like the matrix
    from toolkit.graphs import laplacian, laplacian_operator
    L1 = laplacian(np.vstack([Xl, Xu]), n_neighbors=5)
    kw = dict(n_folds=3, n_lambdas=15, kernel=Kernel("rbf", sigma=0.4), gamma_ratio=2.0, rng=0)
    by_matrix = cv_laplacian_svm_path(Xl, yl, Xu, graph=L1 @ L1, **kw)
    by_operator = cv_laplacian_svm_path(Xl, yl, Xu, graph=laplacian_operator(L1, power=2), **kw)
    np.testing.assert_allclose(by_operator.fold_error, by_matrix.fold_error)


def test_cv_svm_path_uses_the_one_fold_assignment():
    from toolkit._cv import stratified_folds
    X, y, K, _ = _problem(16, n=40)
    cv = cv_svm_path(K, y, n_folds=3, n_lambdas=10, rng=5)
    fold = stratified_folds(y, 3, 5)
    assert np.bincount(fold).max() - np.bincount(fold).min() <= 1
    for k in range(3):
        train, test = np.flatnonzero(fold != k), np.flatnonzero(fold == k)
        p = svm_path(K[np.ix_(train, train)], y[train])
        lambdas = np.maximum(cv.lambdas, p.breakpoints[-1]) if p._tail_direction is None else cv.lambdas
        f = p.decision_function(K[np.ix_(test, train)], lambdas)
        np.testing.assert_array_equal(cv.fold_error[k],
                                      100.0 * np.mean(np.where(f >= 0, 1.0, -1.0) != y[test, None], axis=0))


def test_compiled_event_loop_equals_the_numpy_reference():
    from toolkit.paths._reference import svm_path_reference
    from toolkit.paths._svm import _svm_path
    for seed, n_pos in [(17, None), (18, 12)]:
        X, y, K, Kt = _problem(seed, n=60, n_pos=n_pos)
        fast = _svm_path(K, y, None, 10_000, 0.0, 250)
        ref = svm_path_reference(K, y, None, 10_000, 0.0, 50)
        np.testing.assert_allclose(fast.breakpoints, ref.breakpoints, rtol=1e-9)
        np.testing.assert_allclose(fast.alphas, ref.alphas, atol=1e-8)
        assert list(fast.history["event"][1:4]) == list(ref.history["event"][1:4])


def test_compiled_loop_with_a_large_elbow_equals_the_numpy_reference():
    # more than 64 elbow points: the incrementally updated factor outgrows its first buffer
    from toolkit.paths._reference import svm_path_reference
    from toolkit.paths._svm import _svm_path
    X, y, K, Kt = _problem(21, n=150, d=2, sigma=0.3)
    fast = _svm_path(K, y, None, 10_000, 0.0, 7)
    ref = svm_path_reference(K, y, None, 10_000, 0.0, 7)
    assert fast.elbow_sizes.max() > 64 and fast.n_singular_steps == 0
    np.testing.assert_allclose(fast.breakpoints, ref.breakpoints, rtol=1e-9)
    np.testing.assert_allclose(fast.alphas, ref.alphas, atol=1e-8)
    assert np.max(fast.history["kkt_violation"]) < 1e-8


def test_compiled_lemma2_qp_equals_the_numpy_reference():
    from toolkit.paths._reference import lemma2_qp_reference
    from toolkit.paths._svm_numba import lemma2_qp
    X, y, K, _ = _problem(19, n=70, n_pos=25)
    M, N = np.flatnonzero(y < 0), np.flatnonzero(y > 0)
    H, q = np.ascontiguousarray(K[np.ix_(M, M)]), K[np.ix_(M, N)].sum(axis=1)
    np.testing.assert_allclose(lemma2_qp(H, q, np.argsort(-q, kind="stable"), float(N.size), 1e-12, 1000),
                               lemma2_qp_reference(H, q, float(N.size)),
                               atol=1e-10)


def test_laplacian_path_equals_lapsvm_dual():
    """At λ = 2 γ_A and r = γ_I / γ_A the path is toolkit.lapsvm_dual (Melacci & Belkin eq. 5-6)."""
    from toolkit import lapsvm_dual
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 2))
    y = np.where(X[:, 0] + 0.3 * X[:, 1] > 0, 1.0, -1.0)
    path = laplacian_svm_path(X[:10], y[:10], X[10:], kernel=Kernel("rbf", sigma=0.8),
                              graph=Graph(n_neighbors=5, weight="binary", power=1), gamma_ratio=10.0)
    Xt = rng.normal(size=(20, 2))
    for gamma_A in (0.05, 0.5):
        ref = lapsvm_dual(X[:10], y[:10], X[10:], kernel=Kernel("rbf", sigma=0.8),
                          graph=Graph(n_neighbors=5, weight="binary", power=1), gamma_A=gamma_A,
                          gamma_I=10.0 * gamma_A, tol=1e-12)        # the path's graph: binary, L^1
        lam = 2 * gamma_A
        assert _rel(path.decision_function(Xt, lam), ref.decision_function(Xt)) < _svc_tol(lam) * 10


# ------------------------------------------------------------------------ the low-rank path (n_basis)
def test_low_rank_path_with_every_point_a_basis_point_is_the_exact_path():
    """The push-through identity K (I + r L K)⁻¹ = Φ (I + r Φᵀ L Φ)⁻¹ Φᵀ for K = Φ Φᵀ: with every
    training point in the basis (K_ZZ = K, well conditioned at this σ) the paths coincide."""
    Xl, yl, Xu, _ = _moons_like(2)
    kw = dict(kernel=Kernel("rbf", sigma=0.8), graph=Graph(n_neighbors=5, weight="binary", power=1), gamma_ratio=3.0)
    exact = laplacian_svm_path(Xl, yl, Xu, **kw)
    n = len(yl) + len(Xu)
    low = laplacian_svm_path(Xl, yl, Xu, low_rank=n, **kw)
    assert low.graph["n_basis"] == n and low.X_train.shape[0] == n
    np.testing.assert_allclose(low.effective_kernel, exact.effective_kernel, atol=1e-8)
    np.testing.assert_allclose(low.breakpoints[:5], exact.breakpoints[:5], rtol=1e-6)
    for lam in exact.breakpoints[[0, 2, 4]]:
        np.testing.assert_allclose(low.decision_function(Xu, lam), exact.decision_function(Xu, lam),
                                   atol=1e-6 * np.abs(exact.decision_function(Xu, lam)).max())


def test_low_rank_path_is_the_exact_model_on_the_nystrom_kernel():
    """With r < n basis points the path is the exact one on the Nyström kernel K̃ = K_XZ K_ZZ⁺ K_ZX
    (an n × n reference formed densely here), with the decision through K(x, Z) K_ZZ⁺ K_Z·."""
    from toolkit.graphs import laplacian
    Xl, yl, Xu, _ = _moons_like(3)
    kw = dict(kernel=Kernel("rbf", sigma=0.5), graph=Graph(n_neighbors=5, weight="binary", power=1), gamma_ratio=2.0)
    low = laplacian_svm_path(Xl, yl, Xu, low_rank=30, rng=0, **kw)
    X = np.vstack([Xl, Xu])
    Z = low.X_train
    assert Z.shape[0] == 30 and np.all(np.isin(Xl, Z))                # every labelled point is a basis point
    K_XZ, K_ZZ = kernel_matrix(X, Z, kernel="rbf", sigma=0.5), kernel_matrix(Z, kernel="rbf", sigma=0.5)
    w, V = np.linalg.eigh(K_ZZ)
    keep = w > 30 * np.finfo(float).eps * w[-1]
    pinv = (V[:, keep] / w[keep]) @ V[:, keep].T
    K_tilde = K_XZ @ pinv @ K_XZ.T
    L = laplacian(X, n_neighbors=5).toarray()
    G_ref, B_ref = effective_kernel(K_tilde, L, len(yl), 2.0)
    np.testing.assert_allclose(low.effective_kernel, G_ref, atol=1e-8)
    lam = low.breakpoints[3]
    beta_ref = B_ref @ (yl * low.coef(lam)[0]) / lam                  # expansion over X on K̃
    np.testing.assert_allclose(low.decision_function(Xu, lam),
                               kernel_matrix(Xu, Z, kernel="rbf", sigma=0.5) @ pinv @ K_XZ.T @ beta_ref
                               + low.coef(lam)[1] / lam, atol=1e-7)
    with pytest.raises(ValueError, match=r"'n_basis' parameter of laplacian_svm_path must be an int in \[1, "):
        laplacian_svm_path(Xl, yl, Xu, low_rank=10**6, **kw)


# ----------------------------------------------------------------------------- labels (issue 24)
# Every path accepts labels as the solvers do (toolkit._validation.encode_binary_labels): any two
# values, classes[1] of the sorted pair coded +1. The coding is the only thing the labels decide, so
# 0 / 1 and strings give the -1 / +1 path itself: the same breakpoints and decision values.
_CODINGS = {"0/1": (0, 1), "strings": ("neg", "pos"), "bool": (False, True), "floats": (-2.5, 7.0)}


def _recode(y, coding):
    """``y`` in {-1, +1} written in another coding (negative, positive)."""
    negative, positive = _CODINGS[coding]
    return np.array([positive if v > 0 else negative for v in y])


@pytest.mark.parametrize("coding", sorted(_CODINGS))
def test_svm_path_with_any_two_labels_is_the_signed_path(coding):
    X, y, K, Kt = _problem(3, n=40)
    signed, labels = svm_path(K, y), _recode(y, coding)
    path = svm_path(K, labels)
    np.testing.assert_array_equal(path.classes, sorted(_CODINGS[coding]))
    np.testing.assert_array_equal(path.y, y)                         # the coding, classes[1] ↦ +1
    np.testing.assert_array_equal(path.breakpoints, signed.breakpoints)
    lambdas = [signed.breakpoints[0] * 2, signed.breakpoints[3], signed.breakpoints[-1]]
    np.testing.assert_array_equal(path.decision_function(Kt, lambdas), signed.decision_function(Kt, lambdas))
    # predict returns the labels given; decision_function stays signed (positive: classes[1])
    f = signed.decision_function(Kt, 0.1)
    expected = np.where(f >= 0, _CODINGS[coding][1], _CODINGS[coding][0])
    np.testing.assert_array_equal(path.predict(Kt, 0.1), expected)
    assert path.predict(Kt, lambdas).shape == (Kt.shape[0], 3)
    np.testing.assert_array_equal(signed.predict(Kt, 0.1), np.where(f >= 0, 1.0, -1.0))     # ±1 unchanged
    # the same path from the points
    by_points = svm_path(X, labels, kernel="rbf", sigma=1.0)
    np.testing.assert_array_equal(by_points.classes, path.classes)
    np.testing.assert_array_equal(by_points.predict(X[:5], 0.1), path.predict(K[:5], 0.1))


def test_laplacian_svm_path_with_any_two_labels_is_the_signed_path():
    Xl, yl, Xu, yu = _moons_like(4)
    kw = dict(kernel=Kernel("rbf", sigma=0.4), graph=Graph(n_neighbors=5, weight="binary", power=1), gamma_ratio=2.0)
    signed = laplacian_svm_path(Xl, yl, Xu, **kw)
    for coding in ("0/1", "strings"):
        path = laplacian_svm_path(Xl, _recode(yl, coding), Xu, **kw)
        np.testing.assert_array_equal(path.classes, _CODINGS[coding])
        np.testing.assert_array_equal(path.breakpoints, signed.breakpoints)
        lam = signed.breakpoints[len(signed.breakpoints) // 2]
        f = signed.decision_function(Xu, lam)
        np.testing.assert_array_equal(path.decision_function(Xu, lam), f)
        np.testing.assert_array_equal(path.predict(Xu, lam), np.where(f >= 0, *_CODINGS[coding][::-1]))
        beta, beta0 = path.expansion(lam)
        np.testing.assert_array_equal(beta, signed.expansion(lam)[0])


def test_rlsc_path_reads_two_labels_as_classes_and_real_targets_as_regression():
    X, y, K, Kt = _problem(5, n=40)
    signed = rlsc_path(K, y, n_lambdas=20)
    np.testing.assert_array_equal(signed.classes, [-1.0, 1.0])
    for coding in ("0/1", "strings", "floats"):
        path = rlsc_path(K, _recode(y, coding), n_lambdas=20)
        np.testing.assert_array_equal(path.classes, _CODINGS[coding])
        np.testing.assert_array_equal(path.y, y)
        np.testing.assert_array_equal(path.lambdas, signed.lambdas)
        np.testing.assert_allclose(path.loo_error, signed.loo_error)
        assert (path.lambda_min, path.lambda_1se) == (signed.lambda_min, signed.lambda_1se)
        f = signed.decision_function(Kt, 0.01)
        np.testing.assert_array_equal(path.decision_function(Kt, 0.01), f)
        np.testing.assert_array_equal(path.predict(Kt, 0.01), np.where(f >= 0, *_CODINGS[coding][::-1]))
    # real-valued targets: regression, as before (LOO MSE selects, no classes, no LOO error)
    t = X[:, 0] + 0.1 * X[:, 1]
    reg = rlsc_path(K, t, n_lambdas=20)
    assert reg.classes is None and np.isnan(reg.loo_error).all()
    assert reg.lambda_min == reg.lambdas[np.argmin(reg.loo_mse)]
    n, lam = t.size, 0.01
    np.testing.assert_allclose(reg.coef(lam), np.linalg.solve(K + lam * n * np.eye(n), t), rtol=1e-8, atol=1e-10)
    # two-valued numbers meant as regression: task="regression" fits them as given
    y01 = (y > 0).astype(float)
    reg01 = rlsc_path(K, y01, n_lambdas=20, task="regression")
    assert reg01.classes is None
    np.testing.assert_allclose(reg01.coef(lam), np.linalg.solve(K + lam * n * np.eye(n), y01), rtol=1e-8, atol=1e-10)
    assert rlsc_path(K, y01, n_lambdas=20, task="classification").classes.tolist() == [0.0, 1.0]
    # one distinct value (one class, or one labelled point) is neither read as classes nor, silently, as a
    # constant regression: refused naming y and the classes; task="regression" fits the constant on request
    for K1, y1 in ((K, np.ones(n)), (K[:1, :1], y[:1])):
        with pytest.raises(ValueError, match=r"'y' parameter of rlsc_path holds one distinct value .*two classes"):
            rlsc_path(K1, y1, n_lambdas=5)
    assert rlsc_path(K, np.ones(n), n_lambdas=5, task="regression").classes is None
    with pytest.raises(ValueError, match=r"The 'task' parameter of rlsc_path must be one of 'auto', "):
        rlsc_path(K, y, task="binary")
    with pytest.raises(TypeError, match=r"The 'y' parameter of rlsc_path must be a numeric array"):
        rlsc_path(K, _recode(y, "strings"), task="regression")
    with pytest.raises(ValueError, match=r"The 'y' parameter of rlsc_path must contain exactly two classes\. "
                                         r"Got 3 class\(es\)"):
        rlsc_path(K, np.arange(40) % 3, task="classification")


def test_path_selection_reads_validation_labels_in_the_training_coding():
    X, y, K, _ = _problem(16, n=90)
    tr, va = np.arange(60), np.arange(60, 90)
    signed = svm_path(K[np.ix_(tr, tr)], y[tr])
    ref = validation_curve(signed, K[np.ix_(va, tr)], y[va])
    for coding in ("0/1", "strings"):
        path = svm_path(K[np.ix_(tr, tr)], _recode(y[tr], coding))
        sel = validation_curve(path, K[np.ix_(va, tr)], _recode(y[va], coding))
        np.testing.assert_array_equal(sel.error, ref.error)
        assert (sel.lambda_min, sel.lambda_1se) == (ref.lambda_min, ref.lambda_1se)
        one_class = validation_curve(path, K[np.ix_(va[:3], tr)], [_CODINGS[coding][1]] * 3)   # one class is fine
        assert np.isfinite(one_class.error).all()
    with pytest.raises(ValueError, match=r"The 'y_val' parameter of validation_curve must hold labels among the "
                                         r"classes \['neg', 'pos'\] of the path's training labels\. Got 30 other "
                                         r"label\(s\) \(e\.g\. -?1\.0\) instead"):
        validation_curve(svm_path(K[np.ix_(tr, tr)], _recode(y[tr], "strings")), K[np.ix_(va, tr)], y[va])
    with pytest.raises(ValueError, match=r"The 'y_val' parameter of validation_curve must hold labels among the "
                                         r"classes \[0, 1\].* \(e\.g\. 2\)"):
        validation_curve(svm_path(K[np.ix_(tr, tr)], _recode(y[tr], "0/1")), K[np.ix_(va, tr)],
                         np.r_[_recode(y[va][:-1], "0/1"), 2])
    with pytest.raises(ValueError, match=r"The 'y_val' parameter of validation_curve must contain only finite"):
        validation_curve(signed, K[np.ix_(va, tr)], np.r_[y[va][:-1], np.nan])
    with pytest.raises(ValueError, match=r"validation_curve: 'X_val' has 30 rows but 'y_val' has 29"):
        validation_curve(signed, K[np.ix_(va, tr)], y[va][:-1])
    # k-fold CV: the same folds (stratified on the coding) and the same errors
    cv_ref = cv_svm_path(K[np.ix_(tr, tr)], y[tr], n_folds=3, n_lambdas=12, rng=2)
    cv = cv_svm_path(K[np.ix_(tr, tr)], _recode(y[tr], "strings"), n_folds=3, n_lambdas=12, rng=2)
    np.testing.assert_array_equal(cv.fold_error, cv_ref.fold_error)
    np.testing.assert_array_equal(cv.path.classes, ["neg", "pos"])
    Xl, yl, Xu, _ = _moons_like(2, n=60)
    kw = dict(n_folds=3, n_lambdas=10, kernel=Kernel("rbf", sigma=0.4), graph=Graph(n_neighbors=5, weight="binary", power=1), gamma_ratio=2.0, rng=0)
    np.testing.assert_array_equal(cv_laplacian_svm_path(Xl, _recode(yl, "0/1"), Xu, **kw).fold_error,
                                  cv_laplacian_svm_path(Xl, yl, Xu, **kw).fold_error)


@pytest.mark.parametrize("labels, match", [
    (np.ones(6), r"must contain exactly two classes\. Got 1 class\(es\) \[1\.0\] instead"),
    (np.array(["a", "b", "c", "a", "b", "c"]), r"must contain exactly two classes\. Got 3 class\(es\) \['a', 'b', 'c'\]"),
    (np.array([0.0, 1, np.nan, 0, 1, 0]), r"must contain only finite values \(no NaN or inf\)\. Got 1 non-finite"),
    (np.array([0, 1, None, 0, 1, 0], dtype=object), r"must contain only finite values .* Got 1 missing labels"),
    (np.array([0, "b", 0, "b", 0, "b"], dtype=object), r"must hold labels of one kind \(numbers or strings\)"),
])
def test_paths_refuse_bad_labels_naming_the_argument(labels, match):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(6, 2))
    K = kernel_matrix(X, kernel="rbf", sigma=1.0)
    calls = {"svm_path": ("y", lambda: svm_path(K, labels)),
             "cv_svm_path": ("y", lambda: cv_svm_path(K, labels, n_folds=2)),
             "laplacian_svm_path": ("y_labeled", lambda: laplacian_svm_path(X, labels, X[:0],
                                                                            kernel=Kernel("rbf", sigma=1.0))),
             "cv_laplacian_svm_path": ("y_labeled", lambda: cv_laplacian_svm_path(X, labels, X,
                                                                                  kernel=Kernel("rbf", sigma=1.0),
                                                                                  graph=Graph(n_neighbors=3, weight="binary", power=1),
                                                                                  n_folds=2))}
    if labels.dtype.kind not in "f" or np.isnan(labels.astype(float)).any():     # real targets are regression
        calls["rlsc_path"] = ("y", lambda: rlsc_path(K, labels))
    for func, (name, call) in calls.items():
        with pytest.raises((ValueError, TypeError), match=rf"The '{name}' parameter of {func} {match}"):
            call()
