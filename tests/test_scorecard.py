"""The reproduction scorecard: cells computed from per-split results, reasons for the cells not
attempted, and the committed scorecard recomputed from the committed per-split results."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from toolkit.reports._scorecard import (SCORECARD_COLUMNS, SPLIT_COLUMNS, _source_parts, scorecard,
                                        split_timings, split_values, write_scorecard)

ROOT = Path(__file__).resolve().parents[1]


def _published(**over):
    row = {"experiment": "exp", "task": "T1", "method": "lapsvm", "scenario": "validation", "metric": "test_error",
           "mean": 10.0, "sd": 2.0, "source": "Melacci & Belkin (2011), Table 4 (T)"}
    row.update(over)
    return row


def test_source_is_split_into_paper_table_and_column():
    assert _source_parts("Melacci & Belkin (2011), Table 4 (T)") == ("Melacci & Belkin 2011", "Table 4", "T")
    assert _source_parts("Gieseke et al. (2012), Table 3 (realistic)") == ("Gieseke et al. 2012", "Table 3",
                                                                           "realistic")
    assert _source_parts("Melacci & Belkin (2011), Table 6 (training time in s)")[2] == "training time in s"
    # a paper without a year in its text (Wang, Qin & Huang): the authors name it
    assert _source_parts("Wang, Qin & Huang, Fig. 2a (best test accuracy in %)") == (
        "Wang, Qin & Huang", "Fig. 2a", "best test accuracy in %")


def test_a_notebook_experiment_is_scored_from_the_splits_table_it_records(tmp_path, monkeypatch):
    """wang_paths (the notebook kind) declares the paper's statements as cells; the scorecard scores
    them from the `splits` table the notebook records, committed as reports/wang_paths/splits.csv."""
    from toolkit.reports._experiments import load_experiment

    exp = load_experiment("wang_paths")
    assert exp.notebook and {p["metric"] for p in exp.published} == {
        "events", "best_accuracy", "below_very_high", "better_than_2_labels", "more_events_with_more_labels",
        "very_low_at_lambda_2", "smaller_lambda_better"}
    assert {p["source"].split(" (")[0] for p in exp.published} == {
        f"Wang, Qin & Huang, Fig. {f}" for f in ("1", "2a", "2b", "2c", "3")}      # every figure has a cell
    rows = [{"experiment": "wang_paths", "task": "70% training, 2 labels", "method": "laplacian_svm_path",
             "scenario": "test-set", "split": d, "metric": "best_accuracy", "value": v}
            for d, v in enumerate([100.0, 97.5, 100.0])]
    (tmp_path / "wang_paths").mkdir()
    pd.DataFrame(rows)[SPLIT_COLUMNS].to_csv(tmp_path / "wang_paths" / "splits.csv", index=False)
    card = write_scorecard(tmp_path, experiments=["wang_paths"])
    hit = card[(card["row"] == "70% training, 2 labels") & (card["column"].str.startswith("best test accuracy"))]
    assert len(hit) == 1 and hit["paper"].iloc[0] == "Wang, Qin & Huang" and hit["table"].iloc[0] == "Fig. 2a"
    assert hit["ours_mean"].iloc[0] == pytest.approx(297.5 / 3) and hit["splits"].iloc[0] == 3
    assert np.isnan(hit["sd_distance"].iloc[0])          # the paper gives no sd: reported, not counted
    others = card[card["row"] != "70% training, 2 labels"]
    assert others["ours_mean"].isna().all() and others["note"].str.contains("no result").all()


def test_cells_are_the_mean_and_sd_over_the_splits():
    values = np.array([8.0, 11.0, 14.0, 9.5])
    splits = pd.DataFrame({"experiment": "exp", "task": "T1", "method": "lapsvm", "scenario": "validation",
                           "split": range(4), "metric": "test_error", "value": values})[SPLIT_COLUMNS]
    published = pd.DataFrame([_published(), _published(method="svc"), _published(task="T2")])
    card = scorecard(published, splits, declared_tasks={"exp": {"T1"}})
    assert list(card.columns) == SCORECARD_COLUMNS
    hit = card.iloc[0]
    assert hit["ours_mean"] == pytest.approx(values.mean()) and hit["ours_sd"] == pytest.approx(values.std(ddof=1))
    assert hit["splits"] == 4 and hit["sd_distance"] == pytest.approx(abs(values.mean() - 10.0) / 2.0)
    assert (hit["paper"], hit["table"], hit["column"]) == ("Melacci & Belkin 2011", "Table 4", "T")
    assert np.isnan(card.iloc[1]["ours_mean"]) and "no result for this method" in card.iloc[1]["note"]
    assert "leaves this task out" in card.iloc[2]["note"]
    failures = pd.DataFrame([{"experiment": "exp", "task": "T1", "method": "svc", "scenario": "validation",
                              "error": "ValueError: boom"}])
    again = scorecard(published, splits, failures=failures, declared_tasks={"exp": {"T1"}})
    assert "failed (ValueError: boom)" in again.iloc[1]["note"]


def test_training_time_is_the_solvers_own_when_reported():
    rows = []
    for split, (fit, solve) in enumerate([(2.0, 0.5), (3.0, 0.7)]):
        for metric, value in (("test_error", 10.0), ("unlabeled_error", 9.0), ("solve_seconds", solve)):
            rows.append({"task": "T", "method": "lapsvm", "scenario": "validation", "split": split, "fold": "refit",
                         "metric": metric, "value": value, "seconds": fit})
        rows.append({"task": "T", "method": "svc", "scenario": "validation", "split": split, "fold": "refit",
                     "metric": "test_error", "value": 12.0, "seconds": fit})
    timings = split_timings("exp", pd.DataFrame(rows))
    seconds = timings.set_index(["method", "split"])["value"]
    assert seconds[("lapsvm", 0)] == 0.5 and seconds[("lapsvm", 1)] == 0.7      # the solve alone
    assert seconds[("svc", 0)] == 2.0                                             # no solve time: the fit
    assert set(timings["metric"]) == {"seconds"} and list(timings.columns) == SPLIT_COLUMNS
    # the committed per-split values hold no time: a rerun on another machine leaves them unchanged
    values = split_values("exp", pd.DataFrame(rows))
    assert set(values["metric"]) == {"test_error", "unlabeled_error"}      # no n_iter reported here


def test_committed_results_hold_no_timing_and_the_scorecard_writes_times_apart(tmp_path):
    """Times are kept apart from results: no committed splits.csv or scorecard holds a time; the
    scorecard's Table 6 cells say where the times are, and a run's timings.csv gives reports/timings.md."""
    for path in (ROOT / "reports").glob("*/splits.csv"):
        metrics = set(pd.read_csv(path)["metric"])
        assert not {m for m in metrics if "second" in m or "time" in m}, path
    committed = pd.read_csv(ROOT / "reports" / "reproduction.csv")
    timed = committed[committed["column"].str.contains("time", na=False)]
    assert len(timed) and timed["ours_mean"].isna().all()
    assert timed["note"].str.startswith("timing: ").any()
    assert timed["note"].str.startswith(("timing: ", "not attempted: ")).all()   # MNIST, CBCL: no data
    from toolkit.reports._scorecard import TIMING_NOTE

    assert "timings.csv" in TIMING_NOTE and "reports/timings.md" in TIMING_NOTE
    (tmp_path / "melacci2011").mkdir()
    (tmp_path / "melacci2011" / "splits.csv").write_bytes((ROOT / "reports" / "melacci2011" / "splits.csv").read_bytes())
    rows = [{"experiment": "melacci2011", "task": "G50C [50/400/50/50]", "method": m, "scenario": "validation",
             "split": i, "metric": "seconds", "value": v}
            for m, v in (("lapsvm", 0.4), ("lapsvm (PCG)", 0.1)) for i in range(2)]
    pd.DataFrame(rows)[SPLIT_COLUMNS].to_csv(tmp_path / "melacci2011" / "timings.csv", index=False)
    card = write_scorecard(tmp_path, experiments=["melacci2011"])
    assert card[card["column"].str.contains("time", na=False)]["ours_mean"].isna().all()
    assert (tmp_path / "timings.md").is_file()


def test_committed_scorecard_is_recomputed_from_the_committed_splits(tmp_path):
    """reports/reproduction.csv is exactly what the committed reports/*/splits.csv and the declared
    numbers give (rebuilt here into a copy of the folder)."""
    committed = pd.read_csv(ROOT / "reports" / "reproduction.csv")
    assert list(committed.columns) == SCORECARD_COLUMNS
    for path in (ROOT / "reports").glob("*/splits.csv"):
        (tmp_path / path.parent.name).mkdir()   # timings.csv of a local run is left behind: not committed
        (tmp_path / path.parent.name / "splits.csv").write_bytes(path.read_bytes())
        failures = path.with_name("failures.csv")
        if failures.is_file():
            (tmp_path / path.parent.name / "failures.csv").write_bytes(failures.read_bytes())
    rebuilt = write_scorecard(tmp_path)
    again = pd.read_csv(tmp_path / "reproduction.csv")
    assert len(rebuilt) == len(committed)
    pd.testing.assert_frame_equal(again, committed, check_exact=False, rtol=1e-9)
    assert committed["ours_mean"].notna().sum() > 0
    missing = committed[committed["ours_mean"].isna()]
    assert missing["note"].str.startswith(("not attempted", "timing: ")).all()


def test_training_times_are_scored_as_ratios_to_pcg():
    """Table 6's seconds come from a 2011 machine: the cells compared are the ratios to PCG's time
    (the paper's claim), with no sd, so they never count as within or outside one sd."""
    rows = []
    for method, seconds in (("lapsvm", [0.4, 0.6]), ("lapsvm (PCG)", [0.1, 0.1]), ("lapsvm_dual", [0.2, 0.2])):
        rows += [{"experiment": "exp", "task": "T1", "method": method, "scenario": "validation", "split": i,
                  "metric": "seconds", "value": v} for i, v in enumerate(seconds)]
    splits = pd.DataFrame(rows)[SPLIT_COLUMNS]
    source = "Melacci & Belkin (2011), Table 6 (training time in s)"
    published = pd.DataFrame([_published(method=m, metric="seconds", mean=mean, sd=0.01, source=source)
                              for m, mean in (("lapsvm", 0.3), ("lapsvm (PCG)", 0.1), ("lapsvm_dual", 0.25))])
    card = scorecard(published, splits, declared_tasks={"exp": {"T1"}}).set_index("method")
    assert set(card.index) == {"lapsvm ÷ lapsvm (PCG)", "lapsvm_dual ÷ lapsvm (PCG)"}
    assert card.loc["lapsvm ÷ lapsvm (PCG)", "ours_mean"] == pytest.approx(0.5 / 0.1)
    assert card.loc["lapsvm ÷ lapsvm (PCG)", "published_mean"] == pytest.approx(3.0)
    assert card.loc["lapsvm_dual ÷ lapsvm (PCG)", "ours_mean"] == pytest.approx(2.0)
    assert card["published_sd"].isna().all() and (card["column"] == "training time ratio").all()


def test_a_miss_is_set_beside_the_variant_that_tests_its_explanation():
    """A cell more than one sd away whose experiment declares an explanation is recomputed by the
    variant (the same task, scenario and metric) and reported with its sd distance; a cell within one
    sd is not listed."""
    from toolkit.reports._scorecard import _tested_misses

    rows = []
    for method, values in (("svc", [20.0, 22.0, 24.0]), ("svc (no intercept)", [10.0, 12.0, 14.0])):
        for task, shift in (("T1", 0.0), ("T2", -10.0)):
            rows += [{"experiment": "exp", "task": task, "method": method, "scenario": "test-set", "split": i,
                      "metric": "test_error", "value": v + shift} for i, v in enumerate(values)]
    splits = pd.DataFrame(rows)[SPLIT_COLUMNS]
    published = pd.DataFrame([_published(task="T1", method="svc", scenario="test-set", mean=13.0, sd=3.0),
                              _published(task="T2", method="svc", scenario="test-set", mean=13.0, sd=3.0)])
    card = scorecard(published, splits)
    assert card["sd_distance"].tolist() == pytest.approx([3.0, 1 / 3])   # T1 misses, T2 does not (12 vs 13 ± 3)
    variants = published.assign(method="svc (no intercept)", explains="svc", hypothesis="the free bias")
    tested, every = _tested_misses(card, variants, splits)
    assert len(tested) == 1 and tested["row"].iloc[0] == "T1" and tested["method"].iloc[0] == "svc"
    assert tested["variant_mean"].iloc[0] == pytest.approx(12.0)
    assert tested["variant_sd_distance"].iloc[0] == pytest.approx(1 / 3)
    assert tested["hypothesis"].iloc[0] == "the free bias"
    # the variant is also counted on every cell it applies to, hits included (T2: 2 vs 13 ± 3 misses)
    assert every[["method", "variant", "cells", "method holds", "variant holds"]].values.tolist() == [
        ["svc", "svc (no intercept)", 2, 1, 1]]


def test_a_cell_holds_within_one_sd_or_within_five_percent_without_a_spread():
    from toolkit.reports._scorecard import cell_holds

    assert cell_holds([10.0, 10.0, 10.0], [2.0, 2.0, 2.0], [12.0, 12.01, 7.9]).tolist() == [True, False, False]
    # no spread (sd 0 or missing): 5 % of max(|published|, 1): 110 iterations within 5.5, a 0-1 statement within 0.05
    assert cell_holds([110.0, 110.0, 1.0, 0.0, 1.0], [0.0, np.nan, np.nan, 0.0, 0.0],
                      [115.5, 116.0, 0.96, 0.05, 0.6]).tolist() == [True, False, True, True, False]
    assert cell_holds([1.0], [1.0], [np.nan]).tolist() == [False]


def _sensitivity_case(settings):
    """A task T whose published cell (10 ± 1) the headline misses (14), and its input variants."""
    rows = [{"experiment": "exp", "task": "T", "method": "m", "scenario": "validation", "split": i,
             "metric": "test_error", "value": v} for i, v in enumerate([13.0, 15.0])]
    for name, value, _ in settings:
        rows += [{"experiment": "exp", "task": f"T · {name}", "method": "m", "scenario": "validation", "split": i,
                  "metric": "test_error", "value": value} for i in range(2)]
    splits = pd.DataFrame(rows)[SPLIT_COLUMNS]
    published = pd.DataFrame([_published(task="T", method="m", mean=10.0, sd=1.0)])
    inputs = pd.concat([published.assign(task=f"T · {name}", base="T", setting=name, admissible=admissible)
                        for name, _, admissible in settings], ignore_index=True)
    return published, splits, inputs


@pytest.mark.parametrize("settings,start", [
    ([("a", 13.0, True), ("b", 12.0, True)], "no admissible input reaches it (ours 14; closest b 12"),
    ([("a", 13.0, True), ("b", 10.5, True)], "inputs: within tolerance with b (10.5)"),
    ([("a", 13.0, True), ("b", 10.5, False)], "no admissible input reaches it (ours 14; closest a 13, published 10); "
                                              "outside the text, within tolerance with b (10.5)"),
    ([("b", 10.5, False)], "outside the text, within tolerance with b (10.5)"),
])
def test_a_miss_stays_a_miss_whatever_input_reaches_it(settings, start):
    """Input variants explain a miss in its note; none removes it from either share, and a setting the
    paper's text rules out is named as such when it reaches the cell (the evidence stays)."""
    from toolkit.reports._scorecard import _data_notes, _input_sensitivity, headline

    published, splits, inputs = _sensitivity_case(settings)
    card = scorecard(published, splits)
    assert card["holds"].tolist() == [False]
    sensitivity = _input_sensitivity(card, inputs, splits)
    assert sensitivity["setting_mean"].tolist() == [s[1] for s in settings]
    _data_notes(card, sensitivity, {}, published)
    assert card["note"].iloc[0].startswith(start)
    assert headline(card).startswith("0 of 1 scored cells hold (0.0 %), every scored cell counted; on the papers' "
                                     "own data, the 0 cells computed on substitute data")
    assert "0 of 1 (0.0 %)" in headline(card)


def test_substitute_data_marks_every_cell_of_the_task_holds_and_misses_alike():
    """Cells on stand-in data are left out all together or not at all: a hold on such a task carries
    ``data:`` as a miss does, and the second share drops both."""
    from toolkit.reports._scorecard import _data_notes, headline

    splits = pd.DataFrame([{"experiment": "exp", "task": t, "method": "m", "scenario": "validation", "split": 0,
                            "metric": "test_error", "value": v}
                           for t, v in (("T", 14.0), ("T2", 10.5), ("U", 10.5), ("V", 14.0))])[SPLIT_COLUMNS]
    published = pd.DataFrame([_published(task=t, method="m", mean=10.0, sd=1.0) for t in ("T", "T2", "U", "V")])
    card = scorecard(published, splits)
    assert card["holds"].tolist() == [False, True, True, False]
    _data_notes(card, pd.DataFrame(columns=["paper"]), {("exp", "T"): "stand-in digits", ("exp", "T2"): "stand-in"},
                published)
    assert card["note"].fillna("").tolist() == ["data: stand-in digits", "data: stand-in", "", ""]
    text = headline(card)
    assert text.startswith("2 of 4 scored cells hold (50.0 %), every scored cell counted; on the papers' own data, "
                           "the 2 cells computed on substitute data (`data:`, 1 of them hold) left out all together, "
                           "1 of 2 (50.0 %).")


def test_the_committed_scorecard_counts_substitute_data_all_in_or_all_out():
    """reports/reproduction.csv: ``data:`` only on the tasks declared ``substitute_data`` (MNIST's test digits)
    and on every scored cell of them; no other note removes a cell from a count."""
    from toolkit.reports import load_experiment

    card = pd.read_csv(ROOT / "reports" / "reproduction.csv")
    substitute = {t for name in ("gieseke2011", "gieseke2012", "melacci2011", "quick")
                  for t in load_experiment(name).substitute_data}
    scored = card[card["holds"].notna()]
    data = scored["note"].fillna("").str.startswith("data:")
    assert set(scored.loc[data, "row"]) == set(scored.loc[scored["row"].isin(substitute), "row"])
    assert data[scored["row"].isin(substitute)].all() and not data[~scored["row"].isin(substitute)].any()
    assert scored.loc[data, "row"].str.contains("MNIST").all()


def test_a_variant_run_elsewhere_is_read_from_its_results_file():
    """An explanation with ``results`` takes the variant's per-split rows from that csv (another
    implementation's run, in the layout of splits.csv): melacci2011 sets each miss of its Laplacian
    methods beside Melacci's own LapSVMp on the same splits (notebooks/experiments/peers/lapsvmp_melacci2011_splits.csv),
    and the variant's mean is that file's mean."""
    card = pd.read_csv(ROOT / "reports" / "reproduction.csv")
    peer = pd.read_csv(ROOT / "notebooks" / "experiments" / "peers" / "lapsvmp_melacci2011_splits.csv")
    md = (ROOT / "reports" / "reproduction.md").read_text()
    task = "COIL20(B) [40/1000/40/360]"
    cell = card[(card["row"] == task) & (card["method"] == "lapsvm") & (card["table"] == "Table 4")
                & (card["column"] == "T")].iloc[0]
    assert cell["sd_distance"] > 1            # the miss: 13.4 % against the paper's 8.56 ± 1.9
    mean = peer[(peer["task"] == task) & (peer["method"] == "lapsvm") & (peer["metric"] == "test_error")]["value"]
    assert len(mean) == 12
    assert "LapSVMp: lapsvm" in cell["note"]
    row = [ln for ln in md.splitlines() if ln.startswith(f"| Melacci & Belkin 2011 | Table 4 | {task} | lapsvm | validation | T |")
           and "| LapSVMp: lapsvm |" in ln]
    assert len(row) == 1 and f"| {mean.mean():.3g} |" in row[0]


def test_results_of_an_explanation_must_exist(tmp_path):
    from toolkit.reports._experiments import ExperimentError, load_experiment

    text = (ROOT / "notebooks" / "experiments" / "melacci2011.toml").read_text()
    bad = tmp_path / "a" / "b" / "melacci_copy.toml"
    bad.parent.mkdir(parents=True)
    bad.write_text(text)                      # the results path now resolves beside the copy: missing
    with pytest.raises(ExperimentError, match=r"results = 'peers/lapsvmp_melacci2011_splits.csv': no such file in "
                                              r"the experiment file's folder"):
        load_experiment(bad)
    (bad.parent / "peers").mkdir()
    (bad.parent / "peers" / "lapsvmp_melacci2011_splits.csv").write_text("experiment\n")
    clash = text.replace('by = "LapSVMp: lapsvm (PCG)"', 'by = "lapsvm"')
    bad.write_text(clash)
    with pytest.raises(ExperimentError, match=r"by = 'lapsvm' names a method of this experiment"):
        load_experiment(bad)


def test_results_method_reads_the_peers_rows_of_a_file_that_holds_both_solvers(tmp_path):
    """gieseke2011 sets its realistic Gaussian2C [25] tsvm cells beside UniverSVM itself: the peer file
    holds the rows of both solvers (``tsvm`` ours, ``universvm`` the peer's), and ``results_method`` says
    which rows are the variant's; the variant's mean is then UniverSVM's, not ours."""
    from toolkit.reports._experiments import ExperimentError, load_experiment

    card = pd.read_csv(ROOT / "reports" / "reproduction.csv")
    peer = pd.read_csv(ROOT / "notebooks" / "experiments" / "peers" / "universvm_gieseke2011_selected.csv")
    md = (ROOT / "reports" / "reproduction.md").read_text()
    task = "Gaussian2C [25/225/250]"
    for scenario in ("labeled-cv", "test-set"):
        values = peer[(peer["task"] == task) & (peer["scenario"] == scenario) & (peer["metric"] == "test_error")]
        theirs, ours = (values[values["method"] == m]["value"] for m in ("universvm", "tsvm"))
        assert len(theirs) == len(ours) == 10
        cell = card[(card["paper"] == "Gieseke et al. 2011") & (card["row"] == task) & (card["method"] == "tsvm")
                    & (card["scenario"] == scenario)].iloc[0]
        assert cell["ours_mean"] == pytest.approx(ours.mean(), abs=5e-3)   # the peer file's tsvm rows are ours
        rows = [ln for ln in md.splitlines() if f"| {task} | tsvm | {scenario} |" in ln and "| UniverSVM: tsvm |" in ln]
        assert len(rows) == 1 and f"| {theirs.mean():.3g} |" in rows[0]

    text = (ROOT / "notebooks" / "experiments" / "gieseke2011.toml").read_text()
    bad = tmp_path / "gieseke_copy.toml"
    bad.write_text(text.replace('results = "peers/universvm_gieseke2011_selected.csv", ', ""))
    with pytest.raises(ExperimentError, match=r"results_method = 'universvm' names a method of a results file, "
                                              r"and the entry has no `results`"):
        load_experiment(bad)


# ------------------------------------------------------------------ damaged results files (issue 26)
def _copy_results(tmp_path):
    """The committed scorecard and every experiment's splits.csv / failures.csv, in a folder of their own."""
    for path in (ROOT / "reports").glob("*/*.csv"):
        if path.name in ("splits.csv", "failures.csv"):
            (tmp_path / path.parent.name).mkdir(exist_ok=True)
            (tmp_path / path.parent.name / path.name).write_bytes(path.read_bytes())
    for name in ("reproduction.csv", "reproduction.md"):
        (tmp_path / name).write_bytes((ROOT / "reports" / name).read_bytes())
    return tmp_path / "gieseke2011" / "splits.csv"


def _first_rows_cut(b):
    lines = b.splitlines(keepends=True)
    return b"".join(lines[:-40])                   # a clean cut at a line: the last configuration's rows lost


DAMAGE = {
    "missing": (lambda p, b: p.unlink(), r"does not exist, so the gieseke2011 cells cannot be scored"),
    "truncated mid-line": (lambda p, b: p.write_bytes(b[: len(b) // 2 + 7]), r"line \d+: every row needs"),
    "truncated at a line": (lambda p, b: p.write_bytes(_first_rows_cut(b)), r"is incomplete: .* has splits|is incomplete"),
    "duplicated": (lambda p, b: p.write_bytes(b + b[b.index(b"\n") + 1:]), r"appears 2 times"),
    "header-less": (lambda p, b: p.write_bytes(b[b.index(b"\n") + 1:]), r"must have the header experiment,task,"),
    "wrong header": (lambda p, b: p.write_bytes(b"a,b,c\n1,2,3\n"), r"must have the header .* Got a,b,c instead"),
    "NaN value": (lambda p, b: p.write_bytes(b.replace(b",test_error,8.0\n", b",test_error,nan\n", 1)),
                  r"test_error is NaN on some splits and a number on others"),
    "text value": (lambda p, b: p.write_bytes(b.replace(b",test_error,8.0\n", b",test_error,8.0x\n", 1)),
                   r"line 2: 'value' must be a number. Got '8.0x'"),
    "empty": (lambda p, b: p.write_bytes(b""), r"is not a CSV table of results \(EmptyDataError"),
    "binary": (lambda p, b: p.write_bytes(bytes(range(256)) * 8), r"is not a CSV table of results"),
    "other experiment": (lambda p, b: p.write_bytes(b.replace(b"\ngieseke2011,", b"\ngieseke2012,", 1)),
                         r"line 2: every row must belong to the experiment 'gieseke2011'"),
}


@pytest.mark.parametrize("case", sorted(DAMAGE))
def test_scorecard_refuses_a_damaged_results_file_and_keeps_the_committed_scorecard(tmp_path, case, capsys):
    """Issue 26: `ssl-toolkit scorecard` rewrote the committed scorecard from a missing, truncated,
    duplicated, header-less or NaN splits.csv (exit 0) and printed tracebacks for others."""
    from toolkit.cli import main

    victim = _copy_results(tmp_path)
    damage, message = DAMAGE[case]
    damage(victim, victim.read_bytes())
    before = {name: (tmp_path / name).read_bytes() for name in ("reproduction.csv", "reproduction.md")}
    assert main(["scorecard", "--output", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "Nothing was written." in err
    assert re.search(message, err), err
    assert f"The results file {victim}" in err or case == "missing"
    assert "git checkout -- reports/gieseke2011/splits.csv" in err         # the remedy
    assert {name: (tmp_path / name).read_bytes() for name in before} == before


def test_scorecard_refuses_a_folder_that_does_not_exist(tmp_path, capsys):
    from toolkit.cli import main

    assert main(["scorecard", "--output", str(tmp_path / "nowhere")]) == 2
    assert "does not exist: nothing to score" in capsys.readouterr().err
    assert not (tmp_path / "nowhere").exists()


def test_scorecard_scores_only_the_experiments_asked_for(tmp_path, capsys):
    """--experiment NAME: the other experiments' files need not be there."""
    from toolkit.cli import main

    (tmp_path / "wang_paths").mkdir()
    (tmp_path / "wang_paths" / "splits.csv").write_bytes((ROOT / "reports" / "wang_paths" / "splits.csv").read_bytes())
    assert main(["scorecard", "--output", str(tmp_path), "--experiment", "wang_paths"]) == 0
    assert "scorecard: " in capsys.readouterr().out and (tmp_path / "reproduction.csv").is_file()


def test_a_miss_tested_by_several_variants_names_the_closest():
    """Gieseke 2011's realistic Gaussian2C [25] tsvm cell (1.8 ± 0.9, ours 10.96) is tested by the per-class
    labelled sets (3.04, 1.38 sd) and by UniverSVM itself (11.08, 10.31 sd): the note names the closer one;
    every variant stays in the variant table of reproduction.md."""
    card = pd.read_csv(ROOT / "reports" / "reproduction.csv")
    md = (ROOT / "reports" / "reproduction.md").read_text()
    cell = card[(card["paper"] == "Gieseke et al. 2011") & (card["row"] == "Gaussian2C [25/225/250]")
                & (card["method"] == "tsvm") & (card["scenario"] == "labeled-cv")].iloc[0]
    assert "miss tested by 'tsvm (per-class labels)': 3.04 (1.38 sd)" in cell["note"]
    rows = [ln for ln in md.splitlines() if ln.startswith("| Gieseke et al. 2011 | Table 1 | Gaussian2C [25/225/250] | tsvm | "
                                                          "labeled-cv | realistic |") and "| False |" in ln]
    assert {v for v in ("tsvm (per-class labels)", "UniverSVM: tsvm") if any(f"| {v} |" in ln for ln in rows)} == {
        "tsvm (per-class labels)", "UniverSVM: tsvm"}
