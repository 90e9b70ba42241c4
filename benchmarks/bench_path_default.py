"""How ``LapSVMPath``'s default λ was chosen: the path's end against λ by cross-validation along it.

    python benchmarks/bench_path_default.py [--seeds 3]

On each task (seeded ``data.split`` draws of l labelled points), one Laplacian SVM path with the
estimator's defaults (``sigma="scale"``, 6 neighbours, binary weights, ``L``, ``gamma_ratio=1``) is
read at its last breakpoint (``lam="end"``, the default) and at ``lambda_min`` of
:func:`toolkit.paths.cv_laplacian_svm_path` (k folds of the labelled points, k = min(5, the smaller
class)); the supervised ``RLSC()`` is the reference. Prints the test error in % (mean over seeds).
"""
from __future__ import annotations

import argparse
import warnings

import numpy as np

from toolkit import data
from toolkit.estimators import RLSC
from toolkit.kernels import scale_width
from toolkit.paths import cv_laplacian_svm_path
from toolkit.specs import Kernel

TASKS = (("USPS(2,5)", ("usps", 2, 5), 10), ("USPS(2,5)", ("usps", 2, 5), 20), ("G50C", ("g50c",), 50),
         ("SSL-book 2", ("ssl-book", 2), 20), ("SSL-book 3", ("ssl-book", 3), 20))


def errors(args, l, seeds):
    """Test errors in % of the path's end, the CV choice and RLSC, one list each over the seeds."""
    ds = data.load(*args)
    X, y = np.asarray(ds.X, dtype=float), np.asarray(ds.y)
    out = {"end": [], "cv lambda_min": [], "RLSC()": []}
    for seed in range(seeds):
        split = data.split(ds, l=l, rng=seed)
        rows = np.r_[split.labeled, split.unlabeled]
        target = ds.target(split)
        rlsc = RLSC().fit(X[rows], target[rows])
        out["RLSC()"].append(100 * np.mean(rlsc.predict(X[split.test]) != np.asarray(ds.target())[split.test]))
        y_l = y[split.labeled]
        folds = int(min(5, np.unique(y_l, return_counts=True)[1].min()))
        if folds < 2:
            continue
        sel = cv_laplacian_svm_path(X[split.labeled], y_l, X[split.unlabeled], n_folds=folds, rng=0,
                                    kernel=Kernel("rbf", sigma=scale_width(X[rows])))
        for name, lam in (("end", sel.path.svm.breakpoints[-1]), ("cv lambda_min", sel.lambda_min)):
            out[name].append(100 * np.mean(sel.path.predict(X[split.test], lam) != y[split.test]))
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    print(f"test error in % (mean over {args.seeds} seeded splits)")
    print(f"{'task':<24}{'end (default)':>16}{'cv lambda_min':>16}{'RLSC()':>10}")
    for name, load_args, l in TASKS:
        result = errors(load_args, l, args.seeds)
        print(f"{name + f' l={l}':<24}" + "".join(f"{np.mean(result[k]):>{w}.2f}" for k, w in
                                                  (("end", 16), ("cv lambda_min", 16), ("RLSC()", 10))), flush=True)


if __name__ == "__main__":
    main()
