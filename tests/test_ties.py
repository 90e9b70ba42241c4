"""Neighbour ties are decided by a rule, not by the last bit of a distance.

Data on a grid (binary features, pixels in steps of 1/16, documents with disjoint words) have many
points at exactly the same distance from a point; which of them enter its ``k`` nearest must not
depend on the order in which a BLAS library, a thread count or a CPU's vector width summed a
distance. Each test perturbs the inputs by a few ulps (and runs the search with one and with two
BLAS threads) and asks for the same graph, and for the same predictions of a Laplacian model.
"""
import numpy as np
import pytest
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from toolkit.graphs import knn_graph, knn_graph_from_kernel
from toolkit.kernels import rbf_kernel
from toolkit.manifold import lapsvm, laprlsc
from toolkit.specs import Graph, Kernel


def _ulps(X, seed, steps=3):
    """``X`` with every stored value moved by up to ``steps`` ulps, up or down at random."""
    rng = np.random.default_rng(seed)
    values = X.data if sp.issparse(X) else X
    out = values.copy()
    for _ in range(steps):
        direction = np.where(rng.random(out.shape) < 0.5, -np.inf, np.inf)
        move = rng.random(out.shape) < 0.7
        out = np.where(move, np.nextafter(out, direction), out)
    if sp.issparse(X):
        Y = X.copy()
        Y.data = out
        return Y
    return out


def binary_points(n=160, d=24, seed=0):
    """Two classes of points in {-0.5, 0.5}^d (prototypes with bits flipped, a few duplicates):
    squared distances are integers, so most points have ties at their k-th neighbour."""
    rng = np.random.default_rng(seed)
    prototypes = rng.random((2, d)) < 0.5
    y = np.repeat([-1.0, 1.0], n // 2)
    flips = rng.random((n, d)) < 0.2
    X = (prototypes[(y > 0).astype(int)] ^ flips) - 0.5
    X[n // 2 - 3:n // 2] = X[:3]                          # duplicates of other points
    order = rng.permutation(n)
    return X[order].astype(float), y[order]


def documents(n=150, vocabulary=400, seed=1):
    """Sparse unit-norm rows with few words each (bag of words, as PCMAC): rows with no word in
    common are at distance exactly sqrt(2) in exact arithmetic, ties a rounding error decides."""
    rng = np.random.default_rng(seed)
    y = np.repeat([-1.0, 1.0], n // 2)
    rows, cols, vals = [], [], []
    for i in range(n):
        half = 0 if y[i] < 0 else vocabulary // 2
        words = np.unique(half + rng.integers(0, vocabulary // 2, size=rng.integers(2, 6)))
        rows += [i] * len(words)
        cols += list(words)
        vals += list(rng.random(len(words)) + 0.1)
    X = sp.csr_matrix((vals, (rows, cols)), shape=(n, vocabulary))
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    return sp.csr_matrix(sp.diags(1.0 / norms) @ X), y


def _edges(W):
    """The stored entries of ``W`` as a 0/1 matrix (an edge of weight 0, between duplicates, is one)."""
    E = sp.csr_matrix(W, copy=True)
    E.data[:] = 1.0
    return E


def _assert_same_graph(W, V):
    differ = (_edges(W) != _edges(V)).nnz // 2
    assert differ == 0, f"{differ} of {W.nnz // 2} edges differ"
    np.testing.assert_allclose(W.toarray(), V.toarray(), rtol=1e-12, atol=1e-14)


def _star(nudge=0.0, which=17):
    """The origin (last row) and 24 points at distance exactly 1 from it (±e_i in 12 dimensions, in a
    shuffled order), each with a twin 0.1 farther out, so that only the origin lists one of them;
    point ``which`` moved towards the origin by the relative ``nudge``."""
    unit = np.r_[np.eye(12), -np.eye(12)][np.random.default_rng(3).permutation(24)]
    X = np.r_[unit, 1.1 * unit, np.zeros((1, 12))]
    X[which] *= 1.0 - nudge
    return X


@pytest.mark.parametrize("nudge, expected", [(0.0, 0), (1e-12, 0), (1e-6, 17)])
def test_a_tie_goes_to_the_smaller_index_also_beyond_the_searchs_candidates(nudge, expected):
    # 24 points tie for the origin's nearest (more than the search's 1 + KNN_EXTRA_CANDIDATES candidates):
    # the first index wins, also against a point nearer by a relative 1e-12 (within KNN_TIE_RTOL), not
    # against one nearer by 1e-6
    X = _star(nudge)
    for search in ("sklearn", "kernel"):
        W = knn_graph(X, n_neighbors=1) if search == "sklearn" else knn_graph_from_kernel(X @ X.T, n_neighbors=1)
        assert list(W[len(X) - 1].indices) == [expected], search
    W = knn_graph_from_kernel(rbf_kernel(X, sigma=1.0), n_neighbors=1, sigma=1.0)
    assert list(W[len(X) - 1].indices) == [expected], "rbf"


@pytest.mark.parametrize("data, k", [("binary", 6), ("binary-low", 5), ("documents", 8)])
@pytest.mark.parametrize("weight", ["heat", "distance"])
def test_knn_graph_is_the_same_after_a_few_ulps_and_with_other_thread_counts(data, k, weight):
    if data == "binary":
        X, _ = binary_points()                     # 24 features: scikit-learn's brute force (BLAS products)
    elif data == "binary-low":
        X, _ = binary_points(d=10)                 # 10 features: scikit-learn's trees
    else:
        X, _ = documents()
    with threadpool_limits(1):
        W = knn_graph(X, n_neighbors=k, weight=weight)
    for seed in range(3):
        _assert_same_graph(W, knn_graph(_ulps(X, seed), n_neighbors=k, weight=weight))
    with threadpool_limits(2):
        _assert_same_graph(W, knn_graph(X, n_neighbors=k, weight=weight))


def test_knn_graph_from_kernel_is_the_same_after_a_few_ulps():
    X, _ = binary_points()
    W = knn_graph_from_kernel(rbf_kernel(X, sigma=2.0), n_neighbors=6, sigma=2.0, weight="heat")
    Wf = knn_graph_from_kernel(X @ X.T, n_neighbors=6, weight="heat")
    for seed in range(3):
        Xp = _ulps(X, seed)
        _assert_same_graph(W, knn_graph_from_kernel(rbf_kernel(Xp, sigma=2.0), n_neighbors=6, sigma=2.0, weight="heat"))
        _assert_same_graph(Wf, knn_graph_from_kernel(Xp @ Xp.T, n_neighbors=6, weight="heat"))


@pytest.mark.parametrize("data", ["binary", "documents"])
@pytest.mark.parametrize("solver", ["laprlsc", "lapsvm"])
def test_laplacian_models_predict_the_same_labels_after_a_few_ulps(data, solver):
    X, y = binary_points() if data == "binary" else documents()
    labeled = np.r_[np.flatnonzero(y < 0)[:4], np.flatnonzero(y > 0)[:4]]
    unlabeled = np.setdiff1d(np.arange(len(y)), labeled)
    fit = {"laprlsc": laprlsc, "lapsvm": lapsvm}[solver]
    options = dict(kernel=Kernel("rbf", sigma=2.0 if data == "binary" else 1.0), graph=Graph(n_neighbors=6, power=2),
                   gamma_A=1e-4, gamma_I=1.0, intercept=False)

    def predict(X):
        X = sp.csr_matrix(X) if sp.issparse(X) else X
        model = fit(X[labeled], y[labeled], X[unlabeled], **options)
        return model.predict(X[unlabeled])

    expected = predict(X)
    for seed in range(3):
        np.testing.assert_array_equal(predict(_ulps(X, seed)), expected)
