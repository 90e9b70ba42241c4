"""An experiment's configurations checked by the functions they feed, before any Jupyter kernel starts.

:func:`toolkit.reports.load_experiment` checks the file's structure and its settings; what only the
functions themselves can judge is checked here, by calling them on what each configuration gives:

* every task's data and first split, drawn exactly as ``notebooks/model_selection.ipynb`` draws them
  (:func:`toolkit.data.load`, then :func:`toolkit.data.split` or :func:`toolkit.data.cv_splits`), so
  ``l + u + t`` larger than the data set, a bad loader option or a class the set lacks stop the run
  here with the function's own message;
* every value of every method's ``grid`` and ``fixed``, by :func:`toolkit.selection.select` on a
  small synthetic problem (each grid value once, the other parameters at their first value), so a
  value a solver refuses (``lam = [-1]``, ``n_neighbors = 0``, ``sigma_scale = -1``) stops the run
  here, named as the file writes it. Only refusals that name a parameter of the configuration count:
  anything else is left to the real run, on the real data.

Errors are :class:`~toolkit.reports.ExperimentError` naming the file, the task or method, the key and
its line.
"""
from __future__ import annotations

import re

import numpy as np

from ._experiments import ExperimentError, _line_of

__all__ = ["check_configurations"]

#: Rows of the synthetic problem at least (more when ``n_neighbors`` or ``n_basis`` ask for them).
PROBE_ROWS = 40


def _task_line(path, task):
    try:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.match(rf"^\s*name\s*=\s*[\"']{re.escape(task)}[\"']", line):
                return f", line {number}"
    except OSError:
        pass
    return ""


def _check_data(exp, configurations):
    from toolkit import data

    seen = set()
    for c in configurations:
        p = c.parameters
        key = repr((p["dataset"], p["classes"], sorted(p["options"].items()), p["protocol"], p["l"], p["u"], p["t"],
                    p["v"], p["folds"], p["repeats"], p.get("n_train", -1), p.get("labels", "drawn"), p["seed"],
                    p.get("data_draw", "shared")))
        if key in seen:
            continue
        seen.add(key)
        try:
            options = dict(p["options"])
            if p.get("data_draw", "shared") == "per-split":      # the first partition's draw, as the notebook's
                options["rng"] = p["seed"]
            ds = data.load(p["dataset"], *p["classes"], **options)
            if p["protocol"] == "gieseke":
                data.split(ds, l=p["l"], u=None if p["u"] < 0 else p["u"], t=None if p["t"] < 0 else p["t"],
                           n_train=None if p.get("n_train", -1) < 0 else p["n_train"],
                           stratify=p.get("labels", "drawn") == "per-class", rng=p["seed"])
            else:
                next(iter(data.cv_splits(ds, folds=p["folds"], repeats=p["repeats"], l=p["l"], v=p["v"],
                                         rng=p["seed"])))
        except (ValueError, TypeError, LookupError) as exc:
            raise ExperimentError(f"{exp.path}{_task_line(exp.path, c.task)}: the task {c.task!r} "
                                  f"(dataset {p['dataset']!r}, l = {p['l']}, u = {p['u']}, t = {p['t']}) cannot be "
                                  f"drawn: {exc}") from None


def _probe_problem(values, scenario):
    """A small two-class problem with enough rows for the largest neighbour count or basis asked for."""
    from toolkit.selection import Indices

    ints = [v for k, vs in values.items() if k in ("n_neighbors", "n_basis", "n_coarse") for v in vs
            if isinstance(v, (int, np.integer)) and not isinstance(v, bool)]
    n = max(PROBE_ROWS, 2 * max(ints, default=0) + 20)
    rng = np.random.default_rng(0)
    y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    X = rng.normal(size=(n, 3)) + y[:, None]
    order = np.arange(n)
    labeled, validation, test = order[:8], order[8:16], order[16:26]
    split = Indices(labeled, order[26:], test, validation if scenario == "validation" else None)
    return X, y, split


def _check_methods(exp, configurations):
    from toolkit.selection import select

    tried = set()
    for c in configurations:
        p = c.parameters
        grid, fixed = p["grid"], p["fixed"]
        values = {k: list(v) for k, v in grid.items()}
        values.update({k: [v] for k, v in fixed.items()})
        X, y, split = _probe_problem(values, c.scenario)
        first = {k: v[0] for k, v in grid.items()}
        for key, candidates in ([(None, [None])] + [(k, v) for k, v in grid.items()]):
            for value in candidates:
                probe_fixed = {**fixed, **first, **({} if key is None else {key: value})}
                token = (p["method"], c.scenario, repr(sorted(probe_fixed.items(), key=lambda kv: kv[0])))
                if token in tried:
                    continue
                tried.add(token)
                try:
                    select(p["method"], X, y, split, grid={}, fixed=probe_fixed, scenario=c.scenario,
                           n_folds=2, rng=0, progress=False, n_jobs=1)
                except (ValueError, TypeError) as exc:
                    named = re.search(r"(?:fixed|grid)\['(\w+)'\]", str(exc))
                    if named is None or named.group(1) not in values:
                        continue          # not about a value of this file: left to the real run
                    name = named.group(1)
                    part = "grid" if name in grid else "fixed"
                    shown = value if name == key else probe_fixed[name]
                    inner = re.search(r"is refused by \w+: (.*)$", str(exc), re.S)
                    reason = inner.group(1) if inner else str(exc)
                    raise ExperimentError(f"{exp.path}{_method_line(exp.path, c.method, name, c.task)}: the method "
                                          f"{c.method!r} ({p['method']}) on the task {c.task!r}: {part}.{name} = "
                                          f"{shown!r} is refused: {reason}") from None
                except Exception:         # a synthetic problem is not the real one: anything else is its business
                    continue


def _method_line(path, label, key, task):
    """The line of ``key`` in the ``[[methods]]`` entry of ``label`` (its label or name), else in the
    ``fixed`` of the task ``task``, else of any task."""
    import tomllib

    try:
        spec = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return ""
    for index, entry in enumerate(spec.get("methods", [])):
        if entry.get("label", entry.get("name")) == label and key in {**entry.get("grid", {}), **entry.get("fixed", {})}:
            line = _line_of(path, key, table="methods", index=index)
            return f", {line}" if line else ""
    tasks = list(enumerate(spec.get("tasks", [])))
    for index, entry in sorted(tasks, key=lambda item: item[1].get("name") != task):    # its own task first
        if key in {**entry.get("fixed", {}), **entry.get("method_fixed", {}).get(label, {})}:
            line = _line_of(path, key, table="tasks", index=index)
            return f", {line}" if line else ""
    return ""


def check_configurations(exp, configurations=None):
    """Check an experiment's configurations with the functions they feed (see the module's notes).

    Parameters
    ----------
    exp : Experiment
    configurations : sequence of Configuration, default=None
        Those about to run (default: all of ``exp``'s).

    Raises
    ------
    ExperimentError
        Naming the file, the task or method, the key and its line.
    """
    import warnings

    configurations = exp.configurations if configurations is None else configurations
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")        # convergence notes on a synthetic problem mean nothing
        _check_data(exp, configurations)
        _check_methods(exp, configurations)
