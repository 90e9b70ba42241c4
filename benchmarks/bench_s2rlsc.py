"""Benchmarks of S²RLSC (Gieseke et al. 2012, Section 4.4): printed ratios, not timed tests.

    python benchmarks/bench_s2rlsc.py speedup   # Fig. 8: naive O(n²)-per-evaluation search vs ours
    python benchmarks/bench_s2rlsc.py large     # Fig. 10: Nyström r = 100, 1 % labelled, n up to 20 000
    python benchmarks/bench_s2rlsc.py split     # where the time goes: preprocessing vs search
    python benchmarks/bench_s2rlsc.py all

speedup  Gaussian2C (d = 500), linear kernel, λ = λ' = 1, 5 % labelled, best of 50 (1+1) restarts,
         including preprocessing.  The naive search (:mod:`toolkit.rls._reference`) takes the same
         decisions and recomputes ``F(ȳ) = ȳᵀ M ȳ`` for every candidate; for large n it is run for a
         few restarts only and its 50-restart time is extrapolated from its measured cost per
         evaluation times the number of evaluations of the full run (identical trajectories, so the
         counts are exact).  Column "measured" says how many restarts the naive run really did
         ("1 sweep": only the first sweep of the first restart, to measure its cost per evaluation).
large    MNIST test digits {0..4} vs {5..9} (n ≤ 10 000) and SSL-book set 8 (SecStr, n = 20 000, and
         more with --max-n), linear kernel, λ = λ' = 1, 1 % labelled, ε = 0.2, Nyström r = 100,
         best of 50 (1+1) runs; peak memory measured with tracemalloc.  Needs the data mirror
         (TOOLKIT_DATA_MIRROR); falls back to Gaussian2C (d = 50) with a note when it is missing.
split    Exact (dense M) vs Nyström cost split on Gaussian2C.
"""
from __future__ import annotations

import argparse
import os
import platform
import sys
import time
import tracemalloc
import warnings

import numpy as np

from toolkit import s2rlsc
from toolkit.rls._reference import s2rlsc_naive
from toolkit.rls import ConvergenceWarning
from toolkit.specs import LocalSearch


def gaussian2c(n, d, seed):
    """Gieseke et al.: n/2 points around (∓2.5, 0, ..., 0), unit covariance, shuffled."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(np.arange(n) < n // 2, 1, -1)
    X[:, 0] += 2.5 * y
    perm = rng.permutation(n)
    return X[perm], y[perm]


def machine():
    return (f"{platform.processor() or platform.machine()}, {os.cpu_count()} logical cores, "
            f"load average {os.getloadavg()[0]:.1f} at start, python {platform.python_version()}")


def warm_up():
    """Load the compiled kernels (numba cache) so that no run pays for it."""
    X, y = gaussian2c(40, 3, 0)
    s2rlsc(X[:6], y[:6], X[6:], search=LocalSearch(restarts=2), rng=0)
    s2rlsc(X[:6], y[:6], X[6:], search=LocalSearch("mu+nu", restarts=1), rng=0)
    s2rlsc(X[:6], y[:6], X[6:], search=LocalSearch(restarts=1), n_basis=5, rng=0)


def bench_speedup(sizes, restarts=50, naive_budget=60.0):
    print(f"\nFig. 8 analogue: Gaussian2C d=500, linear, lam=lam'=1, 5% labelled, best of {restarts} (1+1) runs")
    print(f"{'n':>6} {'ours [s]':>9} {'pre [s]':>8} {'evals':>9} {'flips':>8} {'naive [s]':>10} "
          f"{'measured':>12} {'speed-up':>9}")
    rows = []
    for n in sizes:
        X, y = gaussian2c(n, 500, 1)
        l = max(2, n // 20)
        args = (X[:l], y[:l], X[l:])
        kw = dict(kernel="linear", lam=1.0, lam_u=1.0, restarts=restarts, rng=0)
        t = time.perf_counter()
        ours = s2rlsc(*args, **kw)
        t_ours = time.perf_counter() - t
        # 1. calibrate: the naive cost per evaluation from the first sweep of the first restart
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            probe = s2rlsc_naive(*args, **dict(kw, restarts=1, max_iter=1))
        per_eval = probe.time_search / max(probe.n_evaluations, 1)
        # 2. as many complete naive restarts as fit the budget (identical decisions: same counts)
        cumulative = np.cumsum([r.n_evaluations for r in ours.restarts]) * per_eval
        k = int(np.searchsorted(cumulative, naive_budget, side="right"))
        if k >= 1:
            t = time.perf_counter()
            naive = s2rlsc_naive(*args, **dict(kw, restarts=k))
            t_naive = time.perf_counter() - t
            evals_k = sum(r.n_evaluations for r in ours.restarts[:k])
            assert naive.n_evaluations == evals_k, "naive and fast searches diverged"
            per_eval = naive.time_search / evals_k
            pre = naive.time_preprocessing
            measured = f"{k}/{restarts}"
        else:
            t_naive, pre, measured = None, probe.time_preprocessing, "1st sweep"
        t_naive_full = t_naive if k == restarts else pre + per_eval * ours.n_evaluations
        rows.append((n, t_ours, t_naive_full, measured))
        print(f"{n:>6} {t_ours:>9.3f} {ours.time_preprocessing:>8.3f} {ours.n_evaluations:>9} {ours.n_flips:>8} "
              f"{t_naive_full:>10.1f} {measured:>12} {t_naive_full / t_ours:>8.0f}x", flush=True)
    return rows


def _large_task(n, source):
    from toolkit import data
    if source == "mnist":
        ds = data.load("mnist", [0, 1, 2, 3, 4], [5, 6, 7, 8, 9], split="test")
    else:
        ds = data.load("ssl-book", 8)
    X, y = ds.X, np.asarray(ds.y)
    rng = np.random.default_rng(0)
    idx = rng.permutation(X.shape[0])[:n]
    return X[idx], y[idx], ds.name


def bench_large(sizes, restarts=50, r=100):
    print(f"\nFig. 10 analogue: linear kernel, lam=lam'=1, 1% labelled, eps=0.2, Nystrom r={r}, "
          f"best of {restarts} (1+1) runs")
    print(f"{'data':>22} {'n':>6} {'total [s]':>10} {'pre [s]':>8} {'search [s]':>10} {'evals':>10} "
          f"{'peak MiB':>9} {'n*r*8 MiB':>10}")
    for n in sizes:
        try:
            X, y, name = _large_task(n, "mnist" if n <= 10000 else "ssl8")
        except Exception as exc:           # data mirror missing: say so and use synthetic data
            print(f"   (data unavailable: {type(exc).__name__}: {exc}; using gaussian2c d=50)")
            X, y = gaussian2c(n, 50, 2)
            name = "gaussian2c(d=50)"
        l = max(2, n // 100)
        # make sure both classes are among the labelled points
        pos, neg = np.flatnonzero(y == y.max()), np.flatnonzero(y != y.max())
        lab = np.r_[pos[: l // 2], neg[: l - l // 2]]
        unl = np.setdiff1d(np.arange(n), lab)
        tracemalloc.start()
        t = time.perf_counter()
        res = s2rlsc(X[lab], y[lab], X[unl], kernel="linear", lam=1.0, lam_u=1.0, eps=0.2,
                     search=LocalSearch(restarts=restarts), n_basis=r, rng=0)
        total = time.perf_counter() - t
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        err = np.mean(res.labels_unlabeled != y[unl])
        print(f"{name[:22]:>22} {n:>6} {total:>10.2f} {res.time_preprocessing:>8.2f} {res.time_search:>10.2f} "
              f"{res.n_evaluations:>10} {peak:>9.1f} {n * r * 8 / 2**20:>10.1f}   (unlabelled error {err:.3f})")


def bench_split(sizes, restarts=50):
    print(f"\nCost split, Gaussian2C d=50 and d=500, linear / rbf, lam=lam'=1, 5% labelled, best of {restarts} (1+1)")
    print("(per eval = search time / flip evaluations, accepted flips included)")
    print(f"{'setting':>34} {'n':>6} {'pre [s]':>8} {'search [s]':>10} {'pre share':>9} {'per eval [ns]':>13}")
    for n in sizes:
        for label, d, kw in [("exact, linear d=50 (features)", 50, dict()),
                             ("exact, linear d=50, low-rank M", 50, dict(operator="low-rank")),
                             ("exact, linear d=500", 500, dict()),
                             ("exact, rbf d=50 (eigh n x n)", 50, dict(kernel="rbf", sigma=10.0)),
                             ("nystrom r=100, linear d=500", 500, dict(n_basis=100))]:
            X, y = gaussian2c(n, d, 3)
            l = max(2, n // 20)
            res = s2rlsc(X[:l], y[:l], X[l:], lam=1.0, lam_u=1.0, search=LocalSearch(restarts=restarts), rng=0, **kw)
            share = res.time_preprocessing / res.time_total
            print(f"{label:>34} {n:>6} {res.time_preprocessing:>8.3f} {res.time_search:>10.3f} {share:>9.0%} "
                  f"{1e9 * res.time_search / res.n_evaluations:>13.0f}")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("what", choices=["speedup", "large", "split", "all"], nargs="?", default="all")
    p.add_argument("--sizes", type=int, nargs="*", default=None, help="override the sizes n")
    p.add_argument("--restarts", type=int, default=50)
    p.add_argument("--naive-budget", type=float, default=60.0, help="seconds per size for the naive search")
    p.add_argument("--blas-threads", type=int, default=1,
                   help="BLAS threads (default 1: on a shared, oversubscribed machine multithreaded "
                        "OpenBLAS is many times slower for these sizes); 0 leaves the library default")
    args = p.parse_args(argv)
    from threadpoolctl import threadpool_limits
    limits = threadpool_limits(args.blas_threads, user_api="blas") if args.blas_threads > 0 else None
    print("machine:", machine(), f"| BLAS threads: {args.blas_threads or 'default'}")
    warm_up()
    if args.what in ("speedup", "all"):
        bench_speedup(args.sizes or [250, 500, 1000, 2000, 4000], args.restarts, args.naive_budget)
    if args.what in ("large", "all"):
        bench_large(args.sizes or [1000, 5000, 10000, 20000], args.restarts)
    if args.what in ("split", "all"):
        bench_split(args.sizes or [500, 2000], args.restarts)
    if limits is not None:
        limits.restore_original_limits()


if __name__ == "__main__":
    sys.exit(main())
