"""Supervised RLSC (eq. 4 of Gieseke et al. 2011) against closed forms and scikit-learn."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.kernel_ridge import KernelRidge

from toolkit import kernel_matrix, rlsc


def _data(n=30, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=n) > 0, 1, -1)
    return X, y


@pytest.mark.parametrize("kernel,kw", [("linear", {}), ("rbf", {"sigma": 1.5}), ("polynomial", {"kernel_degree": 3})])
def test_closed_form_and_kernel_ridge(kernel, kw):
    X, y = _data()
    lam, l = 0.3, X.shape[0]
    fit = rlsc(X, y, kernel=kernel, lam=lam, **kw)
    K = kernel_matrix(X, kernel=kernel, **kw)
    c = np.linalg.solve(K + lam * l * np.eye(l), y)          # (1/l)||y-Kc||² + λ cᵀKc  ⇒  (K + λ l I) c = y
    np.testing.assert_allclose(fit.coefficients, c, rtol=1e-7, atol=1e-10)
    kr = KernelRidge(alpha=lam * l, kernel="precomputed").fit(K, y)
    np.testing.assert_allclose(fit.coefficients, kr.dual_coef_, rtol=1e-7, atol=1e-10)
    Xt, _ = _data(10, seed=1)
    Kt = kernel_matrix(Xt, X, kernel=kernel, **kw)
    np.testing.assert_allclose(fit.decision_function(Xt), kr.predict(Kt), rtol=1e-7, atol=1e-10)
    obj = np.sum((y - K @ c) ** 2) / l + lam * c @ K @ c
    assert fit.objective == pytest.approx(obj, rel=1e-9)


def test_many_lambdas_from_one_factorisation():
    X, y = _data()
    fit = rlsc(X, y, lam=1.0)
    for lam in [2.0**-8, 0.5, 16.0]:
        np.testing.assert_allclose(fit.coef(lam), rlsc(X, y, lam=lam).coefficients, rtol=1e-8, atol=1e-12)
        np.testing.assert_allclose(fit.decision_function(X, lam=lam), rlsc(X, y, lam=lam).decision_function(X),
                                   rtol=1e-8, atol=1e-12)


def test_rlsc_and_rlsc_path_solve_with_the_one_spectral_solver():
    """rlsc (unit weights, shift λ l) and rlsc_path (weights 1/l, shift λ) are one weighted RLS
    from one eigendecomposition: c(μ) = D V diag(1/(s + μ)) Vᵀ D y."""
    from toolkit import rlsc_path
    from toolkit.rls._spectral import coefficients, weighted_eigh
    X, y = _data(25)
    K = kernel_matrix(X, kernel="rbf", sigma=1.5)
    l = K.shape[0]
    w = np.random.default_rng(2).uniform(0.2, 2.0, size=l)
    for weights in (np.full(l, 1.0 / l), w):
        s, V, d = weighted_eigh(K, weights)
        assert s.min() >= 0
        np.testing.assert_allclose((V * s) @ V.T, d[:, None] * K * d[None, :], atol=1e-12)
        grid = np.array([1.0, 0.1, 1e-3])
        C = coefficients(s, V, y.astype(float), grid, d)
        for c, mu in zip(C, grid):                            # (W K + μ I) c = W y
            np.testing.assert_allclose(c, np.linalg.solve(weights[:, None] * K + mu * np.eye(l), weights * y),
                                       rtol=1e-7, atol=1e-10)
        np.testing.assert_allclose(coefficients(s, V, y.astype(float), 0.1, d), C[1], rtol=1e-12, atol=1e-14)
    fit, path = rlsc(K, y, kernel="precomputed", lam=0.05), rlsc_path(K, y)
    for lam in (0.05, 0.3, 1e-4):
        np.testing.assert_allclose(fit.coef(lam), path.coef(lam), rtol=1e-8, atol=1e-11)


def test_offset_is_an_appended_constant_feature():
    X, y = _data()
    X = X + 3.0
    a = rlsc(X, y, lam=0.1, offset=True)
    b = rlsc(np.hstack([X, np.ones((X.shape[0], 1))]), y, lam=0.1)
    np.testing.assert_allclose(a.coefficients, b.coefficients, rtol=1e-8)
    Xt = X[:5]
    np.testing.assert_allclose(a.decision_function(Xt), b.decision_function(np.hstack([Xt, np.ones((5, 1))])),
                               rtol=1e-8)


def test_label_coding_and_precomputed():
    X, y = _data()
    ys = np.where(y > 0, "spam", "ham")
    fit = rlsc(X, ys, lam=0.5)
    assert set(fit.predict(X)) <= {"spam", "ham"}
    assert list(fit.classes) == ["ham", "spam"]
    pre = rlsc(X @ X.T, ys, kernel="precomputed", lam=0.5)
    np.testing.assert_allclose(pre.coefficients, fit.coefficients, rtol=1e-8)
    np.testing.assert_array_equal(pre.predict(X[:7] @ X.T), fit.predict(X[:7]))
    assert "RLSC" in fit.summary() and "<table>" in fit._repr_html_()


@pytest.mark.parametrize("args,kwargs,match", [
    ((np.zeros((3, 2)), [1, 1, 1]), {}, "exactly two classes"),
    ((np.zeros((3, 2)), [0, 1, 2]), {}, "exactly two classes"),
    ((np.zeros((3, 2)), [0, 1, 1]), {"lam": 0.0}, "'lam' parameter of rlsc"),
    ((np.array([[0.0], [np.nan]]), [0, 1]), {}, "finite"),
    ((np.zeros((3, 2)), [0, 1]), {}, "rows"),
    ((np.eye(3)[:2], [0, 1]), {"kernel": "precomputed"}, "precomputed"),
    ((np.zeros((3, 2)), [0, 1, 1]), {"kernel": "rbf"}, "sigma"),
    ((np.zeros((3, 2)), [0, 1, 1]), {"kernel": "cosine"}, "'kernel' parameter"),
])
def test_bad_input(args, kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        rlsc(*args, **kwargs)
