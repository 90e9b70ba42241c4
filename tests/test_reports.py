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
from toolkit.reports._io import _atomic_write_text
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


def test_a_method_may_see_its_labelled_points_drawn_per_class_or_all(tmp_path):
    """``labels`` ("drawn", "per-class", "all") reaches the notebook only when it is not the default, so
    the keys of every other configuration stay as they were; a bad value or another protocol is refused."""
    base = load_experiment(write(tmp_path, GOOD)).configurations[0]
    extra = GOOD + '\n[[methods]]\nname = "rlsc"\nlabel = "rlsc (all)"\nlabels = "all"\ngrid = { lam = [1.0] }\n'
    a, b = load_experiment(write(tmp_path, extra, "all.toml")).configurations
    assert a.key == base.key and "labels" not in a.parameters and b.parameters["labels"] == "all"
    with pytest.raises(ExperimentError, match=r"labels = 'some' is not a way to draw the labelled points. "
                                              r"Valid choices: drawn, per-class, all"):
        load_experiment(write(tmp_path, extra.replace('labels = "all"', 'labels = "some"'), "bad.toml"))
    melacci = extra.replace('l = 8', 'protocol = "melacci-belkin"\nl = 8\nv = 8')
    with pytest.raises(ExperimentError, match=r"labels = 'all', which needs the gieseke protocol"):
        load_experiment(write(tmp_path, melacci, "mb.toml"))


def test_configuration_keys_are_stable(tmp_path):
    a = load_experiment(write(tmp_path, GOOD))
    b = load_experiment(write(tmp_path, GOOD, "other.toml"))
    assert [c.key for c in a.configurations] == [c.key for c in b.configurations]
    assert len(a.configurations) == 1 and a.configurations[0].parameters["grid"] == {"lam": [0.01, 1.0]}


def test_results_of_another_toolkit_version_are_not_reused(tmp_path, monkeypatch):
    """The run key holds the toolkit's version: after an upgrade that changed a default (e.g. the
    graph's heat weights in 0.2.0) a rerun recomputes instead of reusing the old numbers."""
    import toolkit
    before = load_experiment(write(tmp_path, GOOD)).configurations[0].key
    monkeypatch.setattr(toolkit, "__version__", "9.9.9")
    assert load_experiment(write(tmp_path, GOOD)).configurations[0].key != before


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
                           n_train=p.get("n_train"), rng=p["seed"] + j) for j in range(p["n_splits"])]
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
            assert (sizes[:, 2] == 0).all(), \
                f"{name}: {task!r} has no v but the splits hold {sizes[0, 2]} validation points"
            sizes = sizes[:, [0, 1, 3]]
        lows, highs = zip(*[(int(p.split("-")[0]), int(p.split("-")[-1])) for p in parts])
        actual = "/".join(str(lo) if lo == hi else f"{lo}-{hi}" for lo, hi in zip(sizes.min(0), sizes.max(0)))
        assert (list(lows), list(highs)) == (list(sizes.min(0)), list(sizes.max(0))), \
            f"{name}: task {task!r} draws splits of sizes [{actual}] ({parameters['protocol']} protocol)"


# ---------------------------------------------------------------------------- the report's opening summary
def _tidy(errors, scenario="labeled-cv"):
    """A tidy results frame from {task: {method: [error per split]}} (refit rows only)."""
    rows = []
    for task, methods in errors.items():
        for method, values in methods.items():
            for split, value in enumerate(values):
                rows.append({"dataset": task.lower(), "task": task, "split": split, "method": method,
                             "params": '{"kernel": "linear"}', "scenario": scenario, "fold": "refit",
                             "metric": "test_error", "value": float(value), "seconds": 0.1, "seed": split})
    return pd.DataFrame(rows)


SUMMARY_CASES = {
    # s2rlsc beats the best supervised method (rlsc) on all 8 splits; lapsvm is the worse SSL method
    "SSL better": {"rlsc": [10, 12, 11, 13, 10, 12, 11, 12], "svc": [14, 15, 13, 16, 14, 15, 13, 16],
                   "s2rlsc": [4, 6, 4, 7, 5, 5, 6, 5], "lapsvm": [9, 11, 10, 12, 9, 11, 10, 11]},
    # 3 splits, differences of both signs
    "Not significant": {"rlsc": [10, 12, 11], "laprlsc": [8, 14, 10]},
    # the supervised svc beats lapsvm on all 6 splits
    "Supervised better": {"svc": [5, 6, 5, 7, 6, 5], "lapsvm": [30, 35, 32, 36, 31, 33]},
    "One method": {"rlsc": [10, 11, 12]},
}


def test_summary_table_verdicts_on_a_handmade_frame():
    from toolkit.reports import tables

    summary = tables.summary_table(_tidy(SUMMARY_CASES)).set_index("task")
    assert list(summary.index) == list(SUMMARY_CASES)
    row = summary.loc["SSL better"]
    assert (row["best"], row["helped"], row["hurt"]) == ("s2rlsc", "s2rlsc, lapsvm", "")   # lapsvm beats svc
    assert row["no significant difference"] == "" and row["n_splits"] == 8 and row["test"] == "paired t-test"
    row = summary.loc["Not significant"]
    assert row["no significant difference"] == "laprlsc" and row["helped"] == row["hurt"] == ""
    row = summary.loc["Supervised better"]
    assert (row["best"], row["hurt"]) == ("svc", "lapsvm")
    row = summary.loc["One method"]
    assert (row["best"], row["n_methods"], row["test"]) == ("rlsc", 1, "")
    assert row["best_mean"] == pytest.approx(11.0)
    # where the sizes are known the corrected resampled t-test decides
    corrected = tables.summary_table(_tidy(SUMMARY_CASES), sizes={"SSL better": (250, 250)}).set_index("task")
    assert corrected.loc["SSL better", "test"] == "corrected resampled t-test"
    assert corrected.loc["Not significant", "test"] == "paired t-test"


def test_summary_markdown_says_what_to_act_on():
    from toolkit.reports import tables

    text = tables.summary_markdown(_tidy(SUMMARY_CASES))
    lines = {line.split("**")[1]: line for line in text.splitlines() if line.startswith("- **")}
    assert set(lines) == set(SUMMARY_CASES)
    assert "best **s2rlsc**" in lines["SSL better"] and "The unlabelled data **helped**: s2rlsc against rlsc" \
        in lines["SSL better"]
    assert "; lapsvm against svc" in lines["SSL better"] and "No significant" not in lines["SSL better"]
    assert "**No significant difference**: laprlsc against rlsc" in lines["Not significant"]
    assert "The unlabelled data **hurt**: lapsvm against svc" in lines["Supervised better"]
    assert "best **svc**" in lines["Supervised better"]
    assert "Only one method" in lines["One method"]
    assert "little power" not in " ".join(lines.values())            # caveats are said once, at the end
    caveats = text.split("**Caveats**")[1]
    assert text.count("*Few splits.*") == 1 and "3 splits for the comparisons on Not significant" in caveats
    assert text.count("*Few tasks.*") == 1 and "Friedman" in caveats


# Synthetic results where the two tests disagree (G50C-like: the paired t-test rejects, Nadeau & Bengio's
# corrected test does not, for s2rlsc; both reject for lapsvm) and where a method hurts (Gaussian2C-like).
DISAGREE = {
    "Disagree": {"rlsc": [10.0, 12.0, 9.0], "s2rlsc": [4.0, 8.5, 2.5],
                 "svc": [11.0, 12.0, 11.5], "lapsvm": [7.0, 8.0, 7.2]},
    "Hurts": {"rlsc": [8.0, 10.0, 12.0], "laprlsc": [35.0, 41.0, 46.0], "s2rlsc": [6.0, 9.0, 10.0]},
}
SIZES = {"Disagree": (250, 250), "Hurts": (250, 250)}


def _marks(html):
    """{(task, method): mark} of a paper table."""
    import re

    methods = re.findall(r"<th>([^<]+)</th>", html.split("</thead>")[0])[1:]
    out = {}
    for row in html.split("<tr><th>")[2:]:
        task = row.split(" <small>")[0]
        cells = re.findall(r"<td>(.*?)</td>", row)
        for method, cell in zip(methods, cells):
            out[(task, method)] = "helped" if "▼" in cell else "hurt" if "▲" in cell else ""
    return out


def test_summary_results_table_and_helped_table_render_one_verdict():
    """Issue 24: the summary said 'no significant difference' where the results table marked a method
    better and the "did it help" table said helped; a method that hurt was never called so; one
    sentence said 'helped significantly' and 'not significant after correction'. Now one verdict per
    task x method (the corrected test deciding, the uncorrected p beside it) is rendered everywhere."""
    from toolkit import stats
    from toolkit.reports import tables

    results = _tidy(DISAGREE)
    verdicts = tables.verdict_table(results, sizes=SIZES)
    by = verdicts.set_index(["task", "method"])
    # the synthetic case does what it says: the two tests disagree on s2rlsc, laprlsc hurts
    row = by.loc[("Disagree", "s2rlsc")]
    assert row["pvalue_uncorrected"] < 0.05 < row["pvalue"] and row["verdict"] == "no significant difference"
    assert by.loc[("Disagree", "lapsvm"), "verdict"] == "helped"
    assert by.loc[("Hurts", "laprlsc"), "verdict"] == "hurt"
    # the public function gives the same table
    pd.testing.assert_frame_equal(verdicts, stats.unlabeled_data_helped(results, sizes=SIZES))

    expected = {(t, m): v for (t, m), v in by["verdict"].items()}
    # 1. the results table's marks
    marks = _marks(tables.paper_table(results, scenario="labeled-cv", helped=verdicts))
    for key, verdict in expected.items():
        assert marks[key] == (verdict if verdict in ("helped", "hurt") else ""), key
    assert marks[("Disagree", "rlsc")] == marks[("Hurts", "rlsc")] == ""          # baselines carry no mark
    # 2. the "did it help" table
    helped = tables.helped_table(verdicts).set_index(["task", "method"])
    assert helped["verdict"].to_dict() == expected
    assert set(helped["test"]) == {"corrected resampled t-test"}
    # 3. the summary table and the summary text
    summary = tables.summary_table(results, sizes=SIZES).set_index("task")
    for (task, method), verdict in expected.items():
        assert method in summary.loc[task, verdict].split(", ")
    text = tables.summary_markdown(results, sizes=SIZES)
    lines = {line.split("**")[1]: line for line in text.splitlines() if line.startswith("- **")}
    disagree, hurts = lines["Disagree"], lines["Hurts"]
    assert "The unlabelled data **helped**: lapsvm against svc" in disagree
    assert "**No significant difference**: s2rlsc against rlsc" in disagree
    p, p_plain = row["pvalue"], row["pvalue_uncorrected"]
    assert f"p = {p:.2g} (uncorrected p = {p_plain:.2g})" in disagree                # the uncorrected p beside it
    assert "The unlabelled data **hurt**: laprlsc against rlsc" in hurts
    # "significant" is decided once: no sentence mixes a verdict with another test's
    for line in lines.values():
        assert "ignificant after" not in line and "helped significantly" not in line
    assert "corrected resampled t-test" in text.split("**Scenario")[0]               # the deciding test, declared once
    assert text.count("little power") == 1
    # the same verdicts whichever way the summary is called: with the table, or computing it
    assert text == tables.summary_markdown(results, sizes=SIZES, verdicts=verdicts)


def test_a_report_without_baselines_still_renders_and_says_so():
    from toolkit.reports import tables

    results = _tidy({"T": {"lapsvm": [5.0, 6.0, 7.0], "laprlsc": [4.0, 5.0, 6.0]}})
    verdicts = tables.verdict_table(results)
    assert set(verdicts["verdict"]) == {"no baseline"}
    text = tables.summary_markdown(results)
    assert "its baseline svc did not run on this task" in text and "its baseline rlsc did not run" in text
    supervised = _tidy({"T": {"rlsc": [5.0, 6.0, 7.0], "svc": [4.0, 5.0, 6.0]}})
    assert tables.verdict_table(supervised).empty
    assert "No semi-supervised method ran with its supervised baseline" in tables.summary_markdown(supervised)


def test_friedman_verdict_in_words():
    from toolkit.reports import tables

    consistent = {f"T{i}": {"s2rlsc": [1 + i, 2 + i], "rlsc": [5 + i, 6 + i], "svc": [9 + i, 9 + i]}
                  for i in range(12)}
    text = tables.friedman_verdict(_tidy(consistent), scenario="labeled-cv")
    assert "**differ significantly**" in text and "Best mean rank: **s2rlsc**" in text
    assert "12 tasks on which all 3 methods ran" in text and "little power" not in text
    few = tables.friedman_verdict(_tidy({k: consistent[k] for k in ("T0", "T1")}), scenario="labeled-cv")
    assert "**no significant difference**" in few and "With only 2 tasks the test has little power" in few
    lone = tables.friedman_verdict(_tidy({"T0": consistent["T0"]}), scenario="labeled-cv")
    assert "no rank test" in lone


def test_result_notes_only_where_the_explained_result_can_appear():
    from toolkit.reports import tables

    frame = _tidy({"Gaussian2C": {"rlsc": [8, 10], "lapsvm": [35, 33]}})
    frame["dataset"] = "gaussian2c"
    note = tables.result_notes(frame)
    assert "Gaussian2C" in note and "35.2 %" in note and "harmonic extension" in note
    assert tables.result_notes(frame[frame["method"] == "rlsc"]) == ""
    assert tables.result_notes(frame.assign(params='{"kernel": "rbf"}')) == ""


# ---------------------------------------------------------------------------- settings and numbers written once
PAPER = """
title = "paper"
splits = 2
n_folds = 2
scenarios = ["labeled-cv", "test-set"]

[[tasks]]
name = "Moons [8/20/30]"
dataset = "moons"
options = { n = 80, rng = 0 }
l = 8
u = 20
t = 30
fixed = { kernel = "rbf", sigma = 0.5 }

[[methods]]
name = "rlsc"
grid = { lam = [0.01, 1.0] }

[[methods]]
name = "svc"
grid = { C = [1.0] }

[[published]]
task = "Moons [8/20/30]"
method = "rlsc"
scenario = "labeled-cv"
mean = 12.5
sd = 1.5
source = "A made-up paper (2024), Table 3"

[[published]]
task = "Moons [8/20/30]"
method = "rlsc"
scenario = "test-set"
mean = 10.0
sd = 1.0
source = "A made-up paper (2024), Table 2"

[[published]]
task = "Moons [8/20/30]"
method = "svc"
mean = 20.0
source = "A made-up paper (2024), Table 3"
"""

MINE = """
title = "mine"
splits = 2
n_folds = 2
published_from = ["paper"]

[[tasks]]
name = "Moons [8/20/30]"
from = "paper"
fixed = { sigma = 0.25 }

[[methods]]
name = "rlsc"
grid = { lam = [0.1] }
"""


def test_task_from_and_published_from_write_each_setting_once(tmp_path):
    write(tmp_path, PAPER, "paper.toml")
    exp = load_experiment(write(tmp_path, MINE, "mine.toml"))
    (config,) = exp.configurations
    p = config.parameters
    assert (p["dataset"], p["options"], p["l"], p["u"], p["t"]) == ("moons", {"n": 80, "rng": 0}, 8, 20, 30)
    assert p["fixed"] == {"kernel": "rbf", "sigma": 0.25}  # the other experiment's fixed, this task's on top
    # only the numbers of a task, method and scenario declared here: rlsc labeled-cv (not test-set, not svc)
    assert [(e["method"], e["scenario"], e["mean"]) for e in exp.published] == [("rlsc", "labeled-cv", 12.5)]
    own = MINE + '\n[[published]]\ntask = "Moons [8/20/30]"\nmethod = "rlsc"\nscenario = "labeled-cv"\n' \
                 'mean = 11.0\nsource = "Our own reading"\n'
    assert [e["mean"] for e in load_experiment(write(tmp_path, own, "mine.toml")).published] == [11.0]


def test_label_and_method_fixed_give_published_settings_without_selection(tmp_path):
    text = GOOD.replace('grid = { lam = [0.01, 1.0] }', 'grid = { lam = [0.01, 1.0] }\n\n[[methods]]\nname = "rlsc"\n'
                        'label = "rlsc (paper)"')
    text = text.replace('fixed = { kernel = "rbf", sigma = 0.5 }',
                        'fixed = { kernel = "rbf", sigma = 0.5 }\nmethod_fixed = { "rlsc (paper)" = { lam = 0.3 } }')
    exp = load_experiment(write(tmp_path, text))
    searched, published = exp.configurations
    assert searched.method == "rlsc" and "label" not in searched.parameters
    assert published.method == "rlsc (paper)" and published.parameters["label"] == "rlsc (paper)"
    assert published.parameters["grid"] == {} and published.parameters["fixed"]["lam"] == 0.3


def test_a_sensitivity_task_is_its_base_task_with_other_inputs(tmp_path):
    text = GOOD.replace('fixed = { kernel = "rbf", sigma = 0.5 }',
                        'fixed = { kernel = "rbf", sigma = 0.5 }\nmethod_fixed = { rlsc = { lam = 0.3 } }')
    text = text.replace('grid = { lam = [0.01, 1.0] }', 'tasks = ["Moons"]')
    text = text.replace("[[methods]]", '[[tasks]]\nname = "Moons · wide"\nsensitivity_of = "Moons"\nsetting = "wide"\n'
                        'fixed = { sigma = 2.0 }\nmethod_fixed = { rlsc = { lam = 0.5 } }\n\n[[tasks]]\n'
                        'name = "Moons · other"\nsensitivity_of = "Moons"\nadmissible = false\n'
                        'options = { noise = 0.2 }\n\n[[methods]]', 1)
    exp = load_experiment(write(tmp_path, text))
    base, wide, other = exp.configurations          # the method listed for "Moons" runs on its variants too
    assert (wide.task, wide.parameters["dataset"], wide.parameters["l"]) == ("Moons · wide", "moons", 8)
    assert wide.parameters["fixed"] == {"kernel": "rbf", "sigma": 2.0, "lam": 0.5}
    assert other.parameters["options"] == {"n": 80, "rng": 0, "noise": 0.2}
    assert other.parameters["fixed"] == base.parameters["fixed"] == {"kernel": "rbf", "sigma": 0.5, "lam": 0.3}
    assert [(e["task"], e["of"], e["setting"], e["admissible"]) for e in exp.sensitivity] == [
        ("Moons · wide", "Moons", "wide", True), ("Moons · other", "Moons", "Moons · other", False)]
    with pytest.raises(ExperimentError, match=r"tasks\[1\]\.sensitivity_of = 'Mons' is not a task declared before"):
        load_experiment(write(tmp_path, text.replace('sensitivity_of = "Moons"\nsetting', 'sensitivity_of = "Mons"\nsetting')))
    with pytest.raises(ExperimentError, match="is itself a sensitivity task"):
        load_experiment(write(tmp_path, text.replace('sensitivity_of = "Moons"\nadmissible',
                                                     'sensitivity_of = "Moons · wide"\nadmissible')))


def test_one_label_fixed_on_some_tasks_and_searched_on_others(tmp_path):
    # melacci2011's SVM: Table 9's γ_A where the paper can be read, chosen on V where it cannot
    second = GOOD.split("[[methods]]")[0].split("[[tasks]]")[1].replace('name = "Moons"', 'name = "Moons 2"')
    text = GOOD.replace('fixed = { kernel = "rbf", sigma = 0.5 }',
                        'fixed = { kernel = "rbf", sigma = 0.5 }\nmethod_fixed = { rlsc = { lam = 0.3 } }')
    text = text.replace("[[methods]]", "[[tasks]]" + second + "[[methods]]", 1)
    text = text.replace('grid = { lam = [0.01, 1.0] }',
                        'fixed = {}\ntasks = ["Moons"]\n\n[[methods]]\nname = "rlsc"\ngrid = { lam = [0.01, 1.0] }\n'
                        'tasks = ["Moons 2"]')
    fixed, searched = load_experiment(write(tmp_path, text)).configurations
    assert (fixed.task, fixed.parameters["grid"], fixed.parameters["fixed"]["lam"]) == ("Moons", {}, 0.3)
    assert (searched.task, searched.parameters["grid"]) == ("Moons 2", {"lam": [0.01, 1.0]})
    # fixed and searched on the same task is still refused
    clash = text.replace('tasks = ["Moons 2"]', 'tasks = ["Moons", "Moons 2"]')
    with pytest.raises(ExperimentError, match=r"tasks\[0\]\.method_fixed\.rlsc\.lam is also in that method's grid"):
        load_experiment(write(tmp_path, clash))


@pytest.mark.parametrize("text,message", [
    (MINE.replace('from = "paper"', 'from = "papr"'), r"tasks\[0\]\.from = 'papr' is not another experiment\. Valid choices: .*paper"),
    (MINE.replace('name = "Moons [8/20/30]"', 'name = "Moons"'), r"tasks\[0\]\.from = 'paper' has no task named 'Moons'\. Valid choices: Moons \[8/20/30\]"),
    (MINE.replace('["paper"]', '["nope"]'), r"published_from\[0\] = 'nope' is not another experiment"),
    (MINE.replace('fixed = { sigma = 0.25 }', 'method_fixed = { svc = { C = 1.0 } }'),
     r"tasks\[0\]\.method_fixed\.svc: 'svc' is not a method of this experiment.*Valid choices: rlsc"),
    (MINE.replace('fixed = { sigma = 0.25 }', 'method_fixed = { rlsc = { lam = 1.0 } }'),
     r"tasks\[0\]\.method_fixed\.rlsc\.lam is also in that method's grid"),
    (MINE.replace('fixed = { sigma = 0.25 }', 'method_fixed = { rlsc = { C = 1.0 } }'),
     r"tasks\[0\]\.method_fixed\.rlsc\.C is not a parameter of 'rlsc'"),
    (MINE + '[[published]]\ntask = "Moons [8/20/30]"\nmethod = "svc"\nmean = 1.0\nsource = "x"\n',
     r"published\[0\]\.method = 'svc' is not a method of this experiment"),
    (MINE + '[[published]]\ntask = "Moons [8/20/30]"\nmethod = "rlsc"\nmetric = "error"\nmean = 1.0\nsource = "x"\n',
     r"published\[0\]\.metric = 'error' is not a metric\. Valid choices: test_error, unlabeled_error"),
    (MINE + '[parameters]\nrepeats = 1\n', r"parameters only goes with 'notebook'"),
])
def test_bad_shared_settings_name_file_key_and_choices(tmp_path, text, message):
    write(tmp_path, PAPER, "paper.toml")
    path = write(tmp_path, text, "mine.toml")
    with pytest.raises(ExperimentError, match=message) as info:
        load_experiment(path)
    assert str(path) in str(info.value)


def test_tasks_shared_between_experiments_are_declared_once():
    """A task that appears in two experiment files is declared in one and taken ``from`` it in the
    other, and an experiment's published numbers for it come from there (``published_from``)."""
    import tomllib

    from toolkit.reports import notebooks_dir

    specs = {p.stem: tomllib.loads(p.read_text()) for p in sorted((notebooks_dir() / "experiments").glob("*.toml"))}
    declared = {}
    for name, spec in specs.items():
        for task in spec.get("tasks", []):
            if "from" not in task:
                assert task["name"] not in declared, (task["name"], declared.get(task["name"]), name)
                declared[task["name"]] = name
    def sources(spec, task):
        return {e["source"].split(",")[0] for e in spec.get("published", []) if e["task"] == task}

    for name, spec in specs.items():
        for task in spec.get("tasks", []):
            if "from" in task:
                assert declared[task["name"]] == task["from"]
                own, theirs = sources(spec, task["name"]), sources(specs[task["from"]], task["name"])
                # another paper's numbers for the same data (gieseke2011 beside gieseke2012) are its own;
                # the numbers of the paper the task comes from are borrowed, never copied
                assert not own & theirs, f"{name}: the published numbers of {task['name']!r} belong to {task['from']}"
                assert own or task["from"] in spec.get("published_from", [])


def test_sample_published_csv_is_what_the_runner_writes_for_quick():
    """``experiments/sample/published.csv`` (the report notebook's default input) is the runner's
    ``reports/quick/published.csv``: regenerate it by copying that file after ``ssl-toolkit reproduce quick``."""
    from toolkit.reports import notebooks_dir
    from toolkit.reports._runner import published_table

    expected = published_table(load_experiment("quick")).to_csv(index=False)
    assert (notebooks_dir() / "experiments" / "sample" / "published.csv").read_text() == expected


def test_melacci2011_uses_the_published_parameters_without_selection():
    exp = load_experiment("melacci2011")
    inputs = {e["task"] for e in exp.sensitivity}
    by = {(c.task.split(" [")[0], c.method): c.parameters for c in exp.configurations if c.task not in inputs}
    assert {m for _, m in by} == {"svm", "rlsc", "svc (scikit-learn)", "laprlsc", "lapsvm", "lapsvm (PCG)",
                                  "lapsvm (PCG validation)", "lapsvm (PCG mixed)", "lapsvm_dual", "laprlsc (PCG)",
                                  "laprlsc (PCG validation)",
                                  "laprlsc (PCG mixed)",                  # LapRLSC by PCG: Table 8, PCMAC only
                                  "laprlsc (PCG, Table 9's parameters)",  # ... the reading committed before
                                  "laprlsc (PCG validation, Table 9's parameters)",
                                  "laprlsc (PCG mixed, Table 9's parameters)",
                                  "lapsvm (PCG, Newton's parameters)",    # Table 12: PCG at Table 9's values
                                  "lapsvm (PCG validation, Newton's parameters)",
                                  "lapsvm (PCG mixed, Newton's parameters)"}
    assert {t for t, m in by if m.startswith("laprlsc (PCG")} == {"PCMAC"}
    # Table 4's SVM and RLSC: the gamma_I = 0 case of the primal methods, no bias, Table 9's gamma_A where
    # it can be read, else chosen on V over the paper's grid; scikit-learn's SVC the labelled variant
    for task in ("G50C", "COIL20(B)", "PCMAC", "USPST(B)", "COIL20", "USPST"):
        svm, rlsc = by[(task, "svm")], by[(task, "rlsc")]
        assert (svm["method"], svm["fixed"]["gamma_I"], svm["fixed"]["method"]) == ("lapsvm", 0.0, "newton")
        assert (rlsc["method"], rlsc["fixed"]["gamma_I"], rlsc["fixed"]["method"]) == ("laprlsc", 0.0, "direct")
        assert svm["fixed"]["intercept"] is False and rlsc["fixed"]["intercept"] is False
    assert by[("G50C", "svm")]["fixed"]["gamma_A"] == 0.1 and by[("PCMAC", "svm")]["fixed"]["gamma_A"] == 1e-6
    assert by[("COIL20(B)", "svm")]["grid"] == {"gamma_A": [1e-6, 1e-4, 1e-2, 1e-1, 1.0, 10.0, 100.0]}
    assert by[("G50C", "rlsc")]["grid"] == by[("COIL20(B)", "svm")]["grid"]
    assert (by[("COIL20", "rlsc")]["grid"], by[("COIL20", "rlsc")]["fixed"]["gamma_A"]) == ({}, 1e-6)
    explained = {(e["method"], e["by"]) for e in exp.explanations if "results" not in e}
    assert explained == {("svm", "svc (scikit-learn)")} | {
        (f"laprlsc (PCG{c})", f"laprlsc (PCG{c}, Table 9's parameters)") for c in ("", " validation", " mixed")}
    # Table 8's PCG rows at Table 10's PCG parameters (the argument is in the experiment file), Table 9's beside
    for c in ("", " validation", " mixed"):
        table10, table9 = by[("PCMAC", f"laprlsc (PCG{c})")], by[("PCMAC", f"laprlsc (PCG{c}, Table 9's parameters)")]
        assert (table10["fixed"]["gamma_A"], table10["fixed"]["gamma_I"]) == (1e-4, 1.0)
        assert (table9["fixed"]["gamma_A"], table9["fixed"]["gamma_I"]) == (1e-6, 1e-2)
        assert {k: v for k, v in table10["fixed"].items() if not k.startswith("gamma")} == \
            {k: v for k, v in table9["fixed"].items() if not k.startswith("gamma")}
    # every PCG run stops only by its check, at MaxIter or on a step that does not descend, as LapSVMp's
    assert all(p["fixed"]["tol"] == 0.0 for (t, m), p in by.items() if "PCG" in m)
    # COIL20's open inputs (§6.3 fixes the normalised Laplacian): every COIL20 method on each, and
    # L = D - W, which the text rules out, run all the same and reported as outside the text
    assert {(e["of"].split(" [")[0], e["setting"], e["admissible"]) for e in exp.sensitivity} == {
        (t, s, s != "L = D - W") for t in ("COIL20", "COIL20(B)")
        for s in ("images / mean norm", "heat width σ = 0.6", "binary weights", "images / mean norm, heat width σ = 0.6",
                  "L = D - W")}
    for e in exp.sensitivity:
        assert ({c.method for c in exp.configurations if c.task == e["task"]}
                == {c.method for c in exp.configurations if c.task == e["of"]})
    # every Laplacian method LapSVMp has is also set beside LapSVMp's own run on the same splits
    peer = {e["method"] for e in exp.explanations if "results" in e}
    assert peer == {m for _, m in by if m.startswith(("laprlsc", "lapsvm")) and m != "lapsvm_dual"
                    and not m.endswith("Table 9's parameters)")}
    for (task, method), p in by.items():
        assert p["scenario"] == "validation" and p["protocol"] == "melacci-belkin" and p["n_splits"] == 12
        if method.startswith(("laprlsc", "lapsvm")) and method != "lapsvm_dual":  # Tables 9-10: fixed, no grid
            assert p["grid"] == {} and {"gamma_A", "gamma_I", "sigma", "n_neighbors", "laplacian_power"} <= set(p["fixed"])
    assert by[("G50C", "lapsvm")]["fixed"] == {"kernel": "rbf", "sigma": 17.5, "n_neighbors": 50, "laplacian_power": 5, "weight": "heat",
                                                "method": "newton", "line_search": False, "gamma_A": 0.1,
                                                "gamma_I": 10.0,   # Newton's full steps, as Table 5 counts them
                                                "intercept": False}   # LapSVMp: no bias with L normalised
    assert all(p["fixed"]["intercept"] is False for (t, m), p in by.items()
               if m.startswith(("laprlsc", "lapsvm")) and m != "lapsvm_dual")
    assert by[("PCMAC", "lapsvm (PCG)")]["fixed"]["gamma_A"] == 1e-4       # Table 10, not Newton's 1e-6
    assert by[("COIL20(B)", "lapsvm (PCG validation)")]["fixed"]["gamma_I"] == 100.0   # Table 10's validation check
    assert by[("COIL20(B)", "lapsvm (PCG validation)")]["fixed"]["stop"] == "validation"
    # PCMAC's mixed check runs at the validation check's (γ_A, γ_I): Tables 6-7 give both runs the same
    # numbers on every column, against the (1e-6, 1e-1) printed in Table 10 (see the experiment file)
    mixed, validation = by[("PCMAC", "lapsvm (PCG mixed)")]["fixed"], by[("PCMAC", "lapsvm (PCG validation)")]["fixed"]
    assert (mixed["gamma_A"], mixed["gamma_I"]) == (validation["gamma_A"], validation["gamma_I"]) == (1e-4, 1.0)
    for task in ("G50C", "COIL20(B)", "PCMAC", "USPST(B)", "COIL20", "USPST"):   # Table 12: Newton's values
        for check, stop in (("PCG", "stability"), ("PCG validation", "validation"), ("PCG mixed", "mixed")):
            fixed = by[(task, f"lapsvm ({check}, Newton's parameters)")]["fixed"]
            newton = by[(task, "lapsvm")]["fixed"]
            assert (fixed["gamma_A"], fixed["gamma_I"], fixed["stop"], fixed["method"]) == \
                (newton["gamma_A"], newton["gamma_I"], stop, "pcg")
    for task in ("COIL20(B)", "COIL20"):  # σ = 0.6 of Table 9 is meant for unit-norm images
        assert all(by[(task, m)]["options"] == {"normalize": "unit"} for m in ("svm", "svc (scikit-learn)", "lapsvm", "laprlsc"))
    # every configuration has the paper's test error beside it, and Table 6's times for the LapSVMs
    cells = {(e["task"], e["method"], e.get("metric")) for e in exp.published if "not_attempted" not in e}
    variants = {e["by"] for e in exp.explanations}
    for c in exp.configurations:
        if c.method in variants or c.task in inputs:   # explanation variants, input settings: no number of their own
            continue
        assert (c.task, c.method, "test_error") in cells, (c.task, c.method)
        if (c.method.startswith("lapsvm") or c.method.startswith("laprlsc (PCG")) \
                and not c.method.endswith("Newton's parameters)"):   # Table 11, their times: not declared
            assert (c.task, c.method, "seconds") in cells
    # the two data sets not mirrored are listed with the reason, every table's rows of them
    absent = [e for e in exp.published if "not_attempted" in e]
    assert {e["task"].split(" [")[0] for e in absent} == {"MNIST3VS8", "FACEMIT"}
    assert {e["source"].split(", ")[1].split(" (")[0] for e in absent} == {"Table 4", "Table 5", "Table 6", "Table 7",
                                                                             "Table 11", "Table 12"}


def test_gieseke2012_declares_both_scenarios_of_tables_2_and_3():
    exp = load_experiment("gieseke2012")
    configs = {(c.task.split(" [")[0], c.method, c.scenario): c.parameters for c in exp.configurations}
    tasks = {t for t, _, _ in configs}
    assert len({c.task for c in exp.configurations}) == 32          # every row of Tables 2 and 3
    assert tasks == {"Gaussian2C", "Gaussian4C", "USPS(2,5)", "USPS(2,7)", "USPS(3,8)", "USPS(8,0)", "MNIST(1,7)",
                     "MNIST(2,5)", "MNIST(2,7)", "MNIST(3,8)", "COIL(3,6)", "COIL(5,9)", "COIL(6,19)", "COIL(18,19)"}
    coil = next(c.parameters for c in exp.configurations if c.task.startswith("COIL(3,6) [14/"))
    assert (coil["l"], coil["u"], coil["t"], coil["n_train"], coil["options"]) == (14, 101, 29, 115, {"size": 20})
    assert all(c.parameters["options"] == {"split": "test", "n": 1000}         # MNIST: the test split, said so
               for c in exp.configurations if c.task.startswith("MNIST"))
    pow2 = [2.0 ** k for k in range(-10, 11)]
    for task in tasks:
        for scenario, eps in (("labeled-cv", 0.2), ("test-set", 0.1)):  # Table 3 (realistic), Table 2
            assert sorted(configs[(task, "rlsc", scenario)]["grid"]["lam"]) == pow2
            assert sorted(configs[(task, "svc", scenario)]["grid"]["C"]) == pow2
            s2 = configs[(task, "s2rlsc", scenario)]
            assert sorted(s2["grid"]["lam"]) == pow2 and s2["grid"]["lam_u"] == [0.1, 1.0]
            assert s2["fixed"] == {"kernel": "linear", "search": "mu+nu", "mu": 5, "nu": 25, "restarts": 10,
                                   "eps": eps}
            assert s2["n_splits"] == 10 and s2["n_folds"] == 5
    published = {(e["task"].split(" [")[0], e["method"], e["scenario"]) for e in exp.published
                 if "not_attempted" not in e}
    # "svc (no intercept)" is the explanation experiment beside LIBSVM's column: no published number; so are
    # the variants with per-class or all labelled points, each the same search as the method it explains
    variants = {k for k in configs if "labels" in configs[k]}
    assert {k[1] for k in variants} == {"svc (per-class labels)", "rlsc (all training labels)",
                                        "s2rlsc (per-class labels)", "tsvm (per-class labels)"}
    for task, label, scenario in variants:
        twin = configs[(task, label.split(" (")[0], scenario)]
        assert (configs[(task, label, scenario)]["grid"], configs[(task, label, scenario)]["fixed"]) == \
            (twin["grid"], twin["fixed"])
        assert configs[(task, label, scenario)]["labels"] == ("all" if "all training" in label else "per-class")
    assert published == {k for k in configs if k[1] != "svc (no intercept)" and k not in variants}
    assert {k for k in configs if k[1] == "svc (no intercept)"} == {(t, "svc (no intercept)", s) for t, _, s in published}
    assert all(configs[k]["fixed"]["intercept"] is False for k in configs if k[1] == "svc (no intercept)")
    assert not [e for e in exp.published if "not_attempted" in e]       # UniverSVM's column: tsvm
    for task in tasks:
        for scenario in ("labeled-cv", "test-set"):
            tsvm = configs[(task, "tsvm", scenario)]
            assert sorted(tsvm["grid"]["C"]) == pow2 and tsvm["grid"]["C_star_u"] == [0.01, 1.0, 100.0]
            assert tsvm["fixed"] == {"kernel": "linear", "s": -0.3}


def test_notebook_experiment_is_checked_against_the_notebooks_parameters(tmp_path):
    exp = load_experiment("wang_paths", quick=True)
    assert exp.notebook == "wang_paths.ipynb" and exp.configurations == ()
    assert exp.parameters["repeats"] == 1 and exp.parameters["labels"] == [2, 4, 6, 8]
    text = 'title = "t"\nnotebook = "wang_paths.ipynb"\n[parameters]\n'
    with pytest.raises(ExperimentError, match=r"parameters\.repeat is not a parameter of wang_paths\.ipynb\. "
                                              r"Valid choices: repeats, "):
        load_experiment(write(tmp_path, text + "repeat = 2\n"))
    with pytest.raises(ExperimentError, match=r"parameters\.repeats must be an integer"):
        load_experiment(write(tmp_path, text + 'repeats = "2"\n'))
    with pytest.raises(ExperimentError, match=r"notebook = 'wang.ipynb' is not a notebook in .*wang_paths\.ipynb"):
        load_experiment(write(tmp_path, text.replace("wang_paths", "wang")))
    with pytest.raises(ExperimentError, match=r"the key 'splits' does not go with 'notebook'"):
        load_experiment(write(tmp_path, "splits = 2\n" + text))


def test_summary_markdown_sets_our_numbers_beside_the_papers(tmp_path):
    """``summary.md``, the small table the runner writes for committing: mean ± sd per scenario, task
    and method, with the published number of the same scenario (or of every scenario) and its source."""
    from toolkit.reports._runner import _summary_markdown, published_table

    exp = load_experiment(write(tmp_path, PAPER, "paper.toml"))
    frame = pd.concat([_tidy({"Moons [8/20/30]": {"rlsc": [10, 11, 12], "svc": [19, 21, 20]}}),
                       _tidy({"Moons [8/20/30]": {"rlsc": [9, 9, 9]}}, scenario="test-set (non-realistic)")])
    text = _summary_markdown(exp, frame, published_table(exp), failures=[], sizes={})
    assert text.startswith("# paper\n") and "`ssl-toolkit reproduce paper`" in text
    assert "## Scenario labeled-cv" in text and "## Scenario test-set (non-realistic)" in text
    assert "| Moons [8/20/30] | rlsc | 3 | 11.0 ± 1.0 | 12.5 ± 1.5 | A made-up paper (2024), Table 3 |" in text
    assert "| Moons [8/20/30] | svc | 3 | 20.0 ± 1.0 | 20.0 ± 0.0 | A made-up paper (2024), Table 3 |" in text
    assert "| Moons [8/20/30] | rlsc | 3 | 9.0 ± 0.0 | 10.0 ± 1.0 | A made-up paper (2024), Table 2 |" in text
    assert "## Summary" in text and "0 configuration(s) failed" in text


def test_a_quick_run_says_how_many_splits_it_ran():
    """gieseke2012's description states the papers' 10 partitions; its --quick run's report must not."""
    full, quick = load_experiment("gieseke2012"), load_experiment("gieseke2012", quick=True)
    assert "10 random partitions" in full.description and "--quick" not in full.description
    n = {c.parameters["n_splits"] for c in quick.configurations}
    assert quick.description.endswith(f"This is the --quick run: {n.pop()} splits per task, "
                                      f"{len({c.task for c in quick.configurations})} of "
                                      f"{len({c.task for c in full.configurations})} tasks, thinned grids.")


def test_gieseke2011_declares_table1_as_the_paper_states_it():
    """Table 1 of Gieseke et al. (2011): 12 rows, RLSC, UniverSVM (tsvm) and S²RLSC in both scenarios (72
    published cells), linear kernel, λ in 2^-10..2^10, λ' in {0.01, 1, 100}, ε = 0.1, one local search
    from RLSC's labels; (C, C*) in 2^-10..2^10 x {0.01, 1, 100}/u, s = -0.3."""
    exp = load_experiment("gieseke2011")
    headline = {c.task for c in exp.configurations} - {e["task"] for e in exp.sensitivity}
    assert len(headline) == 12 and len(exp.published) == 72
    # the other reading of the Gaussian draws: each Gaussian task again, a draw of its own per partition
    assert {(e["of"], e["setting"], e["admissible"]) for e in exp.sensitivity} == {
        (t, "a draw per partition", True) for t in headline if t.startswith("Gaussian")}
    per_split = [c for c in exp.configurations if c.task.endswith("· a draw per partition")]
    assert len(per_split) == 36 and all(c.parameters["data_draw"] == "per-split" for c in per_split)
    assert all("data_draw" not in c.parameters for c in exp.configurations if c.task in headline)
    assert not [e for e in exp.published if "not_attempted" in e]
    variants = {"rlsc (all training labels)": ("all", "test-set"), "s2rlsc (per-class labels)": ("per-class", "labeled-cv"),
                "tsvm (per-class labels)": ("per-class", "labeled-cv")}   # explanation experiments, no cell of their own
    assert {(c.method, c.scenario) for c in exp.configurations if c.method not in variants} == {
        (m, s) for m in ("rlsc", "tsvm", "s2rlsc") for s in ("labeled-cv", "test-set")}
    for c in exp.configurations:
        assert (c.parameters.get("labels"), c.scenario) == variants.get(c.method, (None, c.scenario))
        if c.method in variants:   # the same search as the method it explains
            twin = next(o for o in exp.configurations if o.method == c.method.split(" (")[0] and o.task == c.task
                        and o.scenario == c.scenario)
            assert (c.parameters["grid"], c.parameters["fixed"]) == (twin.parameters["grid"], twin.parameters["fixed"])
    assert {(e["method"], e["by"]) for e in exp.explanations} == {
        ("s2rlsc", "rlsc (all training labels)"), ("tsvm", "rlsc (all training labels)"),
        ("s2rlsc", "s2rlsc (per-class labels)"), ("tsvm", "tsvm (per-class labels)"), ("tsvm", "UniverSVM: tsvm")}
    tsvm = next(c.parameters for c in exp.configurations if c.method == "tsvm")
    assert len(tsvm["grid"]["C"]) == 21 and tsvm["grid"]["C_star_u"] == [0.01, 1.0, 100.0]
    s2 = next(c.parameters for c in exp.configurations if c.method == "s2rlsc")
    assert s2["grid"]["lam_u"] == [0.01, 1.0, 100.0] and len(s2["grid"]["lam"]) == 21
    assert s2["fixed"] == {"kernel": "linear", "search": "1+1", "order": "round-robin", "init": "rlsc",
                           "restarts": 1, "eps": 0.1}
    assert all(c.parameters["n_splits"] == 10 and c.parameters["fixed"]["kernel"] == "linear"
               for c in exp.configurations)
    usps = next(c.parameters for c in exp.configurations if c.task == "USPS(8,0) [45/1085/1131]")
    assert (usps["l"], usps["u"], usps["t"], usps["classes"]) == (45, 1085, 1131, [8, 0])
