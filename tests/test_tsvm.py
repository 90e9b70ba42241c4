"""The transductive SVM (CCCP, ramp loss) against independent references.

The convex step of CCCP is compared with the primal QP solved by SLSQP in feature space; the full
solver with what the maths fixes: the balancing constraint, the monotone objective, the
local minimality of a fixed point, the supervised SVM at C* = 0, and kernel-form invariance.
"""
import warnings

import numpy as np
import pytest
from scipy.optimize import minimize

import toolkit
from toolkit.kernels import kernel_matrix
from toolkit.transductive import TSVMResult, tsvm
from toolkit.transductive._cccp import _convex_step


def two_clusters(n=60, seed=0, shift=2.5, stretch=3.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    X[: n // 2, 0] -= shift
    X[n // 2:, 0] += shift
    X[:, 1] *= stretch
    y = np.r_[-np.ones(n // 2), np.ones(n - n // 2)]
    return X, y


def ramp_objective_in_w(w, Xl, yl, Xu, offset, C, C_star, s):
    """J of Collobert et al. (2006) eq. 5 for f(x) = ⟨w, x − mean(X_u)⟩ + offset (linear kernel)."""
    mu = Xu.mean(axis=0)
    fl = (Xl - mu) @ w + offset
    fu = (Xu - mu) @ w + offset
    ramp = np.minimum(1 - s, np.maximum(0, 1 - fu)) + np.minimum(1 - s, np.maximum(0, 1 + fu))
    return 0.5 * w @ w + C * np.maximum(0, 1 - yl * fl).sum() + C_star * ramp.sum()


def test_convex_step_matches_the_primal_qp_by_slsqp():
    rng = np.random.default_rng(3)
    l, u = 5, 7
    X = rng.normal(size=(l + u, 2))
    yl = np.array([1.0, -1, 1, -1, 1])
    offset, C, C_star = 0.2, 0.7, 0.4
    mu = X[l:].mean(axis=0)
    Xc = X - mu
    Kc = Xc @ Xc.T
    y_dup = np.r_[yl, np.ones(u), -np.ones(u)]
    point = np.r_[np.arange(l), np.arange(l, l + u), np.arange(l, l + u)]
    upper = np.r_[np.full(l, C), np.full(2 * u, C_star)]
    beta = np.r_[np.zeros(l), np.where(rng.random(2 * u) < 0.4, C_star, 0.0)]
    margin = 1 - y_dup * offset
    alpha, v, g, _, gap, _ = _convex_step(Kc, y_dup, point, upper, margin, beta, np.zeros(l + 2 * u), 1e-10, 20000)
    w_dual = Xc.T @ v

    # primal: min ½|w|² + Σ C_i ξ_i + Σ β_i y_i ⟨w, x̃_p(i)⟩, ξ_i ≥ 0, ξ_i ≥ m_i − y_i ⟨w, x̃_p(i)⟩
    Z = y_dup[:, None] * Xc[point]
    m2 = len(y_dup)

    def primal(z):
        w, xi = z[:2], z[2:]
        return 0.5 * w @ w + upper @ xi + (beta * (Z @ w)).sum()

    cons = [{"type": "ineq", "fun": lambda z: z[2:]},
            {"type": "ineq", "fun": lambda z: z[2:] - (margin - Z @ z[:2])}]
    ref = minimize(primal, np.r_[np.zeros(2), np.maximum(margin, 0)], constraints=cons, method="SLSQP",
                   options={"ftol": 1e-14, "maxiter": 2000})
    assert ref.success
    hinge = lambda w: 0.5 * w @ w + (upper * np.maximum(0, margin - Z @ w)).sum() + (beta * (Z @ w)).sum()
    assert hinge(w_dual) == pytest.approx(ref.fun, rel=1e-7, abs=1e-9)
    np.testing.assert_allclose(w_dual, ref.x[:2], atol=1e-5)   # strictly convex in w: w is fixed
    assert abs(gap) < 1e-7


def test_balancing_constraint_holds_exactly():
    X, y = two_clusters(80, seed=1)
    lab = np.r_[0, 1, 2, 40, 41]           # 3 negatives, 2 positives
    unl = np.setdiff1d(np.arange(80), lab)
    for balance in (None, 0.3, 0.5):
        fit = tsvm(X[lab], y[lab], X[unl], C=1.0, C_star=0.5, balance=balance)
        b_c = 0.4 if balance is None else balance
        assert fit.decision_function(X[unl]).mean() == pytest.approx(2 * b_c - 1, abs=1e-10)
        assert fit.params["balance"] == pytest.approx(b_c)


def test_cccp_decreases_the_ramp_objective_and_ends_at_a_local_minimum():
    X, y = two_clusters(60, seed=2, shift=1.5)
    lab = np.r_[0, 1, 30, 31]
    unl = np.setdiff1d(np.arange(60), lab)
    C, C_star, s = 2.0, 0.3, -0.3
    fit = tsvm(X[lab], y[lab], X[unl], C=C, C_star=C_star, s=s, tol=1e-11)
    assert fit.status == 0 and fit.converged
    J = fit.history["objective"]
    assert np.all(np.diff(J) <= 1e-7 * abs(J[0]))
    w = np.vstack([X[lab], X[unl]]).T @ fit.coefficients  # the primal weights (training points labelled first)
    offset = 0.0                                         # balance 2 of 4 positives
    J_star = ramp_objective_in_w(w, X[lab], y[lab], X[unl], offset, C, C_star, s)
    assert J_star == pytest.approx(fit.objective, rel=1e-9)
    rng = np.random.default_rng(0)
    for _ in range(200):
        d = rng.normal(size=2)
        d *= 1e-4 * (1 + np.linalg.norm(w)) / np.linalg.norm(d)
        assert ramp_objective_in_w(w + d, X[lab], y[lab], X[unl], offset, C, C_star, s) >= J_star - 1e-7


def test_no_unlabelled_weight_is_the_supervised_svm_with_the_balanced_offset():
    X, y = two_clusters(40, seed=4)
    lab = np.r_[0, 1, 2, 20, 21]
    unl = np.setdiff1d(np.arange(40), lab)
    fit = tsvm(X[lab], y[lab], X[unl], C=0.8, C_star=0.0, balance=0.5)
    assert fit.n_iter == 1 and fit.history["changed"][-1] == 0
    # reference: ½|w|² + C Σ max(0, 1 − y_i ⟨w, x_i − mean(X_u)⟩) by SLSQP with slacks
    Xc = X[lab] - X[unl].mean(axis=0)
    Z = y[lab][:, None] * Xc
    cons = [{"type": "ineq", "fun": lambda z: z[2:]}, {"type": "ineq", "fun": lambda z: z[2:] - (1 - Z @ z[:2])}]
    ref = minimize(lambda z: 0.5 * z[:2] @ z[:2] + 0.8 * z[2:].sum(), np.r_[0, 0, np.ones(5)], constraints=cons,
                   method="SLSQP", options={"ftol": 1e-14, "maxiter": 2000})
    np.testing.assert_allclose(np.vstack([X[lab], X[unl]]).T @ fit.coefficients, ref.x[:2], atol=1e-5)


def test_unlabelled_points_move_the_boundary_into_the_gap():
    # one label in the upper part of the left cluster, one in the lower part of the right one: the
    # supervised boundary (C* = 0) is tilted across both clusters; with C* > 0 CCCP turns it into the
    # low-density gap (a local method: from labels at the clusters' extremes it stays near the start)
    X, y = two_clusters(200, seed=0, shift=2.5, stretch=3.0)
    lab = np.r_[np.argsort(X[:100, 1])[70], 100 + np.argsort(X[100:, 1])[30]]
    unl = np.setdiff1d(np.arange(200), lab)
    sup = tsvm(X[lab], y[lab], X[unl], C=1.0, C_star=0.0)
    semi = tsvm(X[lab], y[lab], X[unl], C=1.0, C_star=0.1)
    err_sup = np.mean(sup.labels_unlabeled != y[unl])
    err_semi = np.mean(semi.labels_unlabeled != y[unl])
    assert err_sup > 0.15
    assert err_semi < 0.06
    assert semi.history["objective"][-1] < semi.history["objective"][0]


def test_precomputed_and_callable_kernels_give_the_same_model():
    X, y = two_clusters(50, seed=5)
    lab = np.r_[0, 1, 25, 26]
    unl = np.setdiff1d(np.arange(50), lab)
    Xt = np.vstack([X[lab], X[unl]])
    a = tsvm(X[lab], y[lab], X[unl], kernel="rbf", sigma=2.0, C=1.0, C_star=0.5)
    K = kernel_matrix(Xt, kernel="rbf", sigma=2.0)
    b = tsvm(K[:4], y[lab], K[4:], kernel="precomputed", C=1.0, C_star=0.5)
    c = tsvm(X[lab], y[lab], X[unl], kernel=lambda A, B: kernel_matrix(A, B, kernel="rbf", sigma=2.0), C=1.0,
             C_star=0.5)
    Xnew = np.random.default_rng(1).normal(size=(7, 2))
    fa = a.decision_function(Xnew)
    np.testing.assert_allclose(b.decision_function(kernel_matrix(Xnew, Xt, kernel="rbf", sigma=2.0)), fa, atol=1e-7)
    np.testing.assert_allclose(c.decision_function(Xnew), fa, atol=1e-7)
    assert a.objective == pytest.approx(b.objective, rel=1e-8)


def test_labels_keep_their_coding_and_the_result_is_deterministic():
    X, y = two_clusters(40, seed=6)
    lab = np.r_[0, 1, 20, 21]
    unl = np.setdiff1d(np.arange(40), lab)
    names = np.where(y > 0, "yes", "no")
    a = tsvm(X[lab], names[lab], X[unl], C=1.0, C_star=0.5)
    b = tsvm(X[lab], names[lab], X[unl], C=1.0, C_star=0.5)
    assert set(a.labels_unlabeled) <= {"yes", "no"}
    assert np.array_equal(a.coefficients, b.coefficients)
    assert np.mean(a.predict(X[unl]) == names[unl]) > 0.9
    assert isinstance(a, TSVMResult)


def test_solver_contract_callback_and_max_iter():
    X, y = two_clusters(60, seed=2, shift=1.5)
    lab = np.r_[0, 1, 30, 31]
    unl = np.setdiff1d(np.arange(60), lab)
    seen = []

    def stop(intermediate):
        seen.append((intermediate.n_iter, intermediate.objective, intermediate.decision_function(X[:3]).shape))
        raise StopIteration

    fit = tsvm(X[lab], y[lab], X[unl], C=2.0, C_star=0.3, callback=stop)
    assert fit.status == 3 and not fit.converged and fit.n_iter == 1
    assert seen == [(1, pytest.approx(fit.objective), (3,))]
    full = tsvm(X[lab], y[lab], X[unl], C=2.0, C_star=0.3)
    assert full.n_iter >= 2, "the problem must need more than one CCCP iteration for this test"
    with pytest.warns(toolkit.ConvergenceWarning, match="max_iter"):
        short = tsvm(X[lab], y[lab], X[unl], C=2.0, C_star=0.3, max_iter=1)
    assert short.status == 2 and not short.converged


@pytest.mark.parametrize("kwargs, match", [
    ({"C": 0.0}, "'C' parameter"),
    ({"C_star": -1.0}, "'C_star' parameter"),
    ({"s": 1.0}, "'s' parameter"),
    ({"balance": 1.0}, "'balance' parameter"),
    ({"kernel": "rbf"}, "'sigma' parameter"),
    ({"kernel": "cosine"}, "'kernel' parameter"),
    ({"max_iter": 0}, "'max_iter' parameter"),
])
def test_bad_parameters_are_named(kwargs, match):
    X, y = two_clusters(20)
    with pytest.raises(ValueError, match=match):
        tsvm(X[[0, 10]], y[[0, 10]], X[1:10], **kwargs)


def test_bad_data_is_named():
    X, y = two_clusters(20)
    with pytest.raises(ValueError, match="exactly two classes"):
        tsvm(X[:3], np.array([0, 1, 2]), X[3:])
    with pytest.raises(ValueError, match="'X_unlabeled'"):
        tsvm(X[[0, 10]], y[[0, 10]], X[:0])
    bad = X[1:10].copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="X_unlabeled"):
        tsvm(X[[0, 10]], y[[0, 10]], bad)
    with pytest.raises(ValueError, match="features"):
        tsvm(X[[0, 10]], y[[0, 10]], np.ones((5, 3)))


def test_the_tsvm_method_takes_c_star_in_units_of_one_over_u():
    from toolkit._methods import get_method
    from toolkit.selection import CachedKernel

    X, y = two_clusters(60, seed=2, shift=1.5)
    lab = np.r_[0, 1, 30, 31]
    unl = np.setdiff1d(np.arange(60), lab)
    model = get_method("tsvm").fit(X[lab], y[lab], X[unl], kernel=CachedKernel(kernel="linear"), rng=0, C=2.0,
                                   C_star_u=14.0)
    direct = tsvm(X[lab], y[lab], X[unl], C=2.0, C_star=14.0 / 56)
    np.testing.assert_allclose(model.decision_function(X), direct.decision_function(X), rtol=1e-12)
    assert model.params["C_star"] == pytest.approx(0.25)
    with pytest.raises(ValueError, match="'C_star_u' parameter"):
        get_method("tsvm").fit(X[lab], y[lab], X[unl], kernel=CachedKernel(kernel="linear"), rng=0, C_star_u=-1.0)


def test_result_reports_itself():
    X, y = two_clusters(40, seed=6)
    fit = tsvm(X[[0, 20]], y[[0, 20]], X[1:20], C=1.0, C_star=0.5)
    text = fit.summary()
    assert "objective J (eq. 5)" in text and f"{fit.objective:.10g}" in text
    assert "<table" in fit._repr_html_()
