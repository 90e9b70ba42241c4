"""How the CV estimators' rule between a semi-supervised and a supervised candidate was chosen.

    python benchmarks/bench_supervised_candidates.py [--splits 3] [--sets ssl7@100 g50c@50 ...]

``LapSVMCV`` and ``LapRLSCCV`` search the semi-supervised grid and the supervised limit (γ_I = 0,
γ_A in ``SUPERVISED_WEIGHTS``, the RBF widths and the linear kernel) on the same folds; the rule
``supervised=`` decides which is refitted. For each task this prints the test error on the
unlabelled rows of the semi-supervised refit alone (``"off"``, the previous behaviour), of the
rules ``"1se"`` and ``"min"``, and of a supervised SVC tuned on the labelled rows (``GridSearchCV``,
RBF with C in 0.1 .. 100 and three widths, or linear), with the verdict of the paired test.
Tasks: the sets of ``bench_defaults.py`` (``tasks``) and ``gauss-linear@40`` (2 000 standard normal
points in 12 dimensions labelled by a fixed direction, 40 labels, seeds 0, 1, ...).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_defaults import tasks  # noqa: E402

DEFAULT_SETS = ("ssl7@100", "g50c@50", "gauss-linear@40", "usps(2,5)@20", "ssl2@100", "ssl3@100", "ssl6@100",
                "uspst(b)", "coil20(b)", "digits")


def gauss_linear(splits):
    out, direction = [], np.random.default_rng(12345).standard_normal(12)
    for seed in range(splits):
        rng = np.random.default_rng(seed)
        X = rng.standard_normal((2000, 12))
        y = np.where(X @ direction > 0, 1, -1)
        lab = np.r_[rng.choice(np.flatnonzero(y > 0), 20, replace=False), rng.choice(np.flatnonzero(y < 0), 20,
                                                                                      replace=False)]
        out.append((X, y, np.sort(lab), np.setdiff1d(np.arange(2000), lab)))
    return out


def svc_error(X, y, labeled, unlabeled):
    """A supervised SVC tuned on the labelled rows, as the acceptance check tunes it."""
    from sklearn.model_selection import GridSearchCV, StratifiedKFold
    from sklearn.svm import SVC

    g = 1.0 / X.shape[1] / max(float(np.var(X[labeled])), 1e-12)
    grid = [{"kernel": ["rbf"], "C": [0.1, 1, 10, 100], "gamma": [g / 4, g, 4 * g]},
            {"kernel": ["linear"], "C": [0.1, 1, 10, 100]}]
    folds = int(min(5, np.bincount(np.unique(y[labeled], return_inverse=True)[1]).min()))
    search = GridSearchCV(SVC(), grid, cv=StratifiedKFold(max(folds, 2), shuffle=True, random_state=0))
    search.fit(X[labeled], y[labeled])
    return 100 * float(np.mean(search.predict(X[unlabeled]) != y[unlabeled]))


def run(name, cls, X, y, labeled, unlabeled):
    """(errors by rule, verdict, seconds) of ``cls`` on one split."""
    import toolkit.estimators as E

    rows = np.r_[labeled, unlabeled]
    marked = np.full(rows.size, np.nan)
    codes = np.unique(y, return_inverse=True)[1]
    marked[:labeled.size] = codes[labeled]
    truth = codes[unlabeled]
    start = time.perf_counter()
    model = getattr(E, cls)(supervised="min").fit(X[rows], marked)
    seconds = time.perf_counter() - start
    c = model.comparison_
    error = {c.refitted: 100 * float(np.mean(model.predict(X[unlabeled]) != truth))}
    if c.refitted == "supervised":
        other = getattr(E, cls)(supervised="off").fit(X[rows], marked)
        error["semi-supervised"] = 100 * float(np.mean(other.predict(X[unlabeled]) != truth))
    else:
        estimator = getattr(E, cls)._supervised_estimator or getattr(E, cls)._estimator
        other = estimator(**c.supervised_params).fit(X[rows], marked)
        error["supervised"] = 100 * float(np.mean(other.predict(X[unlabeled]) != truth))
    by_rule = {"off": error["semi-supervised"],
               "1se": error["semi-supervised" if c.semi_supervised_error + c.semi_supervised_se < c.supervised_error
                            else "supervised"],
               "min": error["semi-supervised" if c.semi_supervised_error < c.supervised_error else "supervised"]}
    return by_rule, c.verdict, seconds


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", type=int, default=3)
    parser.add_argument("--sets", nargs="*", default=list(DEFAULT_SETS))
    parser.add_argument("--estimators", nargs="*", default=["LapSVMCV", "LapRLSCCV"])
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    print(f"error on the unlabelled rows in % (mean over {args.splits} splits); verdicts of the paired test")
    print(f"{'set':<18}{'estimator':<11}{'off':>8}{'1se':>8}{'min':>8}{'SVC':>8}  verdicts")
    for name in args.sets:
        splits = gauss_linear(args.splits) if name == "gauss-linear@40" else tasks(name, args.splits)
        svc = []
        results = {cls: ([], []) for cls in args.estimators}
        for X, y, labeled, unlabeled in splits:
            X = np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=float)
            y = np.asarray(y)
            svc.append(svc_error(X, np.unique(y, return_inverse=True)[1], labeled, unlabeled))
            for cls in args.estimators:
                by_rule, verdict, _ = run(name, cls, X, y, labeled, unlabeled)
                results[cls][0].append(by_rule)
                results[cls][1].append(verdict)
        for cls, (rules, verdicts) in results.items():
            means = {rule: np.mean([r[rule] for r in rules]) for rule in ("off", "1se", "min")}
            print(f"{name:<18}{cls:<11}{means['off']:>8.2f}{means['1se']:>8.2f}{means['min']:>8.2f}"
                  f"{np.mean(svc):>8.2f}  {', '.join(verdicts)}", flush=True)


if __name__ == "__main__":
    main()
