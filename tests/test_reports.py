"""The reproduce runner's pieces that need no Jupyter kernel: experiment files, the CLI, records."""
from __future__ import annotations

import re
import textwrap

import nbformat
import numpy as np
import pandas as pd
import pytest

from toolkit.cli import main
from toolkit.reports import ExperimentError, list_experiments, load_experiment, read_records, RECORD_MIME
from toolkit.reports._runner import _atomic_write_text
from toolkit.selection import METHODS, available_methods

GOOD = """
title = "tiny"
splits = 2
n_folds = 2

[[tasks]]
name = "Moons"
dataset = "moons"
options = { n = 80, rng = 0 }
l = 8
u = 20
t = 30
fixed = { kernel = "rbf", sigma = 0.5 }

[[methods]]
name = "rlsc"
grid = { lam = [0.01, 1.0] }
"""


def write(tmp_path, text, name="exp.toml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def test_reproduce_list_prints_quick(capsys):
    assert main(["reproduce", "--list"]) == 0
    out = capsys.readouterr().out
    assert "quick" in out.split()
    assert set(list_experiments()) >= {"quick"}


def test_quick_covers_every_available_family():
    exp = load_experiment("quick")
    used = {c.method for c in exp.configurations}
    assert {"rlsc", "svc"} <= used
    families = {METHODS[m].family for m in available_methods()}
    assert families <= {METHODS[m].family for m in used}
    for c in exp.configurations:  # every semi-supervised method meets its baseline on the same task
        base = METHODS[c.method].baseline
        if base:
            assert any(o.method == base and o.task == c.task and o.scenario == c.scenario
                       for o in exp.configurations), (c.method, c.task, c.scenario)
    keys = [c.key for c in exp.configurations]
    assert len(set(keys)) == len(keys)


def test_configuration_keys_are_stable(tmp_path):
    a = load_experiment(write(tmp_path, GOOD))
    b = load_experiment(write(tmp_path, GOOD, "other.toml"))
    assert [c.key for c in a.configurations] == [c.key for c in b.configurations]
    assert len(a.configurations) == 1 and a.configurations[0].parameters["grid"] == {"lam": [0.01, 1.0]}


@pytest.mark.parametrize("change,message", [
    (('name = "rlsc"', 'name = "rlscc"'), r"methods\[0\]\.name = 'rlscc' is not a method\. Valid choices: .*rlsc"),
    (('dataset = "moons"', 'dataset = "mons"'), r"tasks\[0\]\.dataset = 'mons' is not a data set\. Valid choices: .*moons"),
    (("grid = { lam", "grid = { lamb"), r"methods\[0\]\.grid\.lamb is not a parameter of 'rlsc'\. Valid choices: .*lam"),
    (("splits = 2", "split = 2"), r"unknown key \(top level\)\.split\. Valid keys: .*splits"),
    (("l = 8", "l = 8\nsize = 3"), r"unknown key tasks\[0\]\.size\. Valid keys: "),
    (("n_folds = 2", 'n_folds = 2\nscenarios = ["oracle"]'), r"scenarios = 'oracle' is not a scenario\. Valid choices: labeled-cv"),
    (("l = 8", 'l = "eight"'), r"tasks\[0\]\.l must be an integer"),
])
def test_bad_experiment_files_name_file_key_and_choices(tmp_path, change, message):
    path = write(tmp_path, GOOD.replace(*change))
    with pytest.raises(ExperimentError, match=message) as info:
        load_experiment(path)
    assert str(path) in str(info.value)


def test_unknown_experiment_and_cli_error(tmp_path, capsys):
    with pytest.raises(ExperimentError, match="Unknown experiment 'nope'. Valid experiments: .*quick"):
        load_experiment("nope")
    assert main(["reproduce", "nope", "--output", str(tmp_path)]) == 2
    assert "quick" in capsys.readouterr().err


def test_records_round_trip_through_a_notebook():
    frame = pd.DataFrame({"a": [1.0, np.nan], "fold": ["0", "refit"]})
    cell = nbformat.v4.new_code_cell("")
    cell.outputs = [
        nbformat.v4.new_output("display_data", data={RECORD_MIME: {"name": "x", "kind": "json", "value": 1.5},
                                                     "text/plain": "x"}),
        nbformat.v4.new_output("display_data", data={RECORD_MIME: {"name": "t", "kind": "dataframe",
                                                                   "value": frame.to_json(orient="split", index=False)},
                                                     "text/plain": "t"}),
    ]
    nb = nbformat.v4.new_notebook(cells=[cell])
    records = read_records(nb)
    assert records["x"] == 1.5
    pd.testing.assert_frame_equal(records["t"], frame)


def test_atomic_write_leaves_no_partial_file(tmp_path):
    target = tmp_path / "out.csv"
    _atomic_write_text(target, "a,b\n")
    assert target.read_text() == "a,b\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.csv"]


def test_paper_table_marks_best_and_published():
    from toolkit.reports import tables

    rows = []
    for split in range(3):
        for method, value in (("rlsc", 10.0 + split), ("svc", 12.0 + split)):
            rows.append({"dataset": "d", "task": "T", "split": split, "method": method, "params": "{}",
                         "scenario": "labeled-cv", "fold": "refit", "metric": "test_error", "value": value,
                         "seconds": 0.1, "seed": 0})
    published = pd.DataFrame([{"task": "T", "method": "rlsc", "scenario": "labeled-cv", "metric": None,
                               "mean": 11.4, "sd": 2.4, "source": "Gieseke et al. (2012), Table 3"}])
    html = tables.paper_table(pd.DataFrame(rows), published=published, scenario="labeled-cv")
    assert "<b>11.0 ± 1.0</b>" in html and "13.0 ± 1.0" in html
    assert "11.4 ± 2.4 [1]" in html and "Gieseke et al. (2012), Table 3" in html


def test_quick_overrides_thin_grids_and_fix_parameters(tmp_path):
    text = GOOD.replace("grid = { lam = [0.01, 1.0] }", "grid = { lam = [1e-4, 1e-3, 1e-2, 1e-1, 1.0, 10.0] }")
    text += "\n[quick]\nsplits = 1\nthin = 2\nfixed = { offset = true }\n"
    path = write(tmp_path, text)
    full, quick = load_experiment(path), load_experiment(path, quick=True)
    assert full.configurations[0].parameters["grid"]["lam"] == [1e-4, 1e-3, 1e-2, 1e-1, 1.0, 10.0]
    params = quick.configurations[0].parameters
    assert params["grid"]["lam"] == [1e-4, 1e-2, 1.0]
    assert params["fixed"]["offset"] is True and params["n_splits"] == 1
    assert quick.configurations[0].key != full.configurations[0].key


# ---------------------------------------------------------------------------- task labels = split sizes
_SIZE_LABEL = re.compile(r"\[(\d+(?:-\d+)?(?:/\d+(?:-\d+)?){2,3})\]\s*$")


@pytest.fixture(scope="module")
def label_data(mirror_dir, tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TOOLKIT_DATA_DIR", str(tmp_path_factory.getbasetemp() / "label-data-cache"))
        mp.setenv("TOOLKIT_DATA_MIRROR", str(mirror_dir))
        yield


def _splits_of(parameters):
    """The splits model_selection.ipynb draws for one configuration."""
    from toolkit import data

    p = parameters
    ds = data.load(p["dataset"], *p["classes"], **p["options"])
    if p["protocol"] == "gieseke":
        return [data.split(ds, l=p["l"], u=None if p["u"] < 0 else p["u"], t=None if p["t"] < 0 else p["t"],
                           rng=p["seed"] + j) for j in range(p["n_splits"])]
    return list(data.cv_splits(ds, folds=p["folds"], repeats=p["repeats"], l=p["l"], v=p["v"],
                               rng=p["seed"]))[:p["n_splits"]]


@pytest.mark.parametrize("name", sorted(list_experiments()))
def test_task_labels_state_the_split_sizes_used(name, label_data):
    """A task label ending in "[l/u/t]" or "[l/u/v/t]" gives the sizes of the splits the experiment
    draws (a range "a-b" where they differ between folds; --quick draws the first of these splits)."""
    tasks = {c.task: c.parameters for c in load_experiment(name).configurations}
    for task, parameters in tasks.items():
        match = _SIZE_LABEL.search(task)
        if match is None:
            continue
        splits = _splits_of(parameters)
        sizes = np.array([(len(s.labeled), len(s.unlabeled), len(s.validation), len(s.test)) for s in splits])
        parts = match.group(1).split("/")
        if len(parts) == 3:  # [l/u/t]: only for protocols without a validation set
            assert (sizes[:, 2] == 0).all(), f"{name}: {task!r} has no v but the splits hold {sizes[0, 2]} validation points"
            sizes = sizes[:, [0, 1, 3]]
        lows, highs = zip(*[(int(p.split("-")[0]), int(p.split("-")[-1])) for p in parts])
        actual = "/".join(str(lo) if lo == hi else f"{lo}-{hi}" for lo, hi in zip(sizes.min(0), sizes.max(0)))
        assert (list(lows), list(highs)) == (list(sizes.min(0)), list(sizes.max(0))), \
            f"{name}: task {task!r} draws splits of sizes [{actual}] ({parameters['protocol']} protocol)"
