"""Experiments declared in small TOML files (``notebooks/experiments/NAME.toml``), validated up front.

A file has top-level settings, ``[[tasks]]`` (data set, classes, options, split sizes, fixed
parameters, parameters fixed per method), ``[[methods]]`` (registry name, grid, fixed parameters,
label) and optionally ``[[published]]`` numbers with their citation and a ``[quick]`` table of
overrides for ``--quick``. Every task × method × scenario is one *configuration*: one execution of
``notebooks/model_selection.ipynb`` over the task's splits. A method without a grid is fitted with
its fixed parameters (the papers' published settings, no selection).

A task may take its data and settings ``from`` another experiment's task of the same name, and
``published_from`` takes the other experiments' published numbers for the tasks shared with them:
each setting and each published number is written once.

A file with a ``notebook`` key instead of tasks and methods is one execution of that notebook with
the file's ``[parameters]`` (for a figure that is not a table of configurations). See
``notebooks/experiments/README.md``.

Every mistake (unknown key, method, data set, parameter, scenario) is reported before anything
runs, naming the file, the key and the valid choices.
"""
from __future__ import annotations

import hashlib
import importlib.resources
import json
import numbers
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Experiment", "Configuration", "ExperimentError", "load_experiment", "list_experiments",
           "experiments_dir", "notebooks_dir"]

ENV_NOTEBOOKS = "TOOLKIT_NOTEBOOKS"

TOP_KEYS = {
    "title": str, "description": str, "splits": int, "seed": int, "n_folds": int, "scenarios": list,
    "skip_unavailable": bool, "tasks": list, "methods": list, "published": list, "quick": dict,
    "references": list, "published_from": list, "notebook": str, "parameters": dict, "explanations": list,
}
TASK_KEYS = {
    "name": str, "dataset": str, "classes": list, "options": dict, "protocol": str, "l": int, "u": int,
    "t": int, "v": int, "folds": int, "repeats": int, "fixed": dict, "splits": int, "method_fixed": dict,
    "from": str, "n_train": int, "sensitivity_of": str, "setting": str, "admissible": bool, "substitute_data": str,
    "data_draw": str,
}
#: a task that varies the inputs of another task of the same file (``sensitivity_of``): it is that
#: task, every key, with its own ``fixed``, ``options`` and ``method_fixed`` merged on top
MERGED_TASK_KEYS = ("fixed", "options", "method_fixed")
#: the keys a task takes from the task of the same name in another experiment (``from``)
SHARED_TASK_KEYS = ("dataset", "classes", "options", "protocol", "l", "u", "t", "n_train", "v", "folds", "repeats",
                    "fixed")
METHOD_KEYS = {"name": str, "grid": dict, "fixed": dict, "tasks": list, "scenarios": list, "label": str, "labels": str}
#: which training points a method sees labelled (the notebook's ``labels`` parameter, Gieseke protocol):
#: the paper's random partitions, each class its share of l, or all of them (a supervised reference)
LABELS = ("drawn", "per-class", "all")
#: how a synthetic data set (one with an ``rng`` option) is drawn for the partitions of a task (the
#: notebook's ``data_draw``): one draw, ``options.rng``, partitioned ten ways, or a draw per partition
#: with the partition's own seed (``seed + j``), Gieseke protocol
DATA_DRAWS = ("shared", "per-split")
#: an experiment that tests why a method misses the paper: the same cells by a variant of it (``by``)
EXPLANATION_KEYS = {"method": str, "by": str, "hypothesis": str, "tasks": list, "results": str, "results_method": str}
PUBLISHED_KEYS = {"task": str, "method": str, "scenario": str, "mean": float, "sd": float, "source": str,
                  "metric": str, "not_attempted": str, "tested": str}
#: what a published number is compared with (the refitted model's metric, or its fit time)
PUBLISHED_METRICS = ("test_error", "unlabeled_error", "validation_error", "seconds", "n_iter", "line_search_per_iter")
QUICK_KEYS = {"splits": int, "n_folds": int, "scenarios": list, "tasks": list, "methods": list, "fixed": dict,
              "thin": int, "parameters": dict}
NOTEBOOK_KEYS = {"title", "description", "references", "notebook", "parameters", "quick", "published"}
PROTOCOLS = ("gieseke", "melacci-belkin")


class ExperimentError(ValueError):
    """An experiment file is invalid; the message names the file, the key and the valid choices."""


def _one_of(path, what, value, choices):
    """Raise :class:`ExperimentError` ("PATH: WHAT. Valid choices: ...") unless ``value`` is in ``choices``."""
    if value not in choices:
        raise ExperimentError(f"{path}: {what}. Valid choices: {', '.join(choices)}.")


def notebooks_dir() -> Path:
    """The folder of the notebooks: ``$TOOLKIT_NOTEBOOKS``, else the installed ``toolkit.notebooks``.

    The repository's ``notebooks/`` folder ships inside the wheel as the package data
    ``toolkit.notebooks`` (an editable install points at the checkout's folder itself).
    """
    env = os.environ.get(ENV_NOTEBOOKS)
    folder = Path(env) if env else Path(str(importlib.resources.files("toolkit.notebooks")))
    if not (folder / "model_selection.ipynb").is_file():
        raise FileNotFoundError(f"The notebooks folder {folder} has no model_selection.ipynb: reinstall ssl-toolkit "
                                f"or set {ENV_NOTEBOOKS} to the notebooks/ folder of a checkout.")
    return folder


def experiments_dir() -> Path:
    return notebooks_dir() / "experiments"


def list_experiments() -> dict[str, str]:
    """Experiment name -> title, for every ``experiments/*.toml``."""
    out = {}
    for path in sorted(experiments_dir().glob("*.toml")):
        try:
            with open(path, "rb") as fh:
                title = tomllib.load(fh).get("title", "")
        except tomllib.TOMLDecodeError as exc:
            title = f"(invalid TOML: {exc})"
        out[path.stem] = title
    return out


@dataclass(frozen=True)
class Configuration:
    """One notebook execution: a task × method × scenario over the task's splits."""

    parameters: dict
    task: str
    method: str
    scenario: str

    @property
    def key(self) -> str:
        """Hash of the parameters and the toolkit's version (the run folder name; a rerun skips a
        finished key, and never reuses results that another version of the toolkit computed)."""
        from toolkit import __version__

        text = json.dumps({"parameters": {k: v for k, v in self.parameters.items() if k != "n_jobs"},
                           "toolkit": __version__}, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Experiment:
    """A validated experiment file.

    ``configurations`` are the task × method × scenario runs of ``model_selection.ipynb``;
    ``published`` the papers' numbers (the file's own and those taken with ``published_from``).
    An experiment of the notebook kind has no configurations: ``notebook`` names the notebook run
    once with ``parameters``.
    """

    name: str
    path: Path
    title: str
    description: str
    configurations: tuple
    published: tuple
    skipped: tuple = ()
    references: tuple = ()
    settings: dict = field(default_factory=dict)
    notebook: str | None = None
    parameters: dict = field(default_factory=dict)
    explanations: tuple = ()
    #: tasks that vary another task's inputs: ``{"task", "of", "setting", "admissible"}`` (``sensitivity_of``;
    #: an inadmissible setting, one the paper's text rules out, is run and reported as outside the text;
    #: no setting changes a count)
    sensitivity: tuple = ()
    #: task -> why its data stand in for the paper's (``substitute_data``): every scored cell there is a ``data:`` cell
    substitute_data: dict = field(default_factory=dict)


def _type_name(kind):
    return {str: "a string", int: "an integer", float: "a number", bool: "true or false", list: "an array",
            dict: "a table"}[kind]


def _check_table(path, where, table, allowed):
    if not isinstance(table, dict):
        raise ExperimentError(f"{path}: {where} must be a table. Got {table!r} instead.")
    for key, value in table.items():
        if key not in allowed:
            raise ExperimentError(f"{path}: unknown key {where}.{key}. Valid keys: {', '.join(sorted(allowed))}.")
        kind = allowed[key]
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) if kind is float else \
            isinstance(value, kind) and not (kind is int and isinstance(value, bool))
        if not ok:
            raise ExperimentError(f"{path}: {where}.{key} must be {_type_name(kind)}. Got {value!r} instead.")


def _experiment_path(name_or_path) -> Path:
    path = Path(name_or_path)
    if path.suffix == ".toml":
        if not path.is_file():
            raise ExperimentError(f"The experiment file {str(name_or_path)!r} does not exist ({path.resolve()}). Give "
                                  f"an experiment name ({', '.join(list_experiments()) or 'none installed'}) or the "
                                  "path of a .toml file.")
        return path
    known = list_experiments()
    if str(name_or_path) not in known:
        raise ExperimentError(f"Unknown experiment {str(name_or_path)!r}. Valid experiments: "
                              f"{', '.join(known) or '(none)'} (files in {experiments_dir()}).")
    return experiments_dir() / f"{name_or_path}.toml"


def _read_spec(path: Path) -> dict:
    try:
        with open(path, "rb") as fh:
            spec = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ExperimentError(f"{path}: invalid TOML: {exc}") from exc
    _current_parameter_names(path, spec)
    return spec


def _current_parameter_names(path: Path, spec: dict) -> None:
    """The parameter tables of ``spec`` (every ``grid``, ``fixed`` and ``method_fixed`` entry) under the
    registry's current names, in place: a name of the previous release (``neighbors``, ``degree``)
    is read as its current one with a ``FutureWarning`` (:func:`toolkit._methods.current_names`)."""
    from toolkit._methods import current_names

    def renamed(table, where):
        return current_names(table, f"{path}: {where}", stacklevel=5) if isinstance(table, dict) else table

    for part in ("tasks", "methods"):
        for i, entry in enumerate(spec.get(part, []) if isinstance(spec.get(part), list) else []):
            if not isinstance(entry, dict):
                continue
            for key in ("grid", "fixed"):
                if key in entry:
                    entry[key] = renamed(entry[key], f"{part}[{i}].{key}")
            if isinstance(entry.get("method_fixed"), dict):
                entry["method_fixed"] = {label: renamed(table, f"{part}[{i}].method_fixed.{label}")
                                         for label, table in entry["method_fixed"].items()}
    if isinstance(spec.get("quick"), dict) and "fixed" in spec["quick"]:
        spec["quick"]["fixed"] = renamed(spec["quick"]["fixed"], "quick.fixed")


def _other_spec(path: Path, where: str, name) -> tuple[Path, dict]:
    """Another experiment named by ``where`` (``from``, ``published_from``): the file of that name
    beside ``path``, else in the installed experiments folder."""
    candidates = [path.parent / f"{name}.toml", experiments_dir() / f"{name}.toml"]
    for other in candidates:
        if isinstance(name, str) and other.is_file() and other.resolve() != path.resolve():
            return other, _read_spec(other)
    known = sorted(({q.stem for q in path.parent.glob("*.toml")} | set(list_experiments())) - {path.stem})
    raise ExperimentError(f"{path}: {where} = {name!r} is not another experiment. Valid choices: "
                          f"{', '.join(known) or '(none)'}.")


def _task_from(path: Path, where: str, task: dict) -> dict:
    """The task of the same name in the experiment ``task["from"]``, with this task's keys on top
    (``fixed`` merged key by key)."""
    if "name" not in task:
        raise ExperimentError(f"{path}: {where} uses 'from' and needs the key 'name' (the task of that name is "
                              "taken from the other experiment).")
    other_path, other = _other_spec(path, f"{where}.from", task["from"])
    names = [t.get("name", t.get("dataset")) for t in other.get("tasks", []) if isinstance(t, dict)]
    if task["name"] not in names:
        raise ExperimentError(f"{path}: {where}.from = {task['from']!r} has no task named {task['name']!r}. Valid "
                              f"choices: {', '.join(map(str, names))}.")
    base = other["tasks"][names.index(task["name"])]
    _check_table(other_path, f"the task {task['name']!r}", base, TASK_KEYS)
    if "from" in base:
        raise ExperimentError(f"{path}: {where}.from = {task['from']!r}: that task is itself taken 'from' another "
                              "experiment; name the experiment that declares it.")
    merged = {key: base[key] for key in SHARED_TASK_KEYS if key in base}
    for key, value in task.items():
        if key == "fixed":
            merged["fixed"] = {**merged.get("fixed", {}), **value}
        elif key != "from":
            merged[key] = value
    return merged


def _line_of(path: Path, key: str, *, table: str | None = None, index: int = 0) -> str:
    """``line N`` of ``key = ...`` in ``path``: at the top level, in ``[table]``, or in the ``index``-th
    ``[[table]]`` (TOML parsers keep no positions); "" when it cannot be found (e.g. an inline table)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return ""
    assignment = re.compile(rf"^\s*{re.escape(key)}\s*=|[{{,]\s*{re.escape(key)}\s*=")
    inside, seen = table is None, -1
    for number, line in enumerate(lines, 1):
        header = re.match(r"^\s*(\[\[?)\s*([\w.]+)\s*\]\]?", line)
        if header:
            if table is not None and header.group(2) == table:
                seen += 1 if header.group(1) == "[[" else 0
                inside = header.group(1) == "[" or seen == index
            else:
                inside = False
            continue
        if inside and assignment.search(line.split("#", 1)[0]):
            return f"line {number}"
    return ""


def _check_value(path: Path, where: str, value, *, kind=numbers.Integral, low=None, high=None, also=(),
                 line: str = "", meaning: str = ""):
    """One value of an experiment file against the rule of the function it feeds (``check_scalar``'s
    wording), as an :class:`ExperimentError` naming the file, the key and the line."""
    from toolkit._validation import check_scalar

    if value in also and not isinstance(value, bool):
        return
    try:
        check_scalar(value, where, "the experiment", kind=kind, low=low, high=high)
    except (TypeError, ValueError) as exc:
        rule = str(exc).split(" must be ", 1)[-1].split(". Got", 1)[0]
        extra = f" or {', '.join(map(str, also))}" if also else ""
        raise ExperimentError(f"{path}{', ' + line if line else ''}: {where} must be {rule}{extra}"
                              f"{' (' + meaning + ')' if meaning else ''}. Got {value!r} instead.") from None


#: The settings of an experiment file and the rules of the functions they feed: ``select``'s
#: ``n_folds``, the seeds of ``toolkit.data.split`` / ``cv_splits`` and ``select`` (``rng``).
_SETTING_RULES = {"splits": dict(low=1, meaning="random partitions per task"),
                  "seed": dict(low=0, meaning="partition j uses seed + j, a non-negative rng seed"),
                  "n_folds": dict(low=2, meaning="select's folds over the labelled points")}
#: A task's sizes and the rules of toolkit.data.split / cv_splits (-1: the rest / the whole part).
_TASK_RULES = {"l": dict(low=1, meaning="labelled points per split"),
               "u": dict(low=0, also=(-1,), meaning="unlabelled points; -1 takes the rest of the training part"),
               "t": dict(low=1, also=(-1,), meaning="test points; -1 takes the whole test part"),
               "v": dict(low=0, meaning="validation points"),
               "folds": dict(low=2, meaning="folds of the melacci-belkin protocol"),
               "repeats": dict(low=1, meaning="repeats of the melacci-belkin protocol"),
               "n_train": dict(low=2, also=(-1,), meaning="size of the training part; -1 takes the first half"),
               "splits": dict(low=1, meaning="random partitions of this task")}


def _check_settings(path: Path, spec: dict, quick_spec: dict) -> None:
    for table, values in ((None, spec), ("quick", quick_spec)):
        for key, rule in _SETTING_RULES.items():
            if key in values:
                where = key if table is None else f"quick.{key}"
                _check_value(path, where, values[key], line=_line_of(path, key, table=table), **rule)


def _check_task_sizes(path: Path, where: str, task: dict, index: int) -> None:
    for key, rule in _TASK_RULES.items():
        if key in task:
            _check_value(path, f"{where}.{key}", task[key], line=_line_of(path, key, table="tasks", index=index),
                         **rule)


_PARAMETER_LINE = re.compile(r"^(\w+): (\w+) = (.+?)  # (.+)$")
_PARAMETER_TYPES = {"int": int, "float": float, "str": str, "list": list, "dict": dict, "bool": bool}


def notebook_parameters(notebook) -> dict[str, str]:
    """Name -> declared type (``"int"``, ``"list"``, ...) of a notebook's ``parameters`` cell."""
    import nbformat

    nb = nbformat.read(str(notebook), as_version=4)
    tagged = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    if len(tagged) != 1:
        raise ExperimentError(f"{notebook}: needs exactly one cell tagged 'parameters'. Got {len(tagged)} instead.")
    out = {}
    for line in tagged[0].source.splitlines():
        match = _PARAMETER_LINE.match(line)
        if match:
            out[match.group(1)] = match.group(2)
    return out


def _notebook_experiment(path: Path, spec: dict, quick_spec: dict, quick: bool) -> Experiment:
    """An experiment of the notebook kind: one run of ``spec["notebook"]`` with ``[parameters]``."""
    for key in spec:
        if key not in NOTEBOOK_KEYS:
            raise ExperimentError(f"{path}: the key {key!r} does not go with 'notebook' (one run of a notebook). "
                                  f"Valid keys: {', '.join(sorted(NOTEBOOK_KEYS))}.")
    for key in quick_spec:
        if key != "parameters":
            raise ExperimentError(f"{path}: unknown key quick.{key} for an experiment of the notebook kind. Valid "
                                  "keys: parameters.")
    notebook = spec["notebook"]
    nb_path = notebooks_dir() / notebook
    if not nb_path.is_file() or nb_path.suffix != ".ipynb":
        choices = sorted(p.name for p in notebooks_dir().glob("*.ipynb"))
        raise ExperimentError(f"{path}: notebook = {notebook!r} is not a notebook in {notebooks_dir()}. Valid "
                              f"choices: {', '.join(choices)}.")
    declared = notebook_parameters(nb_path)
    for where, table in (("parameters", spec.get("parameters", {})),
                         ("quick.parameters", quick_spec.get("parameters", {}))):
        for key, value in table.items():
            if key not in declared:
                raise ExperimentError(f"{path}: {where}.{key} is not a parameter of {notebook}. Valid choices: "
                                      f"{', '.join(declared)}.")
            kind = _PARAMETER_TYPES.get(declared[key])
            if kind is not None and not _is_kind(value, kind):
                raise ExperimentError(f"{path}: {where}.{key} must be {_type_name(kind)} (declared "
                                      f"'{key}: {declared[key]}' in {notebook}). Got {value!r} instead.")
    parameters = dict(spec.get("parameters", {}))
    if quick:
        parameters.update(quick_spec.get("parameters", {}))
    from toolkit.selection import SCENARIOS

    published = []
    for i, entry in enumerate(spec.get("published", [])):
        # the notebook names its tasks, methods and metrics in the `splits` table it records
        where = f"published[{i}]"
        _check_table(path, where, entry, PUBLISHED_KEYS)
        for required in ("task", "method", "metric", "mean", "source"):
            if required not in entry:
                raise ExperimentError(f"{path}: {where} needs the key {required!r} (an experiment of the notebook "
                                      f"kind compares it with the rows of the 'splits' table {notebook} records).")
        if "scenario" in entry and entry["scenario"] not in SCENARIOS:
            raise ExperimentError(f"{path}: {where}.scenario = {entry['scenario']!r} is not a scenario. Valid "
                                  f"choices: {', '.join(SCENARIOS)}.")
        published.append(dict(entry))
    return Experiment(name=path.stem, path=path, title=spec.get("title", path.stem),
                      description=spec.get("description", ""), configurations=(), published=tuple(published),
                      references=tuple(spec.get("references", [])), settings={"quick": quick},
                      notebook=notebook, parameters=parameters)


def _is_kind(value, kind) -> bool:
    if kind is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, kind) and not (kind is int and isinstance(value, bool))


def load_experiment(name_or_path, *, quick: bool = False) -> Experiment:
    """Read and validate an experiment file; return its configurations.

    Parameters
    ----------
    name_or_path : str or Path
        An experiment name (``notebooks/experiments/NAME.toml``) or a path to a TOML file.
    quick : bool, default=False
        Apply the file's ``[quick]`` overrides.

    Notes
    -----
    The fixed parameters of a configuration are, later ones winning: the task's ``fixed`` (those
    the method accepts), the method's ``fixed``, the task's ``method_fixed`` entry for the method's
    label (or name), and with ``quick`` the ``[quick]`` ``fixed``.

    The checks run in the order of the file's parts: the top-level keys and settings
    (:func:`_settings`), the tasks (:func:`_tasks`), the methods (:func:`_methods`), the parameters
    the tasks fix for them (:func:`_check_task_parameters`), the names ``[quick]`` picks, the
    configurations (:func:`_configurations`), the published cells (:func:`_published`) and the
    explanations (:func:`_explanations`); the first mistake is the one reported.
    """
    from toolkit.selection import SCENARIOS

    path = _experiment_path(name_or_path)
    spec = _read_spec(path)
    _check_table(path, "(top level)", spec, TOP_KEYS)
    quick_spec = spec.get("quick", {})
    _check_table(path, "quick", quick_spec, QUICK_KEYS)
    if "notebook" in spec:
        return _notebook_experiment(path, spec, quick_spec, quick)
    settings = _settings(path, spec, quick_spec, quick)
    tasks, task_names = _tasks(path, spec)
    methods = spec.get("methods", [])
    used_methods, skipped = _methods(path, spec, task_names)
    labels = list(dict.fromkeys(m.get("label", m["name"]) for m in methods))
    _check_task_parameters(path, tasks, task_names, methods, labels)
    for part in ("tasks", "methods"):
        valid = task_names if part == "tasks" else [m["name"] for m in methods]
        for value in quick_spec.get(part, []):
            if value not in valid:
                raise ExperimentError(f"{path}: quick.{part} names {value!r}. Valid choices: {', '.join(valid)}.")
    configurations, declared = _configurations(path, tasks, task_names, used_methods, settings, quick_spec, quick)
    published = _published(path, spec, task_names, labels, declared, SCENARIOS)
    explanations = _explanations(path, spec, labels, task_names)
    description = spec.get("description", "")
    if quick:   # the description states the full protocol: say what this run does instead
        ran = sorted({c.parameters["n_splits"] for c in configurations})
        description += (f" This is the --quick run: {' / '.join(map(str, ran))} splits per task, "
                        f"{len({c.task for c in configurations})} of {len(tasks)} tasks"
                        + (", thinned grids" if quick_spec.get("thin", 1) > 1 else "") + ".")
    inputs = tuple({"task": name, "of": t["sensitivity_of"], "setting": t.get("setting", name),
                    "admissible": t.get("admissible", True)}
                   for t, name in zip(tasks, task_names) if "sensitivity_of" in t)
    substitutes = {name: t["substitute_data"] for t, name in zip(tasks, task_names) if "substitute_data" in t}
    return Experiment(name=path.stem, path=path, title=spec.get("title", path.stem),
                      description=description, configurations=tuple(configurations),
                      published=tuple(published), skipped=tuple(skipped),
                      references=tuple(spec.get("references", [])), settings=settings,
                      explanations=tuple(explanations), sensitivity=inputs, substitute_data=substitutes)


def _settings(path: Path, spec: dict, quick_spec: dict, quick: bool) -> dict:
    """The experiment's settings: ``splits``, ``seed``, ``n_folds``, ``scenarios`` and ``quick``.

    Refuses ``parameters`` (it goes with ``notebook`` only), checks each setting by the rule of the
    function it feeds (:func:`_check_settings`), applies the ``[quick]`` overrides of ``splits``,
    ``n_folds`` and ``scenarios`` when ``quick``, and checks that every scenario is one of
    :data:`toolkit.selection.SCENARIOS`.
    """
    from toolkit.selection import SCENARIOS

    for where, table in (("parameters", spec), ("quick.parameters", quick_spec)):
        if "parameters" in table:
            raise ExperimentError(f"{path}: {where} only goes with 'notebook' (an experiment that runs one notebook).")
    _check_settings(path, spec, quick_spec)
    settings = {"splits": spec.get("splits", 10), "seed": spec.get("seed", 0), "n_folds": spec.get("n_folds", 5),
                "scenarios": spec.get("scenarios", ["labeled-cv"]), "quick": quick}
    if quick:
        settings.update({k: v for k, v in quick_spec.items() if k in ("splits", "n_folds", "scenarios")})
    for scenario in settings["scenarios"]:
        if scenario not in SCENARIOS:
            raise ExperimentError(f"{path}: scenarios = {scenario!r} is not a scenario. Valid choices: "
                                  f"{', '.join(SCENARIOS)}.")
    return settings


def _tasks(path: Path, spec: dict) -> tuple[list, list]:
    """The ``[[tasks]]`` of the file, resolved and checked, and their names, in the file's order.

    A task that takes its data ``from`` another experiment, or varies an earlier task's inputs
    (``sensitivity_of``), is first merged with that task; then each needs a ``dataset`` among
    :func:`toolkit.data.available` and ``l``, has sizes within the rules of ``toolkit.data.split``
    (:func:`_check_task_sizes`), a protocol of :data:`PROTOCOLS` (``v`` for melacci-belkin) and a
    ``data_draw`` of :data:`DATA_DRAWS` that fits its protocol and data set. Names must be distinct.
    """
    from toolkit import data

    datasets = data.available()
    if not spec.get("tasks"):
        raise ExperimentError(f"{path}: no [[tasks]]: declare at least one task (dataset, split sizes).")
    tasks, task_names = [], []
    for i, task in enumerate(spec["tasks"]):
        where = f"tasks[{i}]"
        _check_table(path, where, task, TASK_KEYS)
        if "from" in task:
            task = _task_from(path, where, task)
        if "sensitivity_of" in task:
            task = _sensitivity_task(path, where, task, tasks, task_names)
        for required in ("dataset", "l"):
            if required not in task:
                raise ExperimentError(f"{path}: {where} needs the key {required!r}.")
        _check_task_sizes(path, where, task, i)
        if task["dataset"] not in datasets:
            raise ExperimentError(f"{path}: {where}.dataset = {task['dataset']!r} is not a data set. Valid choices: "
                                  f"{', '.join(datasets)}.")
        protocol = task.get("protocol", "gieseke")
        if protocol not in PROTOCOLS:
            raise ExperimentError(f"{path}: {where}.protocol = {protocol!r} is not a protocol. Valid choices: "
                                  f"{', '.join(PROTOCOLS)}.")
        if protocol == "melacci-belkin" and "v" not in task:
            raise ExperimentError(f"{path}: {where} uses protocol 'melacci-belkin' and needs the key 'v'.")
        if "data_draw" in task:
            _one_of(path, f"{where}.data_draw = {task['data_draw']!r} is not a way to draw the data", task["data_draw"],
                    DATA_DRAWS)
            if task["data_draw"] != "shared" and (protocol != "gieseke" or "rng" not in task.get("options", {})):
                raise ExperimentError(f"{path}: {where}.data_draw = {task['data_draw']!r} needs the gieseke protocol "
                                      "and a synthetic data set drawn with options.rng (gaussian2c, gaussian4c, "
                                      f"moons); the task has protocol {protocol!r} and options "
                                      f"{task.get('options', {})!r}.")
        tasks.append(task)
        task_names.append(task.get("name", task["dataset"]))
    if len(set(task_names)) != len(task_names):
        raise ExperimentError(f"{path}: two tasks have the same name; give each [[tasks]] a distinct 'name'.")
    return tasks, task_names


def _methods(path: Path, spec: dict, task_names: list) -> tuple[list, list]:
    """The ``[[methods]]`` entries that run, and the sentences naming those skipped.

    Each entry names a method of the registry (:data:`toolkit._methods.METHODS`) whose ``grid`` and
    ``fixed`` keys are its parameters, a ``labels`` of :data:`LABELS`, non-empty grid arrays, and
    tasks and scenarios that exist. A method whose solver module is not available is skipped (and
    named) with ``skip_unavailable = true``, refused otherwise.
    """
    from toolkit._methods import METHODS
    from toolkit.selection import SCENARIOS

    methods = spec.get("methods", [])
    if not methods:
        raise ExperimentError(f"{path}: no [[methods]]: declare at least one method.")
    skipped, used_methods = [], []
    for i, entry in enumerate(methods):
        where = f"methods[{i}]"
        _check_table(path, where, entry, METHOD_KEYS)
        name = entry.get("name")
        if name not in METHODS:
            raise ExperimentError(f"{path}: {where}.name = {name!r} is not a method. Valid choices: "
                                  f"{', '.join(METHODS)}.")
        method = METHODS[name]
        for part in ("grid", "fixed"):
            for key in entry.get(part, {}):
                if key not in method.valid_params:
                    raise ExperimentError(f"{path}: {where}.{part}.{key} is not a parameter of {name!r}. Valid "
                                          f"choices: {', '.join(method.valid_params)}.")
        if "labels" in entry:
            _one_of(path, f"{where}.labels = {entry['labels']!r} is not a way to draw the labelled points",
                    entry["labels"], LABELS)
        for key in entry.get("grid", {}):
            if not isinstance(entry["grid"][key], list) or not entry["grid"][key]:
                raise ExperimentError(f"{path}: {where}.grid.{key} must be a non-empty array of values.")
        for task_name in entry.get("tasks", []):
            _one_of(path, f"{where}.tasks names {task_name!r}, which is not a task", task_name, task_names)
        for scenario in entry.get("scenarios", []):
            _one_of(path, f"{where}.scenarios = {scenario!r} is not a scenario", scenario, SCENARIOS)
        if not method.available:
            if spec.get("skip_unavailable", False):
                skipped.append(f"{name} (needs {method.requires}, not available yet)")
                continue
            raise ExperimentError(f"{path}: {where}.name = {name!r} needs the module {method.requires!r}, which is "
                                  "not available; set skip_unavailable = true to skip it.")
        used_methods.append(entry)
    return used_methods, skipped


def _check_task_parameters(path: Path, tasks: list, task_names: list, methods: list, labels: list) -> None:
    """Check the parameters each task fixes: a key of a task's ``fixed`` is a parameter of at least
    one method of the file; a ``method_fixed`` entry names a method's label (or its name) and holds
    a table of that method's parameters, none of which it also searches on that task."""
    from toolkit._methods import METHODS

    for i, task in enumerate(tasks):
        for key in task.get("fixed", {}):
            ok = any(key in METHODS[m["name"]].valid_params for m in methods)
            if not ok:
                raise ExperimentError(f"{path}: tasks[{i}].fixed.{key} is not a parameter of any method of this "
                                      "experiment.")
        for label, params in task.get("method_fixed", {}).items():
            where = f"tasks[{i}].method_fixed.{label}"
            entries = [m for m in methods if m.get("label", m["name"]) == label]
            if not entries:
                raise ExperimentError(f"{path}: {where}: {label!r} is not a method of this experiment (its label, or its "
                                      f"name when it has no label). Valid choices: {', '.join(labels)}.")
            if not isinstance(params, dict):
                raise ExperimentError(f"{path}: {where} must be a table of parameters. Got {params!r} instead.")
            for key in params:
                for entry in entries:
                    if key not in METHODS[entry["name"]].valid_params:
                        raise ExperimentError(f"{path}: {where}.{key} is not a parameter of {entry['name']!r}. Valid "
                                              f"choices: {', '.join(METHODS[entry['name']].valid_params)}.")
                    runs_here = not entry.get("tasks") or task.get("sensitivity_of", task_names[i]) in entry["tasks"]
                    if runs_here and key in entry.get("grid", {}):
                        raise ExperimentError(f"{path}: {where}.{key} is also in that method's grid: a parameter is "
                                              "either fixed or searched, not both.")


def _configurations(path: Path, tasks: list, task_names: list, methods: list, settings: dict, quick_spec: dict,
                    quick: bool) -> tuple[list, set]:
    """Every task × method × scenario to run, and the ``(task, label, scenario)`` cells declared.

    A method runs on the tasks it lists (all when it lists none; a sensitivity task counts as the
    task it varies) in its own scenarios or the file's. The declared cells include those that
    ``[quick]`` leaves out (its ``tasks`` and ``methods``), so that the published numbers of a
    quick run still find their cells; the parameters of each run come from
    :func:`_fixed_and_grid` and :func:`_configuration_parameters`.
    """
    configurations, declared = [], set()
    for task, task_name in zip(tasks, task_names):
        for entry in methods:
            if entry.get("tasks") and task.get("sensitivity_of", task_name) not in entry["tasks"]:
                continue
            label = entry.get("label", entry["name"])
            scenarios = entry.get("scenarios") or settings["scenarios"]
            declared.update((task_name, label, scenario) for scenario in scenarios)
            if quick and quick_spec.get("tasks") and task_name not in quick_spec["tasks"]:
                continue
            if quick and quick_spec.get("methods") and entry["name"] not in quick_spec["methods"]:
                continue
            fixed, grid = _fixed_and_grid(task, entry, label, quick_spec, quick)
            for scenario in scenarios:
                splits = task.get("splits", settings["splits"])
                if quick and "splits" in quick_spec:
                    splits = min(splits, quick_spec["splits"])
                parameters = _configuration_parameters(path, task, task_name, entry, label, fixed, grid, scenario,
                                                       settings, splits)
                configurations.append(Configuration(parameters, task_name, label, scenario))
    return configurations, declared


def _fixed_and_grid(task: dict, entry: dict, label: str, quick_spec: dict, quick: bool) -> tuple[dict, dict]:
    """The fixed parameters and the grid of one method on one task.

    Fixed, later ones winning: the task's ``fixed`` (the keys the method accepts), the method's
    ``fixed``, the task's ``method_fixed[label]`` and, when ``quick``, ``[quick]``'s ``fixed``.
    With ``quick`` each grid is also thinned to every ``thin``-th value when it has more than
    ``2 thin`` of them.
    """
    from toolkit._methods import METHODS

    method = METHODS[entry["name"]]
    fixed = {k: v for k, v in task.get("fixed", {}).items() if k in method.valid_params}
    fixed.update(entry.get("fixed", {}))
    fixed.update(task.get("method_fixed", {}).get(label, {}))
    grid = {k: list(v) for k, v in entry.get("grid", {}).items()}
    if quick:
        fixed.update({k: v for k, v in quick_spec.get("fixed", {}).items() if k in method.valid_params})
        step = quick_spec.get("thin", 1)
        grid = {k: (v[::step] if len(v) > 2 * step else v) for k, v in grid.items()}
    return fixed, grid


def _configuration_parameters(path: Path, task: dict, task_name: str, entry: dict, label: str, fixed: dict,
                              grid: dict, scenario: str, settings: dict, splits: int) -> dict:
    """The parameters of ``model_selection.ipynb`` for one configuration (what :attr:`Configuration.key`
    hashes). The optional keys ``label``, ``labels``, ``n_train`` and ``data_draw`` are written only
    when they differ from their defaults, so that the keys of configurations without them stay as
    they were; ``labels`` other than ``drawn`` needs the gieseke protocol."""
    parameters = {
        "dataset": task["dataset"], "classes": list(task.get("classes", [])),
        "options": dict(task.get("options", {})), "task": task_name,
        "protocol": task.get("protocol", "gieseke"), "l": task["l"], "u": task.get("u", -1),
        "t": task.get("t", -1), "v": task.get("v", 0), "folds": task.get("folds", 4),
        "repeats": task.get("repeats", 3), "method": entry["name"],
        "grid": grid, "fixed": fixed, "scenario": scenario,
        "n_folds": settings["n_folds"], "n_splits": splits, "seed": settings["seed"], "n_jobs": 1,
    }
    if "label" in entry:  # only when set: the keys of unlabelled configurations stay as they were
        parameters["label"] = entry["label"]
    if entry.get("labels", "drawn") != "drawn":   # likewise
        if parameters["protocol"] != "gieseke":
            raise ExperimentError(f"{path}: the method {label!r} has labels = {entry['labels']!r}, "
                                  f"which needs the gieseke protocol; the task {task_name!r} has "
                                  f"{parameters['protocol']!r}.")
        parameters["labels"] = entry["labels"]
    if "n_train" in task:  # likewise: the default (first half) leaves the keys unchanged
        parameters["n_train"] = task["n_train"]
    if task.get("data_draw", "shared") != "shared":   # likewise
        parameters["data_draw"] = task["data_draw"]
    return parameters


def _explanations(path: Path, spec: dict, labels: list, task_names: list) -> list[dict]:
    """The ``[[explanations]]``, checked, with any ``results`` file resolved to an absolute path.

    Each names the method that misses the paper, the variant that tests why (``by``) and the
    hypothesis in words. A variant run here is a method of this file; one run elsewhere (another
    implementation, e.g. the paper's own code) brings its per-split results: a csv in the layout of
    ``reports/*/splits.csv`` beside the experiment file (shipped with it, so a regular install reads it
    too), whose rows of ``method`` (or of ``results_method``, where the file names its solver
    otherwise) are the variant's; ``by`` is then a label of its own.
    """
    explanations = []
    for i, entry in enumerate(spec.get("explanations", [])):
        where = f"explanations[{i}]"
        _check_table(path, where, entry, EXPLANATION_KEYS)
        for key in ("method", "by", "hypothesis"):
            if key not in entry:
                raise ExperimentError(f"{path}: {where} needs the key {key!r} (the method that misses, the variant "
                                      "that tests the explanation, and the explanation in words).")
        if "results_method" in entry and "results" not in entry:
            raise ExperimentError(f"{path}: {where}.results_method = {entry['results_method']!r} names a method of "
                                  "a results file, and the entry has no `results`.")
        for key in ("method",) if "results" in entry else ("method", "by"):
            _one_of(path, f"{where}.{key} = {entry[key]!r} is not a method of this experiment", entry[key], labels)
        entry = dict(entry)
        if "results" in entry:
            root = path.resolve().parent              # beside the experiment file, as the package ships it
            if not (root / entry["results"]).is_file():
                raise ExperimentError(f"{path}: {where}.results = {entry['results']!r}: no such file in the "
                                      f"experiment file's folder {root}.")
            if entry["by"] in labels:
                raise ExperimentError(f"{path}: {where}.by = {entry['by']!r} names a method of this experiment; "
                                      "results from elsewhere need a label of their own.")
            entry["results"] = str(root / entry["results"])     # resolved once, here
        for task in entry.get("tasks", []):
            _one_of(path, f"{where}.tasks: {task!r} is not a task", task, task_names)
        explanations.append(entry)
    return explanations


def _sensitivity_task(path: Path, where: str, task: dict, tasks: list, task_names: list) -> dict:
    """The task ``task["sensitivity_of"]`` declared earlier in the same file, with this task's keys on
    top (``fixed``, ``options`` and ``method_fixed`` merged key by key): the same splits and methods
    with other inputs, for the scorecard's input-sensitivity notes."""
    base_name = task["sensitivity_of"]
    if "name" not in task:
        raise ExperimentError(f"{path}: {where} uses 'sensitivity_of' and needs its own 'name'.")
    if base_name not in task_names:
        raise ExperimentError(f"{path}: {where}.sensitivity_of = {base_name!r} is not a task declared before it. "
                              f"Valid choices: {', '.join(task_names) or '(none)'}.")
    base = tasks[task_names.index(base_name)]
    if "sensitivity_of" in base:
        raise ExperimentError(f"{path}: {where}.sensitivity_of = {base_name!r} is itself a sensitivity task; name "
                              f"the task it varies ({base['sensitivity_of']!r}).")
    merged = {k: v for k, v in base.items() if k not in ("name", "substitute_data")}
    for key, value in task.items():
        if key == "method_fixed":
            merged[key] = {label: {**merged.get(key, {}).get(label, {}), **params}
                           for label, params in {**merged.get(key, {}), **value}.items()}
        elif key in MERGED_TASK_KEYS:
            merged[key] = {**merged.get(key, {}), **value}
        else:
            merged[key] = value
    return merged


def _check_published(path, where, entry, task_names, labels, scenarios):
    _check_table(path, where, entry, PUBLISHED_KEYS)
    for required in ("task", "method", "mean", "source"):
        if required not in entry:
            raise ExperimentError(f"{path}: {where} needs the key {required!r}.")
    if "not_attempted" in entry:
        # a published cell this experiment does not run (its data are not mirrored, the method has no
        # counterpart here): listed in the scorecard with the reason, its task and method are free text
        if not entry["not_attempted"].strip():
            raise ExperimentError(f"{path}: {where}.not_attempted must give the reason. Got an empty string.")
    elif entry["task"] not in task_names:
        raise ExperimentError(f"{path}: {where}.task = {entry['task']!r} is not a task. Valid choices: "
                              f"{', '.join(task_names)}.")
    elif entry["method"] not in labels:
        raise ExperimentError(f"{path}: {where}.method = {entry['method']!r} is not a method of this experiment (a "
                              f"label, or a name without label). Valid choices: {', '.join(labels)}.")
    if "scenario" in entry and entry["scenario"] not in scenarios:
        raise ExperimentError(f"{path}: {where}.scenario = {entry['scenario']!r} is not a scenario. Valid choices: "
                              f"{', '.join(scenarios)}.")
    if "metric" in entry and entry["metric"] not in PUBLISHED_METRICS:
        raise ExperimentError(f"{path}: {where}.metric = {entry['metric']!r} is not a metric. Valid choices: "
                              f"{', '.join(PUBLISHED_METRICS)}.")


def _published(path, spec, task_names, labels, declared, scenarios) -> list[dict]:
    """The file's own ``[[published]]`` numbers, then those of the ``published_from`` experiments for a
    task, method and scenario declared here (an own number for the same cell wins)."""
    published = []
    for i, entry in enumerate(spec.get("published", [])):
        _check_published(path, f"published[{i}]", entry, task_names, labels, scenarios)
        published.append(dict(entry))

    def cell(entry):
        return entry["task"], entry["method"], entry.get("scenario"), entry.get("metric", "test_error")

    seen = {cell(entry) for entry in published}
    for j, name in enumerate(spec.get("published_from", [])):
        other_path, other = _other_spec(path, f"published_from[{j}]", name)
        other_tasks = [t.get("name", t.get("dataset")) for t in other.get("tasks", []) if isinstance(t, dict)]
        other_labels = [m.get("label", m.get("name")) for m in other.get("methods", []) if isinstance(m, dict)]
        for i, entry in enumerate(other.get("published", [])):
            _check_published(other_path, f"published[{i}]", entry, other_tasks, other_labels, scenarios)
            wanted = [d for d in declared if d[:2] == (entry["task"], entry["method"])
                      and entry.get("scenario") in (None, d[2])]
            if wanted and cell(entry) not in seen:
                seen.add(cell(entry))
                published.append({**entry, "borrowed_from": name})   # the scorecard scores it in `name` only
    return published
