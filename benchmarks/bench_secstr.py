"""SSL-book set 8 (SecStr, 83 679 points): the low-rank LapSVM end to end on the published splits, beside
scikit-learn's ``LabelSpreading(kernel="knn")`` on the same splits and the exact-kernel LapSVM on a
20 000-point subsample.

    python benchmarks/bench_secstr.py [--labeled 100 1000 10000] [--splits 10] [--first 0] [--basis 1000]
                                      [--no-low-rank] [--no-label-spreading] [--no-exact] [--csv FILE]

Set 8 has 315 sparse binary features (15 amino-acid positions, one-hot over 21 codes) and two
classes (47 856 / 35 823); its splits (10 per size) label 100, 1000 or 10 000 points, and the error
is measured on all the other points (the book's transductive protocol). Settings, fixed before
looking at any error: RBF kernel with σ = the median distance between points (sampled), 10
neighbours with heat weights, the normalised Laplacian, γ_A = 1e-6, γ_I = 1e-2, PCG with the
stability rule; the low-rank model over ``--basis`` points (uniform; with more labelled points
than that, a uniform draw of them), the neighbour search ``"auto"`` (pynndescent at this size).
LabelSpreading: 10 neighbours, α = 0.2, 1000 iterations at most (scikit-learn's defaults but the
neighbours). The exact model: the first 20 000 points of a seeded permutation (the split's labelled
points that fall in it labelled), ``dtype="float32"`` and the same settings.

Printed per split: time end to end (data already loaded; the graph, kernel and solve included) and
the error on the unlabelled points, for each method; ``--csv`` appends them as tidy rows.

Measured on all 10 published splits of each size (2026-11-25, 2 cores, one process per split index
with pynndescent's compilation, 10-12 s, excluded by a warm-up; the rows are in
``benchmarks/results/bench_secstr_splits.csv``; the majority class errs 42.8 %), mean ± sd:

    labels  low rank (r = 1000)                 LabelSpreading(knn)
    100     21.0 ± 0.9 s  46.5 ± 5.5 %  (1 it.)    46.5 ± 3.3 s  47.2 ± 2.0 %
    1000    21.2 ± 0.7 s  36.1 ± 0.9 %  (32 it.)   49.2 ± 4.1 s  45.9 ± 0.6 %
    10000   21.4 ± 0.6 s  29.3 ± 0.1 %  (15 it.)   47.1 ± 2.5 s  42.3 ± 0.2 %

The exact kernel on the 20 000-point subsample (float32; split 0 only: the subsample is fixed and only
its labelled points change with the split) took 11.7 / 9.4 / 10.2 s at 42.3 / 42.9 / 39.6 %, the
low-rank model on the same 20 000 points 3.5 / 3.5 / 4.3 s at 42.6 / 42.4 / 33.9 %. With 100 labels
every method is at or below chance (the stability rule stops the low-rank PCG after its first check);
from 1000 labels the low-rank model over all points is 10-13 points better than LabelSpreading. The
low-rank fits' time is mostly the approximate neighbour search (14-17 s; kernel rows 6-7 s, solve
under 0.5 s). Earlier (split 0, a loaded machine, the undirected-edge heat width and the two-level
preconditioner at every n): low rank 45 / 31 / 71 s at 48.5 / 35.8 / 29.3 %, LabelSpreading 104 /
133 / 110 s at 46.3 / 45.5 / 42.2 %, exact 20 / 50 / 68 s at 42.6 / 41.9 / 41.7 %.
"""
from __future__ import annotations

import argparse
import dataclasses
import time
import warnings

import numpy as np

from toolkit import lapsvm
from toolkit.data import fixed_splits, load
from toolkit.specs import Graph, Kernel, Solver

SETTINGS = dict(graph=Graph(n_neighbors=10, weight="heat", normalized=True), gamma_A=1e-6, gamma_I=1e-2)
SOLVER = Solver("pcg", stop="stability")


def median_distance(X, rng, pairs=20000):
    i, j = rng.integers(0, X.shape[0], size=(2, pairs))
    diff = X[i] - X[j]
    return float(np.median(np.sqrt(np.asarray(diff.multiply(diff).sum(axis=1)).ravel())))


def timed(fn):
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = fn()
    return out, time.perf_counter() - start


def error(pred, truth):
    return 100.0 * float(np.mean(pred != truth))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--labeled", type=int, nargs="+", default=[100, 1000, 10000])
    parser.add_argument("--splits", type=int, default=1, help="splits per size (the first ones, or from --first)")
    parser.add_argument("--first", type=int, default=0, help="index of the first split run (0-9)")
    parser.add_argument("--no-low-rank", action="store_true")
    parser.add_argument("--csv", help="append each split's row to this csv as it finishes")
    parser.add_argument("--basis", type=int, default=1000)
    parser.add_argument("--subsample", type=int, default=20000)
    parser.add_argument("--no-label-spreading", action="store_true")
    parser.add_argument("--no-exact", action="store_true")
    args = parser.parse_args()
    ds = load("ssl-book", 8)
    X, y = ds.X.tocsr(), np.asarray(ds.y)
    rng = np.random.default_rng(0)
    sigma = median_distance(X, rng)
    print(f"SSL-book set 8: n = {X.shape[0]}, d = {X.shape[1]} (sparse, {X.nnz / X.shape[0]:.0f} non-zeros per row), "
          f"σ = median distance = {sigma:.3f}")
    from toolkit.graphs import knn_graph
    _, warm = timed(lambda: knn_graph(X[:3000], n_neighbors=5, neighbor_search="pynndescent"))
    print(f"warm-up (pynndescent's compilation): {warm:.0f} s")
    subsample = np.sort(np.random.default_rng(1).permutation(X.shape[0])[:args.subsample])
    rows = []
    for labeled in args.labeled:
        for split in fixed_splits(ds, labeled=labeled)[args.first:args.first + args.splits]:
            lab, unl = np.asarray(split.labeled), np.asarray(split.unlabeled)
            line = {"labeled": labeled, "split": split.repeat}
            if not args.no_low_rank:
                fit, t_low = timed(lambda: lapsvm(X[lab], y[lab], X[unl], kernel=Kernel("rbf", sigma=sigma),
                                                  low_rank=args.basis, rng=0, solver=SOLVER, **SETTINGS))
                line.update({"low-rank s": t_low, "low-rank err": error(fit.predict(X[unl]), y[unl]),
                             "low-rank it": fit.n_iter, "search": fit.params.get("neighbor_search"),
                             "graph s": fit.timings["graph"], "kernel s": fit.timings["kernel"],
                             "solve s": fit.timings["solve"]})
            if not args.no_label_spreading:
                from sklearn.semi_supervised import LabelSpreading

                target = np.full(X.shape[0], -1)
                target[lab] = y[lab]
                model, t_ls = timed(lambda: LabelSpreading(kernel="knn", n_neighbors=10, alpha=0.2,
                                                           max_iter=1000, n_jobs=1).fit(X, target))
                line.update({"LabelSpreading s": t_ls, "LabelSpreading err": error(model.transduction_[unl], y[unl])})
            if not args.no_exact:
                in_sub = np.isin(subsample, lab)
                sub_lab, sub_unl = subsample[in_sub], subsample[~in_sub]
                if len(np.unique(y[sub_lab])) == 2:
                    exact, t_ex = timed(lambda: lapsvm(X[sub_lab], y[sub_lab], X[sub_unl],
                                                       kernel=Kernel("rbf", sigma=sigma),
                                                       solver=dataclasses.replace(SOLVER, dtype="float32"),
                                                       **SETTINGS))
                    low_sub, t_ls_sub = timed(lambda: lapsvm(X[sub_lab], y[sub_lab], X[sub_unl],
                                                             kernel=Kernel("rbf", sigma=sigma), low_rank=args.basis,
                                                             rng=0, solver=SOLVER, **SETTINGS))
                    line.update({"exact 20k s": t_ex, "exact 20k err": error(exact.predict(X[sub_unl]), y[sub_unl]),
                                 "low-rank 20k s": t_ls_sub,
                                 "low-rank 20k err": error(low_sub.predict(X[sub_unl]), y[sub_unl]),
                                 "20k labelled": int(in_sub.sum())})
            rows.append(line)
            if args.csv:
                import csv
                import os

                new = not os.path.exists(args.csv)
                with open(args.csv, "a", newline="") as f:
                    w = csv.writer(f)
                    if new:
                        w.writerow(["labeled", "split", "quantity", "value"])
                    w.writerows([labeled, line["split"], k, v] for k, v in line.items() if k not in ("labeled", "split"))
            print("  ".join(f"{k} {v:.2f}" if isinstance(v, float) else f"{k} {v}" for k, v in line.items()),
                  flush=True)
    import pandas as pd
    print(pd.DataFrame(rows).round(2).to_string(index=False))


if __name__ == "__main__":
    main()
