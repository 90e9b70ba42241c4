"""Benchmarks of toolkit.paths, printed as ratios (issue "Solution paths").

1. The entire SVM path vs. scikit-learn ``SVC(C=1/λ, kernel="precomputed")`` fitted at 100 λ
   values log-spaced over the same range (λ⁰ down to λ⁰·1e-4), on the same l × l RBF kernel,
   l = 200, 500, 1000. Target: the path costs at most 5 SVC fits. Also printed: the number of
   breakpoints per training point (Hastie et al. 2004 report that ``svmpath`` needs a small
   multiple of l steps, each ``O(l m + m³)``, "a small multiple of the cost of one fit").
2. The RLS path: 100 λ values with closed-form LOO errors and GCV vs. one eigendecomposition
   of the same kernel. Target: at most 1.5×.

Run: ``python benchmarks/bench_paths.py [--sizes 200 500 1000] [--repeat 3] [--threads 1]``.
Only the solves are timed (kernel built beforehand); each time is the best of ``--repeat`` runs,
with BLAS limited to ``--threads`` threads (libsvm is single-threaded).
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import scipy.linalg as sla
from sklearn.svm import SVC

from toolkit import kernel_matrix, rlsc_path, svm_path
from toolkit.paths._svm import _initialize


def _data(l, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(l, 2))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=l) > 0, 1.0, -1.0)
    return kernel_matrix(X, kernel="rbf", sigma=1.0), y


def _best(fn, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return min(times), out


def bench_svm(sizes, repeat, n_lambdas=100, decades=4.0, svc_tol=1e-3):
    print(f"SVM path vs SVC(tol={svc_tol:g}) at {n_lambdas} λ (λ⁰ .. λ⁰·1e-{decades:g}), RBF σ=1, "
          "2-d overlapping classes")
    print(f"{'l':>6} {'bps':>6} {'bps/l':>6} {'max|E|':>6} {'path s':>8} {'SVC x100 s':>10} "
          f"{'1 SVC s':>8} {'path/1 SVC':>10} {'path/100 SVC':>12} {'≤ 5 SVC':>8}")
    svm_path(*_data(40))                                   # compile the event loop once
    for l in sizes:
        K, y = _data(l)
        lam0 = _initialize(K, y)[2]                         # λ⁰ of Lemmas 1-2
        lam_lo = lam0 * 10 ** (-decades)
        t_path, path = _best(lambda: svm_path(K, y, lambda_min=lam_lo), repeat)
        grid = np.geomspace(lam0, lam_lo, n_lambdas)

        def fit_all():
            for lam in grid:
                SVC(C=1.0 / lam, kernel="precomputed", tol=svc_tol).fit(K, y)
        t_svc, _ = _best(fit_all, max(1, repeat - 1))
        one = t_svc / n_lambdas
        print(f"{l:6d} {path.breakpoints.size:6d} {path.breakpoints.size / l:6.2f} {int(path.elbow_sizes.max()):6d} "
              f"{t_path:8.3f} {t_svc:10.3f} {one:8.4f} {t_path / one:10.1f} {t_path / t_svc:12.3f} "
              f"{'yes' if t_path <= 5 * one else 'NO':>8}")


def bench_rls(sizes, repeat, n_lambdas=100):
    print(f"\nRLS path ({n_lambdas} λ with LOO and GCV) vs one eigendecomposition")
    print(f"{'n':>6} {'eigh s':>8} {'path s':>8} {'ratio':>6}")
    for n in sizes:
        K, y = _data(n, seed=1)
        t_eig, _ = _best(lambda: sla.eigh(K, check_finite=False), repeat)
        t_path, _ = _best(lambda: rlsc_path(K, y, n_lambdas=n_lambdas), repeat)
        print(f"{n:6d} {t_eig:8.3f} {t_path:8.3f} {t_path / t_eig:6.2f}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[200, 500, 1000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--svc-tol", type=float, default=1e-3, help="SVC's tol (scikit-learn default 1e-3)")
    parser.add_argument("--threads", type=int, default=1,
                        help="BLAS threads for every timed call (1: fair on a shared machine)")
    args = parser.parse_args(argv)
    from threadpoolctl import threadpool_limits
    with threadpool_limits(limits=args.threads):
        bench_svm(args.sizes, args.repeat, svc_tol=args.svc_tol)
        bench_rls(args.sizes, args.repeat)


if __name__ == "__main__":
    main()
