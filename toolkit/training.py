"""The training set of the Laplacian kernel solvers, built once: points, width, kernel, graph, basis.

LapSVM, LapRLSC and the LapSVM dual (:mod:`toolkit.manifold`) and the Laplacian λ-path
(:mod:`toolkit.paths`) train on the same objects made of ``X_labeled`` and ``X_unlabeled``:

* the stacked rows ``X = [X_labeled; X_unlabeled]``, labelled first (:func:`toolkit.kernels.stack_rows`);
* the RBF width and the rule that gave it (:func:`toolkit.kernels.resolve_width`);
* the kernel matrix ``K`` of ``X`` (the exact model), or none (the low-rank model);
* ``L^p`` of the neighbour graph of ``X`` (:meth:`toolkit.specs.Graph.build`), or a given one
  (:func:`toolkit.graphs.check_given_laplacian`);
* the basis points of the low-rank model (:func:`choose_basis`).

:func:`training_set` builds them and returns a frozen :class:`TrainingSet`, so the same inputs give
the same arrays bit for bit in every family. Beside it are the matrices both families compute
from a training set: the Nyström features ``Φ = [1, K(X, Z) T]`` of the low-rank model and its
graph term ``Φᵀ L Φ`` (:func:`nystrom_map`, :func:`reduced_system`, :func:`graph_gram`), and the
LapSVM dual's effective kernel (:func:`lapsvm_dual_kernel`).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np
import scipy.linalg as sla

from toolkit._numba_cache import njit
from toolkit._contract import ReadOnlyDict
from toolkit._validation import check_rng
from toolkit.graphs import check_given_laplacian
from toolkit.kernels import kernel_matrix, resolve_width, stack_rows, stacked_training_kernel
from toolkit.specs import BASES, Graph

__all__ = ["TrainingSet", "training_set", "BASES", "choose_basis", "nystrom_map", "reduced_system", "graph_gram",
           "lapsvm_dual_kernel"]


@dataclass(frozen=True, repr=False)
class TrainingSet:
    """The training set of a Laplacian kernel solver, as :func:`training_set` builds it (frozen).

    Attributes
    ----------
    X : ndarray or sparse matrix of shape (n_samples, n_features)
        ``[X_labeled; X_unlabeled]``, labelled rows first (with ``kernel="precomputed"``: the
        ``(n_samples, n_samples)`` kernel matrix given by its rows).
    K : ndarray of shape (n_samples, n_samples) or None
        The kernel matrix of ``X``; None for the low-rank model, which forms no n × n matrix.
    L : sparse matrix, ndarray, LinearOperator or None
        ``L^p`` of the graph, built or given; None when no graph was asked for.
    degrees : ndarray of shape (n_samples,) or None
        The row sums of the weight matrix of a graph built here (None for a given or no graph).
    n_labeled, n_unlabeled : int
    kernel : str or callable
    sigma : float, str or None
        The RBF width used (the number the rule gave); for another kernel as given.
    sigma_rule : str or None
        The width rule that gave ``sigma`` (``"scale"``), None for a number given.
    kernel_degree : int
    coef0 : float
    neighbor_search : str or None
        The neighbour search a graph built here took (:class:`toolkit.graphs.BuiltGraph`).
    laplacian_given : bool
        True when ``L`` was given rather than built.
    basis : ndarray of int or None
        The sorted rows of ``X`` that are the low-rank model's basis points; None for the exact model.
    timings : mapping of str to float
        Seconds spent on ``kernel`` (the width rule, ``K``, the basis), ``graph`` (the neighbour
        search and weights, or checking a given ``L``) and ``laplacian`` (``L^p`` of a built graph).
    """

    X: Any
    K: Any
    L: Any
    degrees: Any
    n_labeled: int
    n_unlabeled: int
    kernel: Any
    sigma: Any
    sigma_rule: Any
    kernel_degree: int
    coef0: float
    neighbor_search: Any
    laplacian_given: bool
    basis: Any
    timings: Any

    @property
    def n_samples(self):
        """``n_labeled + n_unlabeled``."""
        return self.n_labeled + self.n_unlabeled

    @property
    def Z(self):
        """The basis points ``X[basis]`` of the low-rank model; None for the exact model."""
        return None if self.basis is None else self.X[self.basis]

    @property
    def kernel_args(self):
        """The kernel as keywords of :func:`toolkit.kernels.kernel_matrix`."""
        return {"kernel": self.kernel, "sigma": self.sigma, "kernel_degree": self.kernel_degree, "coef0": self.coef0}

    def __repr__(self):
        model = "exact" if self.basis is None else f"low rank, {self.basis.size} basis points"
        graph = "no graph" if self.L is None else ("L given" if self.laplacian_given else "L built")
        return (f"TrainingSet(n_labeled={self.n_labeled}, n_unlabeled={self.n_unlabeled}, kernel={self.kernel!r}, "
                f"sigma={self.sigma!r}, {model}, {graph})")


def training_set(func, X_labeled, X_unlabeled, *, kernel="rbf", sigma="scale", kernel_degree=2, coef0=1.0,
                 graph=None, laplacian_power=None, graph_args=None, low_rank=None, dtype="float64",
                 max_density=None, rng=None):
    """Build the training set of a Laplacian kernel solver: stacked rows, width, kernel, graph, basis.

    The one construction of :func:`toolkit.lapsvm`, :func:`toolkit.laprlsc`,
    :func:`toolkit.lapsvm_dual` and :func:`toolkit.laplacian_svm_path`. The callers check their
    own arguments first, with their own messages; this function refuses only what needs the
    training set itself, naming ``func``.

    Parameters
    ----------
    func : str
        The public function, for messages.
    X_labeled : ndarray or sparse matrix of shape (n_labeled, n_features)
        Checked labelled points (with ``kernel="precomputed"``: their kernel rows ``(n_labeled, n)``).
    X_unlabeled : ndarray or sparse matrix of shape (n_unlabeled, n_features)
        Checked unlabelled points, with as many features (may have no rows).
    kernel : {"rbf", "linear", "polynomial", "precomputed"} or callable, default="rbf"
    sigma : float or str, default="scale"
        The RBF width or its rule (:func:`toolkit.kernels.resolve_width`); other kernels ignore it.
    kernel_degree : int, default=2
    coef0 : float, default=1.0
        The kernel's parameters, as in :meth:`toolkit.specs.Kernel.flat`.
    graph : Graph, sparse matrix, ndarray, LinearOperator or None, default=None
        A :class:`~toolkit.specs.Graph` built on ``X`` (read off ``K`` for a precomputed kernel,
        or when its ``neighbor_search`` is ``"kernel"``), a given Laplacian of shape ``(n, n)``, or
        None for no graph (``L`` None).
        ``laplacian_power`` raises it to ``p``; ``graph_args`` holds the
        graph-building arguments set beside it, ``name: (value, default)``, refused when set
        (:func:`toolkit.graphs.check_given_laplacian`).
    laplacian_power : int or None, default=None
        The power of a given Laplacian (None: as given).
    graph_args : dict or None, default=None
        See ``graph``.
    low_rank : LowRank or None, default=None
        The reduced expansion over ``low_rank.n_basis`` basis points (no ``K`` is formed);
        None: the exact model.
    dtype : {"float64", "float32"}, default="float64"
        The arithmetic of ``K``.
    max_density : float or None, default=None
        As in :func:`toolkit.graphs.iterated_laplacian`: above this density ``L^p`` stays an operator.
    rng : None, int or Generator, default=None
        Seeds an approximate neighbour search and draws the basis points (``None``: evenly
        spaced rows).

    Returns
    -------
    TrainingSet

    Raises
    ------
    ValueError
        An RBF kernel without a width; a low-rank model of a precomputed kernel or with more basis
        points than training points; a given Laplacian of the wrong shape, or beside a
        graph-building argument.
    """
    t0 = time.perf_counter()
    l, u = X_labeled.shape[0], X_unlabeled.shape[0]
    precomputed = kernel == "precomputed"
    sigma_rule = None
    if kernel == "rbf":
        if sigma is None:               # as toolkit.kernels.training_kernel says it, for the low-rank model too
            raise ValueError(f"The 'sigma' parameter of {func} is required for kernel='rbf' (the RBF width, a float "
                             "> 0). Got None instead.")
        sigma, sigma_rule = resolve_width(sigma, X_labeled, X_unlabeled, func)
    if low_rank is not None:            # no n × n kernel: the reduced expansion forms K(X, Z) itself
        if precomputed:
            raise ValueError(f"The 'n_basis' parameter of {func} needs points: with kernel='precomputed' the "
                             "n × n kernel exists already; use n_basis=None.")
        X, K = stack_rows(X_labeled, X_unlabeled), None
        if low_rank.n_basis > X.shape[0]:
            raise ValueError(f"The 'n_basis' parameter of {func} must be an int in [1, {X.shape[0]}] (the training "
                             f"points). Got {low_rank.n_basis} instead.")
    else:
        X, K = stacked_training_kernel(X_labeled, X_unlabeled, func, kernel=kernel, sigma=sigma,
                                       kernel_degree=kernel_degree, coef0=coef0, dtype=dtype)
    t_kernel = time.perf_counter() - t0

    t0 = time.perf_counter()
    L, degrees, searched, timings = None, None, None, {}
    if isinstance(graph, Graph):
        built = graph.build(None if precomputed else X, max_density=max_density, rng=rng, kernel_matrix=K,
                            kernel_sigma=sigma if kernel == "rbf" else None)
        L, degrees, searched = built.L, built.degrees, built.neighbor_search
        timings["graph"], timings["laplacian"] = built.seconds
    elif graph is not None:
        L = check_given_laplacian(graph, func, l + u, degree=laplacian_power, max_density=max_density,
                                  graph_args={} if graph_args is None else graph_args)
        timings["graph"] = time.perf_counter() - t0
    else:
        timings["graph"] = 0.0

    basis = None
    if low_rank is not None:            # drawn after the graph, whose approximate search may draw first
        t0 = time.perf_counter()
        basis = choose_basis(X, l, low_rank.n_basis, low_rank.basis, None if rng is None else check_rng(rng)[0])
        basis.setflags(write=False)
        t_kernel += time.perf_counter() - t0
    return TrainingSet(X=X, K=K, L=L, degrees=degrees, n_labeled=l, n_unlabeled=u, kernel=kernel, sigma=sigma,
                       sigma_rule=sigma_rule, kernel_degree=kernel_degree, coef0=coef0, neighbor_search=searched,
                       laplacian_given=graph is not None and not isinstance(graph, Graph), basis=basis,
                       timings=ReadOnlyDict({"kernel": t_kernel, **timings}))


# ------------------------------------------------------------------------------ low-rank features
# Rows of Φ per block when Φ = [1, K(X, Z) T] is formed (bounds the temporary kernel block).
_BLOCK_ROWS = 16384
# Rows per block when G = γ_I Φᵀ L Φ is accumulated: the temporary L Φ block stays small and is
# reused, instead of fresh memory for every block, whose page faults slow the two-level set-up.
_GRAM_BLOCK_ROWS = 2048
# Below this many rows every row of Φ stays in cache anyway: the points' own order.
_LOCALITY_MIN_ROWS = 2 * _BLOCK_ROWS


def choose_basis(X, n_labeled, n_basis, basis, rng):
    """Indices of the ``n_basis`` basis points of the low-rank model: every labelled point, then unlabelled ones.

    With fewer basis points than labelled ones, a uniform draw of the labelled points (evenly
    spaced for ``rng=None``). ``"uniform"`` draws the unlabelled part without replacement
    (``rng=None``: evenly spaced rows, deterministic); ``"kmeans++"`` seeds it with k-means++
    (:func:`sklearn.cluster.kmeans_plusplus`, D² sampling) over the unlabelled points, which spreads
    the basis over the data. Labelled points are always in the basis (their expansion terms carry
    the labels).

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n_samples, n_features)
        The training rows, the ``n_labeled`` labelled ones first.
    n_labeled : int
    n_basis : int
        ``1 <= n_basis <= n_samples``.
    basis : {"uniform", "kmeans++"}
    rng : Generator or None

    Returns
    -------
    index : ndarray of int of shape (n_basis,)
        Sorted indices into the rows of ``X``.
    """
    n = X.shape[0]
    extra = n_basis - n_labeled
    if extra <= 0:                  # fewer basis points than labels: a uniform draw of the labelled ones
        if rng is None:
            return np.unique(np.linspace(0, n_labeled - 1, n_basis).round().astype(int))
        return np.sort(rng.choice(n_labeled, size=n_basis, replace=False))
    pool = np.arange(n_labeled, n)
    if basis == "uniform":
        if rng is None:                                    # deterministic: evenly spaced rows
            chosen = pool[np.unique(np.linspace(0, pool.size - 1, extra).round().astype(int))]
        else:
            chosen = rng.choice(pool, size=extra, replace=False)
    else:
        from sklearn.cluster import kmeans_plusplus

        seed = 0 if rng is None else int(rng.integers(2**31 - 1))
        _, chosen_local = kmeans_plusplus(X[n_labeled:], extra, random_state=seed)
        chosen = pool[chosen_local]
    return np.concatenate([np.arange(n_labeled), np.sort(chosen)])


def nystrom_map(K_ZZ, eps=float(np.finfo(np.float64).eps)):
    """The Nyström map ``T = U_k Λ_k^{-1/2}`` of ``K_ZZ = U Λ Uᵀ``, over the eigenvalues above ``r ε λ_max``.

    ``w = T β`` turns ``wᵀ K_ZZ w`` into ``‖β‖²`` on the directions the basis resolves in floating
    point; the raw coordinates ``w`` inherit ``K_ZZ``'s condition number (1e16 and more for a
    Gaussian kernel on a few hundred close points), which wrecks every system solved in them.

    Parameters
    ----------
    K_ZZ : ndarray of shape (r, r)
        The kernel matrix of the basis points.
    eps : float, default=float64's machine epsilon
        The machine epsilon of the arithmetic that will multiply by ``K`` (float32's for a float32
        kernel: directions below its resolution would carry coefficients whose products with ``K``
        cancel to noise).

    Returns
    -------
    T : ndarray of shape (r, k)
        ``k <= r`` kept directions.
    """
    r = K_ZZ.shape[0]
    eigenvalues, eigenvectors = np.linalg.eigh(0.5 * (K_ZZ + K_ZZ.T))
    keep = eigenvalues > r * eps * max(eigenvalues[-1], 0.0)
    return eigenvectors[:, keep] / np.sqrt(eigenvalues[keep])


def graph_gram(Phi, L, gamma_A, gamma_I):
    """``G = γ_I Φᵀ L Φ + diag(0, γ_A I)`` for ``Φ = [1, features]``, ``L`` applied by row blocks.

    A sparse ``L`` is applied by a compiled loop over row blocks taken in the reverse
    Cuthill-McKee order of its graph (:func:`locality_order`): the rows of Φ a block reads are then
    those of nearby points, read from cache by all their neighbours, and each block's
    ``Φ_Bᵀ (L Φ)_B`` is one matrix product. A dense ``L`` or an operator is applied to Φ at once.

    Parameters
    ----------
    Phi : ndarray of shape (n_samples, k + 1)
        The features, the column of ones first.
    L : sparse matrix, ndarray or LinearOperator of shape (n_samples, n_samples)
    gamma_A, gamma_I : float

    Returns
    -------
    G : ndarray of shape (k + 1, k + 1)
        Symmetric, in float64.
    """
    n, k1 = Phi.shape
    G = np.zeros((k1, k1))
    if hasattr(L, "tocsr"):
        L = L.tocsr()
        order = locality_order(L)
        rows = min(_GRAM_BLOCK_ROWS, n)
        block = np.empty((rows, k1), dtype=Phi.dtype)
        data = L.data.astype(Phi.dtype, copy=False)
        identity = bool(np.array_equal(order, np.arange(n)))    # the points' order: slices, no gathered copy
        for start in range(0, n, rows):                    # Φ_Bᵀ (L Φ)_B, summed over row blocks
            stop = min(start + rows, n)
            _rows_times(L.indptr, L.indices, data, order, Phi, start, stop, block)
            picked = Phi[start:stop] if identity else Phi[order[start:stop]]
            G += np.asarray(picked, dtype=np.float64).T @ np.asarray(block[:stop - start], dtype=np.float64)
    else:                                                  # dense L or a LinearOperator
        G += np.asarray(Phi, dtype=np.float64).T @ np.asarray(L @ np.asarray(Phi, dtype=np.float64))
    G *= gamma_I
    G = 0.5 * (G + G.T)                                    # symmetric to round-off
    G[np.arange(1, k1), np.arange(1, k1)] += gamma_A
    return G


def locality_order(L):
    """An order of the rows of the sparse ``L`` in which neighbours in its graph lie close together.

    Reverse Cuthill-McKee (:func:`scipy.sparse.csgraph.reverse_cuthill_mckee`, O(nnz)); the
    identity for fewer rows than twice the row blocks of Φ, where every row of Φ stays in cache.
    """
    n = L.shape[0]
    if n < _LOCALITY_MIN_ROWS:
        return np.arange(n, dtype=np.int64)
    from scipy.sparse.csgraph import reverse_cuthill_mckee

    return np.asarray(reverse_cuthill_mckee(L, symmetric_mode=True), dtype=np.int64)


@njit(parallel=True, nogil=True, cache=True)
def _rows_times(indptr, indices, data, order, Phi, start, stop, out):  # pragma: no cover - compiled
    """``out[t - start] = L[order[t]] Φ`` for ``start <= t < stop`` (L in CSR)."""
    k = Phi.shape[1]
    for t in numba.prange(start, stop):
        i = order[t]
        row = out[t - start]
        row[:] = 0.0
        for p in range(indptr[i], indptr[i + 1]):
            v = data[p]
            source = Phi[indices[p]]
            for c in range(k):
                row[c] += v * source[c]


def reduced_system(X, Z, L, gamma_A, gamma_I, *, kernel, sigma, kernel_degree, coef0, dtype):
    """The Nyström features ``Φ = [1, K(X, Z) T]`` (:func:`nystrom_map`) and ``G`` (:func:`graph_gram`).

    Every system solved afterwards has its eigenvalues at least γ_A away from zero.

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n_samples, n_features)
        The training rows.
    Z : ndarray or sparse matrix of shape (r, n_features)
        The basis points.
    L : sparse matrix, ndarray or LinearOperator of shape (n_samples, n_samples)
    gamma_A, gamma_I : float
    kernel, sigma, kernel_degree, coef0
        The kernel, as in :func:`toolkit.kernels.kernel_matrix`.
    dtype : numpy dtype
        The arithmetic of Φ.

    Returns
    -------
    Phi : ndarray of shape (n_samples, k + 1)
        In ``dtype``, built by row blocks (no n × r kernel is kept beside it).
    G : ndarray of shape (k + 1, k + 1)
        In float64.
    T : ndarray of shape (r, k)
    """
    n = X.shape[0]
    T = nystrom_map(kernel_matrix(Z, kernel=kernel, sigma=sigma, kernel_degree=kernel_degree, coef0=coef0))
    Phi = np.empty((n, T.shape[1] + 1), dtype=dtype)
    Phi[:, 0] = 1.0
    for start in range(0, n, _BLOCK_ROWS):
        stop = min(start + _BLOCK_ROWS, n)
        Phi[start:stop, 1:] = kernel_matrix(X[start:stop], Z, kernel=kernel, sigma=sigma,
                                            kernel_degree=kernel_degree, coef0=coef0) @ T
    return Phi, graph_gram(Phi, L, gamma_A, gamma_I), T


# ------------------------------------------------------------------------------ the dual's kernel
def lapsvm_dual_kernel(K, L, n_labeled, gamma_A, gamma_I):
    """The LapSVM dual's kernel ``G = J K (2γ_A I + 2γ_I L K)⁻¹ Jᵀ`` and ``B = (2γ_A I + 2γ_I L K)⁻¹ Jᵀ``.

    ``J = [I_l 0]`` picks the labelled points (the first ``n_labeled``). Belkin, Niyogi &
    Sindhwani (2006) eq. (5)-(6): the expansion is ``α = B Y β`` for the dual variables β of the
    SVM on ``G``; :func:`toolkit.lapsvm_dual` uses it as it is, :func:`toolkit.effective_kernel`
    (the λ-path of Wang, Qin & Huang) with ``γ_A = 1/2``, ``γ_I = r/2``.

    Parameters
    ----------
    K : ndarray of shape (n_samples, n_samples)
    L : sparse matrix, ndarray or LinearOperator of shape (n_samples, n_samples)
        The (iterated) Laplacian; not used when ``gamma_I == 0``.
    n_labeled : int
    gamma_A, gamma_I : float
        ``gamma_A > 0`` or ``gamma_I > 0`` with ``2γ_A I + 2γ_I L K`` non-singular.

    Returns
    -------
    G : ndarray of shape (n_labeled, n_labeled)
        Symmetrised ``(G + Gᵀ) / 2`` (round-off).
    B : ndarray of shape (n_samples, n_labeled)
        ``G(x, x_i) = k(x)ᵀ B[:, i]`` for any point x.

    Notes
    -----
    One LU factorisation of the dense ``n × n`` matrix, ``O(n³)``, then ``O(n² l)``; with
    ``gamma_I == 0``, ``B = Jᵀ / (2γ_A)`` and no factorisation.
    """
    n = K.shape[0]
    B = np.zeros((n, n_labeled))
    B[np.arange(n_labeled), np.arange(n_labeled)] = 1.0
    if gamma_I == 0.0:
        B /= 2.0 * gamma_A
    else:
        LK = L @ K
        M = 2.0 * gamma_I * np.asarray(LK.toarray() if hasattr(LK, "toarray") else LK, dtype=float)
        M[np.diag_indices(n)] += 2.0 * gamma_A
        B = sla.lu_solve(sla.lu_factor(M, check_finite=False), B, check_finite=False)
    G = K[:n_labeled] @ B
    return 0.5 * (G + G.T), B
