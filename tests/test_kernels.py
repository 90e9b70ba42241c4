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


def _exp_rounded_once(x):
    """exp(x) to float64 from extended precision (long double): the correctly rounded value but for rare
    double roundings. Not np.exp, itself up to one ulp off: NumPy 1.26's AVX-512 exp differs from the
    correctly rounded value at about a fifth of the points below, NumPy 2's at a twentieth. Where long
    double is float64, np.exp."""
    if np.finfo(np.longdouble).eps >= np.finfo(np.float64).eps:
        return np.exp(x)
    return np.exp(np.asarray(x, dtype=np.longdouble)).astype(np.float64)


def test_compiled_float64_exp_within_one_ulp_of_exp():
    """The RBF kernel's own float64 exp (a vectorised polynomial, kernels._rbf_exp_rows) against
    exp rounded once to float64 (:func:`_exp_rounded_once`) on the whole range of an RBF exponent;
    positive exponents (round-off) give exp(0) = 1; a block with a row stride wider than its rows
    (K[lo:hi, lo:]) touches nothing outside it."""
    rng = np.random.default_rng(8)
    x = np.r_[-np.linspace(0.0, 760.0, 400_001), -rng.random(100_000) * 40.0, -rng.random(1000) * 1e-9,
              -np.log(2.0) * np.arange(0, 1030), 1e-12, 3.0]
    G = x[None, :].copy()
    kernels._rbf_exp_block(G, np.zeros(1), np.zeros(len(x)))
    want = _exp_rounded_once(np.minimum(x, 0.0))
    normal = want >= 4 * np.finfo(float).tiny     # below about 3e-308 the result is 0
    ulp = np.spacing(want[normal])
    assert np.max(np.abs(G[0, normal] - want[normal]) / ulp) <= 1.0 + 1e-9
    assert np.max(np.abs(G[0, ~normal] - want[~normal])) <= 4 * np.finfo(float).tiny and np.all(G[0] >= 0)
    assert G[0, -1] == G[0, -2] == 1.0
    # the exponent is a[i] + c[j] + G[i, j], summed in that order
    a, c, B = -rng.random(3), -rng.random(4), -rng.random((3, 4)) * 30
    out = B.copy()
    kernels._rbf_exp_block(out, a, c)
    np.testing.assert_allclose(out, np.exp((a[:, None] + c[None, :]) + B), rtol=3e-16, atol=0)
    K = -rng.random((6, 6)) * 30
    before = K.copy()
    kernels._rbf_exp_block(K[2:5, 2:], a, c)
    np.testing.assert_allclose(K[2:5, 2:], np.exp((a[:, None] + c[None, :]) + before[2:5, 2:]), rtol=3e-16)
    outside = np.ones((6, 6), bool)
    outside[2:5, 2:] = False
    np.testing.assert_array_equal(K[outside], before[outside])


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("block_size", [None, 1, 7])
def test_sparse_scatter_product_equals_brute_force(dtype, block_size):
    # many features, few non-zeros: both factors stay sparse and the compiled scatter forms X Zᵀ
    # (the Gram case in row blocks writing only columns >= the block's first row)
    rng = np.random.default_rng(3)
    X = sp.random(40, 500, density=0.02, random_state=4, format="csr")
    Z = sp.random(25, 500, density=0.02, random_state=5, format="csr")
    X.data *= 3.0
    kept_x, kept_z = kernels._operands(X, Z, False)
    assert sp.issparse(kept_x) and sp.issparse(kept_z)
    Xd, Zd = X.toarray(), Z.toarray()
    tol = dict(rtol=1e-12, atol=1e-13) if dtype == "float64" else dict(rtol=2e-6, atol=2e-6)
    for A, B, dA, dB in [(X, Z, Xd, Zd), (X, None, Xd, Xd)]:
        K = kernels.rbf_kernel(A, B, sigma=1.3, block_size=block_size, dtype=dtype)
        assert K.dtype == np.dtype(dtype)
        np.testing.assert_allclose(K, brute_rbf(dA, dB, 1.3), **tol)
        np.testing.assert_allclose(kernels.linear_kernel(A, B, dtype=dtype), dA @ dB.T, **tol)
    # unsorted and duplicated entries (non-canonical CSR): duplicates add up, as in SciPy
    unsorted = sp.csr_matrix((np.r_[1.0, 2.0, 5.0], np.r_[7, 3, 7], np.r_[0, 3, 3]), shape=(2, 500))
    assert not unsorted.has_canonical_format
    np.testing.assert_allclose(kernels.linear_kernel(unsorted, X, dtype=dtype), unsorted.toarray() @ Xd.T, **tol)
    np.testing.assert_allclose(kernels.linear_kernel(X, unsorted.tocsc(), dtype=dtype), Xd @ unsorted.toarray().T, **tol)


def test_sparse_product_plan_follows_the_cost_model():
    # dense-ish sparse input of few features: one dense GEMM is cheaper than the scatter
    rng = np.random.default_rng(6)
    dense_ish = sp.csr_matrix(rng.normal(size=(60, 8)))
    X, Z = kernels._operands(dense_ish, dense_ish, True)
    assert isinstance(X, np.ndarray) and Z is X
    # few non-zeros per feature: the scatter's Σ_f nnz(f)² times the ratio is below n m d
    sparse = sp.random(60, 2000, density=0.005, random_state=7, format="csr")
    counts = np.bincount(sparse.indices, minlength=2000).astype(float)
    assert kernels.SCATTER_COST_RATIO * counts @ counts < 60 * 60 * 2000
    X, Z = kernels._operands(sparse, sparse, True)
    assert sp.issparse(X) and Z is X
    # one sparse factor: the other is dense, the sparse one densified when small (one BLAS call)
    X, Z = kernels._operands(sparse, sparse.toarray(), False)
    assert isinstance(X, np.ndarray) and isinstance(Z, np.ndarray)


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


@pytest.mark.parametrize("X", [np.ones((1, 3)), np.ones((5, 3))], ids=["one row", "identical rows"])
def test_width_heuristic_refuses_a_zero_width(X):
    # a zero width would make every RBF kernel the identity, silently
    with pytest.raises(ValueError, match=r"'X' parameter of width_heuristic needs at least two distinct rows"):
        kernels.width_heuristic(X)


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


# ----------------------------------------------------------------------------- float32
def _brute_rbf(X, Z, sigma):
    D = ((X[:, None, :] - Z[None, :, :]) ** 2).sum(axis=2)
    return np.exp(-D / (2 * sigma ** 2))


@pytest.mark.parametrize("offset", [0.0, 1e3])
@pytest.mark.parametrize("cross", [False, True])
def test_float32_rbf_is_computed_in_float32_to_float32_accuracy(offset, cross):
    """float32 throughout, and within float32's resolution of K even for points far from the origin
    (the centring: without it, ||x||² ≈ 3e7 and the cancellation would leave ~2 correct digits)."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(300, 12)) + offset
    Z = (rng.normal(size=(70, 12)) + offset) if cross else None
    sigma = 2.0
    K32 = kernels.rbf_kernel(X, Z, sigma=sigma, dtype="float32")
    ref = _brute_rbf(X, X if Z is None else Z, sigma)
    assert K32.dtype == np.float32 and K32.shape == ref.shape
    np.testing.assert_allclose(K32, ref, rtol=0, atol=2e-6)
    if not cross:
        np.testing.assert_array_equal(K32, K32.T)
        np.testing.assert_array_equal(np.diagonal(K32), 1.0)


def test_float32_linear_polynomial_precomputed_and_sparse():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(50, 7))
    for kernel, kw in (("linear", {}), ("polynomial", dict(kernel_degree=3, coef0=1.0))):
        K32 = kernels.kernel_matrix(X, kernel=kernel, dtype="float32", **kw)
        K64 = kernels.kernel_matrix(X, kernel=kernel, **kw)
        assert K32.dtype == np.float32 and K64.dtype == np.float64
        np.testing.assert_allclose(K32, K64, rtol=2e-6, atol=2e-6 * np.abs(K64).max())
    S = sp.random(80, 5000, density=0.002, random_state=1, format="csr")     # too wide to densify
    K32 = kernels.rbf_kernel(S, sigma=1.0, dtype=np.float32)
    assert K32.dtype == np.float32
    np.testing.assert_allclose(K32, kernels.rbf_kernel(S.toarray(), sigma=1.0), atol=2e-6)
    P = kernels.kernel_matrix(X[:4] @ X[:4].T, kernel="precomputed", dtype="float32")
    assert P.dtype == np.float32


def test_float32_refuses_what_it_cannot_hold_and_names_dtype():
    X = np.array([[1e20, 0.0], [-1e20, 0.0], [0.0, 1.0]])    # fine in float64, beyond float32's range
    with pytest.raises(ValueError, match=r"'X' parameter of rbf_kernel has rows too large for float32"):
        kernels.rbf_kernel(X, sigma=1.0, dtype="float32")
    with pytest.raises(ValueError, match=r"'X' parameter of linear_kernel has rows too large for float32"):
        kernels.linear_kernel(X, dtype="float32")
    # far from the origin but close together: the centred float32 kernel is exact enough
    np.testing.assert_allclose(kernels.rbf_kernel(X[:1] + [[0.0], [1.0]], sigma=1.0, dtype="float32"),
                               [[1.0, np.exp(-0.5)], [np.exp(-0.5), 1.0]], rtol=1e-6)
    with pytest.raises(ValueError, match=r"'dtype' parameter of kernel_matrix must be one of 'float64', 'float32'. "
                                         r"Got 'float16'"):
        kernels.kernel_matrix(X, dtype="float16")
    with pytest.raises(ValueError, match=r"'dtype' parameter of rbf_kernel"):
        kernels.rbf_kernel(X, sigma=1.0, dtype=int)


@pytest.mark.parametrize("kernel", ["linear", "polynomial", "rbf"])
@pytest.mark.parametrize("block_size", [0, -3, 2.5])
def test_block_size_must_be_a_positive_integer_for_every_kernel(kernel, block_size):
    """A zero, negative or fractional block size is refused by name, whichever kernel is asked for
    (it used to pass silently for linear and polynomial, and fail inside range() for rbf)."""
    from toolkit.kernels import kernel_matrix, rbf_kernel

    X = np.arange(12.0).reshape(4, 3)
    kind = TypeError if isinstance(block_size, float) else ValueError
    with pytest.raises(kind, match=r"'block_size' parameter of kernel_matrix"):
        kernel_matrix(X, kernel=kernel, sigma=1.0, block_size=block_size)
    with pytest.raises(kind, match=r"'block_size' parameter of rbf_kernel"):
        rbf_kernel(X, sigma=1.0, block_size=block_size)
    np.testing.assert_allclose(kernel_matrix(X, kernel=kernel, sigma=1.0, block_size=1),
                               kernel_matrix(X, kernel=kernel, sigma=1.0))


def test_float32_element_wise_pass_equals_numpy_passes_bit_for_bit():
    """The compiled float32 pass (g + a_i) + c_j clipped at 0 (issue 27: four NumPy passes were 2.1x
    the floor on small cross kernels) gives NumPy's three in-place passes' bits, then the same exp,
    on contiguous blocks and on the strided upper blocks of the Gram case; a NaN stays NaN."""
    from toolkit.kernels import _rbf_chunk
    rng = np.random.default_rng(5)
    K = (rng.normal(size=(40, 50)) * 3).astype(np.float32)
    K[3, 7] = np.nan
    a = (-rng.random(40) * 4).astype(np.float32)
    for block, c in ((K.copy(), (-rng.random(50) * 4).astype(np.float32)),
                     (K.copy()[5:20, 5:], (-rng.random(45) * 4).astype(np.float32))):
        want = block.copy()
        want += a[:len(want), None]
        want += c[None, :]
        np.minimum(want, 0.0, out=want)
        np.exp(want, out=want)
        _rbf_chunk(block, a[:len(block)], c)
        assert block.dtype == np.float32
        np.testing.assert_array_equal(block, want)      # NaN in the same places (the first block's [3, 7])
