# %% [markdown]
# # Melacci & Belkin (2011), Tables 4, 6 and 7 at reduced scale
#
# Laplacian SVM trained in the primal by Newton's method and by PCG with the stability, validation
# and mixed checks, LapRLSC (direct solve) and the original dual LapSVM (scikit-learn SVC on the
# l × l kernel), with the paper's protocol: 4-fold cross-validation repeated 3 times (12 splits),
# each training part split into L / U / V of Table 2 sizes, the held-out fold is T. Graph and kernel
# parameters from Table 9 (normalised Laplacian), (γ_A, γ_I) from Table 9 (Newton, LapRLSC, dual)
# and Table 10 (PCG). Errors in % on U, V and T; time = solve time (the kernel and L^p are
# precomputed, as in the paper's Table 6, and reported apart).
#
# The dual's (γ_A, γ_I) are re-selected on V of the first split (see ``select_dual``).
#
# Substitutions and limits: MNIST3VS8 needs the MNIST training images, not in the offline mirror
# (``tasks=["mnist3vs8"]`` works where they are available); FACEMIT is not in the registry. Some
# cells of Tables 9/10 are garbled in our copy of the paper: see ``toolkit._lapsvm_experiments.NOTES``.
#
# Run: ``python notebooks/reproduce_melacci2011.py [splits=4] [tasks='["g50c"]']`` from the project
# root (``TOOLKIT_DATA_MIRROR``). Writes ``reports/melacci2011_tables.csv`` (tidy: task × split ×
# method × metric) and ``reports/melacci2011_tables.md``.

# %% parameters
splits: int = 12  # splits per task, in protocol order (paper: 12 = 4 folds x 3 repeats)
tasks: list = ["g50c", "coil20b", "pcmac", "uspstb", "coil20", "uspst"]  # keys of _lapsvm_experiments.TASKS
methods: list = ["newton", "pcg-stability", "pcg-validation", "pcg-mixed", "laprlsc", "dual"]  # solvers
seed: int = 0  # seed of the fold assignment and of the L / V draws
out_dir: str = "reports"  # where the CSV and markdown tables go
blas_threads: int = 1  # BLAS threads (1 is fastest on a shared machine)
dual_grid: list = [1e-6, 1e-4, 1e-2, 1e-1, 1.0, 10.0, 100.0]  # γ grid of §6.3 for the dual's selection on V

# %%
import os
import sys
import time
import warnings

import numpy as np

from toolkit import lapsvm, laprlsc, lapsvm_dual
from toolkit._lapsvm_experiments import (GRAPH, NOTES, PAPER_ERRORS, PAPER_TIMES, TASKS, load_task,
                                         precompute, solver_kwargs)
from toolkit.data import cv_splits

ROWS: list = []


def record(**row):
    """One tidy row: task, split, method, metric, value."""
    ROWS.append(row)


def error(pred, truth):
    return float(np.mean(np.asarray(pred) != np.asarray(truth)))


DUAL_GAMMAS: dict = {}


def select_dual(name, X, y, sp, K, L):
    """(γ_A, γ_I) of the dual by validation error on V of the first split, over the paper's grid.

    Table 9's dual column is partly unreadable in our copy, and the dual's intrinsic term leaves the
    bias out (αᵀKLKα, Belkin et al. 2006), so the primal's values do not transfer: with γ_I = 10 and
    L^5 on G50C the dual's f is nearly the constant b. We therefore redo the paper's selection
    (§6.3) for the dual, once per task, and use the result on every split.
    """
    best = None
    for gA in dual_grid:
        for gI in dual_grid:
            kw = solver_kwargs(name, "dual")
            kw.update(gamma_A=gA, gamma_I=gI, gram=K, laplacian_matrix=L)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = lapsvm_dual(X[sp.labeled], y[sp.labeled], X[sp.unlabeled], **kw)
            e = error(r.predict(X[sp.validation]), y[sp.validation])
            if best is None or e < best[0]:
                best = (e, gA, gI)
    DUAL_GAMMAS[name] = best[1:]
    print(f"{name:>8} dual: selected gamma_A = {best[1]:g}, gamma_I = {best[2]:g} (V error {100 * best[0]:.1f}%)")


def fit(method, name, X, y, sp, K, L):
    lab, unl, val = sp.labeled, sp.unlabeled, sp.validation
    kw = solver_kwargs(name, method)
    kw.update(gram=K, laplacian_matrix=L)
    if method == "dual" and name in DUAL_GAMMAS:
        kw.update(gamma_A=DUAL_GAMMAS[name][0], gamma_I=DUAL_GAMMAS[name][1])
    if method == "newton":
        return lapsvm(X[lab], y[lab], X[unl], method="newton", **kw)
    if method.startswith("pcg-"):
        return lapsvm(X[lab], y[lab], X[unl], method="pcg", stop=method[4:], validation=(X[val], y[val]),
                      blas_threads=blas_threads, **kw)
    if method == "laprlsc":
        return laprlsc(X[lab], y[lab], X[unl], method="direct", **kw)
    return lapsvm_dual(X[lab], y[lab], X[unl], **kw)


def run_task(name):
    X, y = load_task(name)
    _, _, l, v = TASKS[name]
    for k, sp in enumerate(cv_splits(y, folds=4, repeats=3, l=l, v=v, rng=seed)[:splits]):
        train = np.r_[sp.labeled, sp.unlabeled]
        K, L, t_kernel, t_graph = precompute(X[train], GRAPH[name])
        record(task=name, split=k, method="all", metric="kernel_seconds", value=t_kernel)
        record(task=name, split=k, method="all", metric="graph_seconds", value=t_graph)
        if k == 0 and "dual" in methods and dual_grid:
            select_dual(name, X, y, sp, K, L)
        line = []
        for method in methods:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = fit(method, name, X, y, sp, K, L)
            F_u = K[len(sp.labeled):] @ r.alpha + r.b          # f on U from the precomputed kernel
            pred_u = (np.where(F_u > 0, r.classes[1], r.classes[0]) if F_u.ndim == 1
                      else r.classes[np.argmax(F_u, axis=1)])
            errs = {"U": error(pred_u, y[sp.unlabeled]), "V": error(r.predict(X[sp.validation]), y[sp.validation]),
                    "T": error(r.predict(X[sp.test]), y[sp.test])}
            for part, e in errs.items():
                record(task=name, split=k, method=method, metric=f"error_{part}", value=e)
            record(task=name, split=k, method=method, metric="seconds", value=r.timings["solve"])
            record(task=name, split=k, method=method, metric="iterations", value=r.n_iter)
            line.append(f"{method} T {100 * errs['T']:.1f}% {r.timings['solve']:.2f}s it={r.n_iter}")
        print(f"{name:>8} split {k:2d}: " + ", ".join(line), flush=True)


def summary(name, method, metric):
    vals = [r["value"] for r in ROWS if (r["task"], r["method"], r["metric"]) == (name, method, metric)]
    if not vals:
        return None
    return float(np.mean(vals)), float(np.std(vals, ddof=1)) if len(vals) > 1 else 0.0


def tables():
    import csv
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "melacci2011_tables.csv"), "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=["task", "split", "method", "metric", "value"])
        w.writeheader()
        w.writerows(ROWS)
    lines = [
        "# Melacci & Belkin (2011) Tables 4, 6, 7 at reduced scale",
        "",
        f"Error in % (mean ± sd over the first {splits} of the 12 protocol splits; paper: 12), ours / paper. "
        "'ok' = our T error within one paper sd of the paper's mean (or lower). Time: solve seconds on "
        "2 shared cores (kernel and L^p precomputed, as in the paper's Table 6), paper's Matlab times beside.",
        "",
        "| task | method | U ours | U paper | V ours | V paper | T ours | T paper | ok | time ours [s] | time paper [s] | iters |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    paper_time_key = {"newton": "newton", "pcg-stability": "pcg", "dual": "dual"}
    for name in tasks:
        for method in methods:
            cells = []
            ok = ""
            paper = PAPER_ERRORS.get(name, {}).get(method)
            for i, part in enumerate("UVT"):
                s = summary(name, method, f"error_{part}")
                if s is None:
                    cells += ["–", "–"]
                    continue
                cells.append(f"{100 * s[0]:.2f} ± {100 * s[1]:.2f}")
                cells.append("–" if paper is None else f"{paper[i][0]:.2f} ± {paper[i][1]:.2f}")
                if part == "T" and paper is not None:
                    ok = "yes" if 100 * s[0] <= paper[2][0] + paper[2][1] else "**no**"
            t = summary(name, method, "seconds")
            it = summary(name, method, "iterations")
            pt = PAPER_TIMES.get(name, {}).get(paper_time_key.get(method, ""), None)
            lines.append(f"| {name} | {method} | " + " | ".join(cells) + f" | {ok} | "
                         + ("–" if t is None else f"{t[0]:.3f}") + " | " + ("–" if pt is None else f"{pt:g}")
                         + " | " + ("–" if it is None else f"{it[0]:.1f}") + " |")
    notes = [f"- {k}: {v}" for k, v in NOTES.items() if k in tasks or k == "mnist3vs8"]
    notes += [f"- {k}: dual's (gamma_A, gamma_I) = {v} selected on V of the first split over {dual_grid} "
              "(Table 9's dual values do not transfer: its intrinsic term omits b)" for k, v in DUAL_GAMMAS.items()]
    lines += ["", "Notes:", *notes]
    with open(os.path.join(out_dir, "melacci2011_tables.md"), "w") as fh:
        fh.write("\n".join(lines) + "\n")
    print("\n".join(lines))


# %%
if __name__ == "__main__" or "ipykernel" in sys.modules:
    # command-line overrides of the parameters cell: name=python-literal, e.g. splits=4
    import ast
    for arg in sys.argv[1:] if __name__ == "__main__" else []:
        key, _, value = arg.partition("=")
        if key not in {"splits", "tasks", "methods", "seed", "out_dir", "blas_threads", "dual_grid"}:
            raise SystemExit(f"unknown parameter {key!r}")
        globals()[key] = ast.literal_eval(value)
    start = time.perf_counter()
    for name in tasks:
        run_task(name)
        tables()                                       # rewrite after every task: partial results survive
    print(f"total {time.perf_counter() - start:.0f} s")
