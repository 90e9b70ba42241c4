"""RBF kernel matrix vs. the float64 matrix product it needs (issue 2 target: ratio <= 1.5).

    python benchmarks/bench_kernels.py [--n 12000] [--d 784] [--repeats 3]

Both timings are taken in the same run on the same data; the best of ``--repeats`` is reported.
The Gram case ``K(X, X)`` is compared with ``X @ X.T`` (NumPy routes it to SYRK), the cross
case ``K(X, Z)`` with ``X @ Z.T``.
"""
import argparse
import time

import numpy as np

from toolkit.kernels import rbf_kernel, width_heuristic


def best_of(fn, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
        del out
    return min(times)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=12000)
    parser.add_argument("--d", type=int, default=784)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    X = rng.random((args.n, args.d))               # MNIST-like: 784 features in [0, 1]
    sigma = 0.5 * width_heuristic(X)
    rbf_kernel(X[:8], sigma=sigma), rbf_kernel(X[:8], X[:4], sigma=sigma)   # compile once, not timed
    half = X[: args.n // 2]
    rows = [
        ("gram  K(X, X)", best_of(lambda: X @ X.T, args.repeats), best_of(lambda: rbf_kernel(X, sigma=sigma), args.repeats)),
        ("cross K(X, Z)", best_of(lambda: X @ half.T, args.repeats), best_of(lambda: rbf_kernel(X, half, sigma=sigma), args.repeats)),
    ]
    print(f"RBF kernel, n = {args.n}, d = {args.d}, float64, best of {args.repeats}")
    print(f"{'case':<15}{'product [s]':>12}{'rbf [s]':>10}{'ratio':>8}  (target <= 1.5)")
    for name, t_prod, t_rbf in rows:
        print(f"{name:<15}{t_prod:>12.3f}{t_rbf:>10.3f}{t_rbf / t_prod:>8.2f}")


if __name__ == "__main__":
    main()
