"""The kNN graph of an RBF problem: scikit-learn's search against reading it off the kernel matrix,
and pynndescent's approximate search against the exact one on large sets of many features.

    python benchmarks/bench_neighbors.py                  # both parts
    python benchmarks/bench_neighbors.py --approximate    # the second part only
    python benchmarks/bench_neighbors.py --million [--dims 2 8] [--threads 2] [--compare]   # 10^6 points
    python benchmarks/bench_neighbors.py --crossover      # where 'auto' leaves the tree on large sets

``--million``: ``knn_graph(X, n_neighbors=20, weight="heat")`` on 10^6 points (two moons for d = 2,
Gaussian points otherwise) with the search ``neighbor_search="auto"`` takes (SciPy's k-d tree up to 10
features at this size, exact; pynndescent beyond, approximate, timed after its compilation),
``--threads`` threads, and its recall against scikit-learn's exact search on 1000 query points
(target: 10 s on 2 cores). ``--compare`` adds, for Gaussian points, pynndescent where 'auto' takes
the tree, and pynndescent alone with 21 neighbours and no graph (the search's own floor). Measured
(2 cores, 2026-11-27; pynndescent's compilation 22 s once per process):

    d=2:  k-d tree 4.3 s (2026-11-26), recall 100 %
    d=8:  k-d tree (auto) 100.2 s, recall 100 %; pynndescent 79.3 s, recall 100 %;
          pynndescent alone 18.7 s, recall 99.8 % (one iteration: 11.8 s, 97.3 %)
    d=12: pynndescent (auto) 92.2 s, recall 100 %; pynndescent alone 23.1 s, recall 98.7 %
          (one iteration: 12.1 s, 79.6 %)

So no search reaches 10 s beyond a few features. ``--crossover``: both searches on 50 000 and 200 000
Gaussian points (d = 8 … 16), the numbers behind ``toolkit.graphs.KNN_TREE_LARGE_SAMPLES``, and the
cosine metric (no tree): scikit-learn's brute force 22.2 / 69.5 s against pynndescent 3.1 / 6.3 s at
n = 50 000 / 100 000, d = 8 (2026-11-27; the same neighbour sets on every 50th point).

For Gaussian points (n = 2000 and 8000; d = 2 … 256; 20 neighbours, heat weights) both ways build
the same graph (the maximum weight difference is printed); printed are both times and their ratio
(kernel / scikit-learn). Reading the kernel that the exact Laplacian solvers have computed anyway is
the cheaper way beyond ``toolkit.graphs.KNN_TREE_MAX_FEATURES`` (16) features; it is taken only when
asked (``Graph(neighbor_search="kernel")``), because it gives the same graph only up to ties and the
selection, which has no kernel matrix at hand, builds the graph from the points: one construction
everywhere (``toolkit.graphs.build_laplacian``). Measured (2 cores, 2026-11-25, other jobs running):

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


def compile_pynndescent(rng):
    """Seconds to compile pynndescent's loops (once per process), so that no timing below includes them."""
    t = time.perf_counter()
    _nn_descent(rng.normal(size=(500, 20)), 5, "euclidean", 0, "bench")
    return time.perf_counter() - t


def approximate():
    """pynndescent (k = 10) on SSL-book set 8 and on the MNIST test images, recall on 1000 points."""
    from toolkit.data import load

    rng = np.random.default_rng(0)
    print(f"pynndescent's compilation (once per process): {compile_pynndescent(rng):.1f} s", flush=True)
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
            W_search = knn_graph(X, n_neighbors=20, weight="heat")
            t_search = time.perf_counter() - t
            t = time.perf_counter()
            W_kernel = knn_graph_from_kernel(K, n_neighbors=20, sigma=sigma, weight="heat")
            t_kernel = time.perf_counter() - t
            print(f"n={n:5d} d={d:3d}: sklearn {t_search:.3f} s, from the kernel {t_kernel:.3f} s, "
                  f"ratio {t_kernel / t_search:5.2f}, max |W difference| {abs(W_search - W_kernel).max():.1e}",
                  flush=True)


def edge_recall(X, W, rng, queries=1000):
    """Share of the exact 20 nearest of ``queries`` random points that are edges of the graph ``W`` (the
    graph holds each point's own 20 plus the reverse edges, so the exact list must be inside it)."""
    rows = rng.choice(X.shape[0], queries, replace=False)
    exact = NearestNeighbors(n_neighbors=21).fit(X).kneighbors(X[rows], return_distance=False)[:, 1:]
    return float(np.mean([np.isin(exact[i], W.indices[W.indptr[r]:W.indptr[r + 1]]).mean()
                          for i, r in enumerate(rows)]))


def crossover(threads):
    """Where ``neighbor_search="auto"`` leaves the exact k-d tree for pynndescent on large sets: both
    searches on Gaussian points (20 neighbours, heat weights), pynndescent timed after its compilation."""
    import numba

    from toolkit.graphs import KNN_TREE_LARGE_SAMPLES, KNN_TREE_MAX_FEATURES_LARGE, choose_neighbor_search

    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    rng = np.random.default_rng(0)
    knn_graph(rng.normal(size=(200, 2)), n_neighbors=5)                 # compile the loops, not timed
    print(f"pynndescent's compilation (once per process): {compile_pynndescent(rng):.1f} s; 'auto' keeps the "
          f"tree to {KNN_TREE_MAX_FEATURES_LARGE} features from {KNN_TREE_LARGE_SAMPLES} points", flush=True)
    for n, d in ((50_000, 10), (50_000, 12), (50_000, 16), (200_000, 8), (200_000, 10), (200_000, 12)):
        X = rng.normal(size=(n, d))
        row = []
        for search in ("kdtree", "pynndescent"):
            t = time.perf_counter()
            W = knn_graph(X, n_neighbors=20, weight="heat", neighbor_search=search)
            row.append(f"{search} {time.perf_counter() - t:6.1f} s (recall {100 * edge_recall(X, W, rng):.1f} %)")
        print(f"n={n:7d} d={d:3d}: {', '.join(row)}; auto: {choose_neighbor_search(X)}", flush=True)
    for n in (50_000, 100_000):        # no tree measures angles: scikit-learn's brute force, O(n² d)
        X = rng.normal(size=(n, 8))
        row = []
        for search in ("sklearn", "pynndescent"):
            t = time.perf_counter()
            knn_graph(X, n_neighbors=20, metric="cosine", neighbor_search=search)
            row.append(f"{search} {time.perf_counter() - t:6.1f} s")
        print(f"n={n:7d} d=  8, cosine: {', '.join(row)}; auto: {choose_neighbor_search(X, 'cosine')}", flush=True)


def million(dims, threads, compare=False):
    """The kNN graph of 10^6 points, timed, with its recall against the exact search; ``compare``: for
    Gaussian points also pynndescent where 'auto' takes the tree, and pynndescent alone with 21
    neighbours (no oversearch, no graph), with its default iterations and with one."""
    import numba
    from sklearn.datasets import make_moons

    from toolkit.graphs import choose_neighbor_search

    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    rng = np.random.default_rng(0)
    knn_graph(rng.normal(size=(200, 2)), n_neighbors=5)                 # compile the loops, not timed
    if compare or any(choose_neighbor_search(np.broadcast_to(0.0, (1_000_000, d))) == "pynndescent" for d in dims):
        print(f"pynndescent's compilation (once per process, not in the times below): "
              f"{compile_pynndescent(rng):.1f} s", flush=True)
    for d in dims:
        X = make_moons(1_000_000, noise=0.1, random_state=0)[0] if d == 2 else rng.normal(size=(1_000_000, d))
        searches = [choose_neighbor_search(X)]
        if compare and searches[0] == "kdtree" and d != 2:     # (the tree beyond 'auto''s limit: --crossover)
            searches.append("pynndescent")
        for search in searches:
            t = time.perf_counter()
            W = knn_graph(X, n_neighbors=20, weight="heat", neighbor_search=search)
            seconds = time.perf_counter() - t
            found = edge_recall(X, W, rng)
            print(f"n=1000000 d={d}: knn_graph {seconds:.1f} s with {threads} thread(s) "
                  f"(search {search}{', auto' if search == searches[0] else ''}), {W.nnz} edges, recall of the "
                  f"exact 20 nearest {100 * found:.2f} % (1000 queries)", flush=True)
        if compare and d != 2:
            from pynndescent import NNDescent

            Xf = X.astype(np.float32)
            for options in ({}, {"n_iters": 1}):
                t = time.perf_counter()
                _, dist = NNDescent(Xf, n_neighbors=21, random_state=0, compressed=True, **options).neighbor_graph
                seconds = time.perf_counter() - t
                share, _ = recall(X, np.sort(dist, axis=1)[:, 1:], 20, 1000, rng)    # the point itself first
                print(f"n=1000000 d={d}: pynndescent alone, 21 neighbours, {options or 'default iterations'}: "
                      f"{seconds:.1f} s, recall {100 * share:.2f} % (no graph built)", flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--approximate", action="store_true", help="only the approximate search")
    parser.add_argument("--million", action="store_true", help="only the 10^6-point graphs")
    parser.add_argument("--crossover", action="store_true",
                        help="only the k-d tree against pynndescent on 50 000 and 200 000 Gaussian points")
    parser.add_argument("--dims", type=int, nargs="*", default=[2, 8])
    parser.add_argument("--compare", action="store_true",
                        help="with --million: also pynndescent where 'auto' takes the tree, and pynndescent alone "
                             "(Gaussian points)")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    if args.crossover:
        crossover(args.threads)
    elif args.million:
        million(args.dims, args.threads, args.compare)
    else:
        if not args.approximate:
            main()
        approximate()
