"""The one training-set builder (:func:`toolkit.training.training_set`) of the Laplacian solvers and paths.

LapSVM, LapRLSC, the LapSVM dual and the Laplacian λ-path build their stacked points, width,
kernel, graph and low-rank basis through it: the builder is spied on inside each of them, and the
training sets they get for the same inputs must be equal bit for bit, and equal to what the
kernels and graphs modules compute on their own.
"""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import toolkit.manifold._solvers as solvers
import toolkit.paths._laplacian as laplacian_path
from toolkit import lapsvm, lapsvm_dual, laplacian_svm_path, laprlsc
from toolkit.graphs import POWER_MAX_DENSITY, laplacian
from toolkit.kernels import kernel_matrix, scale_width
from toolkit.specs import Graph, Kernel, LowRank
from toolkit.training import TrainingSet, choose_basis, training_set


def _points(n=150, l=10, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, 1.0, -1.0)
    labeled = np.r_[np.flatnonzero(y > 0)[: l // 2], np.flatnonzero(y < 0)[: l // 2]]
    rest = np.setdiff1d(np.arange(n), labeled)
    return X[labeled], y[labeled], X[rest]


@pytest.fixture
def built(monkeypatch):
    """The training sets the solvers and the path build, in call order."""
    seen = []

    def spy(*args, **kwargs):
        seen.append(training_set(*args, **kwargs))
        return seen[-1]

    monkeypatch.setattr(solvers, "training_set", spy)
    monkeypatch.setattr(laplacian_path, "training_set", spy)
    return seen


def _dense(L):
    return L.toarray() if sp.issparse(L) else np.asarray(L)


def _assert_same(a, b):
    for name in ("X", "K", "degrees", "basis"):
        one, two = getattr(a, name), getattr(b, name)
        assert (one is None) == (two is None), name
        if one is not None:
            assert one.dtype == two.dtype and np.array_equal(one, two), name
    assert sp.issparse(a.L) == sp.issparse(b.L)
    assert np.array_equal(_dense(a.L), _dense(b.L))
    assert (a.sigma, a.sigma_rule, a.neighbor_search, a.laplacian_given) == \
           (b.sigma, b.sigma_rule, b.neighbor_search, b.laplacian_given)


GRAPH = Graph(n_neighbors=5, weight="binary", power=2)


@pytest.mark.parametrize("low_rank", [None, LowRank(30), LowRank(30, basis="kmeans++")])
def test_lapsvm_laprlsc_and_the_path_get_the_same_training_set(built, low_rank):
    Xl, yl, Xu = _points()
    kernel = Kernel("rbf")                   # the width by its rule: sigma="scale"
    lapsvm(Xl, yl, Xu, kernel=kernel, graph=GRAPH, low_rank=low_rank, rng=3)
    laprlsc(Xl, yl, Xu, kernel=kernel, graph=GRAPH, low_rank=low_rank, rng=3)
    path = laplacian_svm_path(Xl, yl, Xu, kernel=kernel, graph=GRAPH, low_rank=low_rank, rng=3)
    assert len(built) == 3
    first = built[0]
    for other in built[1:]:
        _assert_same(first, other)
    assert first.sigma_rule == "scale" and first.sigma == scale_width(np.vstack([Xl, Xu]))
    assert path.sigma == first.sigma
    if low_rank is None:
        assert first.basis is None and first.K is not None
        np.testing.assert_array_equal(path.X_train, first.X)
    else:
        assert first.K is None and first.basis.size == 30
        np.testing.assert_array_equal(first.basis[:len(yl)], np.arange(len(yl)))   # every labelled point
        np.testing.assert_array_equal(path.X_train, first.Z)


def test_the_dual_gets_the_training_set_of_the_primal_solvers(built):
    Xl, yl, Xu = _points()
    lapsvm(Xl, yl, Xu, graph=GRAPH)
    lapsvm_dual(Xl, yl, Xu, graph=GRAPH)
    _assert_same(*built)


def test_its_kernel_and_laplacian_are_those_of_the_kernels_and_graphs_modules():
    Xl, _, Xu = _points()
    X = np.vstack([Xl, Xu])
    train = training_set("f", Xl, Xu, kernel="rbf", sigma=0.7, graph=GRAPH, max_density=POWER_MAX_DENSITY)
    assert isinstance(train, TrainingSet) and train.n_samples == X.shape[0] and train.n_labeled == len(Xl)
    assert np.array_equal(train.X, X) and not train.X.flags.writeable
    assert np.array_equal(train.K, kernel_matrix(X, kernel="rbf", sigma=0.7))
    L = laplacian(X, n_neighbors=5, weight="binary", power=2, max_density=POWER_MAX_DENSITY)
    assert np.array_equal(_dense(train.L), _dense(L))
    assert train.sigma == 0.7 and train.sigma_rule is None and not train.laplacian_given
    assert train.degrees.shape == (X.shape[0],) and train.neighbor_search in ("kdtree", "sklearn")
    assert set(train.timings) == {"kernel", "graph", "laplacian"}


def test_a_given_laplacian_is_used_as_given_or_raised_to_its_power():
    Xl, _, Xu = _points(60)
    L1 = laplacian(np.vstack([Xl, Xu]), n_neighbors=4, power=1)
    given = training_set("f", Xl, Xu, kernel="linear", graph=L1)
    assert given.laplacian_given and given.degrees is None and given.neighbor_search is None
    assert np.array_equal(_dense(given.L), L1.toarray())
    squared = training_set("f", Xl, Xu, kernel="linear", graph=L1, laplacian_power=2)
    np.testing.assert_allclose(_dense(squared.L), (L1 @ L1).toarray(), atol=1e-12)
    none = training_set("f", Xl, Xu, kernel="linear", graph=None)
    assert none.L is None and none.timings["graph"] == 0.0


def test_the_low_rank_basis_is_the_basis_choice_of_the_rows():
    Xl, _, Xu = _points(80)
    train = training_set("f", Xl, Xu, kernel="rbf", sigma=1.0, graph=None, low_rank=LowRank(20), rng=5)
    X = np.vstack([Xl, Xu])
    np.testing.assert_array_equal(train.basis, choose_basis(X, len(Xl), 20, "uniform", np.random.default_rng(5)))
    np.testing.assert_array_equal(train.Z, X[train.basis])
    assert train.K is None and not train.basis.flags.writeable


@pytest.mark.parametrize("call, match", [
    (lambda Xl, Xu, K: training_set("f", K[:10], K[10:], kernel="precomputed", low_rank=LowRank(5)),
     r"'n_basis' parameter of f needs points"),
    (lambda Xl, Xu, K: training_set("f", Xl, Xu, kernel="rbf", sigma=1.0, low_rank=LowRank(61)),
     r"'n_basis' parameter of f must be an int in \[1, 60\] \(the training points\)\. Got 61"),
    (lambda Xl, Xu, K: training_set("f", Xl, Xu, kernel="rbf", sigma="median"), r"'sigma' parameter of f"),
    (lambda Xl, Xu, K: training_set("f", Xl, Xu, kernel="rbf", sigma=None, low_rank=LowRank(5)),
     r"The 'sigma' parameter of f is required for kernel='rbf'"),
    (lambda Xl, Xu, K: training_set("f", Xl, Xu, kernel="linear", graph=sp.eye(59, format="csr")),
     r"(?s)'graph' parameter of f.*60"),
    (lambda Xl, Xu, K: training_set("f", Xl, Xu, kernel="linear", graph=sp.csr_matrix((60, 60)),
                                    graph_args={"neighbors": (7, 10)}), r"^f: neighbors=7 cannot act when"),
])
def test_refusals_name_the_function_and_the_argument(call, match):
    Xl, _, Xu = _points(60)
    K = kernel_matrix(np.vstack([Xl, Xu]), kernel="rbf", sigma=1.0)
    with pytest.raises(ValueError, match=match):
        call(Xl, Xu, K)


def test_the_solvers_keep_their_own_messages():
    Xl, yl, Xu = _points(60)
    with pytest.raises(ValueError, match=r"'n_basis' parameter of lapsvm must be an int in \[1, 60\]"):
        lapsvm(Xl, yl, Xu, low_rank=LowRank(61))
    with pytest.raises(ValueError, match=r"'n_basis' parameter of laplacian_svm_path must be an int in \[1, 60\]"):
        laplacian_svm_path(Xl, yl, Xu, low_rank=LowRank(61))
    for solver in (lapsvm, lapsvm_dual, laplacian_svm_path):
        with pytest.raises(ValueError, match=rf"The 'sigma' parameter of {solver.__name__} is required for kernel='rbf'"):
            solver(Xl, yl, Xu, kernel=Kernel("rbf", sigma=None))
    with pytest.raises(ValueError, match=r"'neighbor_search' parameter of laprlsc is 'kernel'.*low-rank model"):
        laprlsc(Xl, yl, Xu, graph=Graph(neighbor_search="kernel"), low_rank=LowRank(20))
