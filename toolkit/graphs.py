"""Neighbourhood graphs and graph Laplacians for manifold regularisation.

The intrinsic regulariser of Laplacian SVM / RLSC (Belkin et al. 2006; Melacci & Belkin 2011,
eq. 1-3) is ``fᵀ L^p f`` where ``L`` is the Laplacian of a data adjacency graph built on the
labelled and unlabelled points together. This module builds that graph and its Laplacian:

* :func:`knn_graph` -- symmetrised k-nearest-neighbour graph, ``i ~ j`` if either point is among
  the other's ``k`` nearest (exact search by scikit-learn, or approximate search by pynndescent's
  NN-descent for large sets of many features); ties at the k-th distance go to the smaller index,
  within a relative tolerance (:data:`KNN_TIE_RTOL`), so the graph does not depend on rounding;
* :func:`epsilon_graph` -- ``i ~ j`` if ``d(x_i, x_j) <= radius``;
* :func:`graph_laplacian` -- ``L = D - W`` or ``L = I - D^{-1/2} W D^{-1/2}`` of a weight matrix;
* :func:`iterated_laplacian` -- ``L^p``, Melacci & Belkin's "iterated Laplacian" (Table 9 parameter
  ``p``, the toolkit's ``degree``), the one construction every solver and :func:`laplacian` use;
* :func:`laplacian` -- the whole pipeline ``X -> L^p`` as a CSR matrix;
* :func:`laplacian_operator` -- ``L^p`` as a :class:`scipy.sparse.linalg.LinearOperator` that
  applies ``L`` ``p`` times and never forms the (denser) power.

Edge weights are ``"binary"`` (1, the default), ``"heat"`` (``exp(-d² / (2 σ_G²))``, the width
``graph_sigma`` defaulting to the mean distance of the points' k-nearest-neighbour lists, as in
Melacci & Belkin's experiments and LapSVMp) or ``"distance"`` (``d``). Inputs may be dense arrays or
SciPy sparse matrices (``metric="cosine"`` is the usual choice for text).
"""
from __future__ import annotations

import numbers
import time
import warnings
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator
from sklearn.neighbors import NearestNeighbors

from toolkit._numba_cache import njit
from toolkit._validation import (check_laplacian_matrix, check_matrix, check_option, check_rng, check_row_norms,
                                 check_scalar)

__all__ = ["knn_graph", "knn_graph_from_kernel", "epsilon_graph", "graph_laplacian", "laplacian", "build_laplacian",
           "BuiltGraph",
           "iterated_laplacian", "laplacian_operator", "POWER_MAX_DENSITY", "WEIGHTS", "METRICS",
           "NEIGHBOR_SEARCHES", "choose_neighbor_search", "KNN_TIE_RTOL"]

#: The graph of the Laplacian methods and its defaults: those of :func:`toolkit.lapsvm`.
GRAPH_PARAMS = {"neighbors": 10, "degree": 2, "normalized": True, "weight": "heat", "graph_sigma": None,
                "metric": "euclidean"}

WEIGHTS = ("binary", "heat", "distance")
METRICS = ("euclidean", "cosine", "manhattan", "sqeuclidean")
#: Neighbour searches of :func:`knn_graph` (``"auto"`` chooses by n, d and sparsity).
NEIGHBOR_SEARCHES = ("auto", "kdtree", "sklearn", "pynndescent")

#: ``neighbor_search="auto"``: dense points of at most this many features are searched exactly with
#: scikit-learn's trees (O(n log n) per query batch), whose cost grows with the number of features
#: (see the benchmarks page, ``python benchmarks/bench_neighbors.py``).
KNN_TREE_MAX_FEATURES = 16
#: ``neighbor_search="auto"``: beyond :data:`KNN_TREE_MAX_FEATURES` features (or sparse points), sets of
#: at least this many points are searched approximately by pynndescent: exact brute force costs
#: O(n² d), which on sets this large outweighs pynndescent's compilation (once per process) and its
#: missed neighbours (SSL-book set 8 on the benchmarks page, ``python benchmarks/bench_neighbors.py``).
APPROXIMATE_MIN_SAMPLES = 50_000
#: ``neighbor_search="auto"``: from this many points, the k-d tree is kept only for dense points of at
#: most :data:`KNN_TREE_MAX_FEATURES_LARGE` features; more are searched approximately by pynndescent.
#: An exact search's work grows steeply with n and d together, pynndescent's hardly with d: the two
#: thresholds are where the tree stops being the faster on Gaussian points (see the benchmarks page,
#: ``python benchmarks/bench_neighbors.py --crossover``). Under a metric no tree measures (cosine),
#: scikit-learn's brute force costs O(n² d), so pynndescent from :data:`APPROXIMATE_MIN_SAMPLES`
#: points there too.
KNN_TREE_LARGE_SAMPLES = 200_000
KNN_TREE_MAX_FEATURES_LARGE = 10
#: pynndescent builds a graph of ``APPROXIMATE_OVERSEARCH × k`` neighbours (at least
#: :data:`APPROXIMATE_MIN_CANDIDATES`) and keeps the ``k`` nearest: searching for ``k`` alone misses
#: many true neighbours where distances tie (sparse binary features such as SSL-book set 8's).
APPROXIMATE_OVERSEARCH = 3
APPROXIMATE_MIN_CANDIDATES = 30
#: how to install the approximate neighbour search (pynndescent), an extra of the package
ANN_INSTALL = 'pip install "ssl-toolkit[ann]"'
#: The tie rule of the kNN lists (:func:`knn_graph`, :func:`knn_graph_from_kernel`): distances from
#: ``x_i`` within ``KNN_TIE_RTOL · (d_k + s_i)`` of its k-th nearest distance ``d_k`` are tied and the
#: tie goes to the smaller index (``s_i`` the point's scale, e.g. ``||x_i||``). Far above the rounding
#: of a distance (about 1e-16 relative, up to ``d ε ||x||² / d_k`` for a BLAS product of ``d``
#: features), far below the gaps between distinct distances of real data (the smallest relative gap at
#: the k-th neighbour is 1e-6 on G50C, 8e-6 on COIL20, 6e-5 on USPST; PCMAC's and USPST's exact ties
#: aside, which are what the rule is for).
KNN_TIE_RTOL = 1e-9
#: The exact search returns ``k + KNN_EXTRA_CANDIDATES`` candidates per point; where the tie at the
#: k-th distance may reach beyond them, the point's distances to every other point are computed.
KNN_EXTRA_CANDIDATES = 8
#: A search's distances may be off by this much, relative to ``d_k + s_i``, from the recomputed ones
#: (scikit-learn's brute force forms ``||x||² - 2 x·z + ||z||²``): the candidates settle a tie only when
#: the farthest of them is beyond ``d_k`` by the tie tolerance plus this margin.
KNN_SEARCH_RTOL = 1e-6
#: Metric codes of the compiled distance loops.
_METRIC_CODES = {"euclidean": 0, "sqeuclidean": 0, "manhattan": 1, "cosine": 2}


# ----------------------------------------------------------------------------- helpers
def _nearest_neighbors(metric):
    # brute force is exact for every metric and the only option for sparse input with cosine
    algorithm = "brute" if metric in ("cosine", "sqeuclidean") else "auto"
    return NearestNeighbors(metric=metric, algorithm=algorithm)


def choose_neighbor_search(X, metric="euclidean"):
    """The search ``neighbor_search="auto"`` takes for the points ``X`` (dense array or sparse matrix).

    ``"kdtree"`` (exact, SciPy's k-d tree) for dense points of at most :data:`KNN_TREE_MAX_FEATURES`
    features (:data:`KNN_TREE_MAX_FEATURES_LARGE` from :data:`KNN_TREE_LARGE_SAMPLES` points) under a
    metric it measures (:data:`KDTREE_METRICS`); otherwise pynndescent (approximate) from
    :data:`APPROXIMATE_MIN_SAMPLES` points, and scikit-learn (exact) for smaller sets.
    """
    n, d = X.shape
    tree_features = KNN_TREE_MAX_FEATURES_LARGE if n >= KNN_TREE_LARGE_SAMPLES else KNN_TREE_MAX_FEATURES
    if not sp.issparse(X) and d <= tree_features and metric in KDTREE_METRICS:
        return "kdtree"
    if n >= APPROXIMATE_MIN_SAMPLES:
        return "pynndescent"
    return "sklearn"


#: Metrics the k-d tree search measures (its Minkowski p = 2 or 1; squared distances have the
#: Euclidean neighbours).
KDTREE_METRICS = ("euclidean", "sqeuclidean", "manhattan")


def _kdtree_candidates(X, n_candidates, metric, func):
    """Each point's ``n_candidates`` nearest other points by SciPy's k-d tree (exact), shape (n, c).

    The queries run in the tree's own order of the points (``cKDTree.indices``), so consecutive
    queries visit the same leaves and find them in cache (faster than querying in the points' order,
    and than scikit-learn's tree). Threads: numba's
    (``NUMBA_NUM_THREADS``, :func:`numba.set_num_threads`), as the package's other compiled loops.
    """
    from scipy.spatial import cKDTree

    if sp.issparse(X) or metric not in KDTREE_METRICS:
        raise ValueError(f"The 'neighbor_search' parameter of {func} is 'kdtree', which needs dense points and a "
                         f"metric in {KDTREE_METRICS}. Got {'sparse points' if sp.issparse(X) else 'dense points'} and "
                         f"metric={metric!r} instead; use neighbor_search='auto'.")
    X = np.ascontiguousarray(X, dtype=np.float64)
    n = X.shape[0]
    tree = cKDTree(X, leafsize=16)
    order = tree.indices
    _, found = tree.query(X[order], k=n_candidates + 1, p=1 if metric == "manhattan" else 2,
                          workers=numba.get_num_threads())
    candidates = np.empty((n, n_candidates), dtype=np.int64)
    _drop_self(np.ascontiguousarray(found, dtype=np.int64), order.astype(np.int64), candidates)
    return candidates


@njit(parallel=True, cache=True)
def _drop_self(found, order, out):  # pragma: no cover - compiled
    """Row ``order[t]`` of ``out``: ``found[t]`` without the point itself (without its last entry
    when the point is not among them: more duplicates of it than candidates)."""
    c = out.shape[1]
    for t in numba.prange(found.shape[0]):
        i = order[t]
        q = 0
        for p in range(found.shape[1]):
            j = found[t, p]
            if j != i and q < c:
                out[i, q] = j
                q += 1


def _nn_descent_candidates(X, neighbors, metric, rng, func):
    """(distances, indices) of each point's approximate nearest others by NN-descent, nearest first:
    :data:`APPROXIMATE_OVERSEARCH` × ``neighbors`` of them (at least :data:`APPROXIMATE_MIN_CANDIDATES`;
    distances in float32)."""
    try:
        from pynndescent import NNDescent
    except ImportError as exc:
        exact = "'kdtree'" if not sp.issparse(X) and metric in KDTREE_METRICS else "'sklearn'"
        raise ImportError(f"{func}: the approximate neighbour search (neighbor_search='pynndescent', which "
                          f"'auto' takes for {X.shape[0]} points of {X.shape[1]} features) needs the 'ann' extra: "
                          f"{ANN_INSTALL}. Or pass neighbor_search={exact} for the exact search "
                          f"(slower on large sets). ({exc})") from exc
    n = X.shape[0]
    seed = None if rng is None else int(check_rng(rng)[0].integers(2**31 - 1))
    candidates = min(n, max(APPROXIMATE_OVERSEARCH * neighbors, APPROXIMATE_MIN_CANDIDATES) + 1)
    if sp.issparse(X):
        X = sp.csr_matrix(X, dtype=np.float32)
        X.sort_indices()
    else:
        X = np.ascontiguousarray(X, dtype=np.float32)
    index = NNDescent(X, metric=metric, n_neighbors=candidates, random_state=0 if seed is None else seed,
                      compressed=True)
    ind, dist = index.neighbor_graph
    # each row holds the point itself (distance 0) unless duplicates crowded it out: drop it, or the last
    is_self = ind == np.arange(n)[:, None]
    is_self[~is_self.any(axis=1), -1] = True
    keep = ~is_self
    ind = ind[keep].reshape(n, candidates - 1)
    dist = dist[keep].reshape(n, candidates - 1).astype(np.float64)
    if np.any(ind < 0):
        raise RuntimeError(f"{func}: pynndescent found fewer than {neighbors} neighbours for some points; "
                           "use neighbor_search='sklearn'.")
    return dist, ind


def _nn_descent(X, neighbors, metric, rng, func):
    """(distances, indices) of each point's ``neighbors`` approximate nearest others, by NN-descent
    (the first of :func:`_nn_descent_candidates`, in pynndescent's order)."""
    dist, ind = _nn_descent_candidates(X, neighbors, metric, rng, func)
    return dist[:, :neighbors], ind[:, :neighbors]


@njit(parallel=True, cache=True)
def _dense_pair_distances(X, rows, cols, code, out):  # pragma: no cover - compiled
    """out[p, q] = distance of X[rows[p]] and X[cols[p, q]]: code 0 the squared Euclidean, 1 the
    Manhattan, 2 the cosine distance. Each sum runs feature by feature in one thread (no BLAS, no
    reassociation): the same bits on any machine and any thread count, and d(x, z) = d(z, x) exactly."""
    d = X.shape[1]
    for p in numba.prange(cols.shape[0]):
        x = X[rows[p]]
        for q in range(cols.shape[1]):
            z = X[cols[p, q]]
            total = 0.0
            norm_x = 0.0
            norm_z = 0.0
            for f in range(d):
                if code == 0:
                    total += (x[f] - z[f]) * (x[f] - z[f])
                elif code == 1:
                    total += abs(x[f] - z[f])
                else:
                    total += x[f] * z[f]
                    norm_x += x[f] * x[f]
                    norm_z += z[f] * z[f]
            out[p, q] = _finish_distance(total, norm_x, norm_z, code)


@njit(parallel=True, cache=True)
def _sparse_pair_distances(indptr, indices, data, rows, cols, code, out):  # pragma: no cover - compiled
    """:func:`_dense_pair_distances` for CSR rows with sorted indices: the two rows merged feature by
    feature, so the sums are those of the dense rows (a zero adds nothing)."""
    for p in numba.prange(cols.shape[0]):
        i = rows[p]
        for q in range(cols.shape[1]):
            j = cols[p, q]
            a, a_end, b, b_end = indptr[i], indptr[i + 1], indptr[j], indptr[j + 1]
            total = 0.0
            norm_x = 0.0
            norm_z = 0.0
            while a < a_end or b < b_end:
                if b >= b_end or (a < a_end and indices[a] < indices[b]):
                    u, v = data[a], 0.0
                    a += 1
                elif a >= a_end or indices[b] < indices[a]:
                    u, v = 0.0, data[b]
                    b += 1
                else:
                    u, v = data[a], data[b]
                    a += 1
                    b += 1
                if code == 0:
                    total += (u - v) * (u - v)
                elif code == 1:
                    total += abs(u - v)
                else:
                    total += u * v
                    norm_x += u * u
                    norm_z += v * v
            out[p, q] = _finish_distance(total, norm_x, norm_z, code)


@njit(cache=True)
def _finish_distance(total, norm_x, norm_z, code):  # pragma: no cover - compiled
    """The distance from the sums of the loops above (cosine: ``1 - x·z / sqrt(||x||² ||z||²)`` in
    [0, 2], 1 for a zero row, as scikit-learn's ``cosine_distances``)."""
    if code != 2:
        return total
    if norm_x == 0.0 or norm_z == 0.0:
        return 1.0
    return min(max(1.0 - total / np.sqrt(norm_x * norm_z), 0.0), 2.0)


def _pair_distances(X, rows, cols, metric):
    """Distances of the points ``X[rows[p]]`` and ``X[cols[p, q]]``, shape ``cols.shape``, computed in a
    fixed order (:func:`_dense_pair_distances`); ``X`` is a float64 array or CSR matrix with sorted indices."""
    out = np.empty(cols.shape)
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    cols = np.ascontiguousarray(cols, dtype=np.int64)
    code = _METRIC_CODES[metric]
    if sp.issparse(X):
        _sparse_pair_distances(X.indptr, X.indices, X.data, rows, cols, code, out)
    else:
        _dense_pair_distances(X, rows, cols, code, out)
    return np.sqrt(out, out=out) if metric == "euclidean" else out


def _point_scales(X, metric, sq_norms):
    """The scale ``s_i`` of the tie rule (:data:`KNN_TIE_RTOL`): the size of point ``i`` in the metric's
    units, what the rounding of its distances is proportional to (1 for the cosine distance)."""
    if metric == "euclidean":
        return np.sqrt(sq_norms)
    if metric == "sqeuclidean":
        return np.asarray(sq_norms, dtype=np.float64)
    if metric == "manhattan":
        return np.asarray(abs(X).sum(axis=1), dtype=np.float64).ravel()
    return np.ones(X.shape[0])


def _others(rows, n):
    """Row p: every index of ``range(n)`` but ``rows[p]``, in increasing order; shape (len(rows), n - 1)."""
    others = np.broadcast_to(np.arange(n - 1), (len(rows), n - 1))
    return others + (others >= np.asarray(rows)[:, None])


def _nearest_with_ties(dist, ind, k, scale, *, complete):
    """The ``k`` nearest of each row's candidates by the tie rule of :func:`knn_graph`.

    ``dist``, ``ind``: (m, c) candidate distances and indices, any order, ``c >= k``; ``scale``: (m,)
    the points' ``s_i``. Returns the (m, k) distances and indices (nearer points first, a tie by index)
    and, per row, whether the candidates settle it: ``complete`` (they are all the other points), or
    the farthest candidate lies beyond the tie by :data:`KNN_SEARCH_RTOL`.
    """
    ind = np.asarray(ind, dtype=np.int64)                     # (pynndescent's are int32)
    if dist.shape[1] <= _COMPILED_TIE_CANDIDATES:             # a search's few candidates: one compiled pass
        dist = np.ascontiguousarray(dist, dtype=np.float64)
        out_d, out_i = np.empty((len(dist), k)), np.empty((len(dist), k), dtype=np.int64)
        decided = np.empty(len(dist), dtype=np.bool_)
        _nearest_rows(dist, np.ascontiguousarray(ind), k, np.ascontiguousarray(scale, dtype=np.float64),
                      KNN_TIE_RTOL, KNN_SEARCH_RTOL, bool(complete), out_d, out_i, decided)
        return out_d, out_i, decided
    if complete and dist.shape[0]:           # every other point: select, then sort the few that matter (compiled)
        dist = np.ascontiguousarray(dist, dtype=np.float64)
        out_d, out_i = np.empty((len(dist), k)), np.empty((len(dist), k), dtype=np.int64)
        fallback = np.zeros(len(dist), dtype=np.bool_)
        _nearest_rows_selected(dist, np.ascontiguousarray(ind), k, np.ascontiguousarray(scale, dtype=np.float64),
                               KNN_TIE_RTOL, out_d, out_i, fallback)
        rest = np.flatnonzero(fallback)     # a NaN or too few finite distances: the sorts below
        if rest.size:
            out_d[rest], out_i[rest], _ = _nearest_sorted(dist[rest], ind[rest], k, np.asarray(scale)[rest], complete)
        return out_d, out_i, np.ones(len(dist), dtype=bool)
    return _nearest_sorted(dist, ind, k, scale, complete)


def _nearest_sorted(dist, ind, k, scale, complete):
    """:func:`_nearest_with_ties` by NumPy's sorts (the definition the compiled passes are tested against)."""
    order = np.lexsort((ind, dist), axis=-1)                  # by distance, then by index
    dist = np.take_along_axis(dist, order, axis=1)
    ind = np.take_along_axis(ind, order, axis=1)
    kth = dist[:, k - 1:k]
    tolerance = KNN_TIE_RTOL * (kth + scale[:, None])
    with np.errstate(invalid="ignore"):                       # inf - inf: a row of underflowed kernel values
        nearer = dist < kth - tolerance
        tied = ~nearer & (dist <= kth + tolerance)
        settled = dist[:, -1:] > kth + tolerance + KNN_SEARCH_RTOL * (kth + scale[:, None])
    rank = np.where(nearer, -1, np.where(tied, ind, np.iinfo(np.int64).max))
    pick = np.argsort(rank, axis=1, kind="stable")[:, :k]     # the nearer in distance order, then the tie by index
    decided = np.full(len(dist), True) if complete else settled[:, 0]
    return np.take_along_axis(dist, pick, axis=1), np.take_along_axis(ind, pick, axis=1), decided


#: Rows of at most this many candidates go through the compiled tie rule (:func:`_nearest_rows`, an
#: insertion sort per row); longer rows (every other point) through NumPy's sorts.
_COMPILED_TIE_CANDIDATES = 128


@njit(cache=True)
def _before(d1, i1, d2, i2):  # pragma: no cover - compiled
    """(d1, i1) sorts before (d2, i2): by distance, NaN last, then by index (``np.lexsort``'s order)."""
    if d1 != d1:
        return d2 != d2 and i1 < i2
    if d2 != d2 or d1 < d2:
        return True
    return d1 == d2 and i1 < i2


@njit(cache=True)
def _sort_segment_by_key(keys, values, start, stop):  # pragma: no cover - compiled
    """Stable insertion sort of ``keys[start:stop]`` in increasing order, ``values`` moved along (the
    segments sorted here are a point's few neighbours or its tied candidates)."""
    for q in range(start + 1, stop):
        key, value = keys[q], values[q]
        p = q - 1
        while p >= start and keys[p] > key:
            keys[p + 1] = keys[p]
            values[p + 1] = values[p]
            p -= 1
        keys[p + 1] = key
        values[p + 1] = value


@njit(parallel=True, cache=True)
def _nearest_rows(dist, ind, k, scale, rtol, search_rtol, complete, out_d, out_i, decided):  # pragma: no cover
    """:func:`_nearest_with_ties` row by row: sort the candidates by (distance, index); the points
    nearer than ``d_k - t`` in that order, then the tied ones (within ``t`` of ``d_k``) by index, the
    rest after them; the first ``k`` kept. The same expressions as the NumPy version, so the same
    floating-point decisions."""
    m, c = dist.shape
    for r in numba.prange(m):
        d = dist[r].copy()
        ix = ind[r].copy()
        for q in range(1, c):
            dq, iq = d[q], ix[q]
            p = q - 1
            while p >= 0 and _before(dq, iq, d[p], ix[p]):
                d[p + 1] = d[p]
                ix[p + 1] = ix[p]
                p -= 1
            d[p + 1] = dq
            ix[p + 1] = iq
        kth = d[k - 1]
        tolerance = rtol * (kth + scale[r])
        settled = d[c - 1] > kth + tolerance + search_rtol * (kth + scale[r])
        decided[r] = True if complete else settled
        n_near = 0
        while n_near < c and d[n_near] < kth - tolerance:
            n_near += 1
        stop = n_near                                       # the tied group: contiguous after the nearer
        while stop < c and not (d[stop] < kth - tolerance) and d[stop] <= kth + tolerance:
            stop += 1
        _sort_segment_by_key(ix, d, n_near, stop)          # the tied by index
        for q in range(k):
            out_d[r, q] = d[q]
            out_i[r, q] = ix[q]


@njit(parallel=True, cache=True)
def _nearest_rows_selected(dist, ind, k, scale, rtol, out_d, out_i, fallback):  # pragma: no cover - compiled
    """:func:`_nearest_with_ties` for rows of many candidates (every other point, ``complete``): the
    k-th smallest distance by selection (O(c)), then only the points nearer than it (at most k - 1,
    sorted by distance and index) and the tied ones (sorted by index) are sorted. A row with a NaN
    or fewer than k finite distances is flagged in ``fallback`` for the sorting definition."""
    m, c = dist.shape
    for r in numba.prange(m):
        row = dist[r]
        finite = np.empty(c)
        count = 0
        has_nan = False
        for q in range(c):
            if row[q] != row[q]:
                has_nan = True
            else:
                finite[count] = row[q]
                count += 1
        if has_nan or count < k:
            fallback[r] = True
            continue
        kth = np.partition(finite[:count], k - 1)[k - 1]
        tolerance = rtol * (kth + scale[r])
        near_d = np.empty(k)
        near_i = np.empty(k, dtype=np.int64)
        tied = np.empty(c, dtype=np.int64)
        n_near = 0
        n_tied = 0
        for q in range(c):
            dq = row[q]
            if dq < kth - tolerance:
                p = n_near                                  # insertion by (distance, index)
                while p > 0 and _before(dq, ind[r, q], near_d[p - 1], near_i[p - 1]):
                    near_d[p] = near_d[p - 1]
                    near_i[p] = near_i[p - 1]
                    p -= 1
                near_d[p] = dq
                near_i[p] = ind[r, q]
                n_near += 1
            elif dq <= kth + tolerance:
                tied[n_tied] = q
                n_tied += 1
        if n_near + n_tied < k:
            fallback[r] = True
            continue
        for q in range(n_near):
            out_d[r, q] = near_d[q]
            out_i[r, q] = near_i[q]
        order = np.argsort(ind[r][tied[:n_tied]], kind="mergesort")
        for q in range(k - n_near):
            j = tied[order[q]]
            out_d[r, n_near + q] = row[j]
            out_i[r, n_near + q] = ind[r, j]


#: distances computed at once for the points whose tie the candidates do not settle (their rows to
#: every other point): 2**22 entries, 64 MiB with their indices
_FULL_ROWS_ENTRIES = 2**22


def _k_nearest(candidates, k, distances, scale, *, widen=True, reach=None):
    """(distances, indices), shape (n, k), of each point's ``k`` nearest by the tie rule of :func:`knn_graph`.

    ``candidates`` (n, c): indices from a search, ``c >= k``, each row without its own point;
    ``distances(rows, cols)``: the distances of the points ``rows[p]`` and ``cols[p, q]``, computed in a
    fixed order. With ``widen``, a point whose tie at ``d_k`` may reach beyond its candidates gets its
    distances to every other point (an exact search's candidates; not NN-descent's, which are approximate),
    or, with ``reach``, only to a superset of the points within the tie's reach (every point but itself
    nearer than ``d_k`` plus the tie tolerance): ``reach(rows, width)`` returns ``(counts, cols)``, their
    numbers and the first ``width`` of them per row in increasing order. The tie rule over that superset
    decides as over every other point: the points outside it are neither nearer than ``d_k`` nor tied.
    """
    n, c = candidates.shape
    rows = np.arange(n)
    dist, ind, decided = _nearest_with_ties(distances(rows, candidates), candidates, k, scale,
                                            complete=not widen or c >= n - 1)
    undecided = np.flatnonzero(~decided)
    if reach is not None:
        def settle(these, counts, cols):
            pad = np.arange(cols.shape[1]) >= counts[:, None]
            cols[pad] = np.broadcast_to(cols[:, :1], cols.shape)[pad]      # a real point, infinitely far
            d = distances(these, cols)
            d[pad] = np.inf
            dist[these], ind[these], _ = _nearest_with_ties(d, cols, k, scale[these], complete=True)

        width = min(n - 1, _REACH_WIDTH * c)           # one pass gathers most rows; wider ones a second
        step = max(1, _FULL_ROWS_ENTRIES // width)
        wide, wide_counts = [undecided[:0]], [undecided[:0]]
        for start in range(0, undecided.size, step):
            block = undecided[start:start + step]
            counts, cols = reach(block, width)
            fits = counts <= width
            if fits.any():
                settle(block[fits], counts[fits], cols[fits, :int(counts[fits].max())])
            wide.append(block[~fits])
            wide_counts.append(counts[~fits])
        wide, counts = np.concatenate(wide), np.concatenate(wide_counts)
        if wide.size:                                  # at their own widths (at most every other point),
            order = np.argsort(counts, kind="stable")  # in blocks of similar widths
            wide, counts = wide[order], counts[order]
            start = 0
            while start < wide.size:
                stop = start + 1
                while stop < wide.size and (stop + 1 - start) * counts[stop] <= _FULL_ROWS_ENTRIES:
                    stop += 1
                settle(wide[start:stop], *reach(wide[start:stop], int(counts[stop - 1])))
                start = stop
        return dist, ind
    step = max(1, _FULL_ROWS_ENTRIES // max(n - 1, 1))
    for start in range(0, undecided.size, step):
        block = undecided[start:start + step]
        others = _others(block, n)
        dist[block], ind[block], _ = _nearest_with_ties(distances(block, others), others, k, scale[block],
                                                        complete=True)
    return dist, ind


#: With ``reach``, :func:`_k_nearest` gathers up to this many times the candidates' number per row in one
#: pass (set 8, 10 neighbours, 18 candidates: the tie reaches at most 144 points).
_REACH_WIDTH = 8


def _symmetric_edges(n, rows, cols, dist):
    """Union of the directed edges (rows -> cols) and their reverses, each kept once, in CSR form.

    Returns ``(indptr, indices, d)``: row ``i`` lists its neighbours in increasing index with the
    edge's distance. Distances are symmetric up to round-off; the first occurrence of an undirected
    edge in the order of ``rows`` / ``cols`` wins and both directions get its value, so the result is
    exactly symmetric. One compiled counting sort, O(n + edges), rather than a sort of the edges'
    keys (O(edges log edges)).
    """
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    cols = np.ascontiguousarray(cols, dtype=np.int64)
    dist = np.ascontiguousarray(dist, dtype=np.float64)
    return _symmetric_csr(n, rows, cols, dist)


@njit(cache=True)
def _symmetric_csr(n, rows, cols, dist):  # pragma: no cover - compiled
    """:func:`_symmetric_edges`: edges bucketed by their smaller end (stable, so the first occurrence
    stays first), sorted by the larger end within a bucket (stable insertion sort: a bucket holds a
    point's few neighbours), duplicates dropped, then each undirected edge written into both rows."""
    m = rows.size
    count = np.zeros(n + 1, dtype=np.int64)
    for p in range(m):
        if rows[p] != cols[p]:
            count[min(rows[p], cols[p]) + 1] += 1
    for i in range(n):
        count[i + 1] += count[i]
    fill = count[:-1].copy()
    hi = np.empty(count[n], dtype=np.int64)
    dd = np.empty(count[n])
    for p in range(m):
        a, b = rows[p], cols[p]
        if a != b:
            lo = min(a, b)
            q = fill[lo]
            hi[q] = max(a, b)
            dd[q] = dist[p]
            fill[lo] += 1
    degree = np.zeros(n + 1, dtype=np.int64)
    keep = np.zeros(count[n], dtype=np.bool_)
    for i in range(n):
        start, stop = count[i], count[i + 1]
        _sort_segment_by_key(hi, dd, start, stop)         # the bucket by its larger ends
        for q in range(start, stop):
            if q == start or hi[q] != hi[q - 1]:
                keep[q] = True
                degree[i + 1] += 1
                degree[hi[q] + 1] += 1
    for i in range(n):
        degree[i + 1] += degree[i]
    indices = np.empty(degree[n], dtype=np.int64)
    data = np.empty(degree[n])
    fill = degree[:-1].copy()
    for i in range(n):                             # row hi gets its smaller neighbours in increasing lo
        for q in range(count[i], count[i + 1]):
            if keep[q]:
                j = hi[q]
                indices[fill[j]] = i
                data[fill[j]] = dd[q]
                fill[j] += 1
    for i in range(n):                             # then its larger neighbours, in increasing hi
        for q in range(count[i], count[i + 1]):
            if keep[q]:
                indices[fill[i]] = hi[q]
                data[fill[i]] = dd[q]
                fill[i] += 1
    return degree, indices, data


def _mean_neighbor_distance(dist, zero=0.0):
    """LapSVMp's default heat width σ_G: the mean of the ``n k`` distances of the directed kNN lists.

    ``dist`` holds each point's distances to its ``k`` neighbours before the graph is symmetrised, so
    an edge both of whose ends list the other counts twice and one listed by a single end once; zero
    distances (duplicate points: at most ``zero``, an array broadcasting against ``dist``, e.g. each
    point's tie tolerance :data:`KNN_TIE_RTOL` ``· s_i``, so that duplicates a few ulps apart stay
    duplicates) are left out. This is ``t = mean(DI(DI~=0))`` of LapSVMp's
    ``adjacency.m`` (Melacci 2012), the graph of Melacci & Belkin's experiments; the mean over the
    undirected edges of the symmetrised graph is another, larger number, which moves PCG's early
    stop away from LapSVMp's on Melacci & Belkin's tasks. 1.0 when every distance is 0.
    """
    dist = np.asarray(dist, dtype=np.float64)
    positive = dist[dist > zero]
    return float(positive.mean()) if positive.size else 1.0


def _weights(dist, weight, graph_sigma, func, directed_dist=None, zero=0.0):
    """Edge weights of the symmetrised edges' distances ``dist``; ``directed_dist`` (the kNN lists'
    distances) and ``zero`` set the default heat width, :func:`_mean_neighbor_distance`."""
    if weight == "binary":
        return np.ones_like(dist)
    if weight == "distance":
        return dist.copy()
    # heat kernel weights; default width: LapSVMp's mean neighbour distance
    if graph_sigma is None:
        graph_sigma = _mean_neighbor_distance(dist if directed_dist is None else directed_dist, zero)
    else:
        graph_sigma = check_scalar(graph_sigma, "graph_sigma", func, low=0.0, low_closed=False)
    return np.exp(-(dist * dist) / (2.0 * graph_sigma * graph_sigma))


def _csr(n, indptr, indices, w):
    """The (n, n) CSR matrix of :func:`_symmetric_edges`' rows with weights ``w`` (indices sorted)."""
    index_dtype = np.int32 if indices.size < 2**31 and n < 2**31 else np.int64
    W = sp.csr_matrix((w, indices.astype(index_dtype), indptr.astype(index_dtype)), shape=(n, n))
    W.has_sorted_indices = True
    return W


# ----------------------------------------------------------------------------- graphs
def _check_cosine_rows(metric, sq_norms, func):
    """``metric="cosine"`` measures angles: a row of zeros has none (scikit-learn would put it at
    distance 1 from every point, so its "neighbours" would be the first k rows)."""
    if metric == "cosine" and not np.all(sq_norms > 0):
        zero = np.flatnonzero(~(sq_norms > 0))
        raise ValueError(f"The 'X' parameter of {func} has {zero.size} all-zero row(s) (first: row {zero[0]}), "
                         "which have no angle to other rows, so metric='cosine' cannot place them. Remove them, "
                         "or use metric='euclidean'.")


def knn_graph(X, *, n_neighbors=6, weight="binary", graph_sigma=None, metric="euclidean", neighbor_search="auto",
              rng=None, **deprecated):
    """Symmetrised k-nearest-neighbour graph ``W`` with ``W_ij > 0`` iff ``i ~ j``.

    ``i ~ j`` if ``x_j`` is among the ``k`` nearest neighbours of ``x_i`` or ``x_i`` among those of
    ``x_j`` (the "or" symmetrisation of Belkin et al. 2006 and Melacci & Belkin 2011, §6).

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_samples, n_features)
    n_neighbors : int, default=6
        Number of neighbours ``k``, ``1 <= k <= n_samples - 1``. A point is never its own neighbour
        (duplicates of it are ordinary neighbours at distance 0).
    weight : {"binary", "heat", "distance"}, default="binary"
        Edge weight: 1 (the default), the heat
        weight ``exp(-d² / (2 σ_G²))`` (Melacci & Belkin's experiments and LapSVMp), or the
        distance ``d`` itself.
    graph_sigma : float, default=None
        Width σ_G of the heat weights; ``None`` uses the mean distance of the ``n k`` directed kNN
        lists, before symmetrisation (a mutual pair counts twice; zero distances are left out),
        as LapSVMp's ``adjacency.m``.
    metric : {"euclidean", "cosine", "manhattan", "sqeuclidean"}, default="euclidean"
        Distance for the neighbour search and the weights (``"cosine"``: ``1 - cos∠(x, z)``).
    neighbor_search : {"auto", "kdtree", "sklearn", "pynndescent"}, default="auto"
        ``"kdtree"``: exact, SciPy's k-d tree queried in the tree's order of the points (dense points,
        :data:`KDTREE_METRICS`).
        ``"sklearn"``: exact, scikit-learn's :class:`~sklearn.neighbors.NearestNeighbors` (trees for
        low-dimensional dense data, brute force otherwise: O(n² d) at worst). ``"pynndescent"``:
        approximate, NN-descent (Dong et al. 2011) on random-projection trees, about O(n^1.14 d)
        (:data:`APPROXIMATE_OVERSEARCH` × k candidates per point, the k nearest kept; distances in
        float32). ``"auto"``: :func:`choose_neighbor_search` (``"kdtree"`` for dense points of at most
        :data:`KNN_TREE_MAX_FEATURES` features, :data:`KNN_TREE_MAX_FEATURES_LARGE` from
        :data:`KNN_TREE_LARGE_SAMPLES` points; otherwise pynndescent from
        :data:`APPROXIMATE_MIN_SAMPLES` points, scikit-learn below).
    rng : None, int or Generator, default=None
        Seeds pynndescent's random projections (``None``: seed 0, so the graph is deterministic);
        unused by the exact search.

    Returns
    -------
    W : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        Symmetric, zero diagonal, non-negative (an edge of weight 0 -- duplicates with
        ``weight="distance"`` -- is stored explicitly).

    Notes
    -----
    **Ties.** Which of several points at the same distance enter a kNN list is decided by a rule,
    not by the last bit of a distance (which depends on the BLAS library, the thread count and the
    CPU): on data on a grid (pixels, binary or bag-of-words features, where rows with no word in
    common are all at distance sqrt(2)) it would otherwise change the graph, and the fitted model,
    between machines and between runs with other ``--jobs``.

    1. The search proposes ``k +`` :data:`KNN_EXTRA_CANDIDATES` candidates per point; their distances
       are recomputed from the points in a fixed order (one sum over the features per pair, the same
       bits on every machine, ``d(x, z) = d(z, x)`` exactly).
    2. With ``d_k`` the k-th smallest of them and ``t_i =`` :data:`KNN_TIE_RTOL` ``· (d_k + s_i)``
       (``s_i`` the point's own size: ``||x_i||``, ``||x_i||²`` for ``"sqeuclidean"``, ``||x_i||_1``
       for ``"manhattan"``, 1 for ``"cosine"``), the points nearer than ``d_k - t_i`` are kept and the
       remaining places go to the points within ``t_i`` of ``d_k`` in increasing index.
    3. Where that tie may reach beyond the candidates (the farthest is not beyond ``d_k + t_i`` by
       :data:`KNN_SEARCH_RTOL` ``· (d_k + s_i)``), the point's distances to every other point are
       computed and step 2 is applied to them.

    The graph (edges, and weights up to rounding) is therefore the same when the inputs move by a
    few ulps or the search runs with other threads, unless a distance lies within rounding of
    ``d_k ± t_i``. Distances at most :data:`KNN_TIE_RTOL` ``· s_i`` count as zero (duplicates) for the
    default heat width. With ``neighbor_search="pynndescent"`` the rule picks among NN-descent's
    candidates (step 3 is skipped: the candidates are approximate anyway).

    The approximate search misses some true neighbours, most where distances tie (sparse binary
    features); its recall against the exact search (the share of a point's k found neighbours no
    farther than its exact k-th neighbour) is on the benchmarks page
    (``python benchmarks/bench_neighbors.py``).

    Examples
    --------
    >>> import numpy as np
    >>> W = knn_graph(np.array([[0.0], [1.0], [3.0]]), n_neighbors=1)
    >>> W.toarray()
    array([[0., 1., 0.],
           [1., 0., 1.],
           [0., 1., 0.]])
    """
    func = "knn_graph"
    n_neighbors = _renamed(func, deprecated, n_neighbors=(n_neighbors, 6))["n_neighbors"]
    X = check_matrix(X, "X", func)
    sq_norms = check_row_norms(X, "X", func)
    n = X.shape[0]
    if n < 2:
        raise ValueError(f"The 'X' parameter of {func} must have at least 2 rows to build a graph. Got {n} instead.")
    neighbors = check_scalar(n_neighbors, "n_neighbors", func, kind=numbers.Integral, low=1, high=n - 1)
    check_option(weight, "weight", func, WEIGHTS)
    check_option(metric, "metric", func, METRICS)
    _check_cosine_rows(metric, sq_norms, func)
    check_option(neighbor_search, "neighbor_search", func, NEIGHBOR_SEARCHES)
    if neighbor_search == "auto":
        neighbor_search = choose_neighbor_search(X, metric)
    if neighbor_search == "pynndescent":
        candidates = _nn_descent_candidates(X, neighbors, metric, rng, func)[1]
    elif neighbor_search == "kdtree":
        candidates = _kdtree_candidates(X, min(n - 1, neighbors + KNN_EXTRA_CANDIDATES), metric, func)
    else:
        search = _nearest_neighbors(metric).set_params(n_neighbors=min(n - 1, neighbors + KNN_EXTRA_CANDIDATES))
        candidates = search.fit(X).kneighbors(return_distance=False)  # X=None: a point is not its own neighbour
    points = sp.csr_matrix(X, dtype=np.float64, copy=True) if sp.issparse(X) else np.ascontiguousarray(X, np.float64)
    if sp.issparse(points):
        points.sum_duplicates()
        points.sort_indices()
    scale = _point_scales(X, metric, sq_norms)
    dist, ind = _k_nearest(candidates, neighbors, lambda rows, cols: _pair_distances(points, rows, cols, metric),
                           scale, widen=neighbor_search != "pynndescent")
    rows = np.repeat(np.arange(n), neighbors)
    indptr, indices, d = _symmetric_edges(n, rows, ind.ravel(), dist.ravel())
    return _csr(n, indptr, indices, _weights(d, weight, graph_sigma, func, directed_dist=dist,
                                  zero=KNN_TIE_RTOL * scale[:, None]))


@njit(parallel=True, cache=True)
def _top_k_rows(K, scale, shift, cols, vals, sums):  # pragma: no cover - compiled
    """Row i: the ``k = cols.shape[1]`` largest ``scale K_ij - shift_j`` over ``j != i``, in decreasing
    order (a tie keeps the smaller j), their columns in ``cols[i]`` and values in ``vals[i]``;
    ``sums[i]`` the row's sum, which is finite unless the row holds a NaN or an infinity (or overflows).

    One pass over the row with the k best kept sorted: about one comparison per entry, against an
    introselect and an n × n index array for ``np.argpartition``. :func:`knn_graph_from_kernel` asks
    for a few more than it keeps and settles ties among them by the rule of :func:`knn_graph`."""
    n = K.shape[0]
    k = cols.shape[1]
    for i in numba.prange(n):
        best = np.full(k, -np.inf)
        where = np.full(k, -1, dtype=np.int64)
        row = K[i]
        total = 0.0
        for j in range(n):
            total += row[j]
            s = scale * row[j] - shift[j]
            if s > best[k - 1] and j != i:
                p = k - 1
                while p > 0 and best[p - 1] < s:
                    best[p] = best[p - 1]
                    where[p] = where[p - 1]
                    p -= 1
                best[p] = s
                where[p] = j
        cols[i] = where
        vals[i] = best
        sums[i] = total


@njit(parallel=True, cache=True)
def _gather_at_least(K, rows, threshold, cols, counts):  # pragma: no cover - compiled
    """Row ``p``: the columns ``j != i`` of row ``i = rows[p]`` of ``K`` with ``K_ij >= threshold[p]``, in
    increasing order, the first ``cols.shape[1]`` of them in ``cols[p]``, their number in ``counts[p]``
    (which may exceed ``cols.shape[1]``: the row is then incomplete)."""
    width = cols.shape[1]
    for p in numba.prange(rows.size):
        i = rows[p]
        row = K[i]
        bound = threshold[p]
        c = 0
        for j in range(row.size):
            if row[j] >= bound and j != i:
                if c < width:
                    cols[p, c] = j
                c += 1
        counts[p] = c


def knn_graph_from_kernel(K, *, n_neighbors=6, sigma=None, weight="binary", graph_sigma=None, **deprecated):
    """Symmetrised kNN graph read off a kernel matrix, without the points.

    With ``sigma`` the kernel is the RBF kernel ``K_ij = exp(-||x_i - x_j||² / (2 σ²))``: ``K_ij``
    decreases strictly with the Euclidean distance, so the ``k`` largest off-diagonal entries of
    row ``i`` are the ``k`` nearest neighbours of ``x_i`` and ``d_ij = σ sqrt(-2 log K_ij)``: the
    graph of :func:`knn_graph` (``metric="euclidean"``) for O(n²) extra work instead of a second
    O(n² d) neighbour search. Without ``sigma`` (any positive semi-definite kernel, e.g. one passed
    with ``kernel="precomputed"``) the distance is the kernel's own feature-space distance
    ``d_ij = sqrt(K_ii + K_jj - 2 K_ij)``.

    Parameters
    ----------
    K : ndarray of shape (n_samples, n_samples)
        Kernel matrix of the points (float64 recommended: float32 blurs near ties).
    n_neighbors : int, default=6
    sigma : float, default=None
        The RBF width σ of ``K``; ``None``: ``K`` is any kernel and feature-space distances are used.
    weight : {"binary", "heat", "distance"}, default="binary"
    graph_sigma : float, default=None
        Width σ_G of heat weights; ``None``: the mean distance of the kNN lists (as :func:`knn_graph`).

    Returns
    -------
    W : scipy.sparse.csr_matrix of shape (n_samples, n_samples)

    Raises
    ------
    ValueError
        With ``sigma``, if a row has fewer than ``k`` positive off-diagonal entries (the kernel
        underflowed: σ is too small for the data); use :func:`knn_graph` then.

    Notes
    -----
    With ``sigma``: equal to :func:`knn_graph` up to ties, and up to round-off for pairs closer than
    about ``σ sqrt(2 ε)`` (ε the machine precision), whose kernel values are indistinguishable from 1.
    Ties follow the rule of :func:`knn_graph` (within :data:`KNN_TIE_RTOL`, then by index) applied to the
    squared distances the kernel gives, ``-log K_ij = d² / (2σ²)`` with ``s_i = 1`` (RBF) or
    ``K_ii + K_jj - 2 K_ij`` with ``s_i = K_ii``: the kernel resolves squared distances, so pairs
    within about ``σ sqrt(2 KNN_TIE_RTOL)`` (RBF) count as duplicates here. With ``sigma``, a tie that
    reaches beyond the row's candidates is settled over the entries that can lie within it,
    ``K_ij >= K_k exp(-2 t - 1e-12 (s_k + 1))`` (``K_k`` the k-th largest, ``s_k = -log K_k``,
    ``t = KNN_TIE_RTOL (s_k + 1)`` the tie tolerance): the same graph as over the whole row, without
    scanning the whole row of every tied point.
    The linear kernel ``K = X Xᵀ`` gives the Euclidean graph of ``X`` (``d_ij = ||x_i - x_j||``).

    Examples
    --------
    >>> import numpy as np
    >>> from toolkit.kernels import rbf_kernel
    >>> X = np.random.default_rng(0).normal(size=(40, 3))
    >>> W1 = knn_graph_from_kernel(rbf_kernel(X, sigma=2.0), n_neighbors=4, sigma=2.0)
    >>> bool(abs(W1 - knn_graph(X, n_neighbors=4)).max() < 1e-12)
    True
    >>> W2 = knn_graph_from_kernel(X @ X.T, n_neighbors=4)
    >>> bool(abs(W2 - knn_graph(X, n_neighbors=4)).max() < 1e-12)
    True
    """
    func = "knn_graph_from_kernel"
    n_neighbors = _renamed(func, deprecated, n_neighbors=(n_neighbors, 6))["n_neighbors"]
    if not isinstance(K, np.ndarray) or K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError(f"The 'K' parameter of {func} must be a square ndarray. Got {getattr(K, 'shape', K)!r} instead.")
    if K.dtype.kind not in "fiu":
        raise TypeError(f"The 'K' parameter of {func} must be a real matrix. Got dtype {K.dtype} instead.")
    n = K.shape[0]
    neighbors = check_scalar(n_neighbors, "n_neighbors", func, kind=numbers.Integral, low=1, high=n - 1)
    sigma = check_scalar(sigma, "sigma", func, low=0.0, low_closed=False, allow_none=True)
    check_option(weight, "weight", func, WEIGHTS)
    diagonal = None if sigma is not None else np.array(np.diagonal(K), dtype=np.float64)
    candidates = np.empty((n, min(n - 1, neighbors + KNN_EXTRA_CANDIDATES)), dtype=np.int64)
    # one compiled pass over K: RBF, the largest K_ij are the nearest points; otherwise the largest
    # 2 K_ij - K_jj, i.e. the smallest squared feature-space distances K_ii + K_jj - 2 K_ij; and the
    # rows' sums, NaN or inf only if some entry is (a NaN never enters the k largest)
    best, sums = np.empty(candidates.shape), np.empty(n)
    _top_k_rows(K, 1.0 if diagonal is None else 2.0, np.zeros(n) if diagonal is None else diagonal, candidates, best,
                sums)
    for start in np.flatnonzero(~np.isfinite(sums)):
        bad = np.flatnonzero(~np.isfinite(K[start]))
        if bad.size:
            raise ValueError(f"The 'K' parameter of {func} contains NaN or inf (first: K[{start}, {bad[0]}] = "
                             f"{K[start, bad[0]]}). A kernel matrix must be finite.")

    def squared(rows, cols):
        """The squared distances in the units the kernel resolves: ``d² / (2σ²) = -log K_ij`` (RBF),
        ``K_ii + K_jj - 2 K_ij`` (feature space); the tie rule's scale is 1, respectively ``K_ii``."""
        values = K[rows[:, None], cols].astype(np.float64)
        if diagonal is None:
            with np.errstate(divide="ignore"):          # K_ij = 0 (underflow): infinitely far
                return np.maximum(-np.log(np.minimum(values, 1.0)), 0.0)
        return np.maximum(diagonal[rows][:, None] + diagonal[cols] - 2.0 * values, 0.0)

    scale = np.ones(n) if diagonal is None else np.maximum(diagonal, 0.0)
    reach = None
    if diagonal is None:
        # RBF: a tie at d_k reaches the points with -log K_ij <= -log K_k + t (t the tie tolerance), i.e.
        # K_ij >= K_k exp(-t), K_k the k-th largest entry of the row. Twice t plus 1e-12 relative (far
        # above the log's round-off) for the bound: rows of many ties (binary features) then compare
        # their K_ij with it instead of taking -log of the whole row.
        with np.errstate(divide="ignore"):
            kth = np.maximum(-np.log(np.minimum(best[:, neighbors - 1], 1.0)), 0.0)
            bound = best[:, neighbors - 1] * np.exp(-(2.0 * KNN_TIE_RTOL + 1e-12) * (kth + 1.0))
        bound = np.where(np.isfinite(bound), bound, 0.0)

        def reach(rows, width):
            cols, counts = np.zeros((rows.size, width), dtype=np.int64), np.empty(rows.size, dtype=np.int64)
            _gather_at_least(K, rows, bound[rows], cols, counts)
            return counts, cols

    sq, cols = _k_nearest(candidates, neighbors, squared, scale, reach=reach)
    if diagonal is None and not np.all(np.isfinite(sq)):
        raise ValueError(f"{func}: some rows of K have fewer than {neighbors} positive off-diagonal entries "
                         "(the kernel underflowed); build the graph with knn_graph(X) instead.")
    unit = np.sqrt(2.0) * sigma if diagonal is None else 1.0
    dist = unit * np.sqrt(sq)
    zero = unit * np.sqrt(KNN_TIE_RTOL * scale[:, None])     # duplicates, as far as K tells
    rows = np.repeat(np.arange(n), neighbors)
    indptr, indices, d = _symmetric_edges(n, rows, cols.ravel(), dist.ravel())
    return _csr(n, indptr, indices, _weights(d, weight, graph_sigma, func, directed_dist=dist, zero=zero))


def epsilon_graph(X, *, radius, weight="binary", graph_sigma=None, metric="euclidean"):
    """ε-neighbourhood graph: ``i ~ j`` iff ``0 < d(x_i, x_j) <= radius`` or ``x_i = x_j``, ``i != j``.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_samples, n_features)
    radius : float
        Neighbourhood radius ε > 0.
    weight : {"binary", "heat", "distance"}, default="binary"
    graph_sigma : float, default=None
        Width σ_G of the heat weights; ``None`` uses the mean length of the graph's edges.
    metric : {"euclidean", "cosine", "manhattan", "sqeuclidean"}, default="euclidean"

    Returns
    -------
    W : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        Symmetric with zero diagonal. Points with no neighbour within ε are isolated.

    Examples
    --------
    >>> import numpy as np
    >>> epsilon_graph(np.array([[0.0], [1.0], [3.0]]), radius=1.5).nnz
    2
    """
    func = "epsilon_graph"
    X = check_matrix(X, "X", func)
    sq_norms = check_row_norms(X, "X", func)
    n = X.shape[0]
    radius = check_scalar(radius, "radius", func, low=0.0, low_closed=False)
    check_option(weight, "weight", func, WEIGHTS)
    check_option(metric, "metric", func, METRICS)
    _check_cosine_rows(metric, sq_norms, func)
    nn = _nearest_neighbors(metric).set_params(radius=radius).fit(X)
    dist, ind = nn.radius_neighbors()                # X=None: excludes the point itself
    counts = np.fromiter((len(i) for i in ind), dtype=np.int64, count=n)
    rows = np.repeat(np.arange(n), counts)
    cols = np.concatenate(ind).astype(np.int64) if n else np.zeros(0, np.int64)
    dd = np.concatenate(dist).astype(float) if n else np.zeros(0)
    indptr, indices, d = _symmetric_edges(n, rows, cols, dd)
    return _csr(n, indptr, indices, _weights(d, weight, graph_sigma, func))


# ----------------------------------------------------------------------------- Laplacians
def _check_weight_matrix(W, func):
    if not sp.issparse(W):
        W = check_matrix(W, "W", func)
    W = sp.csr_matrix(W, dtype=np.float64)
    if W.shape[0] != W.shape[1]:
        raise ValueError(f"The 'W' parameter of {func} must be a square matrix. Got shape {W.shape} instead.")
    if not np.all(np.isfinite(W.data)) or (W.data < 0).any():
        raise ValueError(f"The 'W' parameter of {func} must have finite, non-negative weights.")
    asym = abs(W - W.T)
    if asym.nnz and asym.max() > 1e-12 * max(1.0, abs(W).max()):
        raise ValueError(f"The 'W' parameter of {func} must be symmetric (an undirected graph).")
    return W


def graph_laplacian(W, *, normalized=True):
    """Laplacian of a weighted undirected graph: ``L = D - W`` or ``I - D^{-1/2} W D^{-1/2}``.

    ``D = diag(W 1)`` is the degree matrix. The unnormalised ``L`` has ``L 1 = 0``; the normalised
    one has ``L D^{1/2} 1 = 0``. Both are symmetric positive semi-definite, and
    ``fᵀ L f = ½ Σ_ij W_ij (f_i - f_j)²`` (normalised: with ``f_i / sqrt(d_i)``).

    Parameters
    ----------
    W : array-like or sparse matrix of shape (n_samples, n_samples)
        Symmetric non-negative weights; the diagonal (self-loops) is ignored.
    normalized : bool, default=True
        Symmetric normalisation (Melacci & Belkin 2011, Table 9 use it throughout).

    Returns
    -------
    L : scipy.sparse.csr_matrix of shape (n_samples, n_samples)

    Notes
    -----
    An isolated vertex (degree 0) has an all-zero row and column in both forms, as in
    :func:`scipy.sparse.csgraph.laplacian`: the regulariser does not constrain it.

    Examples
    --------
    >>> import numpy as np
    >>> graph_laplacian(np.array([[0.0, 1.0], [1.0, 0.0]]), normalized=False).toarray()
    array([[ 1., -1.],
           [-1.,  1.]])
    """
    func = "graph_laplacian"
    W = _check_weight_matrix(W, func)
    W = W - sp.diags(W.diagonal())
    W.eliminate_zeros()
    degrees = np.asarray(W.sum(axis=1)).ravel()
    if not normalized:
        L = sp.diags(degrees) - W
    else:
        isolated = degrees <= 0
        scale = np.where(isolated, 0.0, 1.0 / np.sqrt(np.where(isolated, 1.0, degrees)))
        W = sp.csr_matrix(W, copy=True)
        rows = np.repeat(np.arange(W.shape[0]), np.diff(W.indptr))
        W.data *= scale[rows] * scale[W.indices]        # D^{-1/2} W D^{-1/2}, entry by entry (no products)
        L = sp.diags((~isolated).astype(float)) - W
    L = sp.csr_matrix(L)
    L.sort_indices()
    return L


#: :func:`iterated_laplacian` with ``max_density=POWER_MAX_DENSITY`` (what :func:`toolkit.lapsvm` and
#: :func:`toolkit.laprlsc` use) keeps ``L^p`` as a CSR matrix while it has at most this fraction of
#: ``n²`` non-zeros; a fuller power costs more to form and to apply than ``p`` sparse products.
POWER_MAX_DENSITY = 0.25


@njit(cache=True)
def _structural_nnz_exceeds(a_indptr, a_indices, b_indptr, b_indices, n_cols, limit):  # pragma: no cover
    """Whether the product of the CSR structures A and B has more than ``limit`` non-zeros, counted
    row by row (a marker per column) and stopped as soon as it has."""
    seen = np.full(n_cols, -1, dtype=np.int64)
    total = 0
    for i in range(a_indptr.size - 1):
        for p in range(a_indptr[i], a_indptr[i + 1]):
            j = a_indices[p]
            for q in range(b_indptr[j], b_indptr[j + 1]):
                c = b_indices[q]
                if seen[c] != i:
                    seen[c] = i
                    total += 1
        if total > limit:
            return True
    return False


def _product_fills_in(A, B, limit):
    """Whether ``A @ B`` (CSR) has more than ``limit`` structural non-zeros, decided before forming it: at
    most ``Σ_i Σ_{j ∈ A_i} nnz(B_j)`` (its multiplications), else counted, stopping once past
    ``limit``: cheaper than forming the product, which needs its values as well."""
    if int(np.diff(B.indptr)[A.indices].sum()) <= limit:
        return False
    return bool(_structural_nnz_exceeds(A.indptr, A.indices, B.indptr, B.indices, B.shape[1], float(limit)))


def iterated_laplacian(L, *, power=1, max_density=None, **deprecated):
    """The iterated Laplacian ``L^p``: an exactly symmetric CSR matrix, or an operator once it fills in.

    Parameters
    ----------
    L : sparse matrix or array-like of shape (n_samples, n_samples)
        A symmetric Laplacian, e.g. from :func:`graph_laplacian`.
    power : int, default=1
        The power ``p >= 1`` (Melacci & Belkin 2011, eq. 3 and Table 9, where it is called the
        "degree" of the Laplacian; the polynomial kernel's degree is ``kernel_degree`` everywhere).
    max_density : float in (0, 1], default=None
        ``None``: always the CSR matrix. Otherwise, once a partial product would have more than
        ``max_density · n²`` non-zeros (its structure counted before it is formed),
        :func:`laplacian_operator` ``(L, power=p)`` instead (the solvers use :data:`POWER_MAX_DENSITY`).

    Returns
    -------
    L_p : scipy.sparse.csr_matrix or LinearOperator of shape (n_samples, n_samples)
        The matrix is ``(P + Pᵀ) / 2`` of the product ``P = L ⋯ L`` (round-off removed, so it is
        exactly symmetric; sorted indices).

    Notes
    -----
    ``L`` has about ``2 k n`` non-zeros for a kNN graph; ``L^p`` couples points ``p`` hops apart
    and fills in quickly, so each product costs up to ``O(nnz(L^{j}) k)``.

    Examples
    --------
    >>> import numpy as np
    >>> L = graph_laplacian(np.array([[0.0, 1.0], [1.0, 0.0]]), normalized=False)
    >>> iterated_laplacian(L, power=2).toarray()
    array([[ 2., -2.],
           [-2.,  2.]])
    """
    func = "iterated_laplacian"
    power = _renamed(func, deprecated, power=(power, 1))["power"]
    degree = check_scalar(power, "power", func, kind=numbers.Integral, low=1)
    max_density = check_scalar(max_density, "max_density", func, low=0.0, high=1.0, low_closed=False,
                               allow_none=True)
    L = sp.csr_matrix(L if sp.issparse(L) else check_matrix(L, "L", func), dtype=np.float64)
    if L.shape[0] != L.shape[1]:
        raise ValueError(f"The 'L' parameter of {func} must be a square matrix. Got shape {L.shape} instead.")
    n = L.shape[0]
    power = L
    for _ in range(degree - 1):
        if max_density is not None and _product_fills_in(power, L, max_density * n * n):
            return laplacian_operator(L, power=degree)        # filling in: keep it matrix-free
        power = power @ L
    # (P + Pᵀ) / 2 from two sorted CSR matrices: a CSR transpose comes out sorted, so the product's
    # unsorted rows are sorted by transposing twice (faster than scipy's sort of the rows; the same
    # matrix bit for bit)
    transpose = power.T.tocsr()
    if not power.has_sorted_indices:
        power = transpose.T.tocsr()
    power = sp.csr_matrix((power + transpose) * 0.5)
    power.sort_indices()
    return power


def laplacian(X, *, n_neighbors=6, weight="binary", graph_sigma=None, normalized=True, power=1,
              metric="euclidean", max_density=None, neighbor_search="auto", rng=None, **deprecated):
    """Iterated graph Laplacian ``L^p`` of the symmetrised kNN graph of ``X``.

    The intrinsic regulariser of manifold regularisation is ``fᵀ L^p f`` (Melacci & Belkin 2011,
    eq. 3 and Table 9, where ``p`` is the "degree" of the Laplacian: ``power`` here and in
    :class:`toolkit.specs.Graph`, ``laplacian_power`` in the estimators and the selection; the
    polynomial kernel's degree is ``kernel_degree``).

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_samples, n_features)
        All points, labelled and unlabelled.
    n_neighbors : int, default=6
        ``k`` of the kNN graph (see :func:`knn_graph`), ``1 <= k < n_samples``.
    weight : {"binary", "heat", "distance"}, default="binary"
    graph_sigma : float, default=None
        Width σ_G of heat weights; ``None``: the mean distance of the kNN lists (as :func:`knn_graph`).
    normalized : bool, default=True
        ``I - D^{-1/2} W D^{-1/2}`` if True, ``D - W`` otherwise.
    power : int, default=1
        The power ``p >= 1``.
    metric : {"euclidean", "cosine", "manhattan", "sqeuclidean"}, default="euclidean"
    max_density : float in (0, 1], default=None
        As in :func:`iterated_laplacian`: ``None`` always gives the CSR matrix;
        :data:`POWER_MAX_DENSITY` gives exactly the operator :func:`toolkit.lapsvm` builds.
    neighbor_search : {"auto", "kdtree", "sklearn", "pynndescent"}, default="auto"
        Exact or approximate neighbour search, as in :func:`knn_graph`.
    rng : None, int or Generator, default=None
        Seeds the approximate search (:func:`knn_graph`).

    Returns
    -------
    L : scipy.sparse.csr_matrix or LinearOperator of shape (n_samples, n_samples)
        ``L^p`` (:func:`iterated_laplacian`), symmetric positive semi-definite.

    Notes
    -----
    ``L`` has about ``2 k n`` non-zeros; its powers fill in quickly (``L^p`` couples points
    ``p`` hops apart). For large ``n`` and ``p > 1`` prefer :func:`laplacian_operator`.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(20, 2))
    >>> L = laplacian(X, n_neighbors=3, normalized=False)
    >>> bool(np.allclose(L.sum(axis=1), 0))
    True
    """
    current = _renamed("laplacian", deprecated, n_neighbors=(n_neighbors, 6), power=(power, 1))
    n_neighbors, power = current["n_neighbors"], current["power"]
    return build_laplacian(X, n_neighbors=n_neighbors, weight=weight, graph_sigma=graph_sigma, normalized=normalized,
                           power=power, metric=metric, neighbor_search=neighbor_search, max_density=max_density,
                           rng=rng).L


@dataclass(frozen=True)
class BuiltGraph:
    """What :func:`build_laplacian` returns.

    Attributes
    ----------
    L : scipy.sparse.csr_matrix or LinearOperator of shape (n_samples, n_samples)
        ``L^p``.
    degrees : ndarray of shape (n_samples,)
        The row sums of the weight matrix ``W`` (the low-rank model's degree normalisation).
    neighbor_search : str
        The search taken: ``"kdtree"``, ``"sklearn"``, ``"pynndescent"`` or ``"kernel"``.
    seconds : tuple of float
        The time spent on ``W`` and on ``L^p``.
    """

    L: Any
    degrees: np.ndarray
    neighbor_search: str
    seconds: tuple


def build_laplacian(X, *, n_neighbors=6, weight="binary", graph_sigma=None, normalized=True, power=1,
                    metric="euclidean", neighbor_search="auto", max_density=None, rng=None, kernel_matrix=None,
                    kernel_sigma=None):
    """``L^p`` of the symmetrised kNN graph: the one construction of every solver, path and selection.

    The neighbours are searched among the points ``X`` (:func:`knn_graph`), so that the same graph
    parameters on the same points give the same graph bit for bit wherever it is built. Only where
    there are no points (``X`` None: a precomputed kernel) or when asked (``neighbor_search="kernel"``,
    an RBF kernel matrix and its width given) is the graph read off the kernel matrix
    (:func:`knn_graph_from_kernel`): the same neighbours up to ties, for O(n²) instead of O(n² d).

    Parameters
    ----------
    X : array-like, sparse matrix or None of shape (n_samples, n_features)
        The points, labelled and unlabelled; None with ``kernel_matrix`` (a precomputed kernel).
    n_neighbors, weight, graph_sigma, normalized, power, metric, neighbor_search, max_density, rng
        As in :func:`laplacian` (``neighbor_search`` may also be ``"kernel"``).
    kernel_matrix : ndarray of shape (n_samples, n_samples), default=None
        The kernel matrix of the points: read with ``X`` None (its feature-space distances) or with
        ``neighbor_search="kernel"`` (an RBF kernel of width ``kernel_sigma``).
    kernel_sigma : float, default=None
        The RBF width of ``kernel_matrix`` for ``neighbor_search="kernel"``.

    Returns
    -------
    BuiltGraph
    """
    func = "build_laplacian"
    degree = check_scalar(power, "power", func, kind=numbers.Integral, low=1)
    if not isinstance(normalized, (bool, np.bool_)):
        raise TypeError(f"The 'normalized' parameter of {func} must be a bool. Got {normalized!r} instead.")
    t0 = time.perf_counter()
    if X is None or neighbor_search == "kernel":
        if kernel_matrix is None or (X is not None and kernel_sigma is None):
            raise ValueError(f"{func}: neighbor_search='kernel' reads the graph off an RBF kernel matrix; pass "
                             "kernel_matrix and kernel_sigma, or search the points ('auto').")
        if metric != "euclidean":
            raise ValueError(f"{func}: a graph read off a kernel uses the kernel's own distances, so 'metric' must "
                             f"be 'euclidean'. Got {metric!r} instead; pass a precomputed Laplacian for another graph.")
        W = knn_graph_from_kernel(kernel_matrix, n_neighbors=n_neighbors, sigma=None if X is None else kernel_sigma,
                                  weight=weight, graph_sigma=graph_sigma)
        searched = "kernel"
    else:
        searched = choose_neighbor_search(X, metric) if neighbor_search == "auto" else neighbor_search
        W = knn_graph(X, n_neighbors=n_neighbors, weight=weight, graph_sigma=graph_sigma, metric=metric,
                      neighbor_search=searched, rng=rng)
    t1 = time.perf_counter()
    L = iterated_laplacian(graph_laplacian(W, normalized=bool(normalized)), power=degree, max_density=max_density)
    degrees = np.asarray(W.sum(axis=1), dtype=float).ravel()
    return BuiltGraph(L=L, degrees=degrees, neighbor_search=searched, seconds=(t1 - t0, time.perf_counter() - t1))


def laplacian_operator(L, *, power=1, **deprecated):
    """``L^p`` as a :class:`~scipy.sparse.linalg.LinearOperator` (``p`` sparse products per matvec).

    Parameters
    ----------
    L : sparse matrix or array-like of shape (n_samples, n_samples)
        A (symmetric) Laplacian, e.g. from :func:`graph_laplacian` or :func:`laplacian` with
        ``power=1``.
    power : int, default=1
        Power ``p >= 1``.

    Returns
    -------
    op : LinearOperator of shape (n_samples, n_samples)
        Symmetric; ``op @ v`` and ``op @ V`` (matrix) cost ``p`` sparse products, O(p · nnz(L)).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(30, 2))
    >>> L = laplacian(X, n_neighbors=4)
    >>> v = np.ones(30)
    >>> bool(np.allclose(laplacian_operator(L, power=3) @ v,
    ...                  laplacian(X, n_neighbors=4, power=3) @ v))
    True
    """
    func = "laplacian_operator"
    power = _renamed(func, deprecated, power=(power, 1))["power"]
    degree = check_scalar(power, "power", func, kind=numbers.Integral, low=1)
    if not sp.issparse(L):
        L = check_matrix(L, "L", func)
    else:
        L = sp.csr_matrix(L, dtype=np.float64)
    if L.shape[0] != L.shape[1]:
        raise ValueError(f"The 'L' parameter of {func} must be a square matrix. Got shape {L.shape} instead.")

    def matmat(V):
        out = V
        for _ in range(degree):
            out = L @ out
        return np.asarray(out)

    return LinearOperator(L.shape, matvec=matmat, rmatvec=matmat, matmat=matmat, rmatmat=matmat,
                          dtype=np.float64)


# ---- a Laplacian given instead of built -------------------------------------------------------
def check_given_laplacian(laplacian_matrix, func, n, *, degree, graph_args, max_density=None, name="graph"):
    """``L^degree`` of a given graph Laplacian, refusing the graph-building arguments it makes idle.

    With ``laplacian_matrix`` the graph is given, so the arguments that would build one
    (``neighbors``, ``weight``, ``normalized``, ...) have nothing to act on: any set away from its
    default is refused, naming it, instead of being ignored and recorded. ``degree`` still acts: it
    is the power ``p`` applied to the given matrix (``None`` or 1: the matrix as given).

    Parameters
    ----------
    laplacian_matrix : sparse matrix, ndarray or LinearOperator of shape (n, n)
        Checked by :func:`toolkit._validation.check_laplacian_matrix`.
    func : str
        The public function, for messages.
    n : int
        The training points.
    degree : int or None
    graph_args : dict
        ``name: (value, default)`` of the graph-building arguments of ``func``.
    max_density : float, default=None
        As in :func:`iterated_laplacian` for a sparse matrix raised to ``degree``.
    name : str, default="graph"
        The argument that gave the matrix, for messages (``graph=`` of the solvers).

    Returns
    -------
    L_p : CSR matrix, ndarray or LinearOperator
    """
    check_graph_idle(func, graph_args)
    L = check_laplacian_matrix(laplacian_matrix, name, func, n)
    degree = check_scalar(degree, "degree", func, kind=numbers.Integral, low=1, allow_none=True)
    if degree is None or degree == 1:
        return L
    if isinstance(L, LinearOperator):
        return L ** int(degree)
    return iterated_laplacian(L, power=int(degree), max_density=max_density)


def check_graph_idle(func, graph_args):
    """Refuse graph-building arguments set away from their defaults next to a given ``laplacian_matrix``.

    ``graph_args``: ``name: (value, default)``. The message names each and says what to do.
    """
    idle = {name: value for name, (value, default) in graph_args.items()
            if not (value is default or (value is not None and default is not None and _same(value, default)))}
    if idle:
        listed = ", ".join(f"{name}={value!r}" for name, value in idle.items())
        raise ValueError(f"{func}: {listed} cannot act when 'laplacian_matrix' is given (the graph is given, so "
                         f"the argument{'s' if len(idle) > 1 else ''} that would build one would be ignored). "
                         "Leave them at their defaults, or build the graph with them "
                         "(toolkit.graphs.laplacian(X, ...)) and pass that.")


def _same(value, default):
    try:
        return bool(value == default)
    except (TypeError, ValueError):       # an array or an object without a plain ==: not the default
        return False


#: The building blocks' keywords of the previous release and their names now, as in
#: :class:`toolkit.specs.Graph`: the neighbours ``n_neighbors``, the Laplacian's power ``power``
#: (scikit-learn's ``degree`` is a polynomial kernel's). Understood for one release.
RENAMED_KEYWORDS = {"neighbors": "n_neighbors", "degree": "power"}


def _renamed(func, deprecated, **current):
    """The values of ``current`` (name -> (value given, default)), the keywords of the previous release
    in ``deprecated`` (:data:`RENAMED_KEYWORDS`) read in their place with one ``FutureWarning`` that
    names the new spelling; the one translation of this module's renamed keywords.

    Raises
    ------
    TypeError
        A keyword ``func`` never took (as Python raises).
    ValueError
        An old keyword beside its new name set away from its default.
    """
    unknown = [name for name in deprecated if RENAMED_KEYWORDS.get(name) not in current]
    if unknown:
        raise TypeError(f"{func}() got an unexpected keyword argument {unknown[0]!r}")
    values = {name: value for name, (value, _) in current.items()}
    for old, value in deprecated.items():
        new = RENAMED_KEYWORDS[old]
        given, default = current[new]
        if not _same(given, default):
            raise ValueError(f"{func}: {old}={value!r} and {new}={given!r} are the same parameter ({old!r} is its "
                             f"name of the previous release); pass {new} alone.")
        values[new] = value
    if deprecated:
        warnings.warn(f"{func}: the keyword{'s' if len(deprecated) > 1 else ''} {', '.join(deprecated)} "
                      f"{'are' if len(deprecated) > 1 else 'is'} deprecated and will be removed in the next release; "
                      f"pass {', '.join(f'{RENAMED_KEYWORDS[old]}={value!r}' for old, value in deprecated.items())} "
                      "instead.", FutureWarning, stacklevel=3)
    return values
