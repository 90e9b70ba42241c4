"""An experiment file is checked whole before any Jupyter kernel starts (issue 26): its settings
by the rules of the functions they feed (load_experiment), its tasks' data and splits and every
grid / fixed value by those functions themselves (the runner's preflight), with errors that name
the file, the key and the line; `ssl-toolkit reproduce` then exits 2 without a traceback."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from toolkit.reports._experiments import ExperimentError, load_experiment
from toolkit.reports._preflight import check_configurations

QUICK = (Path(__file__).resolve().parents[1] / "notebooks" / "experiments" / "quick.toml").read_text()

# (pattern in quick.toml, replacement, the message expected: key and rule)
CASES = {
    "splits = 0": (r"(?m)^splits = 3", "splits = 0", r"line 11: splits must be an int in \[1, inf\)"),
    "splits = -1": (r"(?m)^splits = 3", "splits = -1", r"line 11: splits must be an int in \[1, inf\)"),
    "n_folds = 1": (r"(?m)^n_folds = 4", "n_folds = 1", r"line 13: n_folds must be an int in \[2, inf\)"),
    "seed = -1": (r"(?m)^seed = 0", "seed = -1", r"line 12: seed must be an int in \[0, inf\)"),
    "quick.splits = 0": (r"(?m)^\[quick\]\nsplits = 2", "[quick]\nsplits = 0",
                         r"line 26: quick.splits must be an int in \[1, inf\)"),
    "l = 0": (r"(?m)^l = 10", "l = 0", r"line 47: tasks\[3\].l must be an int in \[1, inf\)"),
    "u = -5": (r"(?m)^u = 190", "u = -5", r"line 48: tasks\[3\].u must be an int in \[0, inf\) or -1"),
    "l + u + t > n": (r"(?m)^t = 200", "t = 2000",
                      r"line 44: the task 'Moons \[10/190/200\]' .* cannot be drawn: The 't' parameter of split "
                      r"must be at most the test part \(200 of 400 points\)"),
    "loader option": (r"noise = 0.1", "noise = -1.0", r"cannot be drawn: The 'noise' parameter of load\('moons'\)"),
    "lam = [-1]": (r"grid = \{ lam = \[0.0001, 0.001, 0.01, 0.1, 1.0, 10.0\] \}", "grid = { lam = [-1.0] }",
                   r"line 54: the method 'rlsc' .*grid.lam = -1.0 is refused: The 'lam' parameter of rlsc must be"),
    "C = 0 in a grid": (r"grid = \{ C = \[1000.0", "grid = { C = [1000.0, 0.0",
                        r"the method 'svc' .*grid.C = 0.0 is refused"),
    "sigma_scale = -1": (r"sigma_scale = 0.1", "sigma_scale = -1.0",
                         r"line 50: .*fixed.sigma_scale = -1.0 is refused: .*must be a float in \(0.0, inf\)"),
    "data_draw = 'fresh'": (r'options = \{ n = 400, noise = 0.1, rng = 0 \}',
                            'options = { n = 400, noise = 0.1, rng = 0 }\ndata_draw = "fresh"',
                            r"tasks\[3\].data_draw = 'fresh' is not a way to draw the data"),
    "data_draw without rng": (r'options = \{ n = 400, noise = 0.1, rng = 0 \}',
                              'options = { n = 400, noise = 0.1 }\ndata_draw = "per-split"',
                              r"tasks\[3\].data_draw = 'per-split' needs the gieseke protocol and a synthetic data "
                              r"set drawn with options.rng"),
    "restarts = 0": (r"fixed = \{ restarts = 2, eps = 0.2 \}\ntasks = \[\"Gaussian",
                     "fixed = { restarts = 0, eps = 0.2 }\ntasks = [\"Gaussian",
                     r"the method 's2rlsc' .*fixed.restarts = 0 is refused: The 'restarts' parameter of LocalSearch"),
}


def _write(tmp_path, case):
    pattern, replacement, _ = CASES[case]
    text, count = re.subn(pattern, replacement, QUICK, count=1)
    assert count == 1, f"quick.toml changed: update the pattern of {case!r}"
    path = tmp_path / "bad.toml"
    path.write_text(text)
    return path


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_bad_value_is_refused_before_anything_runs_naming_file_key_and_line(tmp_path, case, mirror_dir,
                                                                                monkeypatch):
    monkeypatch.setenv("TOOLKIT_DATA_MIRROR", str(mirror_dir))
    path = _write(tmp_path, case)
    with pytest.raises(ExperimentError) as info:
        check_configurations(load_experiment(path))
    message = str(info.value)
    assert message.startswith(str(path)), message
    assert re.search(CASES[case][2], message), message


def test_the_committed_experiments_pass_the_checks(mirror_dir, monkeypatch):
    monkeypatch.setenv("TOOLKIT_DATA_MIRROR", str(mirror_dir))
    check_configurations(load_experiment("quick"))
    check_configurations(load_experiment("quick", quick=True))


@pytest.mark.parametrize("args, message", [
    (["reproduce", "{tmp}/bad.toml"], r"line 11: splits must be an int in \[1, inf\)"),
    (["reproduce", "{tmp}/missing.toml"], r"The experiment file '.*missing.toml' does not exist"),
])
def test_reproduce_stops_with_a_message_and_no_traceback(tmp_path, args, message, capsys):
    from toolkit.cli import main

    _write(tmp_path, "splits = 0")
    code = main([a.format(tmp=tmp_path) for a in args] + ["--output", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err and re.search(message, err), err
    assert not (tmp_path / "out" / "bad" / "runs").exists()          # nothing started


def test_a_draw_per_partition_gives_each_partition_its_own_data(tmp_path):
    """``data_draw = "per-split"``: partition j of a synthetic task is drawn on data of its own
    (``rng = seed + j``; partition 0 on the shared draw), and the configuration says so; the default
    (one shared draw) leaves the configurations' keys as they were."""
    import numpy as np

    from toolkit import data

    text = QUICK.replace('options = { n = 400, noise = 0.1, rng = 0 }',
                         'options = { n = 400, noise = 0.1, rng = 0 }\ndata_draw = "per-split"', 1)
    (tmp_path / "drawn.toml").write_text(text)
    per = [c for c in load_experiment(tmp_path / "drawn.toml").configurations if c.task.startswith("Moons")]
    shared = [c for c in load_experiment("quick").configurations if c.task.startswith("Moons")]
    assert per and all(c.parameters["data_draw"] == "per-split" for c in per)
    assert all("data_draw" not in c.parameters for c in shared)
    a, b = data.load("moons", n=400, noise=0.1, rng=0), data.load("moons", n=400, noise=0.1, rng=1)
    assert not np.allclose(a.X, b.X)


@pytest.mark.slow
def test_the_notebook_fits_each_partition_on_its_own_draw(tmp_path, mirror_dir, monkeypatch):
    """End to end: with a draw per partition the first partition is the shared draw's and the others
    differ from it."""
    import pandas as pd

    pytest.importorskip("papermill")
    from toolkit.reports import run_experiment

    monkeypatch.setenv("TOOLKIT_DATA_MIRROR", str(mirror_dir))
    text = """title = "draws"
description = "one draw or a draw per partition"
splits = 3
seed = 0
n_folds = 3
scenarios = ["test-set"]

[[tasks]]
name = "Moons [10/190/200]"
dataset = "moons"
options = {{ n = 400, noise = 0.1, rng = 0 }}
l = 10
u = 190
t = 200
fixed = {{ kernel = "rbf", sigma_scale = 0.1 }}
{draw}

[[methods]]
name = "rlsc"
grid = {{ lam = [0.01, 1.0] }}
"""
    values = {}
    for name, draw in (("shared", ""), ("per", 'data_draw = "per-split"')):
        path = tmp_path / f"{name}.toml"
        path.write_text(text.format(draw=draw))
        summary = run_experiment(path, output=tmp_path / "out", jobs=1, report=False, log=lambda m: None,
                                 progress=False)
        assert not summary.failures, summary.failures
        frame = pd.read_csv(tmp_path / "out" / name / "splits.csv")
        values[name] = frame[frame["metric"] == "test_error"].set_index("split")["value"].sort_index()
    shared, per = values["shared"], values["per"]
    assert shared.loc[0] == per.loc[0]
    assert (shared.loc[1:] != per.loc[1:]).any()
