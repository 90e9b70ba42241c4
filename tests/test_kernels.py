"""Kernels against brute-force formulas, dense and sparse, plus validation."""
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from toolkit import kernels


def brute_rbf(X, Z, sigma):
    out = np.empty((len(X), len(Z)))
    for i, x in enumerate(X):
        for j, z in enumerate(Z):
            out[i, j] = np.exp(-np.sum((x - z) ** 2) / (2 * sigma**2))
    return out


def brute_poly(X, Z, kernel_degree, coef0):
    return np.array([[(x @ z + coef0) ** kernel_degree for z in Z] for x in X])


finite = st.floats(-10, 10, allow_nan=False, allow_infinity=False)
shapes = st.tuples(st.integers(1, 8), st.integers(1, 8), st.integers(1, 5))


@given(shapes.flatmap(lambda s: st.tuples(arrays(float, (s[0], s[2]), elements=finite),
                                          arrays(float, (s[1], s[2]), elements=finite))),
       st.floats(0.1, 20.0))
def test_rbf_matches_brute_force(XZ, sigma):
    X, Z = XZ
    np.testing.assert_allclose(kernels.rbf_kernel(X, Z, sigma=sigma), brute_rbf(X, Z, sigma), rtol=1e-9, atol=1e-12)


@given(shapes.flatmap(lambda s: arrays(float, (s[0], s[2]), elements=finite)), st.floats(0.1, 20.0))
def test_rbf_gram_symmetric_psd_unit_diagonal(X, sigma):
    K = kernels.rbf_kernel(X, sigma=sigma)
    assert np.array_equal(K, K.T)
    np.testing.assert_array_equal(np.diag(K), 1.0)
    np.testing.assert_allclose(K, brute_rbf(X, X, sigma), rtol=1e-9, atol=1e-12)
    assert np.linalg.eigvalsh(K).min() > -1e-8 * len(X)


@given(shapes.flatmap(lambda s: st.tuples(arrays(float, (s[0], s[2]), elements=finite),
                                          arrays(float, (s[1], s[2]), elements=finite))),
       st.integers(1, 4), st.floats(0.0, 3.0))
def test_polynomial_and_linear_match_brute_force(XZ, kernel_degree, coef0):
    X, Z = XZ
    np.testing.assert_allclose(kernels.polynomial_kernel(X, Z, kernel_degree=kernel_degree, coef0=coef0),
                               brute_poly(X, Z, kernel_degree, coef0), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(kernels.linear_kernel(X, Z), brute_poly(X, Z, 1, 0.0), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kernel", ["linear", "rbf", "polynomial"])
def test_sparse_input_equals_dense(kernel):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 12)) * (rng.random((30, 12)) < 0.3)
    Z = rng.normal(size=(7, 12)) * (rng.random((7, 12)) < 0.3)
    dense = kernels.kernel_matrix(X, Z, kernel=kernel, sigma=2.0)
    for a, b in [(sp.csr_matrix(X), sp.csr_matrix(Z)), (sp.csr_matrix(X), Z), (X, sp.csc_matrix(Z))]:
        np.testing.assert_allclose(kernels.kernel_matrix(a, b, kernel=kernel, sigma=2.0), dense, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(kernels.kernel_matrix(sp.csr_matrix(X), kernel=kernel, sigma=2.0),
                               kernels.kernel_matrix(X, kernel=kernel, sigma=2.0), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("block_size", [1, 3, 7, 1000])
def test_blockwise_cross_kernel_independent_of_block_size(block_size):
    rng = np.random.default_rng(1)
    X, Z = rng.normal(size=(17, 4)), rng.normal(size=(9, 4))
    np.testing.assert_allclose(kernels.rbf_kernel(X, Z, sigma=1.5, block_size=block_size), brute_rbf(X, Z, 1.5),
                               rtol=1e-12, atol=1e-14)


def test_callable_kernel_and_its_shape_check():
    X = np.arange(6.0).reshape(3, 2)
    np.testing.assert_allclose(kernels.kernel_matrix(X, kernel=lambda A, B: A @ B.T), X @ X.T)
    with pytest.raises(ValueError, match=r"shape \(3, 3\)"):
        kernels.kernel_matrix(X, kernel=lambda A, B: np.ones((2, 2)))


def test_width_heuristic_is_bounding_box_diagonal():
    rng = np.random.default_rng(2)
    X = rng.uniform(-3, 5, size=(50, 6))
    expected = np.sqrt(np.sum((X.max(0) - X.min(0)) ** 2))
    assert kernels.width_heuristic(X) == pytest.approx(expected)
    assert kernels.width_heuristic(sp.csr_matrix(X)) == pytest.approx(expected)


@pytest.mark.parametrize("call, match", [
    (lambda: kernels.rbf_kernel(np.ones((2, 2)), sigma=0.0), r"'sigma' parameter of rbf_kernel .* Got 0.0"),
    (lambda: kernels.rbf_kernel(np.ones((2, 2)), sigma=-1.0), r"'sigma'.*\(0.0, inf\)"),
    (lambda: kernels.kernel_matrix(np.ones((2, 2)), kernel="rbf"), r"'sigma' parameter of kernel_matrix is required"),
    (lambda: kernels.kernel_matrix(np.ones((2, 2)), kernel="gauss"), r"'kernel'.*'linear', 'rbf', 'polynomial'.*'gauss'"),
    (lambda: kernels.linear_kernel(np.ones((2, 2)), np.ones((2, 3))), r"'X' has 2 features but 'Z' has 3"),
    (lambda: kernels.linear_kernel(np.array([[1.0, np.nan]])), r"'X'.*finite"),
    (lambda: kernels.polynomial_kernel(np.ones((2, 2)), kernel_degree=0), r"'kernel_degree'.*\[1, inf\)"),
    (lambda: kernels.linear_kernel(np.ones(3)), r"'X'.*2-d array"),
])
def test_bad_input_names_the_argument(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()
