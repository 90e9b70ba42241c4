"""The kNN graph of an RBF problem: scikit-learn's search against reading it off the kernel matrix.

    python benchmarks/bench_neighbors.py

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
"""
import time

import numpy as np

from toolkit.graphs import knn_graph, knn_graph_from_kernel
from toolkit.kernels import kernel_matrix


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


if __name__ == "__main__":
    main()
