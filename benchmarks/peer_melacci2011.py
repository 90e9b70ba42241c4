"""Melacci & Belkin's own code (LapSVMp, in Octave) on the splits and parameters of ``melacci2011.toml``.

    TOOLKIT_DATA_MIRROR=../shared/datasets python benchmarks/peer_melacci2011.py --export /tmp/peer-melacci
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 octave --no-gui --norc -q benchmarks/peers/lapsvmp_melacci_driver.m \\
        LAPSVMP_DIR /tmp/peer-melacci notebooks/experiments/peers/lapsvmp_melacci2011_splits.csv
    python benchmarks/peer_melacci2011.py --compare

The first command writes, for every task of the experiment whose primal methods LapSVMp runs and for
each of its 12 splits, ``<task>__<split>.mat``: the training points L then U (V and T held out, as the
experiment trains), their labels (0 on U), V, T, the true labels of U, the task's name (its UTF-8 bytes:
Octave would cut a non-ASCII name such as "· L = D - W" short), and one row per method with
LapSVMp's options for it (Newton or PCG, hinge or squared loss, the stopping check, γ_A, γ_I, σ, the
neighbours and the Laplacian's power, as ``notebooks/experiments/melacci2011.toml`` declares them;
no bias; heat weights of LapSVMp's default width, or of the declared ``graph_sigma``, or binary weights;
the normalised Laplacian, or ``D - W`` for the "L = D - W" tasks, ``normalized = false``). One file
per task and split, named by ``slug``, so the input-sensitivity tasks never overwrite their headline
task's files. The driver runs LapSVMp (``lapsvmp_v02``, see ``benchmarks/peers/README.md``
for its provenance) on each and writes the errors on T, U and V (in %) and the iteration counts to
a fresh csv, in the layout of ``reports/*/splits.csv`` (experiment ``lapsvmp``); multi-class tasks are
fitted one against all, as the paper does, and scored by the largest decision value.

``--compare`` prints, per task and method, the mean over the splits of ours (the committed
``reports/melacci2011/splits.csv``) beside LapSVMp's and the paper's, and how many splits give
identical test errors. The csv is what ``melacci2011.toml`` cites as the experiment behind the
"LapSVMp on the same splits" explanation of its COIL20 misses (``reports/reproduction.md``).
"""
from __future__ import annotations

import argparse
import pathlib
import re

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
PEER_CSV = ROOT / "notebooks" / "experiments" / "peers" / "lapsvmp_melacci2011_splits.csv"
STOPS = {None: 0, "stability": 1, "validation": 2, "mixed": 3}
WEIGHTS = {"heat": 1, "binary": 2}                 # LapSVMp's GraphWeights; graph_sigma 0: its default width


def slug(task):
    """The file stem of a task: its name without the split sizes, and its setting when it is an input
    variant, so that ``COIL20 [40/1000/40/360] · L = D - W`` and ``COIL20 [40/1000/40/360]`` never share a
    file (``COIL20_L_D_W`` against ``COIL20``)."""
    name, _, rest = task.partition(" [")
    setting = rest.partition("]")[2]
    return re.sub(r"[^A-Za-z0-9]+", "_", f"{name} {setting}").strip("_")


def peer_methods(experiment):
    """{task: [(label, options)]} for the methods LapSVMp has: the primal LapSVM (Newton, PCG) and LapRLSC."""
    out = {}
    for c in experiment.configurations:
        p = c.parameters
        if p["method"] not in ("lapsvm", "laprlsc") or p.get("grid"):
            continue
        f = p["fixed"]
        if f.get("kernel", "rbf") != "rbf" or f.get("intercept", True) or f.get("n_basis"):
            continue
        solver = f.get("method", "newton" if p["method"] == "lapsvm" else "direct")
        opts = {"hinge": float(p["method"] == "lapsvm"), "cg": float(solver == "pcg"),
                "stop": float(STOPS[f.get("stop")]), "gamma_A": float(f["gamma_A"]), "gamma_I": float(f["gamma_I"]),
                "sigma": float(f["sigma"]), "nn": float(f["n_neighbors"]), "degree": float(f.get("laplacian_power", 1)),
                "normalize": float(f.get("normalized", True)), "line_search": float(f.get("line_search", True)),
                "weight": float(WEIGHTS[f.get("weight", "heat")]), "graph_sigma": float(f.get("graph_sigma") or 0.0)}
        out.setdefault(c.task, []).append((c.method, opts, p))
    return out


def export(directory):
    import scipy.io

    from toolkit.data import cv_splits, load
    from toolkit.reports import load_experiment

    directory = pathlib.Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    exp = load_experiment("melacci2011")
    for task, methods in peer_methods(exp).items():
        p = methods[0][2]
        ds = load(p["dataset"], *p.get("classes", []), **p.get("options", {}))
        X = ds.X.toarray() if hasattr(ds.X, "toarray") else ds.X      # PCMAC: dense on the peer's side
        X, y = np.asarray(X, dtype=np.float64), np.asarray(ds.y)
        classes = np.unique(y)
        code = np.searchsorted(classes, y) + 1          # 1..C in Octave; binary: ±1 below
        binary = len(classes) == 2
        target = np.where(y == classes[-1], 1.0, -1.0) if binary else code.astype(np.float64)
        if binary and set(np.unique(y)) == {-1, 1}:
            target = y.astype(np.float64)
        splits = list(cv_splits(ds, folds=p["folds"], repeats=p["repeats"], l=p["l"], v=p["v"], rng=p["seed"]))
        splits = splits[:p["n_splits"]]
        table = np.array([[o[k] for k in ("hinge", "cg", "stop", "gamma_A", "gamma_I", "sigma", "nn", "degree",
                                          "normalize", "line_search", "weight", "graph_sigma")] for _, o, _ in methods])
        labels = np.array([m for m, _, _ in methods], dtype=object)
        if not all(m.isascii() for m in labels):
            raise ValueError(f"{task}: the driver reads method labels as ASCII")
        for j, s in enumerate(splits):
            train = np.r_[s.labeled, s.unlabeled]
            Y = np.zeros(len(train))
            Y[:len(s.labeled)] = target[s.labeled]
            scipy.io.savemat(directory / f"{slug(task)}__{j:02d}.mat",
                             {"task": np.frombuffer(task.encode(), dtype=np.uint8)[None, :], "split": float(j),
                              "X": X[train], "Y": Y[:, None],
                              "Yu": target[s.unlabeled][:, None], "Xv": X[s.validation],
                              "Yv": target[s.validation][:, None], "Xt": X[s.test], "Yt": target[s.test][:, None],
                              "n_classes": float(len(classes)), "methods": labels[:, None], "options": table},
                             do_compression=False)
        print(f"{task}: {len(splits)} splits, methods {', '.join(labels)} -> {directory}")


def compare():
    import pandas as pd

    from toolkit.reports import load_experiment

    peer = pd.read_csv(PEER_CSV)
    ours = pd.read_csv(ROOT / "reports" / "melacci2011" / "splits.csv")
    exp = load_experiment("melacci2011")
    published = {(e["task"], e["method"], e.get("metric")): (e["mean"], e.get("sd")) for e in exp.published}
    key = ["task", "method", "split", "metric"]
    both = ours.merge(peer, on=key, suffixes=("_ours", "_peer"))
    print(f"{'task':<34}{'method':<46}{'metric':<16}{'ours':>8}{'LapSVMp':>9}{'paper':>16}{'same':>7}")
    for (task, method, metric), g in both.groupby(["task", "method", "metric"], sort=False):
        pub = published.get((task, method, metric))
        pub_s = f"{pub[0]:.2f} ({pub[1]})" if pub else "-"
        same = int(np.isclose(g["value_ours"], g["value_peer"], atol=1e-6).sum())
        print(f"{task:<34}{method:<46}{metric:<16}{g['value_ours'].mean():>8.2f}{g['value_peer'].mean():>9.2f}"
              f"{pub_s:>16}{same:>4}/{len(g)}")
    equal = np.isclose(both["value_ours"], both["value_peer"], atol=1e-6)
    rows = both.assign(equal=equal).groupby(["task", "method", "metric"], sort=False)["equal"].all()
    print(f"{len(rows)} rows (task, method, metric): {int(rows.sum())} identical on every split; "
          f"{int(equal.sum())} of {len(both)} per-split values identical (to 1e-6)")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--export", metavar="DIR", help="write the splits and methods for the Octave driver")
    parser.add_argument("--compare", action="store_true", help="ours against LapSVMp's csv, per task and method")
    args = parser.parse_args(argv)
    if args.export:
        export(args.export)
    if args.compare:
        compare()
    if not (args.export or args.compare):
        parser.error("give --export DIR or --compare")


if __name__ == "__main__":
    main()
