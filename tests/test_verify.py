"""The committed results are what the code computes: ``reproduce quick`` rerun gives every value of
``reports/quick/splits.csv``, and ``reproduce NAME --verify`` checks a sample of any experiment.

The reruns start Jupyter kernels (``reproduce quick``: about 30-60 s on 2 cores).
"""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("papermill")

from toolkit.cli import main  # noqa: E402
from toolkit.reports import compare_splits, load_experiment, run_experiment, sample_configurations  # noqa: E402
from toolkit.selection._splitter import scenario_label  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
COMMITTED = ROOT / "reports" / "quick" / "splits.csv"


@pytest.fixture
def at_the_root(mirror_dir, monkeypatch):
    """A user in the repository's root folder with the offline mirror set."""
    monkeypatch.setenv("TOOLKIT_DATA_MIRROR", str(mirror_dir))
    monkeypatch.chdir(ROOT)


def test_reproduce_quick_gives_every_committed_value(at_the_root, tmp_path):
    """Every value of reports/quick/splits.csv (errors and iterations; no times) as a fresh run computes
    it, to 1e-9. Fails when a change of the code changes a result: regenerate reports/quick with
    ``ssl-toolkit reproduce quick --output reports --jobs 2`` and commit it with that change."""
    summary = run_experiment("quick", output=tmp_path, jobs=2, report=False, log=lambda m: None, progress=False)
    assert not summary.failures, summary.failures
    differences = compare_splits(pd.read_csv(COMMITTED), pd.read_csv(tmp_path / "quick" / "splits.csv"))
    assert differences.empty, f"{len(differences)} values differ from {COMMITTED}:\n{differences.to_string()}"


# ------------------------------------------------------------------------------------------ --verify
def test_verify_reruns_a_printed_sample_and_agrees_with_the_committed_values(at_the_root, capsys):
    assert main(["reproduce", "quick", "--verify", "--sample", "2", "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    sample = sample_configurations(load_experiment("quick").configurations, 2, seed=0)
    assert "verify quick: 2 of" in out and "verified:" in out
    for config in sample:
        assert f"{config.task} / {config.method} / {config.scenario}" in out


def test_verify_fails_and_names_a_value_that_differs(at_the_root, tmp_path, capsys):
    reports = tmp_path / "reports"
    shutil.copytree(ROOT / "reports" / "quick", reports / "quick")
    committed = pd.read_csv(COMMITTED)
    config = sample_configurations(load_experiment("quick").configurations, 2, seed=0)[0]
    row = committed.index[(committed["task"] == config.task) & (committed["method"] == config.method)
                          & (committed["scenario"] == scenario_label(config.scenario))
                          & (committed["metric"] == "test_error")][0]
    committed.loc[row, "value"] += 0.5
    committed.to_csv(reports / "quick" / "splits.csv", index=False)
    assert main(["reproduce", "quick", "--verify", "--sample", "2", "--jobs", "1", "--output", str(reports)]) == 1
    out = capsys.readouterr().out
    assert "NOT verified: 1 value(s) differ" in out
    table = out.split("differ from", 1)[1]
    assert config.method in table and "test_error" in table and f"{committed.loc[row, 'value']:.10g}" in table


def test_verify_without_committed_values_says_what_to_run(at_the_root, tmp_path, capsys):
    assert main(["reproduce", "quick", "--verify", "--output", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "splits.csv does not exist" in err and "ssl-toolkit reproduce quick" in err


def test_sample_and_seed_need_verify(capsys):
    assert main(["reproduce", "quick", "--sample", "2"]) == 2
    assert "add --verify" in capsys.readouterr().err


def test_sample_must_be_a_positive_size_or_all(capsys):
    with pytest.raises(SystemExit):
        main(["reproduce", "quick", "--verify", "--sample", "0"])
    assert "positive integer or 'all'" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------ the pieces
def test_the_sample_covers_each_method_once_first_and_is_deterministic():
    configurations = load_experiment("quick").configurations
    methods = {c.method for c in configurations}
    every = sample_configurations(configurations, len(methods))
    assert {c.method for c in every} == methods
    assert every == sample_configurations(configurations, len(methods), seed=0)
    bigger = sample_configurations(configurations, len(methods) + 3, seed=1)
    assert len(bigger) == len(methods) + 3 and {c.method for c in bigger} == methods
    assert list(bigger) == [c for c in configurations if c in bigger]          # the experiment's order
    two = sample_configurations(configurations, 2, seed=5)
    assert len({c.method for c in two}) == 2
    assert sample_configurations(configurations, None) == tuple(configurations)
    with pytest.raises(ValueError, match="'sample' parameter of sample_configurations"):
        sample_configurations(configurations, 0)


def test_compare_splits_lists_changed_and_missing_values_and_accepts_rounding():
    def table(values):
        return pd.DataFrame([{"task": "T", "method": "m", "scenario": "s", "split": s, "metric": metric, "value": v}
                             for (s, metric), v in values.items()])

    committed = table({(0, "test_error"): 10.0, (1, "test_error"): 12.5, (0, "n_iter"): 38.0,
                       (1, "n_iter"): np.nan, (2, "test_error"): 1.0})
    rerun = table({(0, "test_error"): 10.0 * (1 + 1e-12), (1, "test_error"): 12.6, (0, "n_iter"): 38.0,
                   (1, "n_iter"): np.nan, (3, "test_error"): 4.0})
    differ = compare_splits(committed, rerun)
    assert list(zip(differ["split"], differ["metric"])) == [(1, "test_error"), (2, "test_error"), (3, "test_error")]
    assert differ["difference"].iloc[0] == pytest.approx(0.1)
    assert np.isnan(differ["rerun"].iloc[1]) and np.isnan(differ["committed"].iloc[2])
    assert compare_splits(committed, committed).empty
