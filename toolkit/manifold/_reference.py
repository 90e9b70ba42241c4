"""Plain reference implementations of the manifold family (LapSVM / LapRLSC), kept for the tests.

Nothing here is fast on purpose; each one is independent of the production code it checks:

* :func:`knn_laplacian` -- ``L^p`` from a brute-force kNN "or" graph, ``scipy.sparse.csgraph``'s
  Laplacian and a dense matrix power;
* :func:`primal_objective` -- eq. (7) of Melacci & Belkin (2011) (or its squared-loss version,
  eq. 14) written out densely;
* :func:`lbfgs_reference` -- the minimum of eq. (7) by scipy's L-BFGS-B in the well-conditioned
  variables ``β = K^{1/2} α``;
* :func:`numpy_pcg` -- Algorithm 1 (PCG with the exact line search) written with NumPy array
  operations, the arithmetic of the solver before its iteration was compiled.
"""
from __future__ import annotations

import numpy as np
from scipy import optimize
from scipy.sparse import csgraph

from toolkit.manifold._core import exact_line_search

__all__ = ["knn_laplacian", "primal_objective", "lbfgs_reference", "numpy_pcg"]


def knn_laplacian(X, k, normalized, degree):
    """Independent Laplacian: brute-force kNN 'or' graph, scipy's csgraph.laplacian, dense power."""
    D = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    np.fill_diagonal(D, np.inf)
    A = np.zeros_like(D)
    for i in range(len(X)):
        A[i, np.argsort(D[i], kind="stable")[:k]] = 1
    A = np.maximum(A, A.T)
    return np.linalg.matrix_power(csgraph.laplacian(A, normed=normalized), degree)


def primal_objective(K, L, y, alpha, b, gA, gI, loss="squared_hinge"):
    """eq. (7) (or its squared-loss version) written out densely."""
    l = len(y)
    f = K @ alpha + b
    r = 1 - y * f[:l]
    r = np.maximum(r, 0) if loss == "squared_hinge" else r
    return 0.5 * (r @ r + gA * alpha @ K @ alpha + gI * f @ L @ f)


def lbfgs_reference(K, L, y, gA, gI, intercept=True, loss="squared_hinge"):
    """Minimise eq. (7) with L-BFGS in the well-conditioned variables β = K^{1/2} α (K = V diag(w) Vᵀ);
    ``intercept=False``: with b fixed at 0; ``loss="squared"``: LapRLSC's objective."""
    w, V = np.linalg.eigh(K)
    keep = w > 1e-10 * w.max()
    V, s = V[:, keep], np.sqrt(w[keep])
    R = V * s                                      # f = R β + b with α = V diag(1/s) β
    l = len(y)

    def fun(z):
        b, beta = (z[0] if intercept else 0.0), z[1:]
        f = R @ beta + b
        m = 1 - y * f[:l]
        m = np.maximum(m, 0) if loss == "squared_hinge" else m
        Lf = L @ f
        val = 0.5 * (m @ m + gA * beta @ beta + gI * f @ Lf)
        gf = gI * Lf
        gf[:l] -= y * m
        return val, np.r_[gf.sum() if intercept else 0.0, R.T @ gf + gA * beta]

    res = optimize.minimize(fun, np.zeros(R.shape[1] + 1), jac=True, method="L-BFGS-B",
                            options={"maxiter": 50000, "maxcor": 50, "ftol": 1e-16, "gtol": 1e-12})
    return res.fun


def numpy_pcg(K, L, Y, gA, gI, iters, hinge=True, product=None):
    """Algorithm 1 written with NumPy array operations (the arithmetic of the solver before its
    iteration was compiled): objective, ||∇||, ||∇̂||, sqrt(∇̂ᵀ∇) per iteration, and (α, b).

    ``product(A)``: ``K @ A`` in ``K``'s precision (default ``K @ A``); passing the solver's own
    product isolates the iteration from the summation order of the product."""
    n, l = K.shape[0], Y.shape[0]
    if product is None:
        product = lambda A: K @ A.astype(K.dtype)     # noqa: E731
    prod = lambda A: np.asarray(product(A), dtype=float)     # noqa: E731
    alpha, b, f, Lf = np.zeros((n, 1)), np.zeros(1), np.zeros((n, 1)), np.zeros((n, 1))

    def gradient():
        r = f[:l] - Y
        if hinge:
            r = np.where(Y * f[:l] < 1, r, 0.0)
        g_a = gA * alpha + gI * Lf
        g_a[:l] += r
        return r.sum(0) + gI * Lf.sum(0), g_a

    def record(g_b, g_a, Kg):
        m = 1 - Y * f[:l]
        loss = (np.maximum(m, 0) ** 2 if hinge else m * m).sum()
        obj = 0.5 * (loss + gA * np.sum(alpha * (f - b)) + gI * np.sum(f * Lf))
        return [obj, np.sqrt(g_b @ g_b + np.sum(Kg * Kg)), np.sqrt(g_b @ g_b + np.sum(g_a * g_a)),
                np.sqrt(max(g_b @ g_b + np.sum(g_a * Kg), 0.0))]

    g_b, g_a = gradient()
    Kg = prod(g_a)
    d_b, d_a, Kd = -g_b, -g_a, -Kg
    denom_old = g_b * g_b + np.sum(g_a * Kg, 0)
    hist = [record(g_b, g_a, Kg)]
    for t in range(1, iters + 1):
        fd = Kd + d_b
        Lfd = L @ fd
        c0 = gA * np.sum((f - b) * d_a) + gI * np.sum(fd * Lf)
        c1 = gA * np.sum(d_a * Kd) + gI * np.sum(fd * Lfd)
        s, _ = exact_line_search(1 - Y[:, 0] * f[:l, 0], Y[:, 0] * fd[:l, 0], c0, c1, hinge)
        alpha, b, f, Lf = alpha + s * d_a, b + s * d_b, f + s * fd, Lf + s * Lfd
        if t % 50 == 0:
            f = prod(alpha) + b
            Lf = L @ f
        g_b_old, g_a_old = g_b, g_a
        g_b, g_a = gradient()
        Kg = prod(g_a)
        denom = g_b * g_b + np.sum(g_a * Kg, 0)
        rho = max((denom - (g_b * g_b_old + np.sum(Kg * g_a_old, 0)))[0] / denom_old[0], 0.0)
        denom_old = denom
        d_b, d_a, Kd = -g_b + rho * d_b, -g_a + rho * d_a, -Kg + rho * Kd
        if g_b @ d_b + np.sum(Kg * d_a) >= 0:
            d_b, d_a, Kd = -g_b, -g_a, -Kg
        hist.append(record(g_b, g_a, Kg))
    return np.array(hist), alpha, b
