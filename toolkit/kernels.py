"""Kernel functions k(x, z) and kernel matrices K(X, Z).

All kernels accept dense arrays or SciPy sparse matrices and return a dense
``(n_samples_X, n_samples_Z)`` array of ``dtype`` (float64 by default; float32 is computed in
float32 throughout, with single-precision BLAS, for half the memory and about half the time). The
matrix is filled in row blocks of at most ``block_size`` rows, so the temporary memory on top of the
output stays bounded for large n; the n × m product is one BLAS call per block, or, for two sparse
inputs with few non-zeros per feature, a compiled scatter straight into the dense output (chosen
by a cost model, ``SCATTER_COST_RATIO``). The RBF exponentials in float64 are a vectorised
polynomial within one ulp of the correctly rounded ``exp``.

The RBF kernel is eq. (19) of Gieseke et al. (2012), ``exp(-||x - z||² / (2 σ²))``,
and :func:`width_heuristic` is their data-derived width ``s`` (the diagonal of
the data's bounding box), so that ``sigma = 0.5 * width_heuristic(X)`` reads like
the paper's grid ``{0.1 s, 0.5 s, 1 s, 5 s, 10 s}``.
"""
from __future__ import annotations

import numbers

import numba
import numpy as np
import scipy.sparse as sp

from toolkit._numba_cache import njit
from toolkit._validation import (_as_real_array, check_features, check_matrix, check_option, check_row_norms,
                                 check_scalar)

__all__ = ["training_kernel", "stacked_training_kernel", "cross_kernel", "linear_kernel", "rbf_kernel", "polynomial_kernel", "kernel_matrix", "width_heuristic", "scale_width", "MEDIAN_SAMPLE",
           "KERNELS"]

#: Kernels by name. ``"precomputed"``: the inputs are kernel rows, as in scikit-learn: a training
#: "X" is the (n, n) kernel matrix of the training points, and new points are given by their
#: kernel values against the training points, an (m, n) array.
KERNELS = ("linear", "rbf", "polynomial", "precomputed")
#: Precisions of the kernel matrices.
DTYPES = ("float64", "float32")
_DEFAULT_BLOCK_BYTES = 256 * 2**20   # temporary memory per block of the RBF kernel


def _row_sq_norms(X):
    if sp.issparse(X):
        return np.asarray(X.multiply(X).sum(axis=1)).ravel()
    return np.einsum("ij,ij->i", X, X)


def check_dtype(dtype, func):
    """``np.float64`` or ``np.float32`` from ``dtype``; a clear error naming ``func`` otherwise."""
    if isinstance(dtype, str) or isinstance(dtype, (type, np.dtype)):
        try:
            name = np.dtype(dtype).name
        except TypeError:
            name = None
        if name in DTYPES:
            return np.dtype(name).type
    raise ValueError(f"The 'dtype' parameter of {func} must be one of 'float64', 'float32'. Got {dtype!r} instead.")


def _as_dtype(X, dtype):
    """``X`` (dense or sparse) stored as ``dtype``; no copy when it already is."""
    if sp.issparse(X):
        return X if X.dtype == dtype else X.astype(dtype)
    return np.asarray(X, dtype=dtype)


def _gram(X, Z, dtype=np.float64):
    """X @ Z.T as a dense array of ``dtype``: one BLAS call, or the compiled scatter when both are sparse."""
    if sp.issparse(X) and sp.issparse(Z):
        G = np.empty((X.shape[0], Z.shape[0]), dtype=dtype)
        _scatter_into(G, X, _by_feature(Z))
        return G
    G = X @ Z.T
    return np.ascontiguousarray(G, dtype=dtype)


@njit(parallel=True, cache=True)
def _scatter_gram(out, x_indptr, x_indices, x_data, z_indptr, z_indices, z_data, col_lo):  # pragma: no cover
    """out[i, j - col_lo] = Σ_f x[i, f] z[j, f] for the rows j >= col_lo of Z, with X in CSR and Z by feature
    (CSC: ``z_indptr`` over the features, ``z_indices`` the rows of Z, sorted). Row i of ``out`` stays in
    cache while every feature of x_i scatters the rows of Z that share it: Σ_f nnz_X(f) nnz_Z(f)
    multiply-adds in all, against n m d for the dense product."""
    for i in numba.prange(out.shape[0]):
        row = out[i]
        row[:] = 0
        for p in range(x_indptr[i], x_indptr[i + 1]):
            f = x_indices[p]
            v = x_data[p]
            start = z_indptr[f]
            stop = z_indptr[f + 1]
            if col_lo > 0:
                start += np.searchsorted(z_indices[start:stop], col_lo)
            for q in range(start, stop):
                row[z_indices[q] - col_lo] += v * z_data[q]


def _by_feature(Z):
    """``Z`` in CSC form with sorted row indices (the layout :func:`_scatter_gram` reads)."""
    Z = sp.csc_matrix(Z)
    if not Z.has_sorted_indices:
        Z = Z.sorted_indices()
    return Z


def _scatter_into(out, X, Z_by_feature, col_lo=0):
    """``out[...] = X @ Z[col_lo:].T`` for sparse ``X`` and ``Z`` given by :func:`_by_feature`."""
    X = sp.csr_matrix(X)
    Zc = Z_by_feature
    _scatter_gram(out, X.indptr, X.indices, X.data.astype(out.dtype, copy=False), Zc.indptr, Zc.indices,
                  Zc.data.astype(out.dtype, copy=False), col_lo)


def _blocks(n_rows, n_cols, block_size, itemsize=8):
    if block_size is None:
        block_size = max(1, _DEFAULT_BLOCK_BYTES // (itemsize * max(n_cols, 1)))
    for start in range(0, n_rows, block_size):
        yield slice(start, min(start + block_size, n_rows))


_CHUNK_BYTES = 2**20   # row chunks of ~1 MiB keep the element-wise passes in cache

def _checked_sq_norms(X, name, func):
    """Squared row norms of ``X``; raise, naming ``X``, when a kernel entry could overflow float64."""
    return check_row_norms(X, name, func)


def _check_finite_kernel(K, func, **params):
    """Raise when a kernel matrix holds inf or NaN (overflow of a finite input), naming the cause."""
    chunk = max(1, _CHUNK_BYTES // (8 * max(K.shape[1], 1)))
    for start in range(0, K.shape[0], chunk):
        if not np.isfinite(K[start:start + chunk]).all():
            settings = ", ".join(f"{k}={v!r}" for k, v in params.items())
            raise ValueError(f"The 'X' parameter of {func} gives a kernel matrix with non-finite entries "
                             f"(overflow of float64{' with ' + settings if settings else ''}). Scale the "
                             "features, e.g. standardise the columns.")


_THREADPOOLS = []


def thread_pools():
    """The process's ``threadpoolctl.ThreadpoolController``, created once: a fresh one (or
    ``threadpool_info`` / ``threadpool_limits``) rescans the loaded libraries every time, which costs
    as much as a small kernel matrix. NumPy's BLAS is loaded when this module is."""
    if not _THREADPOOLS:
        from threadpoolctl import ThreadpoolController

        _THREADPOOLS.append(ThreadpoolController())
    return _THREADPOOLS[0]


def _blas_threads():
    """Threads the BLAS library is set to use now (1 under ``threadpool_limits(1)``)."""
    counts = [pool.num_threads for pool in thread_pools().lib_controllers if pool.user_api == "blas"]
    return max(1, min(counts)) if counts else 1


_POOL = {}


def _thread_pool(threads):
    """A thread pool of this process (keyed by the pid: a forked child must not reuse its parent's)."""
    import os

    key = (os.getpid(), threads)
    if key not in _POOL:
        from concurrent.futures import ThreadPoolExecutor

        _POOL[key] = ThreadPoolExecutor(threads, thread_name_prefix="toolkit-kernel")
    return _POOL[key]


def _rbf_chunk(g, a, c):
    if g.dtype == np.float64:
        _rbf_exp_block(g, a, c)
        return
    rows, m = g.shape
    if rows and m and g.strides[1] == g.itemsize and g.strides[0] % g.itemsize == 0:
        # (g + a_i) + c_j clipped at 0 in one compiled pass (the same operations in the same order as
        # NumPy's three passes, so the same bits), then NumPy's SIMD float32 exp
        flat = np.lib.stride_tricks.as_strided(g, shape=((rows - 1) * (g.strides[0] // g.itemsize) + m,),
                                               strides=(g.itemsize,))
        _shift_clip_rows(flat, rows, m, g.strides[0] // g.itemsize, a, c)
    else:
        g += a[:, None]
        g += c[None, :]
        np.minimum(g, 0.0, out=g)          # round-off can make a squared distance negative
    np.exp(g, out=g)


@njit(nogil=True, cache=True)
def _shift_clip_rows(flat, rows, m, stride, a, c):  # pragma: no cover - compiled
    """Row i = flat[i * stride : i * stride + m]: row[j] <- min((row[j] + a[i]) + c[j], 0), in the
    array's precision (float32 here: the sums round as NumPy's in-place additions do)."""
    for i in range(rows):
        row = flat[i * stride:i * stride + m]
        ai = a[i]
        for j in range(m):
            x = (row[j] + ai) + c[j]
            row[j] = x * 0 if x > 0 else x        # np.minimum(x, 0): a NaN stays NaN


_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01     # ln 2 = _LN2_HI + _LN2_LO, _LN2_HI with 11 trailing zero bits
_LN2_LO = 1.90821492927058770002e-10
_ROUND = 6755399441055744.0              # 1.5 · 2⁵²: t + _ROUND rounds t to an integer held in the low bits


def _rbf_exp_block(G, a, c):
    """G[i, j] <- exp(min(a[i] + c[j] + G[i, j], 0)) in float64, for a block whose rows are contiguous
    (a row block of K, or of its upper part ``K[lo:hi, lo:]``)."""
    rows, m = G.shape
    if rows == 0 or m == 0:
        return
    if G.strides[1] != G.itemsize or G.strides[0] % G.itemsize:
        G[...] = np.exp(np.minimum(G + a[:, None] + c[None, :], 0.0))
        return
    stride = G.strides[0] // G.itemsize
    # the rows as one flat C-contiguous span of memory (row i at i * stride): the compiled loops see
    # contiguous rows and vectorise, which they do not for a strided two-dimensional view
    flat = np.lib.stride_tricks.as_strided(G, shape=((rows - 1) * stride + m,), strides=(G.itemsize,))
    _rbf_exp_rows(flat, rows, m, stride, a, c)


@njit(nogil=True, cache=True, fastmath={"contract"})
def _rbf_exp_rows(flat, rows, m, stride, a, c):  # pragma: no cover - compiled
    """Row i = flat[i * stride : i * stride + m]: row[j] <- exp(min(a[i] + c[j] + row[j], 0)) in float64,
    in two loops the compiler vectorises (NumPy's float64 ``exp`` is scalar on CPUs without AVX-512).

    exp(x) = 2^k e^r: k = round(x / ln 2) by the 1.5 · 2⁵² trick (whose bits then hold k), r = x - k ln 2
    in two parts (Cody & Waite), e^r by its Taylor polynomial of degree 13 (|r| <= ln 2 / 2: truncation
    4e-18), and 2^k added to the exponent bits of e^r in an integer loop. Within one ulp of exp rounded
    to float64 (tested; ``np.exp`` is itself up to an ulp off); results below about 3e-308 (x < -708.05)
    are 0 instead of subnormal."""
    scratch = np.empty(m)
    scratch_bits = scratch.view(np.int64)
    round_bits = np.array([_ROUND]).view(np.int64)[0]
    for i in range(rows):
        row = flat[i * stride:i * stride + m]
        ai = a[i]
        for j in range(m):
            x = min(ai + c[j] + row[j], 0.0)       # round-off can make a squared distance negative
            x = max(x, -720.0)
            t = x * _LOG2E + _ROUND
            k = t - _ROUND
            r = (x - k * _LN2_HI) - k * _LN2_LO
            p = 1.0 / 6227020800.0
            p = p * r + 1.0 / 479001600.0
            p = p * r + 1.0 / 39916800.0
            p = p * r + 1.0 / 3628800.0
            p = p * r + 1.0 / 362880.0
            p = p * r + 1.0 / 40320.0
            p = p * r + 1.0 / 5040.0
            p = p * r + 1.0 / 720.0
            p = p * r + 1.0 / 120.0
            p = p * r + 1.0 / 24.0
            p = p * r + 1.0 / 6.0
            p = p * r + 0.5
            p = p * r + 1.0
            row[j] = p * r + 1.0
            scratch[j] = t
        row_bits = row.view(np.int64)
        for j in range(m):
            k = scratch_bits[j] - round_bits
            row_bits[j] = (row_bits[j] + (k << 52)) if k > -1022 else 0


def _rbf_from_gram_inplace(G, a, c, threads=1):
    """G[i, j] <- exp(min(a[i] + c[j] + G[i, j], 0)), in place: with ``G = xᵀz / σ²`` (the product
    of the points pre-scaled by 1/σ²) and ``a = -||x||² / (2σ²)``, ``c = -||z||² / (2σ²)`` this is
    the RBF kernel, in four element-wise passes.

    Row chunks of about 1 MiB: each chunk is read from memory once and the four
    element-wise steps (NumPy's SIMD ufuncs, including ``exp``) run in cache. With
    ``threads > 1`` the chunks are shared among that many threads (NumPy's ufuncs release the
    GIL): the element-wise work then uses the cores the BLAS product used.
    """
    chunk = max(1, _CHUNK_BYTES // (G.itemsize * max(G.shape[1], 1)))
    starts = range(0, G.shape[0], chunk)
    if threads > 1 and len(starts) > 1:
        pending = [_thread_pool(threads).submit(_rbf_chunk, G[i:i + chunk], a[i:i + chunk], c) for i in starts]
        for job in pending:
            job.result()
        return
    for i in starts:
        _rbf_chunk(G[i:i + chunk], a[i:i + chunk], c)


@njit(parallel=True, cache=True)
def _mirror_upper_to_lower(K):  # pragma: no cover - compiled
    """K[i, j] <- K[j, i] for j < i, in 32 × 32 tiles so both reads and writes stay in cache; within a
    tile the source rows K[j, i0:i1] are read contiguously, which is faster than reading the tile's
    columns or using larger tiles."""
    n = K.shape[0]
    tile = 32
    n_tiles = (n + tile - 1) // tile
    for bi in numba.prange(n_tiles):
        i0 = bi * tile
        i1 = min(i0 + tile, n)
        for bj in range(bi + 1):
            j0 = bj * tile
            j1 = min(j0 + tile, n)
            for j in range(j0, j1):
                for i in range(max(i0, j + 1), i1):
                    K[i, j] = K[j, i]


#: Sparse inputs with at most this many features (and a dense copy of at most SPARSE_DENSE_MAX_BYTES)
#: may be densified for the kernel's product, when one dense GEMM is cheaper than the compiled sparse
#: scatter (see SCATTER_COST_RATIO); SciPy's sparse product, which builds the n × m output as a sparse
#: matrix, is never used for it (it is slower than densifying).
SPARSE_DENSE_MAX_FEATURES = 4096
SPARSE_DENSE_MAX_BYTES = 2 * 2**30
#: Cost of one multiply-add of the sparse scatter (:func:`_scatter_gram`) in multiply-adds of a dense
#: GEMM: two sparse inputs stay sparse when ``SCATTER_COST_RATIO * Σ_f nnz_X(f) nnz_Z(f) < n m d``.
#: A scatter's multiply-add, with its indirect addressing, costs about as much as this many of a
#: GEMM's on one core, in float64 and float32, on sparse binary features (SSL-book set 8);
#: ``python benchmarks/bench_kernels.py --low-rank`` times set 8's scatter against the dense GEMM.
SCATTER_COST_RATIO = 70


def _densifiable(X):
    return X.shape[1] <= SPARSE_DENSE_MAX_FEATURES and 8 * X.shape[0] * X.shape[1] <= SPARSE_DENSE_MAX_BYTES


def _scatter_is_cheaper(X, Z):
    """Whether the sparse scatter costs less than the dense GEMM for ``X @ Z.T`` (both sparse)."""
    d = X.shape[1]
    per_feature_x = np.bincount(sp.csr_matrix(X).indices, minlength=d).astype(np.float64)
    per_feature_z = per_feature_x if Z is X else np.bincount(sp.csr_matrix(Z).indices, minlength=d).astype(np.float64)
    return SCATTER_COST_RATIO * float(per_feature_x @ per_feature_z) < float(X.shape[0]) * Z.shape[0] * d


def _operands(X, Z, same):
    """The two factors of the kernel's product: sparse pairs stay sparse when the scatter is cheaper
    or densifying is too large; a sparse factor of few features is densified otherwise."""
    if sp.issparse(X) and sp.issparse(Z) and (_scatter_is_cheaper(X, Z) or not (_densifiable(X) and _densifiable(Z))):
        X = sp.csr_matrix(X)
        return X, (X if same else sp.csr_matrix(Z))
    X = X.toarray() if sp.issparse(X) and _densifiable(X) else X
    if same:
        return X, X
    return X, (Z.toarray() if sp.issparse(Z) and _densifiable(Z) else Z)


def _prepare(X, Z, func):
    """Validated ``X``, ``Z`` (``Z = X`` when None), whether they are the same, and their squared row norms.

    Sparse inputs come back as the product wants them (:func:`_operands`)."""
    X = check_matrix(X, "X", func)
    sq_x = _checked_sq_norms(X, "X", func)
    if Z is None:
        X, _ = _operands(X, X, True)
        return X, X, True, sq_x, sq_x
    Z = check_matrix(Z, "Z", func)
    check_features(func, "X", X, "Z", Z)
    sq_z = _checked_sq_norms(Z, "Z", func)
    X, Z = _operands(X, Z, False)
    return X, Z, False, sq_x, sq_z


def linear_kernel(X, Z=None, *, dtype="float64"):
    """Linear kernel ``K(X, Z) = X Zᵀ`` (Gieseke et al. 2012, eq. 18).

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_samples_X, n_features)
    Z : array-like or sparse matrix of shape (n_samples_Z, n_features), default=None
        ``None`` means ``Z = X``.
    dtype : {"float64", "float32"}, default="float64"
        Precision of the product and of the result.

    Returns
    -------
    K : ndarray of shape (n_samples_X, n_samples_Z)

    Examples
    --------
    >>> import numpy as np
    >>> linear_kernel(np.eye(2))
    array([[1., 0.],
           [0., 1.]])
    """
    return _linear(X, Z, "linear_kernel", dtype)


def _linear(X, Z, func, dtype="float64"):
    """:func:`linear_kernel`, with ``func`` named in its validation messages."""
    dtype = check_dtype(dtype, func)
    X, Z, same, sq_x, sq_z = _prepare(X, Z, func)
    if dtype is np.float32:
        _check_float32_norms(func, sq_x, sq_z)
        X = _as_dtype(X, dtype)
        Z = X if same else _as_dtype(Z, dtype)
    return _gram(X, Z, dtype)


def rbf_kernel(X, Z=None, *, sigma, block_size=None, dtype="float64"):
    """Gaussian (RBF) kernel ``k(x, z) = exp(-||x - z||² / (2 σ²))`` (Gieseke et al. 2012, eq. 19).

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_samples_X, n_features)
    Z : array-like or sparse matrix of shape (n_samples_Z, n_features), default=None
        ``None`` means ``Z = X`` (the result is then exactly symmetric with a unit diagonal).
    sigma : float
        Kernel width σ > 0. The papers choose it as a multiple of :func:`width_heuristic`.
    block_size : int, default=None
        Rows per block; ``None`` keeps each block's temporary near 256 MiB.
    dtype : {"float64", "float32"}, default="float64"
        Precision of the products, the element-wise passes and the result. With float32 the points
        are first centred (in float64; distances do not change) so that the cancellation in
        ``||x||² + ||z||² - 2 xᵀz`` stays near float32's resolution of the distances themselves.

    Returns
    -------
    K : ndarray of shape (n_samples_X, n_samples_Z)

    Notes
    -----
    Computed as ``exp(min(xᵀz / σ² - ||x||² / (2σ²) - ||z||² / (2σ²), 0))``: matrix products of
    the points pre-scaled by 1/σ² in row blocks (BLAS GEMM written straight into the output; for
    ``Z is None`` only the upper triangle, then mirrored by a compiled tiled transpose, so the flops
    are about half of the full product), then four in-place element-wise passes over cache-sized
    chunks, shared among the threads BLAS uses, so the cost is that of the product plus O(nm) and
    the only n × m buffer is the result. Round-off can make the exponent (minus the squared
    distance over 2σ²) slightly positive; it is clipped at 0.

    Examples
    --------
    >>> import numpy as np
    >>> K = rbf_kernel(np.array([[0.0], [1.0]]), sigma=1.0)
    >>> np.round(K, 4)
    array([[1.    , 0.6065],
           [0.6065, 1.    ]])
    """
    return _rbf(X, Z, sigma, _check_block_size(block_size, "rbf_kernel"), "rbf_kernel", dtype)


def _check_block_size(block_size, func):
    """``block_size``: None (chosen from the memory budget) or a positive number of rows, whatever the kernel."""
    return check_scalar(block_size, "block_size", func, kind=numbers.Integral, low=1, allow_none=True)


def _centred_float32(X, Z, same, func, sq_x, sq_z):
    """Points and squared norms for a float32 RBF kernel: dense points centred on X's mean, then cast."""
    if sp.issparse(X) or sp.issparse(Z):       # too many features to densify: no centring
        _check_float32_norms(func, sq_x, sq_z)
        X32 = _as_dtype(X, np.float32)
        return X32, (X32 if same else _as_dtype(Z, np.float32)), sq_x.astype(np.float32), sq_z.astype(np.float32)
    shift = X.mean(axis=0)
    Xc = X - shift
    sq_x = np.einsum("ij,ij->i", Xc, Xc)
    X32 = Xc.astype(np.float32)
    if same:
        sq_z, Z32 = sq_x, X32
    else:
        Zc = Z - shift
        sq_z = np.einsum("ij,ij->i", Zc, Zc)
        Z32 = Zc.astype(np.float32)
    _check_float32_norms(func, sq_x, sq_z)
    return X32, Z32, sq_x.astype(np.float32), sq_z.astype(np.float32)


def _check_float32_norms(func, sq_x, sq_z):
    """Raise when a float32 kernel entry could overflow (squared row norms beyond float32's range)."""
    limit = float(np.finfo(np.float32).max) / 4
    if max(float(sq_x.max(initial=0.0)), float(sq_z.max(initial=0.0))) > limit:
        raise ValueError(f"The 'X' parameter of {func} has rows too large for float32 kernels (a squared norm "
                         f"beyond {limit:.1e}); use dtype='float64' or scale the features.")


def _rbf(X, Z, sigma, block_size, func, dtype="float64"):
    """:func:`rbf_kernel`, with ``func`` named in its validation messages."""
    sigma = check_scalar(sigma, "sigma", func, low=0.0, low_closed=False)
    dtype = check_dtype(dtype, func)
    X, Z, same, sq_x, sq_z = _prepare(X, Z, func)
    if dtype is np.float32:
        X, Z, sq_x, sq_z = _centred_float32(X, Z, same, func, sq_x, sq_z)
    itemsize = np.dtype(dtype).itemsize
    scale = -1.0 / (2.0 * sigma * sigma)
    threads = _blas_threads()              # the element-wise passes use the cores the product uses
    # exponent = scale ||x||² + scale ||z||² + (xᵀz) / σ²: the left factor of every product is
    # pre-scaled by 1/σ² (O(n d)), so that the element-wise passes are two additions, a clip and exp
    a = (scale * sq_x).astype(dtype, copy=False)
    c = a if same else (scale * sq_z).astype(dtype, copy=False)
    X_left = X * dtype(1.0 / (sigma * sigma)) if sp.issparse(X) else np.multiply(X, dtype(1.0 / (sigma * sigma)),
                                                                                   dtype=X.dtype)
    if same:
        # Gram case: only the upper triangle, in row blocks [a, b) × [a, n) (GEMM: about half the
        # flops of the full product, like SYRK, whose multi-threaded OpenBLAS path is avoided: it
        # crashed for n = 20 000), one fused compiled pass per block, then a tiled mirror. Exactly
        # symmetric, unit diagonal; the temporary is one block of at most ~256 MiB.
        n = X.shape[0]
        K = np.empty((n, n), dtype=dtype)
        if block_size is None:   # ~16 blocks: the triangle costs (1 + 1/16) / 2 of the full product
            block_size = min(max(256, -(-n // 16)), max(1, _DEFAULT_BLOCK_BYTES // (itemsize * n)))
        Xt = _by_feature(X) if sp.issparse(X) else X.T
        for rows in _blocks(n, n, block_size):
            lo, hi = rows.start, rows.stop
            upper = K[lo:hi, lo:]              # a view with leading dimension n: GEMM writes in place
            if sp.issparse(X):
                _scatter_into(upper, X_left[lo:hi], Xt, col_lo=lo)
            else:
                np.matmul(X_left[lo:hi], Xt[:, lo:], out=upper)
            _rbf_from_gram_inplace(upper, a[lo:hi], a[lo:], threads)
        _mirror_upper_to_lower(K)
        np.fill_diagonal(K, 1.0)
        return K
    K = np.empty((X.shape[0], Z.shape[0]), dtype=dtype)
    both_sparse = sp.issparse(X) and sp.issparse(Z)
    Zt = _by_feature(Z) if both_sparse else Z.T if sp.issparse(Z) else np.ascontiguousarray(Z).T
    for rows in _blocks(X.shape[0], Z.shape[0], block_size, itemsize):
        if both_sparse:
            _scatter_into(K[rows], X_left[rows], Zt)
        elif sp.issparse(X) or sp.issparse(Z):
            K[rows] = _gram(X_left[rows], Z, dtype)
        else:
            np.matmul(X_left[rows], Zt, out=K[rows])   # x^T z / σ², one BLAS call per block, in place
        _rbf_from_gram_inplace(K[rows], a[rows], c, threads)
    return K


def polynomial_kernel(X, Z=None, *, kernel_degree=2, coef0=1.0, scale=1.0, dtype="float64"):
    """Polynomial kernel ``k(x, z) = (scale · xᵀz + coef0)^kernel_degree``.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_samples_X, n_features)
    Z : array-like or sparse matrix of shape (n_samples_Z, n_features), default=None
    kernel_degree : int, default=2
        Degree p >= 1.
    coef0 : float, default=1.0
        Constant term (>= 0 keeps the kernel positive semi-definite).
    scale : float, default=1.0
        Multiplier of the inner product (> 0).
    dtype : {"float64", "float32"}, default="float64"
        Precision of the product and of the result (entries beyond float32's range are refused).

    Returns
    -------
    K : ndarray of shape (n_samples_X, n_samples_Z)
    """
    return _polynomial(X, Z, kernel_degree, coef0, scale, "polynomial_kernel", dtype)


def _polynomial(X, Z, kernel_degree, coef0, scale, func, dtype="float64"):
    """:func:`polynomial_kernel`, with ``func`` named in its validation messages."""
    kernel_degree = check_scalar(kernel_degree, "kernel_degree", func, kind=numbers.Integral, low=1)
    coef0 = check_scalar(coef0, "coef0", func, low=0.0)
    scale = check_scalar(scale, "scale", func, low=0.0, low_closed=False)
    K = _linear(X, Z, func, dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        K *= scale
        K += coef0
        np.power(K, kernel_degree, out=K)
    _check_finite_kernel(K, func, kernel_degree=kernel_degree, coef0=coef0, scale=scale)
    return K


def width_heuristic(X):
    """Data-derived RBF width ``s``: the diagonal of the data's bounding box.

    ``s = sqrt(sum_k (max_i x_ik - min_i x_ik)²)``, Gieseke et al. (2012), §5.1, a rough
    estimate of the largest distance between two points. The papers search
    ``sigma in {0.1 s, 0.5 s, 1 s, 5 s, 10 s}``.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_samples, n_features)

    Returns
    -------
    s : float

    Examples
    --------
    >>> import numpy as np
    >>> width_heuristic(np.array([[0.0, 0.0], [3.0, 4.0]]))
    5.0
    """
    X = check_matrix(X, "X", "width_heuristic")
    with np.errstate(over="ignore", invalid="ignore"):
        span = X.max(axis=0) - X.min(axis=0)
        if sp.issparse(span):
            span = span.toarray()
        span = np.asarray(span, dtype=float).ravel()
        s = float(np.sqrt(span @ span))
    if not np.isfinite(s):
        raise ValueError("The 'X' parameter of width_heuristic spans a bounding box whose diagonal overflows "
                         "float64. Scale the features, e.g. standardise the columns.")
    if s == 0.0:           # a width of 0 makes every RBF kernel the identity: refuse it rather than return it
        raise ValueError(f"The 'X' parameter of width_heuristic needs at least two distinct rows (the width is the "
                         f"diagonal of their bounding box). Got {X.shape[0]} row(s), all equal, instead.")
    return s


#: :func:`scale_width` reads the pairwise distances of at most this many rows (a fixed-seed sample
#: beyond it): 499 500 distances, cheap next to a kernel matrix, and a median whose sampling error is
#: below 1 % on the benchmark sets.
MEDIAN_SAMPLE = 1000


def scale_width(X):
    """The RBF width ``sigma="scale"``: half the median Euclidean distance between two rows of ``X``.

    ``s = median_{i < j} ||x_i - x_j|| / 2`` (the "median heuristic" of kernel methods, Schölkopf &
    Smola, *Learning with Kernels*, 2002, §4.4), over every pair of rows when there are at most
    :data:`MEDIAN_SAMPLE` of them, otherwise over the pairs of a sample of that many rows drawn
    with a fixed seed, so that the same ``X`` always gives the same width. The half is scikit-learn's
    ``gamma="scale"``: ``γ = 1 / (d Var(X))`` is the width ``σ² = d Var(X) / 2``, a quarter of the
    mean squared distance between rows. A row's kernel value at the median distance is then
    ``exp(-2) = 0.14``: the kernel neither collapses to the identity (``σ`` below the
    nearest-neighbour distance) nor to a constant. Of the widths tried on the benchmark sets, it
    gives the Laplacian SVM with the default graph the smallest mean error, below twice it (the
    whole median); see the benchmarks page, ``python benchmarks/bench_defaults.py --defaults
    --splits 2``. Not to be confused with :func:`width_heuristic`, the bounding-box diagonal that
    Gieseke et al. multiply in their grids (``sigma_scale``).

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_samples, n_features)
        At least two rows, not mostly duplicates.

    Returns
    -------
    s : float
        The width (> 0).

    Raises
    ------
    ValueError
        With fewer than two rows, or when at least half of the sampled pairs are duplicates (a
        median distance of 0: no width can be read from them).

    Examples
    --------
    >>> import numpy as np
    >>> scale_width(np.array([[0.0, 0.0], [3.0, 4.0], [0.0, 8.0]]))
    2.5
    """
    func = "scale_width"
    X = check_matrix(X, "X", func)
    n = X.shape[0]
    if n < 2:
        raise ValueError(f"The 'X' parameter of {func} must have at least 2 rows to give a distance. "
                         f"Got {n} row(s) instead; pass sigma as a number.")
    if n > MEDIAN_SAMPLE:
        X = X[np.sort(np.random.default_rng(0).choice(n, MEDIAN_SAMPLE, replace=False))]
    sq = _checked_sq_norms(X, "X", func)
    D2 = sq[:, None] + sq[None, :] - 2.0 * _gram(X, X)
    median = float(np.sqrt(max(float(np.median(D2[np.triu_indices(X.shape[0], k=1)])), 0.0)))
    if not median > 0.0:
        raise ValueError(f"The 'X' parameter of {func} has a median distance of 0 between its rows (at least "
                         f"half of the pairs among the {X.shape[0]} rows read are duplicates), so no RBF width can "
                         "be read from it. Pass sigma as a number, or remove the duplicate rows.")
    return median / 2.0


def kernel_matrix(X, Z=None, *, kernel="linear", sigma=None, kernel_degree=2, coef0=1.0, block_size=None,
                  dtype="float64"):
    """Kernel matrix ``K(X, Z)`` for a kernel given by name or as a callable.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_samples_X, n_features)
    Z : array-like or sparse matrix of shape (n_samples_Z, n_features), default=None
    kernel : {"linear", "rbf", "polynomial", "precomputed"} or callable, default="linear"
        A callable is called as ``kernel(X, Z)`` and must return an array of shape
        ``(n_samples_X, n_samples_Z)``. ``"precomputed"``: ``X`` already holds kernel values; it is
        returned (as a finite float64 array) after checking that it has one column per row of ``Z``
        (the training kernel matrix), or that it is square when ``Z`` is None.
    sigma : float, default=None
        RBF width; required for ``kernel="rbf"``.
    kernel_degree, coef0 : int, float
        Polynomial kernel parameters.
    block_size : int, default=None
        Rows per block for the RBF kernel.
    dtype : {"float64", "float32"}, default="float64"
        Precision of the computation and of the result (a precomputed or callable kernel is cast).

    Returns
    -------
    K : ndarray of shape (n_samples_X, n_samples_Z)

    Raises
    ------
    TypeError
        ``X`` or ``Z`` complex, text or sparse of such a dtype (a cast would drop the imaginary part).
    ValueError
        ``X`` or ``Z`` with NaN or inf, or with a row whose squared norm exceeds a quarter of the
        largest float64 (some kernel entry would overflow: scale the features); a polynomial
        kernel or a callable whose entries overflow.
    """
    dtype = check_dtype(dtype, "kernel_matrix")
    block_size = _check_block_size(block_size, "kernel_matrix")
    if callable(kernel):
        X = check_matrix(X, "X", "kernel_matrix")
        Zc = X if Z is None else check_matrix(Z, "Z", "kernel_matrix")
        K = kernel(X, Zc)
        if np.iscomplexobj(K):
            raise TypeError("The callable 'kernel' of kernel_matrix must return a real-valued array. "
                            f"Got dtype {np.asarray(K).dtype} instead.")
        K = _as_real_array(K, "kernel", "kernel_matrix")
        if K.shape != (X.shape[0], Zc.shape[0]):
            raise ValueError(f"The callable 'kernel' must return an array of shape {(X.shape[0], Zc.shape[0])}. "
                             f"Got shape {K.shape} instead.")
        if not np.all(np.isfinite(K)):
            raise ValueError("The callable 'kernel' returned non-finite values.")
        return _as_dtype(K, dtype)
    check_option(kernel, "kernel", "kernel_matrix", KERNELS)
    if kernel == "precomputed":
        X = check_matrix(X, "X", "kernel_matrix", accept_sparse=False)
        n_train = X.shape[0] if Z is None else np.shape(Z)[0]
        if X.shape[1] != n_train:
            raise ValueError(f"With kernel='precomputed', the 'X' parameter of kernel_matrix must hold kernel values "
                             f"against the {n_train} training points, shape (n_samples, {n_train}). Got shape "
                             f"{X.shape} instead.")
        return _as_dtype(X, dtype)
    if kernel == "linear":
        return _linear(X, Z, "kernel_matrix", dtype)
    if kernel == "rbf":
        if sigma is None:
            raise ValueError("The 'sigma' parameter of kernel_matrix is required for kernel='rbf'. Got None instead.")
        return _rbf(X, Z, sigma, block_size, "kernel_matrix", dtype)
    return _polynomial(X, Z, kernel_degree, coef0, 1.0, "kernel_matrix", dtype)


def training_kernel(X, func, *, kernel, sigma=None, kernel_degree=2, coef0=1.0, symmetrize=False, label=None,
                    dtype="float64"):
    """The training kernel matrix of a solver's ``X``: computed from points, or checked when precomputed.

    The one boundary rule for ``kernel="precomputed"`` (as in scikit-learn): ``X`` is then the
    ``(n, n)`` kernel matrix of the training points, which must be finite, symmetric and positive
    semi-definite (:func:`toolkit._validation.check_kernel_matrix`); otherwise ``X`` holds points
    and :func:`kernel_matrix` computes ``K``. ``label`` names the input in messages (default: "The
    'X' parameter of FUNC (the kernel matrix K with kernel='precomputed')").
    """
    from toolkit._validation import check_kernel_matrix

    if not callable(kernel):
        check_option(kernel, "kernel", func, KERNELS)
    if kernel == "precomputed":
        label = label or f"The 'X' parameter of {func} (the kernel matrix K with kernel='precomputed')"
        return _as_dtype(check_kernel_matrix(X, "X", func, symmetrize=symmetrize, label=label), check_dtype(dtype, func))
    if kernel == "rbf":                  # named as the caller's arguments, not kernel_matrix's
        if sigma is None:
            raise ValueError(f"The 'sigma' parameter of {func} is required for kernel='rbf' (the RBF width, a float "
                             "> 0). Got None instead.")
        check_scalar(sigma, "sigma", func, low=0.0, low_closed=False)
    elif kernel == "polynomial":
        check_scalar(kernel_degree, "kernel_degree", func, kind=numbers.Integral, low=1)
    return kernel_matrix(X, kernel=kernel, sigma=sigma, kernel_degree=kernel_degree, coef0=coef0, dtype=dtype)


def cross_kernel(X, X_train, func, *, kernel, n_train, sigma=None, kernel_degree=2, coef0=1.0):
    """``K(X, X_train)`` for a fitted model's ``decision_function``: the kernel rows as given when
    ``kernel="precomputed"`` (checked to have ``n_train`` columns), else computed from the points."""
    if kernel == "precomputed":
        X = check_matrix(X, "X", func, accept_sparse=False)
        if X.ndim != 2 or X.shape[1] != n_train:
            raise ValueError(f"{func}: with kernel='precomputed', 'X' must hold kernel values against the "
                             f"{n_train} training points: {n_train} columns, shape (n_new, {n_train}). Got shape {X.shape} instead.")
        return X
    X = check_matrix(X, "X", func)
    check_features(func, "X", X, "X_train", X_train)
    return kernel_matrix(X, X_train, kernel=kernel, sigma=sigma, kernel_degree=kernel_degree, coef0=coef0)


#: The width rules a solver's ``sigma`` may name: ``"scale"``, :func:`scale_width` of the training rows.
SIGMA_RULES = ("scale",)


def stack_rows(X_labeled, X_unlabeled):
    """The training points ``[X_labeled; X_unlabeled]``, labelled first: CSR when either is sparse."""
    if sp.issparse(X_labeled) or sp.issparse(X_unlabeled):
        return sp.vstack([X_labeled, X_unlabeled], format="csr")
    return np.vstack([X_labeled, X_unlabeled])


def resolve_width(sigma, X_labeled, X_unlabeled, func):
    """``(sigma, rule)``: the RBF width of a semi-supervised solver and the rule that gave it.

    ``"scale"`` reads the width off the stacked training rows (:func:`scale_width`, half the median
    distance between two of them) and returns the rule's name; a number is checked and returned
    with ``rule`` None.
    """
    rule = None
    if sigma is None:
        raise ValueError(f"The 'sigma' parameter of {func} is required for kernel='rbf' (the RBF width, a float > 0, "
                         f"or {SIGMA_RULES[0]!r}). Got None instead.")
    if isinstance(sigma, str):
        check_option(sigma, "sigma", func, SIGMA_RULES)
        rule, sigma = sigma, scale_width(stack_rows(X_labeled, X_unlabeled))
    return check_scalar(sigma, "sigma", func, low=0.0, low_closed=False), rule


def stacked_training_kernel(X_labeled, X_unlabeled, func, *, kernel, sigma=None, kernel_degree=2, coef0=1.0,
                            dtype="float64"):
    """``(X, K)``: the training inputs ``[X_labeled; X_unlabeled]`` (labelled first) and their kernel.

    With ``kernel="precomputed"`` the two inputs must be the rows ``(l, n)`` and ``(u, n)`` of the
    training kernel matrix (then ``X`` is that matrix, checked by :func:`training_kernel`);
    otherwise they are points (dense or sparse) and ``K`` is computed. A dense ``X`` is returned
    read-only.
    """
    l, u = X_labeled.shape[0], X_unlabeled.shape[0]
    n = l + u
    X = stack_rows(X_labeled, X_unlabeled)
    if not sp.issparse(X):
        X.setflags(write=False)     # the model's own copy, never written; a kernel cache hashes it once
    if kernel == "precomputed" and X.shape != (n, n):
        raise ValueError(f"{func}: with kernel='precomputed', 'X_labeled' and 'X_unlabeled' must be the rows of the "
                         f"({n}, {n}) training kernel matrix, of shapes ({l}, {n}) and ({u}, {n}) (columns: the "
                         f"labelled points first). Got {X_labeled.shape} and {X_unlabeled.shape} instead.")
    K = training_kernel(X, func, kernel=kernel, sigma=sigma, kernel_degree=kernel_degree, coef0=coef0,
                        label=f"The precomputed training kernel matrix [X_labeled; X_unlabeled] of {func}",
                        dtype=dtype)
    return X, K
