"""Every notebook runs top to bottom through papermill with tiny parameters; the runner renders a
report with tables and figures, skips finished configurations and survives a failing one.

These start Jupyter kernels (a few seconds each), so the parameters are as small as they go.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

papermill = pytest.importorskip("papermill")

from toolkit.reports import notebooks_dir, read_records, run_experiment  # noqa: E402
from toolkit.reports._kernels import KernelSession  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def session(tmp_path_factory, mirror_dir):
    """One kernel for the module's notebooks, as the runner uses it (started once, reused)."""
    kernel = KernelSession(tmp_path_factory.mktemp("kernel"), threads=1,
                           env={"TOOLKIT_DATA_MIRROR": str(mirror_dir)})
    yield kernel
    kernel.shutdown()


def execute(name, tmp_path, session, **parameters):
    out = tmp_path / name
    session.run_notebook(notebooks_dir() / name, out, parameters)
    return read_records(out)


def test_every_notebook_has_one_typed_parameters_cell():
    import nbformat

    for path in sorted(notebooks_dir().glob("*.ipynb")):
        nb = nbformat.read(str(path), as_version=4)
        tagged = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
        assert len(tagged) == 1, path.name
        for line in tagged[0].source.splitlines():
            assert re.match(r"^\w+: \w+ = .+  # .+", line), (path.name, line)


def test_model_selection_notebook(tmp_path, session):
    records = execute("model_selection.ipynb", tmp_path, session, dataset="moons", options={"n": 80, "rng": 0},
                      l=8, u=30, t=40, method="rlsc", grid={"lam": [0.01, 1.0]},
                      fixed={"kernel": "rbf", "sigma": 0.5}, n_folds=2, n_splits=2, scenario="test-set")
    assert records["scenario"] == "test-set (non-realistic)"
    results = records["results"]
    assert set(results["split"]) == {0, 1}
    assert 0 <= records["test_error_mean"] <= 50
    refit = results[(results["fold"] == "refit") & (results["metric"] == "test_error")]
    assert refit["value"].mean() == pytest.approx(records["test_error_mean"])


def test_model_selection_notebook_draws_labelled_points_per_class_or_labels_all(tmp_path, session):
    """labels = "per-class": each class its share of l (toolkit.data.split(stratify=True)); "all": the
    same partitions with every training point labelled (a supervised reference)."""
    common = dict(dataset="gaussian2c", options={"n": 120, "d": 5, "rng": 0}, l=12, u=48, t=60, method="rlsc",
                  grid={"lam": [0.1]}, fixed={"kernel": "linear"}, n_folds=2, n_splits=2, scenario="test-set")
    from toolkit import data, rlsc
    ds = data.load("gaussian2c", n=120, d=5, rng=0)
    for labels in ("per-class", "all"):
        (tmp_path / labels).mkdir()
        records = execute("model_selection.ipynb", tmp_path / labels, session, labels=labels, **common)
        for j in range(2):
            s = data.split(ds, l=12, u=48, t=60, stratify=labels == "per-class", rng=j)
            lab = s.labeled if labels == "per-class" else np.r_[s.labeled, s.unlabeled]
            expected = 100 * np.mean(rlsc(ds.X[lab], ds.y[lab], lam=0.1, kernel="linear").predict(ds.X[s.test])
                                     != ds.y[s.test])
            got = records["results"]
            got = got[(got["split"] == j) & (got["fold"] == "refit") & (got["metric"] == "test_error")]["value"]
            assert got.iloc[0] == pytest.approx(expected)
    (tmp_path / "bad").mkdir()
    with pytest.raises(papermill.PapermillExecutionError, match="labels must be 'drawn', 'per-class' or 'all'"):
        execute("model_selection.ipynb", tmp_path / "bad", session, labels="some", **common)


def test_datasets_notebook(tmp_path, session):
    records = execute("datasets.ipynb", tmp_path, session, image_sets=["coil20"], per_class=2, max_classes=2)
    assert records["n_datasets"] >= 10
    assert records["shapes"] == {"coil20": [1440, 1024]}


@pytest.mark.slow
def test_nbconvert_from_the_checkout_with_the_readmes_relative_mirror(tmp_path, mirror_dir):
    """``jupyter nbconvert --execute notebooks/datasets.ipynb`` typed in a checkout with the README's
    ``TOOLKIT_DATA_MIRROR=../shared/datasets``: the kernel runs in ``notebooks/``, the setting is
    relative to where the command was typed."""
    checkout = tmp_path / "main"
    (checkout / "notebooks").mkdir(parents=True)
    shutil.copy(notebooks_dir() / "datasets.ipynb", checkout / "notebooks")
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "datasets").symlink_to(mirror_dir)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLKIT_")}
    env.update({"PWD": str(checkout), "TOOLKIT_DATA_MIRROR": "../shared/datasets", "TOOLKIT_DATA_DIR": "cache",
                "PYDEVD_DISABLE_FILE_VALIDATION": "1"})
    proc = subprocess.run([sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute",
                           "notebooks/datasets.ipynb", "--output", "executed.ipynb"], cwd=checkout, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    records = read_records(checkout / "notebooks" / "executed.ipynb")
    assert records["shapes"]["coil20"] == [1440, 1024]
    assert (checkout / "cache" / "COIL20.mat").is_file()  # the relative cache folder, beside the command


TINY = """
title = "tiny report"
splits = 2
n_folds = 2
scenarios = ["labeled-cv"]

[[tasks]]
name = "Moons A"
dataset = "moons"
options = { n = 80, rng = 0 }
l = 8
u = 30
t = 40
fixed = { kernel = "rbf", sigma = 0.5 }

[[methods]]
name = "rlsc"
grid = { lam = [0.01, 1.0] }

[[methods]]
name = "svc"
grid = { C = [1.0, 10.0] }

[[methods]]  # valid values (the preflight passes them) that fail on this task: 50 neighbours of 38 points
name = "lapsvm"
grid = { gamma_A = [0.01] }
fixed = { n_neighbors = 50 }

[[published]]
task = "Moons A"
method = "rlsc"
mean = 12.5
sd = 1.5
source = "A made-up paper (2024), Table 1"
"""


def test_runner_renders_report_skips_finished_and_survives_failures(tmp_path, mirror_dir):
    toml = tmp_path / "tiny.toml"
    toml.write_text(textwrap.dedent(TINY))
    out = tmp_path / "reports"
    summary = run_experiment(toml, output=out, jobs=2, log=lambda m: None)
    assert summary.n_configurations == 3 and summary.n_run == 3
    # the n_neighbors = 50 configuration fails with the solver's own message and its configuration; the others finish
    assert len(summary.failures) == 1
    key, task, method, scenario, error = summary.failures[0]
    assert (task, method) == ("Moons A", "lapsvm") and "n_neighbors" in error
    assert "configuration" in (out / "tiny" / "runs" / key / "error.txt").read_text()
    import pandas as pd

    failures = pd.read_csv(out / "tiny" / "failures.csv")  # with the configuration that produced the error
    assert json.loads(failures["grid"][0]) == {"gamma_A": [0.01]} and "n_neighbors" in failures["error"][0]
    html = (out / "tiny" / "report.html").read_text()
    assert len(re.findall(r"<table", html)) >= 2
    assert len(re.findall(r"<img", html)) >= 2
    assert "12.5 ± 1.5" in html and "A made-up paper" in html and "Failed configurations" in html
    results = (out / "tiny" / "results.csv").read_text()
    assert results.startswith("dataset,task,split,method,params,scenario,fold,metric,value,seconds,seed")
    # a rerun skips the finished configurations and retries only the failed one
    again = run_experiment(toml, output=out, jobs=1, log=lambda m: None, report=False)
    assert again.n_skipped == 2 and again.n_run == 1
    params = json.loads((out / "tiny" / "runs" / key / "parameters.json").read_text())
    assert params["grid"] == {"gamma_A": [0.01]} and params["fixed"]["n_neighbors"] == 50


def test_comparison_report_runs_on_its_default_sample(tmp_path):
    # opened in JupyterLab, a notebook's kernel runs in its folder: the sample paths are relative to it
    in_folder = KernelSession(notebooks_dir(), threads=1)
    try:
        records = execute("comparison_report.ipynb", tmp_path, in_folder)
    finally:
        in_folder.shutdown()
    assert records["n_results"] > 0
    helped = records["helped"]
    assert {"s2rlsc", "lapsvm"} <= set(helped["method"]) and helped["pvalue"].notna().any()
    # the sample ships sizes.csv: the corrected test decides, the uncorrected p-value is kept beside it
    tested = helped[helped["pvalue"].notna()]
    assert set(tested["test"]) == {"corrected resampled t-test"} and tested["pvalue_uncorrected"].notna().all()
    # the summary renders the recorded verdicts, not a comparison of its own
    summary = records["summary"].set_index(["scenario", "task"])
    for row in helped.itertuples():
        column = {"too few splits": "not tested", "no baseline": "not tested"}.get(row.verdict, row.verdict)
        assert row.method in str(summary.loc[(row.scenario, row.task), column]).split(", ")
