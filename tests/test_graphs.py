"""Graphs and Laplacians checked against brute force, scipy.sparse.csgraph and hypothesis properties."""
import re

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, strategies as st
from hypothesis.extra.numpy import arrays
from scipy.sparse import csgraph
from scipy.spatial.distance import cdist

from toolkit.graphs import (POWER_MAX_DENSITY, epsilon_graph, graph_laplacian, knn_graph, knn_graph_from_kernel, laplacian,
                            laplacian_operator, iterated_laplacian)


def brute_knn(X, k, metric="euclidean"):
    """Symmetrised kNN adjacency by brute force (ties broken by index, as a stable sort does)."""
    D = cdist(X, X, metric=metric)
    np.fill_diagonal(D, np.inf)
    A = np.zeros_like(D, dtype=bool)
    for i in range(len(X)):
        A[i, np.argsort(D[i], kind="stable")[:k]] = True
    return A | A.T, D


@pytest.mark.parametrize("k", [1, 3, 7])
def test_knn_graph_is_symmetrised_or_rule(k):
    X = np.random.default_rng(k).normal(size=(40, 3))
    A, D = brute_knn(X, k)
    W = knn_graph(X, n_neighbors=k)
    np.testing.assert_array_equal(W.toarray() > 0, A)
    Wd = knn_graph(X, n_neighbors=k, weight="distance").toarray()
    np.testing.assert_allclose(Wd[A], D[A], rtol=1e-12)
    assert (W != W.T).nnz == 0


def lapsvmp_adjacency(X, k):
    """LapSVMp's ``adjacency.m`` (Melacci 2012) with heat weights and its default width, transcribed:
    each row's distances sorted (stable), columns 2..k+1 kept, ``t = mean(DI(DI~=0))`` over those
    n k distances, ``A = sparse(I, idy, exp(-DI.^2/(2 t²)))``, ``A = A + ((A ~= A') .* A')``."""
    D = cdist(X, X)
    order = np.argsort(D, axis=1, kind="stable")
    n = len(X)
    idy = np.empty((n, k), dtype=int)
    for i in range(n):                           # the point itself first: it is skipped (column 1)
        row = [j for j in order[i] if j != i]    # (a duplicate may sort before it; MATLAB's sort
        idy[i] = row[:k]                         # would then skip the duplicate: not this test's case)
    DI = np.take_along_axis(D, idy, axis=1).ravel()
    t = DI[DI != 0].mean()
    A = np.zeros((n, n))
    A[np.repeat(np.arange(n), k), idy.ravel()] = np.exp(-DI ** 2 / (2 * t * t))
    return A + (A != A.T) * A.T, t


@pytest.mark.parametrize("k", [2, 4, 7])
def test_heat_weights_default_width_is_lapsvmp_mean_neighbour_distance(k):
    # the default σ_G is the mean over the n k directed neighbour distances (a mutual pair twice), not
    # over the undirected edges: the two differ by about 5 % on COIL20(B), enough to move PCG's stop
    X = np.random.default_rng(k).normal(size=(50, 3)) * np.r_[1.0, 0.3, 3.0]
    A, t = lapsvmp_adjacency(X, k)
    Wd = knn_graph(X, n_neighbors=k, weight="distance")
    assert abs(Wd.data.mean() - t) > 1e-3 * t          # the undirected mean is another number here
    np.testing.assert_allclose(knn_graph(X, n_neighbors=k, weight="heat").toarray(), A, rtol=1e-12, atol=1e-15)
    from toolkit.kernels import rbf_kernel
    W_k = knn_graph_from_kernel(rbf_kernel(X, sigma=3.0), n_neighbors=k, sigma=3.0, weight="heat")
    np.testing.assert_allclose(W_k.toarray(), A, rtol=1e-7, atol=1e-12)
    Wh2 = knn_graph(X, n_neighbors=k, weight="heat", graph_sigma=0.5)
    np.testing.assert_allclose(Wh2.data, np.exp(-Wd.data ** 2 / 0.5))


def test_heat_weights_default_width_leaves_out_duplicates():
    # zero distances (duplicate points) do not enter the default width, as in LapSVMp (DI ~= 0)
    X = np.array([[0.0], [0.0], [1.0], [3.0], [6.0]])
    W = knn_graph(X, n_neighbors=1, weight="heat").toarray()
    # directed lists: 0->1 (0), 1->0 (0), 2->0 or 1 (1), 3->2 (2), 4->3 (3): t = mean(1, 2, 3) = 2
    assert W[3, 2] == pytest.approx(np.exp(-4 / 8)) and W[4, 3] == pytest.approx(np.exp(-9 / 8))
    assert W[0, 1] == 1.0


@pytest.mark.parametrize("normalized", [True, False])
def test_laplacian_matches_scipy_csgraph(normalized):
    X = np.random.default_rng(2).normal(size=(60, 4))
    W = knn_graph(X, n_neighbors=5)
    ref = csgraph.laplacian(W.toarray(), normed=normalized)
    np.testing.assert_allclose(graph_laplacian(W, normalized=normalized).toarray(), ref, atol=1e-14)
    np.testing.assert_allclose(laplacian(X, n_neighbors=5, normalized=normalized).toarray(), ref, atol=1e-14)


@given(arrays(np.float64, st.tuples(st.integers(3, 25), st.integers(1, 4)),
              elements=st.floats(-10, 10, allow_nan=False, width=32)),
       st.integers(1, 6), st.sampled_from(["binary", "heat", "distance"]), st.booleans())
def test_laplacian_rows_sum_to_zero_and_psd(X, k, weight, normalized):
    n = X.shape[0]
    k = min(k, n - 1)
    L = laplacian(X, n_neighbors=k, weight=weight, normalized=normalized).toarray()
    np.testing.assert_allclose(L, L.T, atol=1e-12)
    W = knn_graph(X, n_neighbors=k, weight=weight).toarray()
    d = W.sum(axis=1)
    if normalized:
        np.testing.assert_allclose(L @ np.sqrt(d), 0, atol=1e-9)     # L D^{1/2} 1 = 0
    else:
        np.testing.assert_allclose(L.sum(axis=1), 0, atol=1e-9 * max(1.0, d.max()))
    assert np.linalg.eigvalsh(L).min() >= -1e-9 * max(1.0, np.abs(L).max())


def test_iterated_laplacian_and_operator():
    X = np.random.default_rng(3).normal(size=(50, 2))
    L1 = laplacian(X, n_neighbors=4).toarray()
    L3 = laplacian(X, n_neighbors=4, power=3).toarray()
    np.testing.assert_allclose(L3, np.linalg.matrix_power(L1, 3), atol=1e-12)
    op = laplacian_operator(sp.csr_matrix(L1), power=3)
    V = np.random.default_rng(0).normal(size=(50, 3))
    np.testing.assert_allclose(op @ V, L3 @ V, atol=1e-12)
    np.testing.assert_allclose(op @ V[:, 0], L3 @ V[:, 0], atol=1e-12)
    np.testing.assert_allclose(op.T @ V[:, 0], L3 @ V[:, 0], atol=1e-12)


@pytest.mark.parametrize("weight", ["binary", "heat"])
@pytest.mark.parametrize("power", [1, 2, 3])
def test_iterated_laplacian_is_the_dense_power_made_exactly_symmetric(weight, power):
    X = np.random.default_rng(4).normal(size=(60, 3))
    L1 = graph_laplacian(knn_graph(X, n_neighbors=5, weight=weight))
    P = iterated_laplacian(L1, power=power)
    assert sp.isspmatrix_csr(P) and P.has_sorted_indices
    np.testing.assert_array_equal(P.toarray(), P.toarray().T)                       # exactly symmetric
    np.testing.assert_allclose(P.toarray(), np.linalg.matrix_power(L1.toarray(), power), atol=1e-13)
    np.testing.assert_array_equal(laplacian(X, n_neighbors=5, weight=weight, power=power).toarray(), P.toarray())
    np.testing.assert_array_equal(iterated_laplacian(L1.toarray(), power=power).toarray(), P.toarray())   # dense input
    # the definition (P + Pᵀ) / 2 with SciPy's own sort of the rows: the same CSR arrays, bit for bit
    product = L1
    for _ in range(power - 1):
        product = product @ L1
    reference = sp.csr_matrix((product + product.T) * 0.5)
    reference.sort_indices()
    assert P.has_canonical_format
    for field in ("indptr", "indices", "data"):
        np.testing.assert_array_equal(getattr(P, field), getattr(reference, field))


def test_laplacian_power_becomes_the_operator_once_it_fills_in():
    X = np.random.default_rng(5).normal(size=(40, 2))
    L1 = graph_laplacian(knn_graph(X, n_neighbors=6))
    dense = iterated_laplacian(L1, power=4)
    assert dense.nnz > POWER_MAX_DENSITY * 40 ** 2
    op = iterated_laplacian(L1, power=4, max_density=POWER_MAX_DENSITY)
    assert isinstance(op, sp.linalg.LinearOperator)
    V = np.random.default_rng(0).normal(size=(40, 2))
    np.testing.assert_array_equal(op @ V, laplacian_operator(L1, power=4) @ V)
    np.testing.assert_allclose(op @ V, dense @ V, atol=1e-12)
    assert sp.issparse(iterated_laplacian(L1, power=1, max_density=POWER_MAX_DENSITY))  # L itself never switches
    assert isinstance(laplacian(X, n_neighbors=6, power=4, max_density=POWER_MAX_DENSITY), sp.linalg.LinearOperator)


def test_fill_in_is_decided_before_the_product_as_after_it():
    """iterated_laplacian decides matrix or operator by counting the product's structure before forming
    it (stopping early): on graphs of positive weights (no cancellation) that is the formed product's
    nnz against max_density * n², at every density around the threshold and at every partial power."""
    from toolkit.graphs import _product_fills_in
    rng = np.random.default_rng(2)
    for n, k in ((60, 2), (200, 4), (150, 12), (362, 50)):
        L = graph_laplacian(knn_graph(rng.normal(size=(n, 3)), n_neighbors=k, weight="heat"))
        power = L
        for _ in range(4):
            nnz = (power @ L).nnz
            for limit in (nnz - 1, nnz, nnz + 1, 0.25 * n * n, nnz // 2, 2 * nnz):
                assert _product_fills_in(power, L, limit) == (nnz > limit), (n, k, limit, nnz)
            power = power @ L
    for max_density in (0.05, 0.25, 0.6):      # and the result: the matrix exactly when no partial power fills in
        L = graph_laplacian(knn_graph(rng.normal(size=(120, 2)), n_neighbors=5))
        P, expect = L, True
        for _ in range(3):
            P = P @ L
            expect &= P.nnz <= max_density * 120 ** 2
        assert sp.issparse(iterated_laplacian(L, power=4, max_density=max_density)) == expect


@pytest.mark.parametrize("call, match", [
    (lambda L: iterated_laplacian(L, power=0), "'power' parameter of iterated_laplacian"),
    (lambda L: iterated_laplacian(L, max_density=0.0), "'max_density' parameter of iterated_laplacian"),
    (lambda L: iterated_laplacian(L[:, :3]), "'L' parameter of iterated_laplacian must be a square"),
])
def test_laplacian_power_errors(call, match):
    L = graph_laplacian(knn_graph(np.random.default_rng(0).normal(size=(6, 2)), n_neighbors=2))
    with pytest.raises((ValueError, TypeError), match=match):
        call(L)


def test_epsilon_graph_matches_brute_force():
    X = np.random.default_rng(4).normal(size=(40, 2))
    D = cdist(X, X)
    W = epsilon_graph(X, radius=0.7).toarray()
    A = (D <= 0.7) & ~np.eye(40, dtype=bool)
    np.testing.assert_array_equal(W > 0, A)


def test_sparse_input_and_cosine_metric_match_dense():
    rng = np.random.default_rng(5)
    Xs = sp.random(50, 300, density=0.05, random_state=5, format="csr") + sp.eye(50, 300)
    Ls = laplacian(sp.csr_matrix(Xs), n_neighbors=5, metric="cosine", weight="heat").toarray()
    Ld = laplacian(Xs.toarray(), n_neighbors=5, metric="cosine", weight="heat").toarray()
    np.testing.assert_allclose(Ls, Ld, atol=1e-12)
    A, _ = brute_knn(Xs.toarray(), 5, metric="cosine")
    np.testing.assert_array_equal(knn_graph(Xs, n_neighbors=5, metric="cosine").toarray() > 0, A)
    assert rng is not None


def test_disconnected_graph_has_one_zero_eigenvalue_per_component():
    rng = np.random.default_rng(6)
    X = np.r_[rng.normal(0, 0.1, (20, 2)), rng.normal(100, 0.1, (20, 2))]
    for normalized in (True, False):
        L = laplacian(X, n_neighbors=3, normalized=normalized).toarray()
        ev = np.linalg.eigvalsh(L)
        assert np.sum(np.abs(ev) < 1e-10) == 2
        assert np.abs(L[:20, 20:]).max() == 0


def test_duplicate_points_and_isolated_vertices():
    X = np.r_[np.zeros((5, 2)), np.ones((5, 2))]
    for weight in ("binary", "heat", "distance"):
        L = laplacian(X, n_neighbors=2, weight=weight).toarray()
        assert np.all(np.isfinite(L))
        assert np.linalg.eigvalsh(L).min() > -1e-12
    # an isolated vertex (epsilon graph) gets an all-zero row, as in scipy.sparse.csgraph
    Xi = np.array([[0.0], [0.1], [10.0]])
    L = graph_laplacian(epsilon_graph(Xi, radius=1.0)).toarray()
    np.testing.assert_array_equal(L[2], 0)
    np.testing.assert_allclose(L, csgraph.laplacian(epsilon_graph(Xi, radius=1.0).toarray(), normed=True))


@pytest.mark.parametrize("call, match", [
    (lambda X: laplacian(X, n_neighbors=10), "'n_neighbors' parameter of knn_graph"),
    (lambda X: laplacian(X, n_neighbors=0), "'n_neighbors'"),
    (lambda X: laplacian(X, weight="gauss"), "'weight'"),
    (lambda X: laplacian(X, metric="hamming"), "'metric'"),
    (lambda X: laplacian(X, power=0), "'power'"),
    (lambda X: laplacian(np.where(X > 0, np.nan, X)), "finite"),
    (lambda X: graph_laplacian(np.array([[0.0, 1.0], [0.0, 0.0]])), "symmetric"),
    (lambda X: graph_laplacian(np.array([[0.0, -1.0], [-1.0, 0.0]])), "non-negative"),
    (lambda X: graph_laplacian(np.ones((2, 3))), "square"),
    (lambda X: epsilon_graph(X, radius=-1.0), "'radius'"),
])
def test_bad_input_gives_clear_errors(call, match):
    X = np.random.default_rng(0).normal(size=(10, 2))
    with pytest.raises((ValueError, TypeError), match=match):
        call(X)


@pytest.mark.parametrize("weight", ["binary", "heat", "distance"])
def test_knn_graph_from_rbf_kernel_equals_neighbour_search(weight):
    from toolkit.graphs import knn_graph_from_kernel
    from toolkit.kernels import rbf_kernel
    X = np.random.default_rng(7).normal(size=(120, 5))
    K = rbf_kernel(X, sigma=2.0)
    Wk = knn_graph_from_kernel(K, n_neighbors=6, sigma=2.0, weight=weight)
    Ws = knn_graph(X, n_neighbors=6, weight=weight)
    assert (Wk != Ws).nnz == 0 or np.allclose(Wk.toarray(), Ws.toarray(), atol=1e-6)
    np.testing.assert_allclose(Wk.toarray(), Ws.toarray(), atol=1e-6)
    with pytest.raises(ValueError, match="underflowed"):
        knn_graph_from_kernel(rbf_kernel(X * 1e3, sigma=1e-2), n_neighbors=3, sigma=1e-2)


# ----------------------------------------------------------------------------- approximate search
def _recall(X, W_approx, k):
    """Share of each point's k approximate neighbours no farther than its exact k-th neighbour."""
    D = cdist(X, X)
    np.fill_diagonal(D, np.inf)
    kth = np.sort(D, axis=1)[:, k - 1]
    return np.mean([np.sum(D[i, W_approx[i].indices] <= kth[i] * (1 + 1e-6)) / len(W_approx[i].indices)
                    for i in range(len(X))])


@pytest.fixture(scope="module")
def manifold_points():
    """1500 points near a 2-d manifold in 24 dimensions (as in images or text): NN-descent's case."""
    rng = np.random.default_rng(7)
    t = rng.uniform(0, 3 * np.pi, size=(1500, 2))
    basis = rng.normal(size=(4, 24))
    return np.c_[np.sin(t), np.cos(t)] @ basis + 0.01 * rng.normal(size=(1500, 24))


def test_without_the_ann_extra_the_approximate_search_names_the_extra_and_the_exact_alternative(
        manifold_points, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "pynndescent", None)        # as if the 'ann' extra were not installed
    extra = r"knn_graph: the approximate neighbour search .* needs the 'ann' extra: pip install \"ssl-toolkit\[ann\]\"\. "
    with pytest.raises(ImportError, match=extra + r"Or pass neighbor_search='kdtree' for the exact search"):
        knn_graph(manifold_points, n_neighbors=10, neighbor_search="pynndescent", rng=0)
    for points, metric in ((sp.csr_matrix(manifold_points), "euclidean"), (manifold_points, "cosine")):
        with pytest.raises(ImportError, match=extra + r"Or pass neighbor_search='sklearn' for the exact search"):
            knn_graph(points, n_neighbors=10, metric=metric, neighbor_search="pynndescent", rng=0)


def test_pynndescent_graph_recovers_the_exact_neighbours(manifold_points):
    X, k = manifold_points, 10
    W = knn_graph(X, n_neighbors=k, weight="distance", neighbor_search="pynndescent", rng=0)
    assert (W != W.T).nnz == 0 and W.diagonal().max() == 0
    # directed graph before symmetrisation: exactly k out-edges per point, none to itself
    from toolkit.graphs import _nn_descent
    dist, ind = _nn_descent(X, k, "euclidean", 0, "knn_graph")
    assert ind.shape == (len(X), k) and not np.any(ind == np.arange(len(X))[:, None])
    np.testing.assert_allclose(dist, np.linalg.norm(X[ind] - X[:, None, :], axis=2), rtol=1e-5, atol=1e-6)
    D = cdist(X, X)
    np.fill_diagonal(D, np.inf)
    kth = np.sort(D, axis=1)[:, k - 1]
    recall = np.mean(dist <= kth[:, None] * (1 + 1e-5))
    assert recall >= 0.95, recall
    # the symmetrised graph's weights are the true distances of its edges
    r, c = W.nonzero()
    np.testing.assert_allclose(np.asarray(W[r, c]).ravel(), D[r, c], rtol=1e-5)


def test_pynndescent_graph_is_reproducible_with_a_seed(manifold_points):
    X = manifold_points[:600]
    W1 = knn_graph(X, n_neighbors=5, neighbor_search="pynndescent", rng=3)
    W2 = knn_graph(X, n_neighbors=5, neighbor_search="pynndescent", rng=3)
    assert (W1 != W2).nnz == 0
    W0 = knn_graph(X, n_neighbors=5, neighbor_search="pynndescent")        # None: seed 0
    assert (W0 != knn_graph(X, n_neighbors=5, neighbor_search="pynndescent", rng=0)).nnz == 0


def test_pynndescent_handles_duplicates_without_self_loops():
    X = np.repeat(np.random.default_rng(0).normal(size=(40, 20)), 3, axis=0)    # every point thrice
    W = knn_graph(X, n_neighbors=4, weight="distance", neighbor_search="pynndescent")
    assert W.diagonal().max() == 0
    # the two copies of each point are among its neighbours (distance 0, stored explicitly)
    for i in range(0, 120, 3):
        assert {i + 1, i + 2} <= set(W[i].indices)


def test_auto_search_chooses_by_size_dimension_and_sparsity():
    from toolkit.graphs import (APPROXIMATE_MIN_SAMPLES, KNN_TREE_LARGE_SAMPLES, KNN_TREE_MAX_FEATURES,
                                KNN_TREE_MAX_FEATURES_LARGE, choose_neighbor_search)
    big, large = APPROXIMATE_MIN_SAMPLES, KNN_TREE_LARGE_SAMPLES
    assert KNN_TREE_MAX_FEATURES_LARGE < KNN_TREE_MAX_FEATURES and big < large
    # np.broadcast_to: the shape is all the rule reads, without allocating the points
    def points(n, d):
        return np.broadcast_to(np.float64(0), (n, d))
    assert choose_neighbor_search(points(big, KNN_TREE_MAX_FEATURES + 1)) == "pynndescent"
    assert choose_neighbor_search(points(big, KNN_TREE_MAX_FEATURES)) == "kdtree"        # trees
    assert choose_neighbor_search(points(large - 1, KNN_TREE_MAX_FEATURES)) == "kdtree"
    # from KNN_TREE_LARGE_SAMPLES points an exact search costs too much beyond a few features
    assert choose_neighbor_search(points(large, KNN_TREE_MAX_FEATURES_LARGE + 1)) == "pynndescent"
    assert choose_neighbor_search(points(large, KNN_TREE_MAX_FEATURES_LARGE)) == "kdtree"
    assert choose_neighbor_search(points(large, 2), "manhattan") == "kdtree"
    assert choose_neighbor_search(points(10, 2), "manhattan") == "kdtree"
    assert choose_neighbor_search(points(10, 2), "cosine") == "sklearn"                 # no tree for angles
    assert choose_neighbor_search(points(big, 2), "cosine") == "pynndescent"            # nor brute force at scale
    assert choose_neighbor_search(points(big - 1, 300)) == "sklearn"                       # small
    assert choose_neighbor_search(sp.csr_matrix((big, 3))) == "pynndescent"
    assert choose_neighbor_search(sp.csr_matrix((10, 3))) == "sklearn"


@pytest.mark.parametrize("metric", ["euclidean", "manhattan", "sqeuclidean"])
def test_kdtree_search_gives_the_exact_graph(metric):
    """SciPy's k-d tree, queried in its own order, against scikit-learn's exact search (and brute force
    below): the same edges and weights, with duplicate points (more copies than neighbours) and ties
    on a grid."""
    rng = np.random.default_rng(3)
    for X in (rng.normal(size=(300, 3)), np.repeat(rng.normal(size=(40, 2)), 9, axis=0),
              rng.integers(0, 3, size=(200, 4)).astype(float)):
        for k in (1, 6, 15):
            for weight in ("binary", "heat", "distance"):
                A = knn_graph(X, n_neighbors=k, weight=weight, metric=metric, neighbor_search="sklearn")
                B = knn_graph(X, n_neighbors=k, weight=weight, metric=metric, neighbor_search="kdtree")
                assert np.array_equal(A.indptr, B.indptr) and np.array_equal(A.indices, B.indices)
                assert np.array_equal(A.data, B.data)
    X = rng.normal(size=(60, 2))
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1)) if metric != "manhattan" else abs(X[:, None] - X[None]).sum(-1)
    np.fill_diagonal(D, np.inf)
    nearest = np.argsort(D, axis=1)[:, :4]
    brute = np.zeros((60, 60), dtype=bool)
    brute[np.repeat(np.arange(60), 4), nearest.ravel()] = True
    brute |= brute.T
    W = knn_graph(X, n_neighbors=4, metric=metric, neighbor_search="kdtree")
    assert np.array_equal(W.toarray() > 0, brute)


def test_kdtree_search_refuses_what_it_cannot_measure():
    X = np.random.default_rng(0).normal(size=(20, 3))
    with pytest.raises(ValueError, match=r"'neighbor_search' parameter of knn_graph is 'kdtree'.*cosine"):
        knn_graph(X, n_neighbors=2, metric="cosine", neighbor_search="kdtree")
    with pytest.raises(ValueError, match=r"'neighbor_search' parameter of knn_graph is 'kdtree'.*sparse points"):
        knn_graph(sp.csr_matrix(X), n_neighbors=2, neighbor_search="kdtree")


def test_compiled_edge_union_and_tie_rule_equal_their_numpy_definitions():
    """The compiled union of directed edges (first occurrence wins) and the compiled tie rule against
    the NumPy definitions they replaced (np.unique over edge keys; lexsort and a stable argsort)."""
    from toolkit.graphs import _nearest_with_ties, _symmetric_edges
    rng = np.random.default_rng(7)
    n = 50
    rows = rng.integers(0, n, 400)
    cols = rng.integers(0, n, 400)
    dist = rng.integers(0, 5, 400).astype(float)           # repeated edges with other values: the first wins
    indptr, indices, d = _symmetric_edges(n, rows, cols, dist)
    keep = rows != cols
    lo, hi = np.minimum(rows, cols)[keep], np.maximum(rows, cols)[keep]
    key, first = np.unique(lo * n + hi, return_index=True)
    ref = sp.coo_matrix((np.r_[dist[keep][first], dist[keep][first]],
                         (np.r_[key // n, key % n], np.r_[key % n, key // n])), shape=(n, n)).tocsr()
    ref.sort_indices()
    assert np.array_equal(indptr, ref.indptr) and np.array_equal(indices, ref.indices)
    assert np.array_equal(d, ref.data)
    # the tie rule: rows with exact ties, NaN and inf, against lexsort / stable argsort
    m, c, k = 200, 12, 5
    dist = rng.integers(0, 6, size=(m, c)).astype(float)
    dist[::17, 3] = np.nan
    dist[::13, :] = np.inf
    ind = np.stack([rng.permutation(1000)[:c] for _ in range(m)])
    scale = rng.random(m)
    order = np.lexsort((ind, dist), axis=-1)
    sd, si = np.take_along_axis(dist, order, 1), np.take_along_axis(ind, order, 1)
    kth = sd[:, k - 1:k]
    tol = 1e-9 * (kth + scale[:, None])
    with np.errstate(invalid="ignore"):
        nearer = sd < kth - tol
        tied = ~nearer & (sd <= kth + tol)
    rank = np.where(nearer, -1, np.where(tied, si, np.iinfo(np.int64).max))
    pick = np.argsort(rank, axis=1, kind="stable")[:, :k]
    got_d, got_i, _ = _nearest_with_ties(dist, ind, k, scale, complete=True)
    assert np.array_equal(got_i, np.take_along_axis(si, pick, 1))
    assert np.array_equal(got_d, np.take_along_axis(sd, pick, 1), equal_nan=True)


def test_unknown_neighbor_search_is_named():
    X = np.random.default_rng(0).normal(size=(10, 2))
    with pytest.raises(ValueError, match=r"'neighbor_search' parameter of knn_graph must be one of"):
        knn_graph(X, n_neighbors=2, neighbor_search="annoy")


# ------------------------------------------------------------------ degenerate rows, NaN in K (issue 26)
@pytest.mark.parametrize("build", [
    lambda X: knn_graph(X, n_neighbors=3, metric="cosine"),
    lambda X: epsilon_graph(X, radius=0.5, metric="cosine"),
    lambda X: laplacian(X, n_neighbors=3, metric="cosine"),
])
def test_cosine_graphs_refuse_all_zero_rows_by_name(build):
    """A row of zeros has no angle: scikit-learn put it at distance 1 from every row, so it got the
    first k rows as neighbours of weight 1, silently."""
    X = np.r_[np.zeros((1, 3)), np.random.default_rng(0).normal(size=(9, 3))]
    with pytest.raises(ValueError, match=r"The 'X' parameter of \w+ has 1 all-zero row\(s\) \(first: row 0\).*"
                                         r"metric='cosine' cannot place them"):
        build(X)
    build(X[1:])                                                   # the rest is fine


@pytest.mark.parametrize("where", [(0, 0), (3, 5), "all"])
def test_knn_graph_from_kernel_refuses_nan_and_inf_by_name(where):
    X = np.random.default_rng(1).normal(size=(12, 2))
    K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 2)
    if where == "all":
        K[:] = np.nan
        first = "K[0, 0] = nan"
    else:
        K[where] = np.inf if where == (3, 5) else np.nan
        first = f"K[{where[0]}, {where[1]}] = {K[where]}"
    with pytest.raises(ValueError, match=rf"The 'K' parameter of knn_graph_from_kernel contains NaN or inf "
                                         rf"\(first: {re.escape(first)}\)"):
        knn_graph_from_kernel(K, n_neighbors=3, sigma=1.0)


@pytest.mark.parametrize("data", ["binary", "integer", "duplicates", "gaussian"])
def test_knn_graph_from_kernel_tie_reach_equals_every_other_point(data, monkeypatch):
    """Rows whose tie at d_k reaches beyond the candidates are settled over the points whose kernel
    value can lie within the tie (a bound on K_ij) instead of over every other point: the same graph,
    bit for bit, as the definition over every other point (binary features tie for most rows)."""
    import toolkit.graphs as graphs
    rng = np.random.default_rng(3)
    X = {"binary": lambda: (rng.random((300, 40)) < 0.1).astype(float),
         "integer": lambda: rng.integers(0, 3, size=(300, 3)).astype(float),
         "duplicates": lambda: np.repeat(rng.normal(size=(4, 4)), 100, axis=0),   # ties of 99: wider than one pass
         "gaussian": lambda: rng.normal(size=(300, 5))}[data]()
    sigma = 1.5
    K = np.exp(-cdist(X, X, "sqeuclidean") / (2 * sigma ** 2))
    seen = []
    original = graphs._k_nearest

    def spy(*args, reach=None, **kwargs):
        seen.append(reach is not None)
        return original(*args, reach=reach, **kwargs)

    monkeypatch.setattr(graphs, "_k_nearest", spy)
    for k in (1, 4, 10):
        W = knn_graph_from_kernel(K, n_neighbors=k, sigma=sigma, weight="heat")
        monkeypatch.setattr(graphs, "_k_nearest", lambda *a, reach=None, **kw: original(*a, **kw))
        reference = knn_graph_from_kernel(K, n_neighbors=k, sigma=sigma, weight="heat")
        monkeypatch.setattr(graphs, "_k_nearest", spy)
        assert np.array_equal(W.indptr, reference.indptr) and np.array_equal(W.indices, reference.indices)
        assert np.array_equal(W.data, reference.data)
    assert all(seen)


def test_compiled_tie_rule_on_complete_rows_equals_the_sorting_definition():
    """Rows of every other point (the widened search) go through a compiled selection; against the
    NumPy definition: exact ties at the k-th distance, NaN and inf rows, fewer finite values than k."""
    from toolkit.graphs import _nearest_sorted, _nearest_with_ties
    rng = np.random.default_rng(11)
    m, c, k = 120, 300, 7
    dist = rng.integers(0, 4, size=(m, c)).astype(float)      # heavy ties
    dist[::9, 5] = np.nan
    dist[::11] = np.inf
    dist[3, 7:] = np.nan                                       # fewer finite values than k
    dist[4] = rng.random(c)                                    # no tie
    ind = np.stack([rng.permutation(5000)[:c] for _ in range(m)])
    scale = rng.random(m)
    got = _nearest_with_ties(dist, ind, k, scale, complete=True)
    want = _nearest_sorted(dist, ind, k, scale, True)
    assert np.array_equal(got[1], want[1])
    assert np.array_equal(got[0], want[0], equal_nan=True)
    assert got[2].all()


@pytest.mark.parametrize("call, new", [
    (lambda X: knn_graph(X, neighbors=3), lambda X: knn_graph(X, n_neighbors=3)),
    (lambda X: laplacian(X, neighbors=3, degree=2), lambda X: laplacian(X, n_neighbors=3, power=2)),
    (lambda X: iterated_laplacian(laplacian(X), degree=3), lambda X: iterated_laplacian(laplacian(X), power=3)),
])
def test_the_previous_releases_graph_keywords_warn_and_give_the_same_graph(call, new):
    """``neighbors`` and ``degree`` are ``n_neighbors`` and ``power`` now (Graph's names); for one release
    the old spelling gives the same matrix with a FutureWarning naming the new one."""
    X = np.random.default_rng(0).normal(size=(30, 2))
    with pytest.warns(FutureWarning, match=r"deprecated .*pass (n_neighbors|power)="):
        old = call(X)
    assert (old != new(X)).nnz == 0


def test_an_old_graph_keyword_beside_its_new_name_or_an_unknown_one_is_refused():
    X = np.random.default_rng(0).normal(size=(30, 2))
    with pytest.raises(ValueError, match="'neighbors' is its name of the previous release"):
        knn_graph(X, neighbors=3, n_neighbors=4)
    with pytest.raises(TypeError, match="unexpected keyword argument 'neighbours'"):
        laplacian(X, neighbours=3)
