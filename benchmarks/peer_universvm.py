"""UniverSVM 1.22 (Collobert, Sinz, Weston & Bottou) beside ``toolkit.tsvm`` on the splits of ``gieseke2011.toml``.

Gieseke et al. (2011, Table 1; 2012, Tables 2-3) report a UniverSVM column; ``gieseke2011.toml`` and
``gieseke2012.toml`` reproduce it with our own ``tsvm`` (CCCP with the ramp loss, s = -0.3, the
balance constraint). This script runs the peer's binary and ours on the same labelled, unlabelled
and test points, with the same linear kernel, class-ratio constraint and s, at fixed (C, C*)
settings, and compares them split by split: the objective J of eq. (5) of Collobert et al. (2006)
that each solution reaches (both evaluated by tsvm's own ``toolkit.transductive._cccp._ramp_objective``
on the same data), the agreement of their predictions on the test points, and their test errors.
UniverSVM is not vendored: build it from its public source once, outside this repository,

    git clone https://github.com/fabiansinz/UniverSVM /tmp/universvm
    (cd /tmp/universvm && g++ -O3 -std=c++98 usvm.cpp svqp2/*.c* -o universvm)

(g++ 12 builds it as is, with only -Wwrite-strings warnings), then, from the repository root after
the data setting of the README, one thread per process:

    export TOOLKIT_DATA_MIRROR=../shared/datasets OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
    U=/tmp/universvm/universvm
    python benchmarks/peer_universvm.py --universvm $U --quick                   # 2 tasks, 3 splits: 1-2 min
    python benchmarks/peer_universvm.py --universvm $U --quick --epsilon 1e-7    # UniverSVM with a tight -e
    python benchmarks/peer_universvm.py --universvm $U --export                  # 12 tasks x 10 splits: 22 min
    python benchmarks/peer_universvm.py --universvm $U --experiment gieseke2012 --datasets coil20 mnist \\
        --export                                                                  # the tasks gieseke2011 lacks: 12 min
    python benchmarks/peer_universvm.py --universvm $U --select --tasks "Gaussian2C [25/225/250]" \\
        --export                                                                  # the paper's grid: 41 min
    python benchmarks/peer_universvm.py --universvm $U --select --tsvm-only --balance all --scenarios labeled-cv

(times on 2 shared cores). What they show: at every setting the two reach the same CCCP fixed point
up to UniverSVM's tolerance (with ``--epsilon 1e-7`` the same J to about 1e-6 relative, the same
number of CCCP loops and the same predictions; at its default ``-e 0.001`` J differs by about 1e-3
relative, UniverSVM's J being the larger where C = 1024 multiplies the labelled slack its tolerance
leaves, and 99.9 % of the test predictions agree); with the paper's grid and selection UniverSVM
gives what tsvm gives (Gaussian2C [25/225/250]: 11.08 against 10.96 realistic, 2.20 against 2.20
non-realistic), so the distance to the paper's UniverSVM column is not our solver's.

``--export`` writes ``notebooks/experiments/peers/universvm_EXPERIMENT_splits.csv.gz`` (generated, ignored by git; with ``--select``
``universvm_EXPERIMENT_selected.csv``; another path may follow the flag): one row per split and
quantity in the layout of ``reports/*/splits.csv`` (experiment ``universvm``; methods ``tsvm`` and
``universvm``; scenario ``labeled-cv C=..,C*u=..``; metrics ``objective``, ``test_error``,
``unlabeled_error``, ``balance_residual`` (mean unlabelled output minus the constrained value),
``n_iter`` (CCCP iterations after the supervised start) and ``agreement`` (% of test points
predicted alike, the same on both rows); with ``--select`` the selected ``test_error``, ``C`` and
``C_star_u``). The table printed per task, scenario and setting gives the means over the splits
and how often J is lower for either.

``--select`` instead runs the experiment's whole (C, C* u) grid with both solvers and ``select``'s
rule (5 stratified folds of ``toolkit._cv.stratified_folds`` over the labelled points, seed
``seed + j``, for labeled-cv; the test set for test-set; the smallest mean error, the first in grid
order on ties; the refit on L ∪ U) and prints the selected test errors beside the paper's.
``--tsvm-only`` runs that selection with tsvm alone, to explore a protocol variant cheaply once the
two solvers are shown to agree; ``--balance all`` gives both the class ratio of every label of the
split in both scenarios, ``--w fraction`` gives UniverSVM ``-w b_c`` (the ratio read literally) and
tsvm the balance of that same constraint.

How UniverSVM is called: ``universvm -B 1 -t 0 -c C -z C* -S s -w (2 b_c - 1) -T test train model``.
The training file (UniverSVM's dense binary format) holds the labelled points (labels ±1) and the
unlabelled points (label -3). ``-w`` is the value the mean unlabelled output is held to (the
"extra example" of Collobert et al. §4, whose linear term it is; default the mean labelled
label), so ``2 b_c - 1`` for a fraction ``b_c`` of positives is exactly ``tsvm(balance=b_c)``'s
constraint; ``-S`` is the ramp's s for the unlabelled points (``-s`` is another s, of a ramp loss on
the labelled points with ``-o 1``). Every other option keeps its default, as the papers say: ``-e
0.001`` (the convex steps stop when the largest KKT violation is below 1e-3; tsvm's ``tol`` is
1e-6), the bias on, at most 20 CCCP loops, single-precision features and kernel cache. UniverSVM
prints no J, only the dual value ``w:`` of each convex step and its test accuracy; its model file
holds the signed weights of the support vectors, the weight ``alpha0`` of the extra column (the
mean unlabelled point) and ``b0`` (6 digits), from which the script computes the primal ``w``
and the outputs on L, U and T (its accuracy is checked against the one UniverSVM prints).

The class ratio of each scenario is the one ``toolkit.selection.select`` gives ``tsvm``:
labeled-cv the fraction of positives among the labelled points (of the training folds while
cross-validating), test-set among all labels of the split. The splits are
``toolkit.data.split(..., rng=seed + j)`` of the experiment's task, as the runner's notebook
(``notebooks/model_selection.ipynb``) draws them; the features are rounded to single precision for
both solvers (UniverSVM stores them so). On these inputs ``--select`` gives, for tsvm, the test
errors of ``reports/gieseke2011/splits.csv`` split for split (Gaussian2C [25/225/250], both
scenarios).
"""
from __future__ import annotations

import argparse
import pathlib
import subprocess
import tempfile
import time
import types

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
PEERS = ROOT / "notebooks" / "experiments" / "peers"
#: (C, C* u) settings compared by default: the ones the paper's grid selects on Gaussian2C (C = 2^-9 or 2^10
#: with C* u = 1, C = 2^10 with C* u = 0.01), C = 1 (the paper's runtime setting) and the largest weights
SETTINGS = [(2.0 ** -9, 1.0), (1.0, 1.0), (1024.0, 0.01), (1024.0, 100.0)]
QUICK = {"tasks": ["Gaussian2C [25/225/250]", "USPS(2,7) [17/843/861]"], "splits": 3,
         "settings": [(2.0 ** -9, 1.0), (1.0, 1.0), (1024.0, 100.0)]}

# ---------------------------------------------------------------------------------------------------
# the experiment's tasks and splits
# ---------------------------------------------------------------------------------------------------

def tsvm_tasks(experiment, tasks=None, datasets=None):
    """{task: parameters} of the experiment's ``tsvm`` configurations with the paper's random labelled
    sets (not the per-class or all-label variants), of the named tasks or data sets (None: all); one
    entry per task, its scenarios share the splits."""
    from toolkit.reports import load_experiment

    out = {}
    for c in load_experiment(experiment).configurations:
        p = c.parameters
        if p["method"] != "tsvm" or p.get("labels", "drawn") != "drawn" or p["protocol"] != "gieseke":
            continue
        if (tasks and c.task not in tasks) or (datasets and p["dataset"] not in datasets):
            continue
        out.setdefault(c.task, {**p, "scenarios": []})["scenarios"].append(p["scenario"])
    missing = set(tasks or ()) - set(out)
    if missing:
        raise SystemExit(f"{experiment} has no tsvm configuration for {sorted(missing)}; it has {sorted(out)}")
    return out


def task_data(p, n_splits):
    """``[(X, y, split)]`` for the first ``n_splits`` partitions of a task, drawn as the runner's notebook
    draws them: ``toolkit.data.split(..., rng=seed + j)`` of the one data set, or with ``data_draw =
    "per-split"`` of a draw of its own (``options["rng"] = seed + j``). The features are rounded to
    single precision, as UniverSVM stores them; the labels are ±1 (+1 the larger class label)."""
    from toolkit import data

    def prepared(ds):
        X = ds.X.toarray() if hasattr(ds.X, "toarray") else np.asarray(ds.X, dtype=np.float64)
        y = np.asarray(ds.y)
        return ds, X.astype(np.float32).astype(np.float64), np.where(y == np.unique(y)[-1], 1, -1)

    shared = prepared(data.load(p["dataset"], *p["classes"], **p["options"]))
    out = []
    for j in range(min(n_splits, p["n_splits"])):
        ds, X, y = shared
        if p.get("data_draw", "shared") == "per-split":
            ds, X, y = prepared(data.load(p["dataset"], *p["classes"], **{**p["options"], "rng": p["seed"] + j}))
        split = data.split(ds, l=p["l"], u=None if p["u"] < 0 else p["u"], t=None if p["t"] < 0 else p["t"],
                           n_train=None if p.get("n_train", -1) < 0 else p["n_train"],
                           stratify=p.get("labels", "drawn") == "per-class", rng=p["seed"] + j)
        out.append((X, y, split))
    return out


def class_ratio(y, split, scenario):
    """b_c as ``select`` sets it for ``tsvm``: the labelled points' share of positives (labeled-cv; the
    solver's default) or that of every label of the split (test-set, Gieseke et al. 2012 §4.1.2)."""
    if scenario == "test-set":
        return float(np.mean(y[np.r_[split.labeled, split.unlabeled, split.test]] > 0))
    return float(np.mean(y[split.labeled] > 0))


# ---------------------------------------------------------------------------------------------------
# UniverSVM
# ---------------------------------------------------------------------------------------------------

def write_binary(path, X, labels):
    """UniverSVM's dense binary format (``-B 1``): ``int n, int d``, then per row ``int label, float x[d]``
    (feature j is index j, from 0). The features become single precision, as UniverSVM stores them."""
    n, d = X.shape
    row = np.dtype([("label", "<i4"), ("x", "<f4", (d,))])
    rows = np.empty(n, dtype=row)
    rows["label"], rows["x"] = labels, X
    with open(path, "wb") as f:
        np.array([n, d], dtype="<i4").tofile(f)
        rows.tofile(f)


def write_problem(workdir, Xl, yl, Xu, Xt, yt):
    """The training file (labelled points ±1, then the unlabelled ones with UniverSVM's label -3) and the
    test file; returns their paths."""
    workdir = pathlib.Path(workdir)
    train, test = workdir / "train.bin", workdir / "test.bin"
    write_binary(train, np.vstack([Xl, Xu]), np.r_[yl, np.full(len(Xu), -3)])
    write_binary(test, Xt, yt)
    return train, test


def read_model(path, n_features):
    """UniverSVM's model file: ``b0`` (printed with 6 digits), ``alpha0`` (weight of the mean unlabelled
    point) and the signed weights with their points (the support vectors, then the unlabelled points
    with weight 0)."""
    header, weights, points = {}, [], []
    with open(path) as f:
        for line in f:
            key, *rest = line.split()
            if key == "SV":
                break
            header[key] = rest[0] if rest else ""
        for line in f:
            parts = line.split()
            if not parts or float(parts[0]) == 0.0:
                continue
            x = np.zeros(n_features)
            for item in parts[1:]:
                j, v = item.split(":")
                x[int(j)] = float(v)
            weights.append(float(parts[0]))
            points.append(x)
    return {"b0": float(header["b0"]), "alpha0": float(header.get("alpha0", 0.0)), "kernel": header["kernel_type"],
            "weights": np.asarray(weights), "points": np.asarray(points).reshape(len(weights), n_features)}


def run_universvm(binary, problem, Xu, *, C, C_star, s, w_option, extra=()):
    """Run UniverSVM once on ``problem`` (:func:`write_problem`) with the linear kernel; return its primal
    weight vector ``w = Σ_i a_i x_i + alpha0 m_u`` (``m_u`` the mean unlabelled point), ``b0``, the CCCP
    loops it ran and its own test accuracy. ``w_option`` is the value given to ``-w``."""
    train, test = problem
    model = train.parent / "model.txt"
    command = [str(binary), "-B", "1", "-t", "0", "-c", repr(float(C)), "-z", repr(float(C_star)),
               "-S", repr(float(s)), "-w", repr(float(w_option)), *extra, "-T", str(test), str(train), str(model)]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0 or "Accuracy=" not in done.stdout:
        raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout[-2000:]}{done.stderr}")
    m = read_model(model, Xu.shape[1])
    w = m["weights"] @ m["points"] + m["alpha0"] * Xu.mean(axis=0)
    return {"w": w, "b0": m["b0"], "n_iter": done.stdout.count("---- Loop "), "seconds": seconds,
            "accuracy": float(done.stdout.rsplit("Accuracy=", 1)[1].split()[0])}


# ---------------------------------------------------------------------------------------------------
# one split
# ---------------------------------------------------------------------------------------------------

def objective(w, b, Xl, yl, Xu, *, C, C_star, s):
    """J of eq. (5) (Collobert et al. 2006) of the linear model ``f = <w, x> + b``, by tsvm's own function."""
    from toolkit.transductive._cccp import _ramp_objective

    f = np.r_[Xl @ w, Xu @ w] + b
    return float(_ramp_objective(None, f, float(w @ w), yl, len(yl), C, C_star, s))


def constraint(y, split, scenario, labels, rules):
    """``(balance for tsvm, -w for UniverSVM)``: the same constraint on the mean unlabelled output.

    ``rules.balance``: "scenario" takes b_c as ``select`` does (:func:`class_ratio`; labelled points of
    ``labels``, the training fold's in cross-validation), "all" every label of the split in both
    scenarios. ``rules.w``: "constraint" gives UniverSVM ``-w 2 b_c - 1``; "fraction" gives it ``-w b_c``
    (the class ratio read literally) and tsvm the balance ``(1 + b_c) / 2`` of that same constraint.
    """
    if rules.balance == "all":
        b_c = class_ratio(y, split, "test-set")
    elif scenario == "test-set":
        b_c = class_ratio(y, split, scenario)
    else:
        b_c = float(np.mean(y[labels] > 0))
    return (b_c, 2.0 * b_c - 1.0) if rules.w == "constraint" else ((1.0 + b_c) / 2.0, b_c)


def fit_both(binary, problem, Xl, yl, Xu, *, C, C_star, s, balance, w_option, extra):
    """tsvm and UniverSVM on the same points: ``((w, b, fit), (w, b, peer))``, linear models."""
    from toolkit.transductive import tsvm

    ours = tsvm(Xl, yl, Xu, kernel="linear", C=C, C_star=C_star, s=s, balance=balance)
    peer = run_universvm(binary, problem, Xu, C=C, C_star=C_star, s=s, w_option=w_option, extra=extra)
    return (np.asarray(ours.expansion.primal), ours.bias, ours), (peer["w"], peer["b0"], peer)


def compare_split(binary, X, y, split, scenario, C, C_star_u, s, workdir, rules):
    """Both solvers on one split at one setting: ``{"ours": {quantity: value}, "peer": {...}}``."""
    Xl, yl, Xu = X[split.labeled], y[split.labeled], X[split.unlabeled]
    Xt, yt = X[split.test], y[split.test]
    C_star = C_star_u / len(Xu)
    balance, w_option = constraint(y, split, scenario, split.labeled, rules)
    problem = write_problem(workdir, Xl, yl, Xu, Xt, yt)
    ours, peer = fit_both(binary, problem, Xl, yl, Xu, C=C, C_star=C_star, s=s, balance=balance, w_option=w_option,
                          extra=rules.extra)
    out = {}
    for name, (w, b, fit) in (("ours", ours), ("peer", peer)):
        f_t, f_u = Xt @ w + b, Xu @ w + b
        out[name] = {"objective": objective(w, b, Xl, yl, Xu, C=C, C_star=C_star, s=s),
                     "test_error": 100.0 * np.mean(np.where(f_t >= 0, 1, -1) != yt),
                     "unlabeled_error": 100.0 * np.mean(np.where(f_u >= 0, 1, -1) != y[split.unlabeled]),
                     "balance_residual": float(f_u.mean() - w_option), "pred": f_t >= 0,
                     "n_iter": fit.n_iter if name == "ours" else fit["n_iter"]}
    # our J of our model is the one tsvm reports: one objective function evaluates both
    assert np.isclose(out["ours"]["objective"], ours[2].objective, rtol=1e-8, atol=1e-10), ours[2].objective
    # the peer's accuracy from the model file is the one it printed (up to a point at f = 0)
    assert abs(100.0 - out["peer"]["test_error"] - peer[2]["accuracy"]) <= 100.0 / len(yt) + 1e-9, peer[2]["accuracy"]
    agreement = 100.0 * np.mean(out["ours"].pop("pred") == out["peer"].pop("pred"))
    out["ours"]["agreement"] = out["peer"]["agreement"] = agreement
    return out


def setting_name(scenario, C, C_star_u):
    return f"{scenario} C={C:g},C*u={C_star_u:g}"


def compare(binary, experiment, tasks, n_splits, settings, scenarios, rules, export=None):
    """Every task x scenario x setting x split; the rows of the csv (written after each task to ``export``)."""
    import pandas as pd

    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        for task, p in tsvm_tasks(experiment, tasks, rules.datasets).items():
            partitions = task_data(p, n_splits)
            for scenario in [sc for sc in scenarios if sc in p["scenarios"]]:
                for C, C_star_u in settings:
                    for j, (X, y, split) in enumerate(partitions):
                        result = compare_split(binary, X, y, split, scenario, C, C_star_u, p["fixed"].get("s", -0.3),
                                               workdir, rules)
                        rows += [{"experiment": "universvm", "task": task, "method": method,
                                  "scenario": setting_name(scenario, C, C_star_u), "split": j, "metric": metric,
                                  "value": float(value)}
                                 for side, method in (("ours", "tsvm"), ("peer", "universvm"))
                                 for metric, value in result[side].items()]
                    print_block(pd.DataFrame(rows), task, setting_name(scenario, C, C_star_u))
            if export is not None:
                write_csv(pd.DataFrame(rows), export)
    return pd.DataFrame(rows)


def write_csv(frame, path):
    """``frame`` to ``path``, gzip-compressed (without a time stamp, so equal rows give equal bytes) where the
    name ends in ``.gz``: the per-setting file of every task is over a megabyte as text."""
    gz = str(path).endswith(".gz")
    frame.to_csv(path, index=False, compression={"method": "gzip", "mtime": 0} if gz else None)


def print_block(frame, task, setting):
    """One line: mean J of each, how often ours is lower / higher (relative 1e-6), agreement, errors, loops."""
    g = frame[(frame.task == task) & (frame.scenario == setting)]
    v = g.pivot_table(index="split", columns=["method", "metric"], values="value")
    J_o, J_p = v[("tsvm", "objective")], v[("universvm", "objective")]
    rel = (J_o - J_p) / np.maximum(np.abs(J_p), 1e-12)
    print(f"{task:<26} {setting:<33} J {J_o.mean():9.5g} / {J_p.mean():9.5g}  ours lower {int((rel < -1e-6).sum())}, "
          f"higher {int((rel > 1e-6).sum())} of {len(rel)} (max |rel| {rel.abs().max():.0e})  "
          f"agree {v[('tsvm', 'agreement')].mean():6.2f}%  test {v[('tsvm', 'test_error')].mean():5.2f} / "
          f"{v[('universvm', 'test_error')].mean():5.2f}  loops {v[('tsvm', 'n_iter')].mean():4.1f} / "
          f"{v[('universvm', 'n_iter')].mean():4.1f}", flush=True)


def summarize(paths):
    """The per-task and per-setting lines of ``print_block`` for exported files, and the totals: how many
    (split, setting) pairs each solver's J is the lower (relative 1e-6), the mean test-prediction agreement
    and the largest difference of test errors."""
    import pandas as pd

    frame = pd.concat([pd.read_csv(p) for p in paths], ignore_index=True)
    chosen = frame[frame["metric"].isin(["C", "C_star_u"])]     # the rows of --select files
    if len(chosen):
        picks = chosen.pivot_table(index=["task", "scenario", "split"], columns=["method", "metric"], values="value")
        same = (picks["tsvm"] == picks["universvm"]).all(axis=1)
        errors = frame[frame["metric"] == "test_error"].groupby(["task", "scenario", "method"])["value"]
        for (task, scenario), group in same.groupby(level=["task", "scenario"]):
            mean = {m: errors.get_group((task, scenario, m)).mean() for m in ("tsvm", "universvm")}
            print(f"{task:<26} {scenario:<11} selected: the same (C, C* u) in {int(group.sum())} of {len(group)}; "
                  f"test error tsvm {mean['tsvm']:.2f}, UniverSVM {mean['universvm']:.2f}")
        frame = frame[~frame.index.isin(chosen.index) & frame["scenario"].str.contains(" C=")]
        if frame.empty:
            return
    for (task, setting), _ in frame.groupby(["task", "scenario"], sort=False):
        print_block(frame, task, setting)
    v = frame.pivot_table(index=["task", "scenario", "split"], columns=["method", "metric"], values="value")
    rel = (v[("tsvm", "objective")] - v[("universvm", "objective")]) / v[("universvm", "objective")].abs().clip(1e-12)
    gap = (v[("tsvm", "test_error")] - v[("universvm", "test_error")]).abs()
    print(f"{len(v)} fits each: J lower for tsvm {int((rel < -1e-6).sum())}, for UniverSVM {int((rel > 1e-6).sum())}, "
          f"equal to 1e-6 {int((rel.abs() <= 1e-6).sum())}; test predictions agree {v[('tsvm', 'agreement')].mean():.2f} % "
          f"(lowest {v[('tsvm', 'agreement')].min():.2f} %); test errors differ by at most {gap.max():.2f} points, "
          f"{(gap > 0).mean() * 100:.1f} % of the fits by any")


# ---------------------------------------------------------------------------------------------------
# the paper's grid and selection rule with both solvers
# ---------------------------------------------------------------------------------------------------

def select_both(binary, experiment, tasks, n_splits, scenarios, rules):
    """Run the experiment's (C, C* u) grid with both solvers and select as ``select`` does (5 stratified
    folds of ``toolkit._cv.stratified_folds`` with seed ``seed + j`` for labeled-cv, the test set for
    test-set; smallest mean error, the first in grid order on ties; refit on L ∪ U); print the selected
    test errors beside the paper's. Slow: 63 settings x (folds + 1) fits per split, scenario and solver."""
    import pandas as pd

    from toolkit._cv import stratified_folds
    from toolkit.reports import load_experiment

    exp = load_experiment(experiment)
    published = {(e["task"], e["method"], e["scenario"]): (e["mean"], e.get("sd")) for e in exp.published}
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        for task, p in tsvm_tasks(experiment, tasks, rules.datasets).items():
            partitions = task_data(p, n_splits)
            grid = [(C, cu) for C in p["grid"]["C"] for cu in p["grid"]["C_star_u"]]
            s = p["fixed"].get("s", -0.3)
            for scenario in [sc for sc in scenarios if sc in p["scenarios"]]:
                chosen = {"tsvm": [], "universvm": []}
                for j, (X, y, split) in enumerate(partitions):
                    if scenario == "labeled-cv":
                        fold = stratified_folds(y[split.labeled], p["n_folds"], p["seed"] + j)
                        jobs = [(split.labeled[fold != k], split.labeled[fold == k]) for k in range(p["n_folds"])]
                    else:
                        jobs = [(split.labeled, split.test)]
                    scores = np.zeros((2, len(grid)))
                    for train, held in jobs:
                        scores += grid_errors(binary, X, y, split, scenario, train, held, grid, s, workdir, rules)
                    picks = {}
                    for k, side in enumerate(chosen):
                        if np.isnan(scores[k]).all():
                            continue
                        picks[side] = grid[int(np.argmin(scores[k]))]
                        err = grid_errors(binary, X, y, split, scenario, split.labeled, split.test, [picks[side]], s,
                                          workdir, rules)[k, 0]
                        chosen[side].append(err)
                        rows += [{"experiment": "universvm", "task": task, "method": side,
                                  "scenario": scenario, "split": j, "metric": metric, "value": value}
                                 for metric, value in (("test_error", err), ("C", picks[side][0]),
                                                       ("C_star_u", picks[side][1]))]
                    print(f"  {task} {scenario} split {j}: " + "  ".join(
                        f"{side} {chosen[side][-1]:5.1f} (C={picks[side][0]:g}, C*u={picks[side][1]:g})"
                        for side in picks), flush=True)
                pub = published.get((task, "tsvm", scenario), ("-", "-"))
                print(f"{task:<26} {scenario:<11} selected test error: " + "  ".join(
                    f"{side} {np.mean(e):.2f} ± {np.std(e, ddof=1) if len(e) > 1 else 0.0:.2f}"
                    for side, e in chosen.items() if e) + f"  paper {pub[0]} ± {pub[1]}", flush=True)
    return pd.DataFrame(rows)


def grid_errors(binary, X, y, split, scenario, train, held, grid, s, workdir, rules):
    """Errors (%) on ``held`` of tsvm (row 0) and UniverSVM (row 1) fitted on ``train`` ∪ U, per setting."""
    Xl, yl, Xu, Xh, yh = X[train], y[train], X[split.unlabeled], X[held], y[held]
    balance, w_option = constraint(y, split, scenario, train, rules)
    problem = write_problem(workdir, Xl, yl, Xu, Xh, yh)
    errors = np.full((2, len(grid)), np.nan)
    for g, (C, cu) in enumerate(grid):
        if rules.tsvm_only:     # a protocol variant explored with tsvm alone, once both are shown to agree
            from toolkit.transductive import tsvm

            fit = tsvm(Xl, yl, Xu, kernel="linear", C=C, C_star=cu / len(Xu), s=s, balance=balance)
            fits = [(np.asarray(fit.expansion.primal), fit.bias, fit)]
        else:
            fits = fit_both(binary, problem, Xl, yl, Xu, C=C, C_star=cu / len(Xu), s=s, balance=balance,
                            w_option=w_option, extra=rules.extra)
        for k, (w, b, _) in enumerate(fits):
            errors[k, g] = 100.0 * np.mean(np.where(Xh @ w + b >= 0, 1, -1) != yh)
    return errors


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--universvm", type=pathlib.Path, help="path of the built universvm binary")
    parser.add_argument("--summary", nargs="+", metavar="CSV", type=pathlib.Path,
                        help="print the tables of exported files (the --export outputs) and stop")
    parser.add_argument("--experiment", default="gieseke2011", help="gieseke2011 (default) or gieseke2012")
    parser.add_argument("--tasks", nargs="+", help="task names (default: every tsvm task of the experiment)")
    parser.add_argument("--datasets", nargs="+", help="only the tasks on these data sets (e.g. coil20 mnist)")
    parser.add_argument("--splits", type=int, default=10, help="first splits per task (default 10)")
    parser.add_argument("--scenarios", nargs="+", default=["labeled-cv", "test-set"],
                        help="class ratio as in these scenarios (default both)")
    parser.add_argument("--settings", nargs="+", metavar="C:C*u",
                        help="(C, C* u) settings, e.g. 1:1 0.015625:100 (default: 2^-9:1 1:1 1024:0.01 1024:100)")
    parser.add_argument("--quick", action="store_true", help="Gaussian2C [25] and USPS(2,7) [17], 3 splits, 3 settings")
    parser.add_argument("--select", action="store_true", help="the paper's grid and selection with both solvers")
    parser.add_argument("--balance", choices=["scenario", "all"], default="scenario",
                        help="b_c as select sets it (default) or from every label of the split in both scenarios")
    parser.add_argument("--w", choices=["constraint", "fraction"], default="constraint",
                        help="UniverSVM's -w: 2 b_c - 1 (default, tsvm's constraint) or b_c itself (tsvm then "
                             "gets the balance (1 + b_c) / 2 of that same constraint)")
    parser.add_argument("--epsilon", type=float, help="UniverSVM's -e (default: its own, 0.001)")
    parser.add_argument("--tsvm-only", action="store_true",
                        help="with --select: tsvm alone (a protocol variant, once the two are shown to agree)")
    parser.add_argument("--export", nargs="?", const="", metavar="CSV",
                        help="write the per-split rows (default notebooks/experiments/peers/"
                             "universvm_EXPERIMENT_splits.csv.gz, with --select universvm_EXPERIMENT_selected.csv)")
    args = parser.parse_args(argv)
    if args.summary:
        return summarize(args.summary)
    if args.universvm is None:
        parser.error("--universvm is required (the built binary), except with --summary")
    if not args.universvm.is_file():
        parser.error(f"--universvm {args.universvm}: no such file (build it as the docstring says)")
    tasks, n_splits = args.tasks, args.splits
    settings = [tuple(float(v) for v in s.split(":")) for s in args.settings] if args.settings else SETTINGS
    if args.quick:
        tasks = tasks or QUICK["tasks"]
        n_splits = min(n_splits, QUICK["splits"])
        settings = settings if args.settings else QUICK["settings"]
    rules = types.SimpleNamespace(datasets=args.datasets, balance=args.balance, w=args.w, tsvm_only=args.tsvm_only,
                                  extra=() if args.epsilon is None else ("-e", repr(args.epsilon)))
    path = None
    if args.export is not None:
        kind = "selected" if args.select else "splits"
        path = pathlib.Path(args.export or PEERS / f"universvm_{args.experiment}_{kind}.csv{'.gz' if kind == 'splits' else ''}")
        path.parent.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    if args.select:
        frame = select_both(args.universvm.resolve(), args.experiment, tasks, n_splits, args.scenarios, rules)
        if path is not None:
            write_csv(frame, path)
    else:
        frame = compare(args.universvm.resolve(), args.experiment, tasks, n_splits, settings, args.scenarios, rules,
                        export=path)
    if path is not None:
        print(f"{len(frame)} rows -> {path}")
    print(f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
