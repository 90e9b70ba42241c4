# %% [markdown]
# # Wang, Qin & Huang, §4: the regularisation path of the Laplacian hinge-loss model on two moons
#
# Protocol of the paper: 200 two-moons points, features scaled to [-1, 1], RBF kernel
# ``exp(-‖x - z‖² / 0.1)`` (our ``sigma = sqrt(0.05)``), kNN graph with k = 6 and ``L = D - W``;
# 70 %, 50 % and 30 % of the points for training (the rest is the test set), 2, 4, 6 and 8 labelled
# training points (balanced), the others unlabelled. The whole path is computed once per draw and
# the out-of-sample accuracy is read along it (Fig. 2); the decision functions at λ = 2, 0.79 and
# 0.46 for 50 % training and 4 labels are drawn as in Fig. 3.
#
# Scale of λ: the paper's model (eq. 3, 10) has no ambient term, its penalty is
# ``(λ_W / 2) Σ w_ij (f_i - f_j)² = λ_W fᵀ L f``. ``laplacian_svm_path`` needs a small ambient term:
# its penalty is ``(λ/2)(‖f‖²_K + r fᵀ L f)``, so with ``r = gamma_ratio`` large
# ``λ_W = λ r / 2``; every λ reported here is λ_W. The paper's single random draw per setting is
# replaced by ``repeats`` draws (mean accuracy).
#
# Run: ``python notebooks/reproduce_wang_paths.py [repeats=5]`` from the project root. Writes
# ``reports/wang_paths/accuracy.csv`` (tidy: train fraction × labels × draw × λ_W × accuracy),
# ``reports/wang_paths/summary.md`` (copied to ``reports/wang_paths_summary.md``, which is committed),
# ``reports/wang_paths/fig2_accuracy_paths.png`` and ``reports/wang_paths/fig3_decision_functions.png``.

# %% parameters
repeats: int = 5  # random draws per (train fraction, labels) setting (paper: 1)
train_fractions: list = [0.7, 0.5, 0.3]  # share of the 200 points used for training (Fig. 2 a-c)
labels: list = [2, 4, 6, 8]  # labelled training points, half per class
gamma_ratio: float = 1000.0  # r = γ_I / γ_A: a small ambient term next to Wang et al.'s graph term
kernel_width: float = 0.1  # the paper's σ in exp(-‖x - z‖² / σ)
neighbors: int = 6  # k of the kNN graph
fig3_lambdas: list = [2.0, 0.79, 0.46]  # λ_W of Fig. 3
n_grid: int = 80  # λ_W grid for the averaged accuracy curves (log-spaced)
seed: int = 0  # seed of the data and of the draws
out_dir: str = "reports/wang_paths"  # where the CSV, markdown and figures go

# %%
import os
import sys
import time

import numpy as np

from toolkit import laplacian_svm_path
from toolkit.data import load

ROWS: list = []


def record(**row):
    """One tidy row."""
    ROWS.append(row)


def moons():
    ds = load("moons", n=200, rng=seed)
    X = np.asarray(ds.X, dtype=float)
    X = 2 * (X - X.min(axis=0)) / (X.max(axis=0) - X.min(axis=0)) - 1       # features in [-1, 1]
    return X, np.asarray(ds.y, dtype=float)


def draw(X, y, fraction, n_labeled, gen):
    """Train / test split, then n_labeled/2 labelled points per class among the training points."""
    perm = gen.permutation(len(y))
    n_train = int(round(fraction * len(y)))
    train, test = perm[:n_train], perm[n_train:]
    pos, neg = train[y[train] > 0], train[y[train] < 0]
    lab = np.r_[gen.choice(pos, n_labeled // 2, replace=False), gen.choice(neg, n_labeled // 2, replace=False)]
    unl = np.setdiff1d(train, lab)
    return lab, unl, test


def fit(X, y, lab, unl):
    return laplacian_svm_path(X[lab], y[lab], X[unl], kernel="rbf", sigma=np.sqrt(kernel_width / 2),
                              neighbors=neighbors, normalized=False, gamma_ratio=gamma_ratio)


def run():
    X, y = moons()
    gen = np.random.default_rng(seed)
    to_w = gamma_ratio / 2                                                   # λ_W = λ r / 2
    grid_w = np.geomspace(1e-3, 1e2, n_grid)[::-1]
    for fraction in train_fractions:
        for n_labeled in labels:
            for rep in range(repeats):
                lab, unl, test = draw(X, y, fraction, n_labeled, gen)
                path = fit(X, y, lab, unl)
                acc = np.mean(path.predict(X[test], grid_w / to_w) == y[test][:, None], axis=0)
                for lam_w, a in zip(grid_w, acc):
                    record(train_fraction=fraction, n_labeled=n_labeled, draw=rep, lambda_w=float(lam_w),
                           accuracy=float(a), breakpoints=int(path.breakpoints.size),
                           lambda0_w=float(path.breakpoints[0] * to_w))
            print(f"train {fraction:.0%}, {n_labeled} labels: {repeats} paths", flush=True)


def tables():
    import pandas as pd
    os.makedirs(out_dir, exist_ok=True)
    df = pd.DataFrame(ROWS)
    df.to_csv(os.path.join(out_dir, "accuracy.csv"), index=False)
    per_draw = df.groupby(["train_fraction", "n_labeled", "draw"]).agg(
        best=("accuracy", "max"), at_start=("accuracy", "first"), breakpoints=("breakpoints", "first"))
    summary = per_draw.groupby(["train_fraction", "n_labeled"]).mean().reset_index()
    lines = ["# Wang, Qin & Huang §4 on two moons: test accuracy along the whole path", "",
             f"{repeats} draws per setting, r = {gamma_ratio:g}, RBF exp(-d²/{kernel_width:g}), k = {neighbors}, "
             "L = D - W. `best`: the best accuracy on the λ_W grid (mean over draws); `at_start`: at the "
             "largest λ_W of the grid; `breakpoints`: mean number of breakpoints.", "",
             "| train | labels | best accuracy | accuracy at λ_W = 100 | breakpoints |", "|---|---|---|---|---|"]
    for _, r in summary.iterrows():
        lines.append(f"| {r.train_fraction:.0%} | {int(r.n_labeled)} | {r.best:.3f} | {r.at_start:.3f} | "
                     f"{r.breakpoints:.1f} |")
    for target in (os.path.join(out_dir, "summary.md"), os.path.normpath(out_dir) + "_summary.md"):
        with open(target, "w") as fh:
            fh.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return df


def figures(df):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, len(train_fractions), figsize=(4 * len(train_fractions), 3.2), sharey=True)
    for ax, fraction in zip(np.atleast_1d(axes), train_fractions):
        for n_labeled in labels:
            part = df[(df.train_fraction == fraction) & (df.n_labeled == n_labeled)]
            curve = part.groupby("lambda_w").accuracy.mean()
            ax.plot(curve.index, curve.values, label=f"{n_labeled} labels")
        ax.set_xscale("log")
        ax.set_xlabel("λ (Wang et al. scale, log)")
        ax.set_title(f"{fraction:.0%} of the points for training")
    np.atleast_1d(axes)[0].set_ylabel("test accuracy")
    np.atleast_1d(axes)[0].legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out_dir, "fig2_accuracy_paths.png"), dpi=120)
    # Fig. 3: 50 % training, 4 labels, decision functions at three λ_W
    X, y = moons()
    gen = np.random.default_rng(seed + 1)
    lab, unl, test = draw(X, y, 0.5, 4, gen)
    path = fit(X, y, lab, unl)
    xx, yy = np.meshgrid(np.linspace(-1.1, 1.1, 120), np.linspace(-1.1, 1.1, 120))
    grid = np.c_[xx.ravel(), yy.ravel()]
    F = path.decision_function(grid, np.asarray(fig3_lambdas) / (gamma_ratio / 2))
    fig, axes = plt.subplots(1, len(fig3_lambdas), figsize=(4 * len(fig3_lambdas), 3.6))
    for k, (ax, lam_w) in enumerate(zip(np.atleast_1d(axes), fig3_lambdas)):
        ax.contourf(xx, yy, F[:, k].reshape(xx.shape), levels=20, cmap="RdBu", alpha=0.6)
        ax.contour(xx, yy, F[:, k].reshape(xx.shape), levels=[0.0], colors="k")
        ax.scatter(X[unl, 0], X[unl, 1], c=y[unl], cmap="RdBu", s=8, edgecolors="none")
        ax.scatter(X[lab, 0], X[lab, 1], c=y[lab], cmap="RdBu", s=90, marker="*", edgecolors="k")
        acc = np.mean(path.predict(X[test], lam_w / (gamma_ratio / 2)) == y[test])
        ax.set_title(f"λ = {lam_w:g}: test accuracy {acc:.2f}")
        record(figure="fig3", lambda_w=lam_w, accuracy=float(acc))
    fig.tight_layout()
    fig.savefig(os.path.join(out_dir, "fig3_decision_functions.png"), dpi=120)


if __name__ == "__main__" or "ipykernel" in sys.modules:
    # command-line overrides of the parameters cell: name=python-literal, e.g. repeats=2
    import ast
    for arg in sys.argv[1:] if __name__ == "__main__" else []:
        key, _, value = arg.partition("=")
        if key not in {"repeats", "train_fractions", "labels", "gamma_ratio", "kernel_width", "neighbors",
                       "fig3_lambdas", "n_grid", "seed", "out_dir"}:
            raise SystemExit(f"unknown parameter {key!r}")
        globals()[key] = ast.literal_eval(value)
    start = time.perf_counter()
    run()
    frame = tables()
    figures(frame)
    print(f"total {time.perf_counter() - start:.0f} s")
