"""Every notebook runs top to bottom through papermill with tiny parameters; the runner renders a
report with tables and figures, skips finished configurations and survives a failing one.

These start Jupyter kernels (a few seconds each), so the parameters are as small as they go.
"""
from __future__ import annotations

import json
import re
import textwrap

import pytest

papermill = pytest.importorskip("papermill")

from toolkit.reports import kernel_name, notebooks_dir, read_records, run_experiment  # noqa: E402


@pytest.fixture(scope="module")
def kernel():
    return kernel_name(threads=1)


def execute(name, tmp_path, kernel, **parameters):
    out = tmp_path / name
    papermill.execute_notebook(str(notebooks_dir() / name), str(out), parameters=parameters, kernel_name=kernel,
                               progress_bar=False, cwd=str(tmp_path))
    return read_records(out)


def test_every_notebook_has_one_typed_parameters_cell():
    import nbformat

    for path in sorted(notebooks_dir().glob("*.ipynb")):
        if path.name.startswith("reproduce_"):
            continue
        nb = nbformat.read(str(path), as_version=4)
        tagged = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
        assert len(tagged) == 1, path.name
        for line in tagged[0].source.splitlines():
            assert re.match(r"^\w+: \w+ = .+  # .+", line), (path.name, line)


def test_model_selection_notebook(tmp_path, kernel):
    records = execute("model_selection.ipynb", tmp_path, kernel, dataset="moons", options={"n": 80, "rng": 0},
                      l=8, u=30, t=40, method="rlsc", grid={"lam": [0.01, 1.0]},
                      fixed={"kernel": "rbf", "sigma": 0.5}, n_folds=2, n_splits=2, scenario="test-set")
    assert records["scenario"] == "test-set (non-realistic)"
    results = records["results"]
    assert set(results["split"]) == {0, 1}
    assert 0 <= records["test_error_mean"] <= 50
    refit = results[(results["fold"] == "refit") & (results["metric"] == "test_error")]
    assert refit["value"].mean() == pytest.approx(records["test_error_mean"])


def test_datasets_notebook(tmp_path, kernel, mirror_dir, monkeypatch):
    monkeypatch.setenv("TOOLKIT_DATA_MIRROR", str(mirror_dir))  # the kernel inherits the environment
    records = execute("datasets.ipynb", tmp_path, kernel, image_sets=["coil20"], per_class=2, max_classes=2)
    assert records["n_datasets"] >= 10
    assert records["shapes"] == {"coil20": [1440, 1024]}


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

[[methods]]
name = "svc"
grid = { C = [-1.0] }

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
    # the C = -1 configuration fails with scikit-learn's own message and its configuration; the others finish
    assert len(summary.failures) == 1
    key, task, method, scenario, error = summary.failures[0]
    assert (task, method) == ("Moons A", "svc") and "C" in error
    assert "configuration" in (out / "tiny" / "runs" / key / "error.txt").read_text()
    import pandas as pd

    failures = pd.read_csv(out / "tiny" / "failures.csv")  # with the configuration that produced the error
    assert json.loads(failures["grid"][0]) == {"C": [-1.0]} and "C" in failures["error"][0]
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
    assert params["grid"] == {"C": [-1.0]}


def test_comparison_report_runs_on_its_default_sample(tmp_path, kernel):
    out = tmp_path / "report.ipynb"
    papermill.execute_notebook(str(notebooks_dir() / "comparison_report.ipynb"), str(out), kernel_name=kernel,
                               progress_bar=False, cwd=str(notebooks_dir()))
    records = read_records(out)
    assert records["n_results"] > 0
    helped = records["helped"]
    assert {"s2rlsc", "lapsvm"} <= set(helped["method"]) and helped["pvalue"].notna().any()
