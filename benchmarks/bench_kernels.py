"""RBF kernel matrix vs. the matrix product it needs (target: ratio <= 1.5), in float64, in float32
(against single-precision GEMM) and for sparse input (against the dense GEMM of the same points).

    python benchmarks/bench_kernels.py [--n 12000] [--d 784] [--repeats 3] [--sparse-n 10000]

All timings are taken in the same run on the same data; the best of ``--repeats`` is reported.
The Gram case ``K(X, X)`` is compared with ``X @ X.T`` (NumPy routes it to SYRK), the cross
case ``K(X, Z)`` with ``X @ Z.T``. The sparse case is SSL-book set 8 (SecStr: 315 binary features,
15 non-zeros per row; needs the data set, skipped with a note otherwise), its first
``--sparse-n`` points.

Measured (2 cores, quiet, 2026-11-25): float64 Gram 1.27, cross 1.30; float32 Gram 1.11, cross 1.34;
sparse set 8 (n = 10 000) 1.40. Runs disturbed by other jobs gave up to 1.6 (float64 Gram) and 1.7
(set 8): with 315 features the product is short and the exponentials weigh as much as it does.
After the compiled sparse scatter (set 8 no longer densified) and the vectorised float64 exp (the
same day): float64 Gram 1.02, cross 1.06; float32 1.25 / 1.21; sparse set 8 0.50 of the dense GEMM.
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
    parser.add_argument("--sparse-n", type=int, default=10000)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    X = rng.random((args.n, args.d))               # MNIST-like: 784 features in [0, 1]
    sigma = 0.5 * width_heuristic(X)
    rbf_kernel(X[:8], sigma=sigma), rbf_kernel(X[:8], X[:4], sigma=sigma)   # compile once, not timed
    half = X[: args.n // 2]
    X32, half32 = X.astype(np.float32), half.astype(np.float32)
    rbf_kernel(X[:8], sigma=sigma, dtype="float32"), rbf_kernel(X[:8], X[:4], sigma=sigma, dtype="float32")
    rows = [
        ("gram  K(X, X) float64", best_of(lambda: X @ X.T, args.repeats),
         best_of(lambda: rbf_kernel(X, sigma=sigma), args.repeats)),
        ("cross K(X, Z) float64", best_of(lambda: X @ half.T, args.repeats),
         best_of(lambda: rbf_kernel(X, half, sigma=sigma), args.repeats)),
        ("gram  K(X, X) float32", best_of(lambda: X32 @ X32.T, args.repeats),
         best_of(lambda: rbf_kernel(X, sigma=sigma, dtype="float32"), args.repeats)),
        ("cross K(X, Z) float32", best_of(lambda: X32 @ half32.T, args.repeats),
         best_of(lambda: rbf_kernel(X, half, sigma=sigma, dtype="float32"), args.repeats)),
    ]
    try:
        from toolkit.data import load
        S = load("ssl-book", 8).X[: args.sparse_n]
        D = S.toarray()
        sigma_s = 0.5 * width_heuristic(S)
        rows.append((f"sparse set 8 n={S.shape[0]}", best_of(lambda: D @ D.T, args.repeats),
                     best_of(lambda: rbf_kernel(S, sigma=sigma_s), args.repeats)))
    except Exception as exc:           # the data set is not cached and no mirror is set
        print(f"(sparse case skipped: {type(exc).__name__}: {exc})")
    print(f"RBF kernel, n = {args.n}, d = {args.d}, best of {args.repeats}")
    print(f"{'case':<26}{'product [s]':>12}{'rbf [s]':>10}{'ratio':>8}  (target <= 1.5; product: GEMM in "
          "the same precision, sparse: the dense float64 GEMM)")
    for name, t_prod, t_rbf in rows:
        print(f"{name:<26}{t_prod:>12.3f}{t_rbf:>10.3f}{t_rbf / t_prod:>8.2f}")


if __name__ == "__main__":
    main()
