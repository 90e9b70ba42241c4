"""select(): choose a solver's parameters on one split under one of the papers' scenarios, refit, score.

See :mod:`toolkit.selection` for the scenarios. The pieces: :class:`Indices` (a split as index
arrays), the jobs (one per kernel setting and fold, each computing its kernel once), the tidy
table, the 1-SE rule (:func:`toolkit._cv.one_standard_error`) and the refit.
"""
from __future__ import annotations

import contextlib
import itertools
import json
import re
import numbers
import time
import warnings
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from toolkit._contract import DegenerateFitWarning
from toolkit._cv import one_standard_error, stratified_folds
from toolkit._display import Result
from toolkit._methods import KERNEL_PARAMS, METHODS, Method, current_names, get_method, two_classes
from toolkit._validation import (check_consistent_rows, check_disjoint, check_indices, check_matrix, check_option,
                                 check_rng, check_scalar)
from toolkit.kernels import KERNELS
from toolkit.specs import flat_name
from toolkit.selection._cache import GraphCache, kernel_for
from toolkit._dask import check_scheduler
from toolkit.selection._splitter import SCENARIOS, scenario_label

__all__ = ["select", "Selection", "Indices", "TIDY_COLUMNS"]

TIDY_COLUMNS = ("dataset", "task", "split", "method", "params", "scenario", "fold", "metric", "value",
                "seconds", "seed")


@dataclass(frozen=True)
class Indices:
    """One split as index arrays into ``X``: labelled, unlabelled, test and (optional) validation rows."""

    labeled: np.ndarray
    unlabeled: np.ndarray
    test: np.ndarray
    validation: np.ndarray | None = None

    @classmethod
    def of(cls, split) -> "Indices":
        """Read a split object (``toolkit.data.split`` result, mapping, or tuple ``(l, u, t[, v])``)."""
        if isinstance(split, Indices):
            return split
        if isinstance(split, (tuple, list)):
            if not 3 <= len(split) <= 4:
                raise TypeError("A split given as a tuple must be (labeled, unlabeled, test[, validation]). "
                                f"Got {len(split)} entries instead.")
            return cls(*[None if s is None else np.asarray(s) for s in split])

        def get(*names):
            for name in names:
                value = split.get(name) if isinstance(split, Mapping) else getattr(split, name, None)
                if value is not None:
                    return np.asarray(value)   # kept as given: select refuses float or negative indices
            return None

        labeled = get("labeled", "labelled", "L", "l")
        unlabeled = get("unlabeled", "unlabelled", "U", "u")
        test = get("test", "T", "t")
        if labeled is None or unlabeled is None or test is None:
            raise TypeError("A split must give 'labeled', 'unlabeled' and 'test' index arrays. "
                            f"Got {type(split).__name__} instead.")
        return cls(labeled, unlabeled, test, get("validation", "V", "v"))


def _params_key(params: Mapping[str, Any]) -> str:
    return json.dumps({k: params[k] for k in sorted(params)}, sort_keys=True, default=float)


def _expand_grid(grid: Mapping[str, Sequence]) -> list[dict]:
    names = list(grid)
    values = [list(v) if isinstance(v, (list, tuple, np.ndarray)) else [v] for v in grid.values()]
    return [dict(zip(names, combo)) for combo in itertools.product(*values)]


def _error(model, X, y) -> float:
    if len(y) == 0:
        return float("nan")
    return float(np.mean(np.asarray(model.predict(X)) != np.asarray(y)) * 100.0)


def _take(X, idx):
    """Rows ``idx`` of ``X``, read-only: select's copies are never written, and a frozen array's hash
    (the kernel cache's key) is computed once."""
    rows = X[idx]
    if isinstance(rows, np.ndarray):
        rows.setflags(write=False)
    return rows


#: Early-stopping rules that read a labelled validation set inside the solver (Melacci & Belkin §4.1).
VALIDATION_STOPS = ("validation", "mixed")


def _solver_extras(method: Method, params, X, y, graphs, validation):
    """What select hands a solver besides its parameters: the selection's graph cache, and the split's
    validation points ``(X_V, y_V)`` when the solver's early-stopping rule reads them."""
    extras = {"graphs": graphs} if method.shares_graph else {}
    if (method.validation_param and params.get("stop") in VALIDATION_STOPS and validation is not None
            and len(validation)):
        extras[method.validation_param] = (_take(X, validation), y[validation])
    return extras


def _run_job(method: Method, X, y, jobs_grid, fold, train_l, train_u, evals, kparams, width, seed, base,
             warm_start=True, graphs=None, validation=None):
    """Fit every non-kernel parameter combination of one (kernel, fold) job; return tidy rows.

    A candidate that predicts one class everywhere (:class:`toolkit.DegenerateFitWarning`) is
    scored like any other, its error records the poor fit: the warning is kept for the refit."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateFitWarning)
        return _run_job_fits(method, X, y, jobs_grid, fold, train_l, train_u, evals, kparams, width, seed, base,
                             warm_start=warm_start, graphs=graphs, validation=validation)


def _run_job_fits(method: Method, X, y, jobs_grid, fold, train_l, train_u, evals, kparams, width, seed, base,
                  warm_start=True, graphs=None, validation=None):
    kernel = kernel_for(kparams, width)
    Xl, yl, Xu = _take(X, train_l), y[train_l], _take(X, train_u)
    rows = []
    points = {metric: (_take(X, idx), y[idx]) for metric, idx in evals.items()}

    def emit(params, model, seconds):
        full = {**kparams, **params}
        for metric, (X_eval, y_eval) in points.items():
            rows.append({**base, "params": _params_key(full), "fold": fold, "metric": metric,
                         "value": _error(model, X_eval, y_eval), "seconds": seconds, "seed": seed})

    path_values = None
    if method.fit_path is not None and method.path_param and all(method.path_param in p for p in jobs_grid):
        groups: dict[str, list] = {}
        for p in jobs_grid:
            rest = {k: v for k, v in p.items() if k != method.path_param}
            groups.setdefault(_params_key(rest), []).append(p)
        for members in groups.values():
            rest = {k: v for k, v in members[0].items() if k != method.path_param}
            path_values = [m[method.path_param] for m in members]
            start = time.perf_counter()
            models = method.fit_path(Xl, yl, Xu, path_values, kernel=kernel, rng=seed, **rest)
            seconds = (time.perf_counter() - start) / len(members)
            for p, model in zip(members, models):
                emit(p, model, seconds)
        return rows
    previous, previous_params = None, None
    for params in jobs_grid:
        extra = {}
        if (warm_start and method.warm_start and previous is not None
                and all(params.get(k) == previous_params.get(k) for k in method.warm_same)):
            extra = {method.warm_start: method.warm_value(previous) if method.warm_value else previous}
        start = time.perf_counter()
        model = method.fit(Xl, yl, Xu, kernel=kernel, rng=seed, **_solver_extras(method, params, X, y, graphs,
                                                                                 validation), **params, **extra)
        emit(params, model, time.perf_counter() - start)
        previous, previous_params = model, params
    return rows


@dataclass(frozen=True, repr=False)
class Selection(Result):
    """Result of :func:`select`.

    Attributes
    ----------
    results : pandas.DataFrame
        The tidy table: dataset, task, split, method, params (JSON), scenario, fold, metric, value
        (errors in percent), seconds, seed. Selection rows have the fold number (``labeled-cv``)
        or ``"all"``; the refit has fold ``"refit"``.
    summary_table : pandas.DataFrame
        One row per parameter combination: mean and standard error of the selection metric.
    lambda_min : dict
        Parameters with the smallest mean selection error (ties: the first in grid order).
    lambda_1se : dict
        The simplest parameters (by the method's regularisation parameter) whose mean error is
        within one standard error of the minimum (only differs from ``lambda_min`` for
        ``"labeled-cv"``, where a standard error exists).
    best_params : dict
        The parameters that were refitted (``lambda_min`` or ``lambda_1se``, see ``refit``).
    model : object or None
        The refitted model (``predict``, ``decision_function``).
    test_error, unlabeled_error : float
        Errors (percent) of the refitted model on the test and the unlabelled points.
    scenario : str
        Scenario label (``"test-set (non-realistic)"`` for the test-set scenario).
    method, seed, realistic
    refit_n_iter : int or None
        The refitted solver's ``n_iter`` (PCG iterations, Newton steps, restarts, path events); None
        for models without one. ``results`` holds it as the refit's metric ``"n_iter"``, for a
        one-vs-all Laplacian model as the mean over its binary problems (``n_iter_per_problem``: the
        count of one binary classifier, what LapSVMp, a binary solver, reports).
    """

    results: Any
    summary_table: Any
    lambda_min: dict
    lambda_1se: dict
    best_params: dict
    model: Any
    test_error: float
    unlabeled_error: float
    scenario: str
    method: str
    seed: int | None
    realistic: bool
    refit_n_iter: int | None = None

    def plot(self, param=None, ax=None):
        """Selection error (mean ± se over folds) along ``param`` (default: the method's
        regularisation parameter), the other parameters at ``lambda_min``; ``lambda_min`` and
        ``lambda_1se`` marked, as glmnet's ``plot.cv.glmnet``."""
        import matplotlib.pyplot as plt

        m = METHODS.get(self.method)
        if param is None:
            param = m.regularization[0] if m is not None and m.regularization else next(iter(self.lambda_min))
        rest = {k: v for k, v in self.lambda_min.items() if k != param}
        rows = [(json.loads(p), mean, se) for p, mean, se in
                zip(self.summary_table["params"], self.summary_table["mean"], self.summary_table["se"])]
        curve = sorted((p[param], mean, se) for p, mean, se in rows
                       if param in p and all(p.get(k) == v for k, v in rest.items()))
        if ax is None:
            _, ax = plt.subplots(figsize=(5, 3.2))
        x = np.array([c[0] for c in curve], dtype=float)
        ax.errorbar(x, [c[1] for c in curve], yerr=[c[2] for c in curve], marker="o", capsize=3)
        if (x > 0).all():
            ax.set_xscale("log")
        for name, chosen, style in (("lambda_min", self.lambda_min, "--"), ("lambda_1se", self.lambda_1se, ":")):
            if param in chosen:
                ax.axvline(float(chosen[param]), color="gray", linestyle=style, label=f"{name} = {chosen[param]:g}")
        ax.set_xlabel(param)
        ax.set_ylabel("selection error (%)")
        ax.set_title(f"{self.method}, {self.scenario}", fontsize=10)
        ax.legend(fontsize=8)
        return ax.figure

    @property
    def _title(self):
        return (f"Model selection for {self.method!r}, scenario {self.scenario}"
                + ("" if self.realistic else "  [NON-REALISTIC: parameters chosen on the test set]"))

    def _rows(self):
        return [("lambda_min", self.lambda_min), ("lambda_1se", self.lambda_1se), ("refitted", self.best_params),
                ("test error", f"{self.test_error:.2f} %"), ("unlabelled error", f"{self.unlabeled_error:.2f} %"),
                ("seed", self.seed)]

    def _tables(self):
        return [("Selection error per parameter combination (the first 20, in grid order)",
                 self.summary_table.head(20))]

    def _brief(self):
        return (f"method={self.method!r}, scenario={self.scenario!r}, lambda_min={self.lambda_min}, "
                f"test_error={self.test_error:.2f}")


def select(method, X, y, split, *, grid=None, scenario="labeled-cv", n_folds=5, fixed=None,
           refit="min", warm_start=True, n_jobs=None, scheduler=None, rng=None, progress=None, dataset="", task="",
           split_id=0):
    """Choose a solver's parameters on one split, refit, and score on the test points.

    For every parameter combination θ of ``grid`` the selection error ``CV(θ)`` is the mean error
    over the folds of the labelled points (or on V, or on T, by ``scenario``); ``lambda_min`` is
    ``argmin_θ CV(θ)`` and ``lambda_1se`` the most regularised θ with
    ``CV(θ) <= CV(lambda_min) + SE(lambda_min)`` (the one-standard-error rule of Hastie,
    Tibshirani & Friedman, *The Elements of Statistical Learning*, §7.10; ``"labeled-cv"`` only,
    elsewhere ``lambda_1se = lambda_min``).

    Parameters
    ----------
    method : str or Method
        A registry name (see :func:`available_methods`), e.g. ``"rlsc"``, ``"s2rlsc"``, ``"lapsvm"``.
    X : array-like or sparse matrix of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        The true labels of every row (two classes); the labels of unlabelled and test rows are
        only used to score. Labelled, validation and test rows need labels of the two labelled
        classes; an unlabelled row may have NaN (unknown), and ``unlabeled_error`` is then
        computed over the unlabelled rows with known labels (NaN when there are none).
    split : Indices, mapping or object with ``labeled``, ``unlabeled``, ``test`` (and optionally
        ``validation``) index arrays, e.g. the result of ``toolkit.data.split``. Distinct,
        non-negative integer row indices below ``n_samples``; the sets are disjoint, except that
        ``test`` may be the very set ``unlabeled`` (transductive evaluation, as in
        ``toolkit.data.fixed_splits``). ``test`` must not be empty when it is scored (``refit``
        or ``scenario="test-set"``).
    grid : mapping, default=None
        Parameter -> values (at least one each; ``{}`` fits the ``fixed`` parameters without
        selection: scored on V or T, that one model is fitted once, as the refit); ``None`` uses
        the method's default grid. Kernel parameters
        (``kernel``, ``sigma``, ``sigma_scale`` = multiples of the width heuristic ``s``,
        ``kernel_degree``) may be gridded too; one kernel matrix is computed per kernel setting and fold.
    scenario : {"labeled-cv", "test-set", "validation"}, default="labeled-cv"
        See the module docstring; ``"test-set"`` is labelled non-realistic in every output.
    n_folds : int, default=5
        Folds of the labelled points for ``"labeled-cv"``, stratified by class: some class needs
        at least ``n_folds`` labelled points. A class with a single labelled point is never held
        out (it stays in every training fold, which would otherwise miss it); the CV error is
        then over the held-out points of the other classes.
    fixed : mapping, default=None
        Parameters passed unchanged to every fit (e.g. ``{"kernel": "rbf", "sigma_scale": 0.5}``).
    refit : {"min", "1se"} or False, default="min"
        Which selected parameters to refit on ``L ∪ U``.
    warm_start : bool, default=True
        Start each fit of a job from the previous grid point's solution, for solvers that accept
        one (LapSVM / LapRLSC ``x0``). Early-stopped solvers may then stop at slightly different
        points than from a cold start; pass False for cold starts.
    n_jobs : int, default=None
        joblib workers (local processes) over the (kernel setting, fold) jobs; ``None`` or 1 runs
        them in this process. Not used with a ``scheduler``: the cluster's worker threads run them.
    scheduler : None, str or distributed.Client, default=None
        Where the jobs run. ``None``: here, in ``n_jobs`` local processes. A Dask scheduler address
        (``"tcp://HOST:8786"``) or a ``distributed.Client``: on that cluster, through joblib's dask
        backend, one task per (kernel setting, fold) job, so that a job's kernel matrix and
        eigendecomposition are computed and reused on the one worker that runs it and never cross
        the network; ``X`` and ``y`` are scattered to the workers once, and each task ships back its
        tidy rows. A client opened for an address is closed when ``select`` returns (connection
        timeout 10 s); a client given is left open. The refit on ``L ∪ U`` runs here. The results
        are those of the local run (rows in the same order), the ``seconds`` column aside. Needs
        ``dask[distributed]``.
    rng : None, int or numpy Generator, default=None
        Seed for the folds and the randomised solvers; stored in the results.
    progress : bool, default=None
        tqdm progress bar (a widget in JupyterLab with the ``[lab]`` extra, text otherwise);
        ``None`` shows it when there is more than one job.
    dataset, task, split_id : str, str, int, default="", "", 0
        Labels written into the tidy table.

    Returns
    -------
    Selection
        The tidy table ``results`` (every fit's errors and seconds), ``summary_table``,
        ``lambda_min``, ``lambda_1se``, ``best_params``, the refitted ``model`` and its
        ``test_error`` / ``unlabeled_error``.

    Notes
    -----
    Cost: (number of kernel settings) × (folds + 1) kernel matrices, and one fit per parameter
    combination and fold (one path per fold for methods that have a solution path).

    The jobs are independent, so ``n_jobs`` processes or a cluster's workers run them side by side;
    each job needs its n_train × n_train kernel (8 n_train² bytes in float64) in its worker's
    memory.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import make_moons
    >>> X, y = make_moons(120, noise=0.1, random_state=0); y = 2 * y - 1
    >>> split = Indices(np.arange(20), np.arange(20, 80), np.arange(80, 120))
    >>> cv = select("rlsc", X, y, split, grid={"lam": [0.01, 1.0]}, fixed={"kernel": "rbf", "sigma": 0.5},
    ...             rng=0, progress=False)
    >>> sorted(cv.lambda_min)
    ['kernel', 'lam', 'sigma']
    """
    import pandas as pd

    m = get_method(method)
    check_option(scenario, "scenario", "select", SCENARIOS)
    if refit not in ("min", "1se", False):
        raise ValueError(f"The 'refit' parameter of select must be one of 'min', '1se', False. Got {refit!r} instead.")
    n_folds = check_scalar(n_folds, "n_folds", "select", kind=numbers.Integral, low=2)
    scheduler = check_scheduler(scheduler, "select")
    generator, seed = check_rng(rng)
    if seed is None:
        seed = int(generator.integers(2**31))
    X, y, idx, classes, known_unlabeled = _check_data(X, y, Indices.of(split), scenario, refit, m)
    grid, fixed = _check_grid(m, grid, fixed)
    if scenario == "validation" and (idx.validation is None or len(idx.validation) == 0):
        raise ValueError("scenario='validation' needs a split with 'validation' indices.")
    if scenario == "test-set" and m.balance_param and m.balance_param not in grid and m.balance_param not in fixed:
        # the non-realistic scenario estimates b_c from all available labels (Gieseke et al. 2012, §4.1.2)
        pos = two_classes(y[idx.labeled])[0][1]
        all_lab = np.unique(np.concatenate([idx.labeled, idx.unlabeled[known_unlabeled], idx.test]))
        fixed[m.balance_param] = float(np.mean(y[all_lab] == pos))
    combos = [{**fixed, **c} for c in _expand_grid(grid)] or [dict(fixed)]
    kernel_groups: dict[str, tuple[dict, list]] = {}
    for c in combos:
        kp = {k: v for k, v in c.items() if k in KERNEL_PARAMS}
        rest = {k: v for k, v in c.items() if k not in KERNEL_PARAMS}
        kernel_groups.setdefault(_params_key(kp), (kp, []))[1].append(rest)
    width = None
    if any("sigma_scale" in c for c in combos):
        from toolkit.kernels import width_heuristic

        width = width_heuristic(_take(X, np.concatenate([idx.labeled, idx.unlabeled])))

    label = scenario_label(scenario)
    base = {"dataset": dataset, "task": task, "split": split_id, "method": m.name, "scenario": label}
    metric, target, jobs = _jobs(scenario, y, idx, list(kernel_groups.values()), n_folds, seed)

    with _in_callers_terms(m, grid, fixed):      # a value the caller gave, refused inside a fit
        graphs = GraphCache()        # this selection's own L^p per fold: nothing shared with another call

        def fit_on_training_set(params):
            """The model with ``params`` fitted on L ∪ U (the refit), and its time."""
            kp = {k: v for k, v in params.items() if k in KERNEL_PARAMS}
            rest = {k: v for k, v in params.items() if k not in KERNEL_PARAMS}
            start = time.perf_counter()
            fitted = m.fit(_take(X, idx.labeled), y[idx.labeled], _take(X, idx.unlabeled),
                           kernel=kernel_for(kp, width), rng=seed,
                           **_solver_extras(m, rest, X, y, graphs, idx.validation), **rest)
            return fitted, time.perf_counter() - start

        # one combination scored on V or T: the selection fit *is* the refit (same data, same seed), fit once
        no_choice = scenario != "labeled-cv" and len(combos) == 1 and bool(refit)
        if no_choice:
            model, refit_seconds = fit_on_training_set(combos[0])
            rows = [{**base, "params": _params_key(combos[0]), "fold": "all", "metric": metric,  # no fit of its
                     "value": _error(model, _take(X, target), y[target]), "seconds": 0.0,  # own: the refit's
                     "seed": seed}]
        else:
            rows = _execute(m, X, y, jobs, width, seed, base, n_jobs=n_jobs, progress=progress,
                            warm_start=warm_start, graphs=graphs, validation=idx.validation, scheduler=scheduler)
        table = pd.DataFrame(rows, columns=list(TIDY_COLUMNS))
        summary_table, lambda_min, lambda_1se = _choose(table, metric, combos, m, scenario)
        summary_table.insert(0, "scenario", label)
        summary_table.insert(0, "method", m.name)

        test_error, unlabeled_error, refit_n_iter = float("nan"), float("nan"), None
        if not no_choice:
            model = None
        best = lambda_min if refit in ("min", False) else lambda_1se
        if refit:
            if no_choice:
                seconds = refit_seconds
            else:
                model, seconds = fit_on_training_set(best)
            extra, refit_n_iter = _refit_scores(model, X, y, idx, known_unlabeled)
            test_error, unlabeled_error = extra[0][1], extra[1][1]
            refit_rows = [{**base, "params": _params_key(best), "fold": "refit", "metric": name, "value": value,
                           "seconds": seconds, "seed": seed} for name, value in extra]
            table = pd.concat([table, pd.DataFrame(refit_rows, columns=list(TIDY_COLUMNS))], ignore_index=True)
        table["fold"] = table["fold"].astype(str)
        return Selection(results=table, summary_table=summary_table, lambda_min=lambda_min, lambda_1se=lambda_1se,
                         best_params=best, model=model, test_error=test_error, unlabeled_error=unlabeled_error,
                         scenario=label, method=m.name, seed=seed, realistic=scenario != "test-set",
                         refit_n_iter=refit_n_iter)


def _jobs(scenario, y, idx, kernel_groups, n_folds, seed):
    """The selection metric, the rows it is scored on (V or T; None for folds) and the jobs: one per
    (fold, kernel setting), as ``(fold, labelled rows, unlabelled rows, {metric: scored rows},
    kernel parameters, other parameter combinations)``."""
    jobs = []
    target = None
    if scenario == "labeled-cv":
        metric = "cv_error"
        labels, counts = np.unique(y[idx.labeled], return_counts=True)
        if counts.max() < max(n_folds, 2):
            per_class = ", ".join(f"{c!r}: {k}" for c, k in zip(labels.tolist(), counts.tolist()))
            raise ValueError(f"The 'n_folds' parameter of select (scenario 'labeled-cv') needs at least "
                             f"n_folds={n_folds} labelled points in some class, so that the stratified folds exist. "
                             f"Got {{{per_class}}} labelled points per class instead; lower 'n_folds' or label more "
                             "points.")
        fold = _labeled_folds(y[idx.labeled], labels[counts >= 2], n_folds, seed)
        for k in range(n_folds):
            train, test = idx.labeled[fold != k], idx.labeled[fold == k]
            for kp, rest in kernel_groups:
                jobs.append((k, train, idx.unlabeled, {metric: test}, kp, rest))
    else:
        metric = "test_error" if scenario == "test-set" else "validation_error"
        target = idx.test if scenario == "test-set" else idx.validation
        for kp, rest in kernel_groups:
            jobs.append(("all", idx.labeled, idx.unlabeled, {metric: target}, kp, rest))
    return metric, target, jobs


def _labeled_folds(y_labeled, held_out, n_folds, seed):
    """Fold number of each labelled point (the toolkit's one assignment, :func:`toolkit._cv.stratified_folds`)
    over the points of the classes ``held_out``; -1 (never held out, in every training fold) for the
    others, the classes of a single labelled point, which a training fold would otherwise miss."""
    fold = np.full(y_labeled.shape[0], -1, dtype=np.int64)
    cv_rows = np.isin(y_labeled, held_out)
    fold[cv_rows] = stratified_folds(y_labeled[cv_rows], n_folds, seed)
    return fold


def _choose(table, metric, combos, m, scenario):
    """The summary of the selection metric per combination (mean, sd, n, se, in grid order) and the
    chosen parameters: ``lambda_min`` and, from the fold means, glmnet's ``lambda_1se``."""
    sel = table[table["metric"] == metric]
    order = {key: i for i, key in enumerate(_params_key(c) for c in combos)}
    summary_table = (sel.groupby("params", sort=False)["value"]
                     .agg(mean="mean", sd="std", n="count").reset_index())
    summary_table["se"] = summary_table["sd"].fillna(0.0) / np.sqrt(summary_table["n"])
    summary_table["order"] = summary_table["params"].map(order)
    summary_table = summary_table.sort_values("order").drop(columns="order").reset_index(drop=True)
    means = summary_table["mean"].to_numpy()
    decoded = [json.loads(p) for p in summary_table["params"]]
    strength = None                   # how simple each model is: the method's regularisation parameter
    if m.regularization is not None and all(m.regularization[0] in d for d in decoded):
        param, direction = m.regularization
        strength = [(1.0 if direction == "larger" else -1.0) * float(d[param]) for d in decoded]
    # glmnet's rule, the toolkit's one implementation; ties at the minimum go to the first combination
    # in grid order (scikit-learn's GridSearchCV), at the 1-SE point to the smaller error, then grid order
    best_i, i_1se = one_standard_error(means, summary_table["se"].to_numpy(), strength=strength, tol=1e-12)
    lambda_min = decoded[best_i]
    lambda_1se = decoded[i_1se] if scenario == "labeled-cv" else lambda_min
    return summary_table, lambda_min, lambda_1se


def _refit_scores(model, X, y, idx, known_unlabeled):
    """The refit's ``(metric, value)`` rows (test, unlabelled, validation errors in %; ``solve_seconds``
    and ``n_iter`` when the model reports them) and its ``n_iter`` (None without)."""
    Xu = _take(X, idx.unlabeled)
    extra = [("test_error", _error(model, _take(X, idx.test), y[idx.test])),
             ("unlabeled_error", _error(model, _take(Xu, np.flatnonzero(known_unlabeled)),
                                        y[idx.unlabeled][known_unlabeled]))]
    if idx.validation is not None and len(idx.validation):
        extra.append(("validation_error", _error(model, _take(X, idx.validation), y[idx.validation])))
    timings = getattr(model, "timings", None)
    if isinstance(timings, Mapping) and isinstance(timings.get("solve"), numbers.Real):
        extra.append(("solve_seconds", float(timings["solve"])))    # the solver alone (no kernel, no graph)
    n_iter = getattr(model, "n_iter", None)
    if not isinstance(n_iter, (numbers.Integral, np.integer)):
        return extra, None
    # iterations / restarts / events of the refit; a one-vs-all model's per binary problem, averaged
    per_problem = getattr(model, "n_iter_per_problem", None)
    extra.append(("n_iter", float(np.mean(per_problem)) if per_problem is not None else int(n_iter)))
    # an iterative solver's line-search iterations (the linear pieces its exact line searches examine)
    # per iteration, over every binary problem (Melacci & Belkin's Table 6 "LS Iters")
    n_line_search = getattr(model, "n_line_search", None)
    if isinstance(n_line_search, (numbers.Integral, np.integer)) and n_line_search > 0:
        iterations = float(np.sum(per_problem)) if per_problem is not None else float(n_iter)
        extra.append(("line_search_per_iter", n_line_search / max(iterations, 1.0)))
    return extra, int(n_iter)


def _check_data(X, y, idx, scenario, refit, method):
    """Validate ``X``, ``y`` and the split against each other, once, at the boundary of :func:`select`.

    Returns ``X`` (float array or CSR), ``y``, the split with int64 indices, the two labelled
    classes and the mask of unlabelled rows whose label is known (one of the classes).
    """
    func = "select"
    X = check_matrix(X, "X", func)
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"The 'y' parameter of {func} must be a 1-d array of labels. Got an array of shape "
                         f"{y.shape} instead.")
    if y.dtype.kind == "c":
        raise TypeError(f"The 'y' parameter of {func} must hold real class labels. Got dtype {y.dtype} instead.")
    check_consistent_rows(func, X=X, y=y)
    n = X.shape[0]
    sets = {name: check_indices(getattr(idx, name), name, func, n)
            for name in ("labeled", "unlabeled", "test")}
    sets["validation"] = None if idx.validation is None else check_indices(idx.validation, "validation", func, n)
    check_disjoint(func, allow_equal=(("test", "unlabeled"),), **sets)
    idx = Indices(sets["labeled"], sets["unlabeled"], sets["test"], sets["validation"])
    if idx.test.size == 0 and (refit or scenario == "test-set"):
        raise ValueError(f"The 'test' indices of the split given to {func} must not be empty: the test error is "
                         f"computed from them{' (scenario test-set selects on them)' if scenario == 'test-set' else ''}. "
                         "Got 0 test rows instead; pass refit=False to skip the refit.")
    if idx.labeled.size == 0:
        raise ValueError(f"The 'labeled' indices of the split given to {func} must not be empty. Got 0 rows instead.")
    y_labeled = y[idx.labeled]
    if y.dtype.kind == "f" and not np.all(np.isfinite(y_labeled)):
        bad = idx.labeled[~np.isfinite(y_labeled)]
        raise ValueError(f"The 'y' parameter of {func} must have a finite label on every labelled row. "
                         f"Got NaN or inf on {bad.size} labelled rows (e.g. row {int(bad[0])}) instead.")
    classes = np.unique(y_labeled)
    if classes.size < 2 or (classes.size > 2 and not method.multiclass):
        want = ("at least two classes" if method.multiclass else "exactly two classes"
                + (f" ({method.name} is a two-class solver)" if classes.size > 2 else ""))
        raise ValueError(f"The 'y' parameter of {func} must give the labelled rows {want}. "
                         f"Got {classes.tolist()} instead.")
    for name in ("test", "validation"):
        rows = getattr(idx, name)
        if rows is None or rows.size == 0:
            continue
        other = ~np.isin(y[rows], classes)
        if other.any():
            shown = ", ".join(repr(v) for v in np.unique(y[rows][other])[:3].tolist())
            raise ValueError(f"The 'y' parameter of {func} must give every {name} row a label of the labelled classes "
                             f"{classes.tolist()} (NaN is not a label: {name} rows are scored). Got {int(other.sum())} "
                             f"{name} rows labelled otherwise (e.g. row {int(rows[other][0])}: {shown}) instead.")
    known = np.isin(y[idx.unlabeled], classes)
    other = y[idx.unlabeled][~known]
    if y.dtype.kind == "f":
        other = other[~np.isnan(other)]      # NaN: the label of an unlabelled row is unknown
    if other.size:
        shown = ", ".join(repr(v) for v in np.unique(other)[:3].tolist())
        raise ValueError(f"The 'y' parameter of {func} must give every unlabelled row a label of the labelled classes "
                         f"{classes.tolist()} or NaN (unknown). Got {other.size} unlabelled rows labelled "
                         f"otherwise ({shown}) instead.")
    return X, y, idx, classes, known


def _check_grid(m, grid, fixed):
    """The parameter grid and fixed parameters of :func:`select`: mappings of known names, no empty value list."""
    func = "select"
    default = grid is None
    grid = m.grid if default else grid
    if not isinstance(grid, Mapping):
        raise TypeError(f"The 'grid' parameter of {func} must be a mapping of parameter -> values. "
                        f"Got {type(grid).__name__} instead.")
    fixed = {} if fixed is None else fixed
    if not isinstance(fixed, Mapping):
        raise TypeError(f"The 'fixed' parameter of {func} must be a mapping of parameter -> value. "
                        f"Got {type(fixed).__name__} instead.")
    grid = dict(grid) if default else current_names(grid, f"{func}: grid", stacklevel=4)
    fixed = current_names(fixed, f"{func}: fixed", stacklevel=4)
    for name in list(grid) + list(fixed):
        if name not in m.valid_params:
            raise ValueError(f"Unknown parameter {name!r} for method {m.name!r}. "
                             f"Valid parameters: {', '.join(m.valid_params)}.")
    both = sorted(set(grid) & set(fixed))
    if both and default:       # the method's default grid searches what the caller fixed: the caller's value
        grid = {name: values for name, values in grid.items() if name not in fixed}
    elif both:
        raise ValueError(f"The 'grid' and 'fixed' parameters of {func} both set {', '.join(map(repr, both))}: a "
                         f"parameter is either searched or fixed. Got grid values {[grid[b] for b in both]} and "
                         f"fixed values {[fixed[b] for b in both]} instead.")
    for name, values in grid.items():
        if isinstance(values, (list, tuple, np.ndarray)) and len(values) == 0:
            raise ValueError(f"The 'grid' parameter of {func} must give at least one value for every parameter "
                             f"(an empty grid {{}} fits the fixed parameters). Got no values for {name!r} instead.")
    # the kernel's own parameters are select's to read (sigma_scale becomes sigma = sigma_scale × width):
    # checked here, named as the caller wrote them, not as the derived value a solver would see
    for part, table in (("grid", grid), ("fixed", fixed)):
        for name in KERNEL_PARAMS:
            if name not in table:
                continue
            values = table[name] if part == "grid" and isinstance(table[name], (list, tuple, np.ndarray)) \
                else [table[name]]
            for value in values:
                where = f"{part}['{name}']"
                if name == "kernel" and not callable(value):
                    check_option(value, where, func, KERNELS)
                elif name in ("sigma", "sigma_scale") and value is not None and not isinstance(value, str):
                    check_scalar(value, where, func, low=0.0, low_closed=False)
                elif name == "kernel_degree":
                    check_scalar(value, where, func, kind=numbers.Integral, low=1)
    return grid, fixed


_NAMED_PARAMETER = re.compile(r"The '(\w+)' parameter of (\w+)")


@contextlib.contextmanager
def _in_callers_terms(m, grid, fixed):
    """Re-raise a solver's refusal of a value the caller gave in ``grid`` or ``fixed`` naming it there
    (``fixed['n_neighbors'] = 0``) before the inner function that checked it (``knn_graph``); any other
    error passes unchanged."""
    try:
        yield
    except (ValueError, TypeError) as exc:
        found = _NAMED_PARAMETER.search(str(exc))
        name, inner = found.groups() if found else (None, None)
        name = flat_name(inner, name) or name          # a spec's field under the caller's flat name
        for part, table in (("fixed", fixed), ("grid", grid)):
            if name in table:
                raise type(exc)(f"select('{m.name}'): {part}['{name}'] = {table[name]!r} is refused by {inner}: "
                                f"{exc}") from exc
        raise


def _run_numbered_job(number, *args):
    """One job of :func:`_execute` in a worker, and its number: parallel jobs finish in any order, the rows
    are put back in job order (the serial order) so that every backend gives the same table.

    Inside, joblib runs sequentially: a job is the unit of parallelism, and on a Dask worker a nested
    ``Parallel`` (scikit-learn's neighbour queries of the graph) would otherwise send its pieces, and
    the data they read, back to the cluster as tasks of their own."""
    from joblib import parallel_config

    with parallel_config(backend="sequential"):
        return number, _run_job(*args)


def _execute(method, X, y, jobs, width, seed, base, *, n_jobs, progress, warm_start=True, graphs=None,
             validation=None, scheduler=None):
    """Run the jobs (serially, with joblib's local processes, or on a Dask cluster through joblib's
    dask backend), with a tqdm progress bar; return the rows in job order."""
    from joblib import delayed

    from toolkit._compat import unordered_parallel

    show = (len(jobs) > 1) if progress is None else bool(progress)
    bar = None
    if show:
        from toolkit._progress import tqdm

        bar = tqdm(total=len(jobs), desc=f"select {method.name}", leave=False)
    parts: list[list[dict]] = [[] for _ in jobs]

    def run_parallel(n_workers):
        parallel = unordered_parallel(n_workers)
        for number, part in parallel(delayed(_run_numbered_job)(
                number, method, X, y, job[5], job[0], job[1], job[2], job[3], job[4], width, seed, base,
                warm_start, graphs, validation) for number, job in enumerate(jobs)):
            parts[number] = part
            if bar is not None:
                bar.update()

    try:
        if scheduler is not None:
            from toolkit._dask import dask_backend, dask_client

            # one task per (kernel setting, fold) job: its kernel and eigendecomposition stay on the worker
            with dask_client(scheduler) as client, dask_backend(client):
                run_parallel(-1)
        elif n_jobs in (None, 1) or len(jobs) == 1:
            for number, job in enumerate(jobs):
                parts[number] = _run_job(method, X, y, job[5], job[0], job[1], job[2], job[3], job[4], width, seed,
                                         base, warm_start, graphs, validation)
                if bar is not None:
                    bar.update()
        else:
            run_parallel(n_jobs)
    finally:
        if bar is not None:
            bar.close()
    return [row for part in parts for row in part]
