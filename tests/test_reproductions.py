"""The papers' reproductions run as the runner runs them, with tiny parameters: the configurations
declared in ``gieseke2012.toml`` and ``melacci2011.toml`` through ``model_selection.ipynb``, and the
Wang et al. figures (``wang_paths.toml``) through ``wang_paths.ipynb``.

One Jupyter kernel (:class:`~toolkit.reports._kernels.KernelSession`) executes every notebook of
the module; each configuration is the declared one with fewer splits and a one-point grid.
"""
from __future__ import annotations

import re
import textwrap

import pytest

pytest.importorskip("papermill")

from toolkit.reports import load_experiment, notebooks_dir, read_records, run_experiment  # noqa: E402
from toolkit.reports._kernels import KernelSession  # noqa: E402


@pytest.fixture(scope="module")
def session(tmp_path_factory, mirror_dir):
    kernel = KernelSession(tmp_path_factory.mktemp("kernel"), threads=1,
                           env={"TOOLKIT_DATA_MIRROR": str(mirror_dir)})
    yield kernel
    kernel.shutdown()


def declared(name, task, method, scenario=None):
    """The parameters of one declared configuration (task named by the start of its label)."""
    exp = load_experiment(name)
    inputs = {e["task"] for e in exp.sensitivity}       # the input-sensitivity copies of a task are not it
    (config,) = [c for c in exp.configurations if c.task.startswith(task) and c.method == method
                 and scenario in (None, c.scenario) and c.task not in inputs]
    return dict(config.parameters)


def execute(notebook, tmp_path, session, parameters):
    out = tmp_path / notebook
    session.run_notebook(notebooks_dir() / notebook, out, parameters)
    return read_records(out)


@pytest.mark.parametrize("scenario,label,eps", [("labeled-cv", "labeled-cv", 0.2),
                                                ("test-set", "test-set (non-realistic)", 0.1)])
def test_gieseke2012_s2rlsc_in_both_scenarios(tmp_path, session, scenario, label, eps):
    """Tables 3 and 2: S²RLSC on Gaussian2C with the declared (μ+ν)-EA, one partition, one grid point."""
    p = declared("gieseke2012", "Gaussian2C [25/", "s2rlsc", scenario)
    p.update(n_splits=1, grid={"lam": [1.0], "lam_u": [1.0]}, fixed={**p["fixed"], "restarts": 1})
    records = execute("model_selection.ipynb", tmp_path, session, p)
    assert records["scenario"] == label
    refit = records["results"].query("fold == 'refit' and metric == 'test_error'")
    assert len(refit) == 1 and f'"eps": {eps}' in refit["params"].iloc[0] and '"search": "mu+nu"' in refit["params"].iloc[0]
    assert records["test_error_mean"] < 10  # Table 2: 0.8 %, Table 3: 3.3 % (RLSC: about 11 %)


def test_melacci2011_fixed_table10_parameters_without_selection(tmp_path, session):
    """LapSVM by PCG with the stability check on G50C at Table 10's (γ_A, γ_I): no grid, one fit per split."""
    p = declared("melacci2011", "G50C", "lapsvm (PCG)")
    p.update(n_splits=1)
    records = execute("model_selection.ipynb", tmp_path, session, p)
    results = records["results"]
    assert set(results["method"]) == {"lapsvm (PCG)"} and records["scenario"] == "validation"
    assert results["params"].nunique() == 1
    assert '"gamma_A": 0.1, "gamma_I": 10.0' in results["params"].iloc[0]
    refit = results.query("fold == 'refit'")
    assert set(refit["metric"]) == {"test_error", "unlabeled_error", "validation_error", "n_iter", "solve_seconds",
                                    "line_search_per_iter"}     # PCG: its line searches per iteration (Table 6)
    assert refit.query("metric == 'n_iter'")["value"].iloc[0] >= 1          # PCG iterations of the refit
    assert records["test_error_mean"] < 15  # Table 7: 7.27 ± 2.87 %


def test_melacci2011_coil20b_uses_unit_norm_images(tmp_path, session):
    """COIL20(B) with Table 9's σ = 0.6 works on unit-norm images (raw pixels give ~45 % error)."""
    p = declared("melacci2011", "COIL20(B)", "laprlsc")
    assert p["options"] == {"normalize": "unit"}
    p.update(n_splits=1)
    records = execute("model_selection.ipynb", tmp_path, session, p)
    assert records["test_error_mean"] < 25  # Table 4: 8.59 ± 1.9 %


def test_wang_paths_notebook_tiny(tmp_path, session):
    records = execute("wang_paths.ipynb", tmp_path, session,
                      dict(repeats=2, train_fractions=[0.5], labels=[2, 4], n_grid=12, fig3_lambdas=[2.0, 0.46]))
    accuracy = records["accuracy"]
    assert set(accuracy["n_labeled"]) == {2, 4} and len(accuracy) == 2 * 2 * 12
    assert accuracy["accuracy"].between(0, 1).all() and accuracy["accuracy"].max() > 0.6
    # one labelled point per class: no event, one breakpoint (Wang et al. §4, Fig. 1)
    assert (accuracy.query("n_labeled == 2")["breakpoints"] == 1).all()
    assert len(records["summary"]) == 2 and list(records["fig3"]["lambda_w"]) == [2.0, 0.46]
    # the statements' indicators in `splits` are the inequalities of wang_paths.toml, recomputed here per draw
    cells = records["splits"].set_index(["task", "metric", "split"])["value"]
    fig3 = records["fig3_draws"]
    assert list(fig3["lambda_w"]) == [2.0, 0.46] * 2 and set(fig3["draw"]) == {0, 1}
    for k, part in fig3.groupby("draw"):
        at_2, at_046 = 100 * part["accuracy"].to_numpy()
        assert cells["50% training, 4 labels", "accuracy_at_lambda_2", k] == at_2
        assert cells["50% training, 4 labels", "very_low_at_lambda_2", k] == float(at_2 <= 75.0)
        assert cells["50% training, 4 labels", "smaller_lambda_better", k] == float(at_046 > at_2)
        best_2, best_4 = (cells[f"50% training, {n} labels", "best_accuracy", k] for n in (2, 4))
        assert cells["50% training, 2 labels", "below_very_high", k] == float(best_2 < 100.0)
        assert cells["50% training, 4 labels", "better_than_2_labels", k] == float(best_4 > best_2)
        events = [cells[f"50% training, {n} labels", "events", k] for n in (2, 4)]
        assert events[0] == 0 and cells["50% training, 4 labels", "more_events_with_more_labels", k] == float(
            events[1] > events[0])
    # the candidates rerun every draw: one row per variant, the reproduction's row is the run above
    candidates = records["candidates"].set_index("variant")
    assert len(candidates) == 11 and list(records["findings"]["statement"].str[:6]) == ["Fig. 3"]   # no 70 %
    ours = cells.xs("accuracy_at_lambda_2", level="metric").mean()
    assert float(candidates.at["reproduction (the paper's text)", "3 acc % at λ_W 2 / 0.46"].split(" / ")[0]) == \
        pytest.approx(ours, abs=0.05)


def test_runner_runs_a_notebook_experiment_once(tmp_path, mirror_dir, monkeypatch):
    """``ssl-toolkit reproduce`` of an experiment of the notebook kind: one run, its tables as CSV,
    the figures in report.html, the small tables in summary.md; a rerun skips it."""
    monkeypatch.setenv("TOOLKIT_DATA_MIRROR", str(mirror_dir))
    toml = tmp_path / "tiny_paths.toml"
    toml.write_text(textwrap.dedent("""
        title = "tiny paths"
        notebook = "wang_paths.ipynb"
        [parameters]
        repeats = 1
        train_fractions = [0.7]
        labels = [2]
        n_grid = 5
        fig3_lambdas = [1.0]
        """))
    summary = run_experiment(toml, output=tmp_path / "reports", log=lambda m: None)
    folder = tmp_path / "reports" / "tiny_paths"
    assert summary.ok and summary.n_run == 1 and summary.results == folder / "accuracy.csv"
    assert len(re.findall(r"<img", (folder / "report.html").read_text())) == 2
    text = (folder / "summary.md").read_text()
    assert "`ssl-toolkit reproduce tiny_paths`" in text and "## summary" in text and "| train_fraction |" in text
    assert {p.name for p in folder.glob("*.csv")} == {"accuracy.csv", "summary.csv", "fig3.csv", "fig3_draws.csv",
                                                      "candidates.csv", "findings.csv", "splits.csv"}
    again = run_experiment(toml, output=tmp_path / "reports", log=lambda m: None)
    assert again.n_skipped == 1 and again.n_run == 0 and again.ok
