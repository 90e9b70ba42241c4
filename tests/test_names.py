"""One name per quantity and one way to pass a kernel, across every public solver.

* ``kernel_degree`` is the polynomial kernel's degree, ``degree`` the ``p`` of ``L^p``,
  ``graph_sigma`` the heat width of the graph, ``laplacian_matrix`` a precomputed ``L^p``;
* ``kernel="precomputed"`` means the same everywhere: the training inputs are rows of the
  training kernel matrix and new points are their kernel rows (scikit-learn's convention), and
  the model is the one fitted on the points with the same kernel and graph.
"""
from __future__ import annotations

import inspect

import numpy as np
import pytest
import scipy.sparse as sp

import toolkit
from toolkit import (kernel_matrix, laplacian_svm_path, laprlsc, lapsvm, lapsvm_dual, rlsc, rlsc_path, s2rlsc,
                     svm_path)
from toolkit.graphs import knn_graph, knn_graph_from_kernel, laplacian
from toolkit.specs import Graph, Kernel, LocalSearch


def _data(n=40, l=8, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    lab = np.r_[np.flatnonzero(y > 0)[:l // 2], np.flatnonzero(y < 0)[:l // 2]]
    unl = np.setdiff1d(np.arange(n), lab)
    return X[lab], y[lab], X[unl], X


PUBLIC_SOLVERS = ["rlsc", "s2rlsc", "mmc", "lapsvm", "laprlsc", "lapsvm_dual", "svm_path", "rlsc_path",
                  "laplacian_svm_path", "cv_svm_path", "cv_laplacian_svm_path", "kernel_matrix"]
RETIRED = {"laplacian_power", "laplacian_degree", "heat_sigma", "gram", "laplacian", "K"}
#: the solvers whose graph defaults were measured (benchmarks/bench_defaults.py): they share the registry's
#: graph, toolkit.graphs.GRAPH_PARAMS; the building blocks (toolkit.graphs) and the regularisation paths
#: keep the plain graph of toolkit.graphs.laplacian (binary weights, L^1)
MANIFOLD_SOLVERS = ("lapsvm", "laprlsc", "lapsvm_dual")
GRAPH_KEYS = ("n_neighbors", "power", "normalized", "weight", "graph_sigma", "metric")   # the building blocks'


def block_names(spec):
    """A Graph spec under the building blocks' names (toolkit.graphs.laplacian's parameters)."""
    return {"n_neighbors": spec.n_neighbors, "power": spec.power, "normalized": spec.normalized, "weight": spec.weight,
            "graph_sigma": spec.sigma, "metric": spec.metric}


@pytest.mark.parametrize("name", PUBLIC_SOLVERS)
def test_public_solvers_use_the_one_name_of_each_quantity(name):
    params = inspect.signature(getattr(toolkit, name)).parameters
    assert not RETIRED & set(params), f"{name} still has {sorted(RETIRED & set(params))}"
    if "kernel_degree" in params:                                   # always the polynomial kernel's degree
        assert params["kernel_degree"].default == 2 and "kernel" in params
    defaults = {k: params[k].default for k in GRAPH_KEYS if k in params}
    if "graph" in params:                                     # the graph is a spec: Graph's names
        from toolkit.graphs import GRAPH_PARAMS
        from toolkit.specs import Graph
        assert params["graph"].default is None and not defaults
        assert GRAPH_PARAMS == dict(neighbors=10, degree=2, normalized=True, weight="heat", graph_sigma=None,
                                    metric="euclidean")
        flat = Graph().flat()
        if name in MANIFOLD_SOLVERS:                          # one default graph: the registry's
            assert {k: flat[k] for k in GRAPH_PARAMS} == GRAPH_PARAMS
        else:                                                 # the building blocks' plain graph
            from toolkit.paths._laplacian import PATH_GRAPH
            block = inspect.signature(toolkit.graphs.laplacian).parameters
            assert block_names(PATH_GRAPH) == {k: block[k].default for k in GRAPH_KEYS}
    elif defaults:                                            # the building blocks' plain graph
        block = inspect.signature(toolkit.graphs.laplacian).parameters
        assert defaults == {k: block[k].default for k in defaults}
        plain = {"weight": "binary", "power": 1, "graph_sigma": None}
        assert {k: defaults[k] for k in plain if k in defaults} == {k: plain[k] for k in plain if k in defaults}
    if name not in ("kernel_matrix",):
        assert "kernel" in params


def test_graph_functions_use_the_same_names():
    from toolkit import graphs
    for func in (graphs.knn_graph, graphs.epsilon_graph, graphs.laplacian, graphs.knn_graph_from_kernel):
        params = inspect.signature(func).parameters
        assert params["weight"].default == "binary" and "graph_sigma" in params and "sigma" not in params or \
            func is graphs.knn_graph_from_kernel
    for func in (graphs.knn_graph, graphs.knn_graph_from_kernel, graphs.laplacian, graphs.build_laplacian):
        assert "n_neighbors" in inspect.signature(func).parameters      # as Graph and scikit-learn name them
    for func in (graphs.laplacian, graphs.iterated_laplacian, graphs.laplacian_operator, graphs.build_laplacian):
        assert "power" in inspect.signature(func).parameters and "degree" not in inspect.signature(func).parameters


# ---------------------------------------------------------------------------- kernel="precomputed"
@pytest.mark.parametrize("solver", [lapsvm, laprlsc, lapsvm_dual])
def test_manifold_solvers_fit_the_same_model_from_kernel_rows(solver):
    Xl, yl, Xu, _ = _data()
    X = np.vstack([Xl, Xu])
    L = laplacian(X, n_neighbors=5)
    kw = dict(gamma_A=1e-2, gamma_I=1.0, graph=L)
    if solver is not lapsvm_dual:
        kw.update(solver="newton" if solver is lapsvm else "direct")
    raw = solver(Xl, yl, Xu, kernel=Kernel("rbf", sigma=0.8), **kw)
    K = kernel_matrix(X, kernel="rbf", sigma=0.8)
    pre = solver(K[:len(Xl)], yl, K[len(Xl):], kernel="precomputed", **kw)
    np.testing.assert_allclose(pre.objective, raw.objective, rtol=1e-9)
    X_new = np.random.default_rng(1).normal(size=(7, 3))
    np.testing.assert_allclose(pre.decision_function(kernel_matrix(X_new, X, kernel="rbf", sigma=0.8)),
                               raw.decision_function(X_new), rtol=1e-7, atol=1e-9)


def test_precomputed_linear_kernel_builds_the_euclidean_graph():
    """Without the points the graph is read off the kernel's own distances: for K = X Xᵀ these are
    the Euclidean distances, so the model equals the one fitted on the points."""
    Xl, yl, Xu, _ = _data(seed=3)
    X = np.vstack([Xl, Xu])
    raw = lapsvm(Xl, yl, Xu, kernel="linear", gamma_A=1e-2, gamma_I=1.0, graph=Graph(n_neighbors=5), solver="newton")
    K = X @ X.T
    pre = lapsvm(K[:len(Xl)], yl, K[len(Xl):], kernel="precomputed", gamma_A=1e-2, gamma_I=1.0,
                 graph=Graph(n_neighbors=5), solver="newton")
    np.testing.assert_allclose(pre.objective, raw.objective, rtol=1e-8)


@pytest.mark.parametrize("weight", ["heat", "binary", "distance"])
def test_knn_graph_from_any_kernel_uses_feature_space_distances(weight):
    X = np.random.default_rng(2).normal(size=(30, 4))
    W_points = knn_graph(X, n_neighbors=4, weight=weight)
    W_kernel = knn_graph_from_kernel(X @ X.T, n_neighbors=4, weight=weight)
    assert abs(W_points - W_kernel).max() < 1e-10


def test_paths_take_points_or_a_precomputed_kernel():
    Xl, yl, Xu, _ = _data(seed=4)
    K = kernel_matrix(Xl, kernel="rbf", sigma=1.0)
    X_new = np.random.default_rng(5).normal(size=(6, 3))
    K_new = kernel_matrix(X_new, Xl, kernel="rbf", sigma=1.0)
    for path_fn in (svm_path, rlsc_path):
        by_kernel, by_points = path_fn(K, yl), path_fn(Xl, yl, kernel="rbf", sigma=1.0)
        np.testing.assert_allclose(by_points.decision_function(X_new, 0.1), by_kernel.decision_function(K_new, 0.1),
                                   rtol=1e-10, atol=1e-12)
        with pytest.raises(ValueError, match="features"):      # kernel rows where points are expected
            by_points.decision_function(K_new, 0.1)
    X = np.vstack([Xl, Xu])
    L = laplacian(X, n_neighbors=5)
    KX = kernel_matrix(X, kernel="rbf", sigma=1.0)
    raw = laplacian_svm_path(Xl, yl, Xu, kernel=Kernel("rbf", sigma=1.0), graph=L)
    pre = laplacian_svm_path(KX[:len(Xl)], yl, KX[len(Xl):], kernel="precomputed", graph=L)
    lam = raw.breakpoints[-1] * 2
    np.testing.assert_allclose(pre.decision_function(kernel_matrix(X_new, X, kernel="rbf", sigma=1.0), lam),
                               raw.decision_function(X_new, lam), rtol=1e-8, atol=1e-10)


def test_s2rlsc_and_rlsc_follow_the_same_convention():
    Xl, yl, Xu, _ = _data(seed=6)
    X = np.vstack([Xl, Xu])
    K = kernel_matrix(X, kernel="rbf", sigma=1.0)
    raw = s2rlsc(Xl, yl, Xu, kernel=Kernel("rbf", sigma=1.0), search=LocalSearch(restarts=1), rng=0)
    pre = s2rlsc(K[:len(Xl)], yl, K[len(Xl):], kernel="precomputed", search=LocalSearch(restarts=1), rng=0)
    assert pre.objective == pytest.approx(raw.objective, rel=1e-9)
    sup = rlsc(Xl, yl, kernel="rbf", sigma=1.0)
    sup_pre = rlsc(K[:len(Xl), :len(Xl)], yl, kernel="precomputed")
    np.testing.assert_allclose(sup_pre.decision_function(K[len(Xl):, :len(Xl)]), sup.decision_function(Xu),
                               rtol=1e-9, atol=1e-12)


def test_laplacian_path_speaks_lapsvm_duals_weights():
    """At breakpoint λ the path's model is lapsvm_dual's with γ_A = λ/2, γ_I = r λ/2."""
    Xl, yl, Xu, _ = _data(seed=7)
    path = laplacian_svm_path(Xl, yl, Xu, kernel=Kernel("rbf", sigma=1.0),
                              graph=Graph(n_neighbors=5, weight="binary", power=1), gamma_ratio=3.0)
    k = path.breakpoints.size // 2
    np.testing.assert_allclose(path.gamma_A, path.breakpoints / 2)
    np.testing.assert_allclose(path.gamma_I, 3.0 * path.breakpoints / 2)
    dual = lapsvm_dual(Xl, yl, Xu, kernel=Kernel("rbf", sigma=1.0), graph=path.laplacian_matrix,
                       gamma_A=path.gamma_A[k], gamma_I=path.gamma_I[k], tol=1e-10)
    np.testing.assert_allclose(dual.decision_function(Xu), path.decision_function(Xu, path.breakpoints[k]),
                               atol=1e-5)


# ---------------------------------------------------------------------------- laplacian_matrix is checked
@pytest.mark.parametrize("bad, match", [
    (lambda n: np.ones((n, n + 1)), r"shape \(40, 40\)"),
    (lambda n: np.triu(np.ones((n, n))), "symmetric"),
    (lambda n: np.full((n, n), np.nan), "NaN"),
    (lambda n: -np.eye(n), "non-negative diagonal"),
    (lambda n: sp.csr_matrix(np.triu(np.ones((n, n)))), "symmetric"),
])
@pytest.mark.parametrize("solver", [lapsvm, laplacian_svm_path])
def test_a_bad_laplacian_matrix_is_refused_by_name(solver, bad, match):
    Xl, yl, Xu, _ = _data()
    with pytest.raises(ValueError, match=match) as info:
        solver(Xl, yl, Xu, kernel=Kernel("rbf", sigma=1.0), graph=bad(40))
    assert "'graph'" in str(info.value)


def test_precomputed_kernel_rows_of_the_wrong_shape_are_refused():
    Xl, yl, Xu, _ = _data()
    K = kernel_matrix(np.vstack([Xl, Xu]), kernel="rbf", sigma=1.0)
    with pytest.raises(ValueError, match=r"rows of the \(40, 40\) training kernel matrix"):
        lapsvm(K[:8, :30], yl, K[8:, :30], kernel="precomputed")
    with pytest.raises(ValueError, match="positive semi-definite|symmetric"):
        lapsvm(-K[:8], yl, -K[8:], kernel="precomputed")
    fit = lapsvm(K[:8], yl, K[8:], kernel="precomputed")
    with pytest.raises(ValueError, match="40 training points: 40 columns"):
        fit.decision_function(K[:3, :10])
