"""Experiments declared in small TOML files (``notebooks/experiments/NAME.toml``), validated up front.

A file has top-level settings, ``[[tasks]]`` (data set, classes, options, split sizes, fixed
parameters), ``[[methods]]`` (registry name, grid, fixed parameters) and optionally
``[[published]]`` numbers with their citation and a ``[quick]`` table of overrides for
``--quick``. Every task × method × scenario is one *configuration*: one execution of
``notebooks/model_selection.ipynb`` over the task's splits. See ``notebooks/experiments/README.md``.

Every mistake (unknown key, method, data set, parameter, scenario) is reported before anything
runs, naming the file, the key and the valid choices.
"""
from __future__ import annotations

import hashlib
import importlib.resources
import json
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Experiment", "Configuration", "ExperimentError", "load_experiment", "list_experiments",
           "experiments_dir", "notebooks_dir"]

ENV_NOTEBOOKS = "TOOLKIT_NOTEBOOKS"

TOP_KEYS = {
    "title": str, "description": str, "splits": int, "seed": int, "n_folds": int, "scenarios": list,
    "skip_unavailable": bool, "tasks": list, "methods": list, "published": list, "quick": dict,
    "references": list,
}
TASK_KEYS = {
    "name": str, "dataset": str, "classes": list, "options": dict, "protocol": str, "l": int, "u": int,
    "t": int, "v": int, "folds": int, "repeats": int, "fixed": dict, "splits": int,
}
METHOD_KEYS = {"name": str, "grid": dict, "fixed": dict, "tasks": list, "scenarios": list, "label": str}
PUBLISHED_KEYS = {"task": str, "method": str, "scenario": str, "mean": float, "sd": float, "source": str,
                  "metric": str}
QUICK_KEYS = {"splits": int, "n_folds": int, "scenarios": list, "tasks": list, "methods": list, "fixed": dict,
              "thin": int}
PROTOCOLS = ("gieseke", "melacci-belkin")


class ExperimentError(ValueError):
    """An experiment file is invalid; the message names the file, the key and the valid choices."""


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
        """Hash of the parameters (the run folder name; a rerun skips a finished key)."""
        text = json.dumps({k: v for k, v in self.parameters.items() if k != "n_jobs"}, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Experiment:
    name: str
    path: Path
    title: str
    description: str
    configurations: tuple
    published: tuple
    skipped: tuple = ()
    references: tuple = ()
    settings: dict = field(default_factory=dict)


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


def load_experiment(name_or_path, *, quick: bool = False) -> Experiment:
    """Read and validate an experiment file; return its configurations.

    Parameters
    ----------
    name_or_path : str or Path
        An experiment name (``notebooks/experiments/NAME.toml``) or a path to a TOML file.
    quick : bool, default=False
        Apply the file's ``[quick]`` overrides.
    """
    from toolkit import data
    from toolkit.selection import METHODS, SCENARIOS

    path = Path(name_or_path)
    if path.suffix != ".toml":
        known = list_experiments()
        if str(name_or_path) not in known:
            raise ExperimentError(f"Unknown experiment {str(name_or_path)!r}. Valid experiments: "
                                  f"{', '.join(known) or '(none)'} (files in {experiments_dir()}).")
        path = experiments_dir() / f"{name_or_path}.toml"
    try:
        with open(path, "rb") as fh:
            spec = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ExperimentError(f"{path}: invalid TOML: {exc}") from exc
    _check_table(path, "(top level)", spec, TOP_KEYS)
    quick_spec = spec.get("quick", {})
    _check_table(path, "quick", quick_spec, QUICK_KEYS)
    settings = {"splits": spec.get("splits", 10), "seed": spec.get("seed", 0), "n_folds": spec.get("n_folds", 5),
                "scenarios": spec.get("scenarios", ["labeled-cv"])}
    if quick:
        settings.update({k: v for k, v in quick_spec.items() if k in ("splits", "n_folds", "scenarios")})
    for scenario in settings["scenarios"]:
        if scenario not in SCENARIOS:
            raise ExperimentError(f"{path}: scenarios = {scenario!r} is not a scenario. Valid choices: "
                                  f"{', '.join(SCENARIOS)}.")
    datasets = data.available()
    tasks = spec.get("tasks", [])
    if not tasks:
        raise ExperimentError(f"{path}: no [[tasks]]: declare at least one task (dataset, split sizes).")
    task_names = []
    for i, task in enumerate(tasks):
        where = f"tasks[{i}]"
        _check_table(path, where, task, TASK_KEYS)
        for required in ("dataset", "l"):
            if required not in task:
                raise ExperimentError(f"{path}: {where} needs the key {required!r}.")
        if task["dataset"] not in datasets:
            raise ExperimentError(f"{path}: {where}.dataset = {task['dataset']!r} is not a data set. Valid choices: "
                                  f"{', '.join(datasets)}.")
        protocol = task.get("protocol", "gieseke")
        if protocol not in PROTOCOLS:
            raise ExperimentError(f"{path}: {where}.protocol = {protocol!r} is not a protocol. Valid choices: "
                                  f"{', '.join(PROTOCOLS)}.")
        if protocol == "melacci-belkin" and "v" not in task:
            raise ExperimentError(f"{path}: {where} uses protocol 'melacci-belkin' and needs the key 'v'.")
        task_names.append(task.get("name", task["dataset"]))
    if len(set(task_names)) != len(task_names):
        raise ExperimentError(f"{path}: two tasks have the same name; give each [[tasks]] a distinct 'name'.")
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
        for key in entry.get("grid", {}):
            if not isinstance(entry["grid"][key], list) or not entry["grid"][key]:
                raise ExperimentError(f"{path}: {where}.grid.{key} must be a non-empty array of values.")
        for task_name in entry.get("tasks", []):
            if task_name not in task_names:
                raise ExperimentError(f"{path}: {where}.tasks names {task_name!r}, which is not a task. Valid "
                                      f"choices: {', '.join(task_names)}.")
        for scenario in entry.get("scenarios", []):
            if scenario not in SCENARIOS:
                raise ExperimentError(f"{path}: {where}.scenarios = {scenario!r} is not a scenario. Valid "
                                      f"choices: {', '.join(SCENARIOS)}.")
        if not method.available:
            if spec.get("skip_unavailable", False):
                skipped.append(f"{name} (needs {method.requires}, not available yet)")
                continue
            raise ExperimentError(f"{path}: {where}.name = {name!r} needs the module {method.requires!r}, which is "
                                  "not available; set skip_unavailable = true to skip it.")
        used_methods.append(entry)
    for i, task in enumerate(tasks):
        for key in task.get("fixed", {}):
            ok = any(key in METHODS[m["name"]].valid_params for m in methods)
            if not ok:
                raise ExperimentError(f"{path}: tasks[{i}].fixed.{key} is not a parameter of any method of this "
                                      "experiment.")
    for part in ("tasks", "methods"):
        valid = task_names if part == "tasks" else [m["name"] for m in methods]
        for value in quick_spec.get(part, []):
            if value not in valid:
                raise ExperimentError(f"{path}: quick.{part} names {value!r}. Valid choices: {', '.join(valid)}.")
    published = []
    for i, entry in enumerate(spec.get("published", [])):
        where = f"published[{i}]"
        _check_table(path, where, entry, PUBLISHED_KEYS)
        for required in ("task", "method", "mean", "source"):
            if required not in entry:
                raise ExperimentError(f"{path}: {where} needs the key {required!r}.")
        if entry["task"] not in task_names:
            raise ExperimentError(f"{path}: {where}.task = {entry['task']!r} is not a task. Valid choices: "
                                  f"{', '.join(task_names)}.")
        published.append(dict(entry))

    configurations = []
    for task, task_name in zip(tasks, task_names):
        if quick and quick_spec.get("tasks") and task_name not in quick_spec["tasks"]:
            continue
        for entry in used_methods:
            if quick and quick_spec.get("methods") and entry["name"] not in quick_spec["methods"]:
                continue
            if entry.get("tasks") and task_name not in entry["tasks"]:
                continue
            method = METHODS[entry["name"]]
            fixed = {k: v for k, v in task.get("fixed", {}).items() if k in method.valid_params}
            fixed.update(entry.get("fixed", {}))
            grid = {k: list(v) for k, v in entry.get("grid", {}).items()}
            if quick:
                fixed.update({k: v for k, v in quick_spec.get("fixed", {}).items() if k in method.valid_params})
                step = quick_spec.get("thin", 1)
                grid = {k: (v[::step] if len(v) > 2 * step else v) for k, v in grid.items()}
            scenarios = entry.get("scenarios") or settings["scenarios"]
            for scenario in scenarios:
                splits = task.get("splits", settings["splits"])
                if quick and "splits" in quick_spec:
                    splits = min(splits, quick_spec["splits"])
                parameters = {
                    "dataset": task["dataset"], "classes": list(task.get("classes", [])),
                    "options": dict(task.get("options", {})), "task": task_name,
                    "protocol": task.get("protocol", "gieseke"), "l": task["l"], "u": task.get("u", -1),
                    "t": task.get("t", -1), "v": task.get("v", 0), "folds": task.get("folds", 4),
                    "repeats": task.get("repeats", 3), "method": entry["name"],
                    "grid": grid, "fixed": fixed, "scenario": scenario,
                    "n_folds": settings["n_folds"], "n_splits": splits, "seed": settings["seed"], "n_jobs": 1,
                }
                configurations.append(Configuration(parameters, task_name, entry["name"], scenario))
    return Experiment(name=path.stem, path=path, title=spec.get("title", path.stem),
                      description=spec.get("description", ""), configurations=tuple(configurations),
                      published=tuple(published), skipped=tuple(skipped),
                      references=tuple(spec.get("references", [])), settings=settings)
