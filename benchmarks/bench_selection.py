"""Model selection: what sharing kernels and graphs across a grid saves (printed, not asserted).

    python benchmarks/bench_selection.py [--n 800] [--folds 4]

Compares ``toolkit.selection.select`` (one kernel per σ and fold, one graph per fold, one RLSC
eigendecomposition for all λ) with a naive loop that calls the solver by name for every grid
point and fold (kernel and graph rebuilt each time), on the same folds.
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.model_selection import StratifiedKFold

import toolkit
from toolkit.selection import Indices, select


def naive(method, X, y, split, grid, fixed, n_folds, seed):
    from toolkit.manifold import laprlsc
    from toolkit.rls import rlsc

    solver = {"rlsc": rlsc, "laprlsc": laprlsc}[method]
    labeled = split.labeled
    folds = StratifiedKFold(n_folds, shuffle=True, random_state=seed).split(np.zeros((len(labeled), 1)), y[labeled])
    names = list(grid)
    for tr, te in folds:
        Xl, yl, Xu = X[labeled[tr]], y[labeled[tr]], X[split.unlabeled]
        for combo in np.array(np.meshgrid(*grid.values())).T.reshape(-1, len(names)):
            params = dict(zip(names, combo.tolist()))
            if method == "rlsc":
                fit = solver(Xl, yl, **fixed, **params)
            else:
                fit = solver(Xl, yl, Xu, **fixed, **params)
            fit.predict(X[labeled[te]])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=800)
    parser.add_argument("--folds", type=int, default=4)
    args = parser.parse_args()
    ds = toolkit.data.load("moons", n=args.n, noise=0.1, rng=0)
    s = toolkit.data.split(ds, l=40, rng=0)
    split = Indices(s.labeled, s.unlabeled, s.test)
    cases = {
        "rlsc": ({"lam": [float(2.0**k) for k in range(-10, 11)]}, {"kernel": "rbf", "sigma": 0.3}),
        "laprlsc": ({"gamma_A": [1e-6, 1e-4, 1e-2], "gamma_I": [1e-2, 1.0, 10.0]},
                    {"kernel": "rbf", "sigma": 0.3, "n_neighbors": 6}),
    }
    print(f"moons n = {args.n}, l = 40, u = {len(s.unlabeled)}, {args.folds} folds")
    for method, (grid, fixed) in cases.items():
        select(method, ds.X, ds.y, split, grid=grid, fixed=fixed, n_folds=args.folds, rng=0, progress=False,
               refit=False)  # warm-up (numba compilation)
        t0 = time.perf_counter()
        select(method, ds.X, ds.y, split, grid=grid, fixed=fixed, n_folds=args.folds, rng=0, progress=False,
               refit=False)
        shared = time.perf_counter() - t0
        t0 = time.perf_counter()
        naive(method, ds.X, ds.y, split, grid, fixed, args.folds, 0)
        plain = time.perf_counter() - t0
        n_points = int(np.prod([len(v) for v in grid.values()]))
        print(f"{method:8s} {n_points:3d} grid points x {args.folds} folds: select {shared:6.2f} s, "
              f"naive loop {plain:6.2f} s, speed-up {plain / shared:5.1f}x")


if __name__ == "__main__":
    main()
