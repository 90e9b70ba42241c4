"""RBF kernel matrices against a floor measured in the same run: the matrix product plus one pass of a
vectorised exp over the output (target: ratio <= 2).

    python benchmarks/bench_kernels.py [--n 4000 16000] [--d 2 256] [--repeats 3] [--threads 1]
    python benchmarks/bench_kernels.py --low-rank [--rows 200000] [--basis 500]

For every n, d and precision (float64, and float32 computed in float32) the script times, on the same
points, alternating and keeping the fastest of ``--repeats``:

* the floor: the GEMM of the same shape and precision (``X @ X.T`` -- NumPy hands it to SYRK, one
  triangle -- for the Gram case, ``X @ Z.T`` for the cross case), plus one in-place ``np.exp`` over an
  output-sized array (NumPy's SIMD exp: the cost of touching every entry once at memory speed);
* ``kernel_matrix(X, kernel="rbf")`` (Gram) and ``kernel_matrix(X, Z, kernel="rbf")`` (cross, Z half
  the size of X), validation included.

``--low-rank``: the kernel rows of the low-rank model (``n_basis``), ``K(X, Z)`` for ``--rows`` points
against ``--basis`` basis points, built as the model builds them (row blocks of
``toolkit.training._BLOCK_ROWS``), against the floor of the same blocks. The sparse case
(SSL-book set 8) is compared with the dense float64 GEMM of the same points when the data set is
available.

Measured results: ``docs/benchmarks.md``.
"""
import os

import argparse
import time

import numpy as np
from threadpoolctl import threadpool_limits

from toolkit.kernels import kernel_matrix


def fastest(fns, repeats):
    """Fastest of ``repeats`` runs of each function, the functions alternating within every round."""
    best = [np.inf] * len(fns)
    for _ in range(repeats):
        for i, fn in enumerate(fns):
            t0 = time.perf_counter()
            out = fn()
            best[i] = min(best[i], time.perf_counter() - t0)
            del out
    return best


def floor_fn(X, Z, dtype):
    """GEMM of the kernel's shape and precision, then one in-place exp over its output."""
    def run():
        G = X @ X.T if Z is None else X @ Z.T
        np.exp(G, out=G)
        return G
    return run


def dense_cases(args):
    rng = np.random.default_rng(0)
    rows = []
    for d in args.d:
        for n in args.n:
            X = rng.random((n, d))
            Z = X[: n // 2]
            sigma = float(np.sqrt(d) / 2)
            for dtype in ("float64", "float32"):
                Xd, Zd = (X / d).astype(dtype), (Z / d).astype(dtype)    # the floor's exp stays finite
                kernel_matrix(X[:8], kernel="rbf", sigma=sigma, dtype=dtype)              # compile, not timed
                kernel_matrix(X[:8], Z[:4], kernel="rbf", sigma=sigma, dtype=dtype)
                for case, z, zd in (("gram", None, None), ("cross", Z, Zd)):
                    t_floor, t_ours = fastest([floor_fn(Xd, zd, dtype),
                                               lambda: kernel_matrix(X, z, kernel="rbf", sigma=sigma, dtype=dtype)],
                                              args.repeats)
                    rows.append((f"{case} d={d}", n, dtype, t_floor, t_ours))
                    print(f"{rows[-1][0]:<14}{n:>7}{dtype:>9}{t_floor:>11.4f}{t_ours:>11.4f}{t_ours / t_floor:>8.2f}",
                          flush=True)
    return rows


def low_rank_case(args):
    from toolkit import training

    rng = np.random.default_rng(0)
    X = rng.normal(size=(args.rows, 2))
    Z = X[rng.choice(args.rows, args.basis, replace=False)]
    block = training._BLOCK_ROWS

    def ours():
        out = None
        for start in range(0, args.rows, block):
            out = kernel_matrix(X[start:start + block], Z, kernel="rbf", sigma=0.3)
        return out

    def floor():
        out = None
        for start in range(0, args.rows, block):
            out = X[start:start + block] @ Z.T
            np.exp(out, out=out)
        return out

    kernel_matrix(X[:8], Z[:4], kernel="rbf", sigma=0.3)
    t_floor, t_ours = fastest([floor, ours], args.repeats)
    print(f"{'low-rank rows':<14}{args.rows:>7}{'float64':>9}{t_floor:>11.4f}{t_ours:>11.4f}{t_ours / t_floor:>8.2f}"
          f"   ({args.basis} basis points, blocks of {block} rows)")


def sparse_case(args):
    try:
        from toolkit.data import load
        S = load("ssl-book", 8).X[: args.sparse_n]
    except Exception as exc:           # the data set is not cached and no mirror is set
        print(f"(sparse case skipped: {type(exc).__name__}: {exc})")
        return
    D = S.toarray()
    sigma = 5.3
    kernel_matrix(S[:8], kernel="rbf", sigma=sigma)
    t_floor, t_ours = fastest([floor_fn(D, None, "float64"), lambda: kernel_matrix(S, kernel="rbf", sigma=sigma)],
                              args.repeats)
    print(f"{'set 8 sparse':<14}{S.shape[0]:>7}{'float64':>9}{t_floor:>11.4f}{t_ours:>11.4f}{t_ours / t_floor:>8.2f}"
          "   (floor: the dense float64 GEMM of the same points)")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="*", default=[4000, 16000])
    parser.add_argument("--d", type=int, nargs="*", default=[2, 256])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1, help="BLAS and numba threads on both sides")
    parser.add_argument("--low-rank", action="store_true", help="only the low-rank model's kernel rows")
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--basis", type=int, default=500)
    parser.add_argument("--sparse-n", type=int, default=10000)
    args = parser.parse_args(argv)
    import numba

    numba.set_num_threads(min(args.threads, numba.config.NUMBA_NUM_THREADS))
    one, five, _ = os.getloadavg()
    print(f"RBF kernel ÷ floor (GEMM of the same shape and precision + one in-place np.exp over the output), "
          f"{args.threads} thread(s), fastest of {args.repeats}, alternating; load {one:.2f} / {five:.2f} "
          f"(1 / 5 min) on {os.cpu_count()} cores; target ratio <= 2")
    print(f"{'case':<14}{'n':>7}{'dtype':>9}{'floor [s]':>11}{'ours [s]':>11}{'ratio':>8}")
    with threadpool_limits(args.threads):
        if not args.low_rank:
            dense_cases(args)
            sparse_case(args)
        low_rank_case(args)


if __name__ == "__main__":
    main()
