"""The kNN graph of an RBF problem: scikit-learn's search against reading it off the kernel matrix,
and pynndescent's approximate search against the exact one on large sets of many features.

    python benchmarks/bench_neighbors.py                  # both parts
    python benchmarks/bench_neighbors.py --approximate    # the second part only
    python benchmarks/bench_neighbors.py --million [--dims 2 8] [--threads 2]   # 10^6 points

``--million``: ``knn_graph(X, neighbors=20, weight="heat")`` on 10^6 points (two moons for d = 2,
Gaussian points otherwise) with the search ``neighbor_search="auto"`` takes (SciPy's k-d tree up to 16
features, exact; pynndescent beyond, approximate), ``--threads`` threads, and its recall against
scikit-learn's exact search on 1000 query points (target: 10 s on 2 cores).

For Gaussian points (n = 2000 and 8000; d = 2 … 256; 20 neighbours, heat weights) both ways build
the same graph (the maximum weight difference is printed); printed are both times and their ratio
(kernel / scikit-learn). ``lapsvm(neighbor_search="auto")`` follows these numbers:
``toolkit.manifold._solvers.KNN_TREE_MAX_FEATURES`` (16) is where reading the kernel it has
computed anyway becomes the cheaper way. Measured (2 cores, 2026-11-25, other jobs running):

    n=2000 d=2:   sklearn 0.024 s, from the kernel 0.038 s
    n=2000 d=256: sklearn 0.361 s, from the kernel 0.034 s
    n=8000 d=2:   sklearn 0.051 s, from the kernel 0.698 s   (the old rule read it off the kernel)
    n=8000 d=16:  sklearn 0.224 s, from the kernel 0.455 s
    n=8000 d=256: sklearn 0.553 s, from the kernel 0.396 s

The approximate search (pynndescent, 3 k candidates per point, the k nearest kept; recall = share of
the found neighbours no farther than the exact k-th, on 1000 query points). Measured (2 cores,
2026-11-25, another job running):

    pynndescent's compilation (once per process): 31 s (the sparse kernels: about 25 s more)
    SSL-book set 8, n=83679 d=315 sparse, k=10: 32 s incl. sparse compilation, recall 93.6 %;
                                                exact 183 s (extrapolated from 1000 queries)
    SSL-book set 8, k=20:                       53 s, recall 99.9 %; exact 190 s
    MNIST test images, n=10000 d=784, k=10:     0.9 s, recall 100 %; exact 2 s
"""
import argparse
import time

import numpy as np
from sklearn.neighbors import NearestNeighbors

from toolkit.graphs import _nn_descent, knn_graph, knn_graph_from_kernel
from toolkit.kernels import kernel_matrix


def recall(X, dist, k, sample, rng):
    """Share of the approximate k neighbours no farther than the exact k-th, on ``sample`` query points;
    and the exact search's time for those queries (scikit-learn brute force / trees)."""
    rows = rng.choice(X.shape[0], size=min(sample, X.shape[0]), replace=False)
    t = time.perf_counter()
    exact, _ = NearestNeighbors(n_neighbors=k + 1).fit(X).kneighbors(X[rows])   # the point itself first
    seconds = time.perf_counter() - t
    kth = exact[:, k]
    found = dist[rows] <= kth[:, None] * (1 + 1e-5) + 1e-6
    return float(found.mean()), seconds * X.shape[0] / len(rows)


def approximate():
    """pynndescent (k = 10) on SSL-book set 8 and on the MNIST test images, recall on 1000 points."""
    from toolkit.data import load

    rng = np.random.default_rng(0)
    t = time.perf_counter()
    _nn_descent(rng.normal(size=(500, 20)), 5, "euclidean", 0, "bench")
    print(f"pynndescent's compilation (once per process): {time.perf_counter() - t:.1f} s", flush=True)
    for name, X in (("SSL-book set 8 (sparse binary)", load("ssl-book", 8).X),
                    ("MNIST test images", load("mnist", split="test").X)):
        for k in (10, 20):
            t = time.perf_counter()
            dist, _ = _nn_descent(X, k, "euclidean", 0, "bench")
            seconds = time.perf_counter() - t
            share, exact_seconds = recall(X, dist, k, 1000, rng)
            print(f"{name}, n={X.shape[0]} d={X.shape[1]} k={k}: pynndescent {seconds:.1f} s, recall "
                  f"{100 * share:.1f} %; exact search {exact_seconds:.0f} s (extrapolated from 1000 queries)",
                  flush=True)


def main():
    rng = np.random.default_rng(0)
    for n in (2000, 8000):
        for d in (2, 8, 16, 32, 64, 256):
            X = rng.normal(size=(n, d))
            sigma = np.sqrt(d)
            K = kernel_matrix(X, kernel="rbf", sigma=sigma)
            t = time.perf_counter()
            W_search = knn_graph(X, neighbors=20, weight="heat")
            t_search = time.perf_counter() - t
            t = time.perf_counter()
            W_kernel = knn_graph_from_kernel(K, neighbors=20, sigma=sigma, weight="heat")
            t_kernel = time.perf_counter() - t
            print(f"n={n:5d} d={d:3d}: sklearn {t_search:.3f} s, from the kernel {t_kernel:.3f} s, "
                  f"ratio {t_kernel / t_search:5.2f}, max |W difference| {abs(W_search - W_kernel).max():.1e}",
                  flush=True)


def million(dims, threads):
    """The kNN graph of 10^6 points, timed, with its recall against the exact search."""
    import numba
    from sklearn.datasets import make_moons

    from toolkit.graphs import choose_neighbor_search

    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    rng = np.random.default_rng(0)
    knn_graph(rng.normal(size=(200, 2)), neighbors=5)                 # compile the loops, not timed
    for d in dims:
        X = make_moons(1_000_000, noise=0.1, random_state=0)[0] if d == 2 else rng.normal(size=(1_000_000, d))
        t = time.perf_counter()
        W = knn_graph(X, neighbors=20, weight="heat")
        seconds = time.perf_counter() - t
        # recall: the graph's edges of each query point against its exact 20 nearest (the graph holds
        # each point's own 20 plus the reverse edges, so the exact list must be inside it)
        rows = rng.choice(X.shape[0], 1000, replace=False)
        exact = NearestNeighbors(n_neighbors=21).fit(X).kneighbors(X[rows], return_distance=False)[:, 1:]
        found = np.mean([np.isin(exact[i], W.indices[W.indptr[r]:W.indptr[r + 1]]).mean() for i, r in enumerate(rows)])
        print(f"n=1000000 d={d}: knn_graph {seconds:.1f} s with {threads} thread(s) "
              f"(search {choose_neighbor_search(X)}), {W.nnz} edges, recall of the exact 20 nearest "
              f"{100 * found:.2f} % (1000 queries)", flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--approximate", action="store_true", help="only the approximate search")
    parser.add_argument("--million", action="store_true", help="only the 10^6-point graphs")
    parser.add_argument("--dims", type=int, nargs="*", default=[2, 8])
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    if args.million:
        million(args.dims, args.threads)
    else:
        if not args.approximate:
            main()
        approximate()
