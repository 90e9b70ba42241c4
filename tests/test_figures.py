"""Every figure the README, the experiments' README and the documentation state comes from one place,
``benchmarks/results/figures.csv`` (what a benchmark printed, with its command and date), and every
file that quotes it says the same; counts are checked against what the code computes."""
from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIGURES = list(csv.DictReader((ROOT / "benchmarks" / "results" / "figures.csv").open(encoding="utf-8")))


def _text(name):
    return " ".join((ROOT / name).read_text(encoding="utf-8").split())     # line breaks read as spaces


@pytest.mark.parametrize("row", FIGURES, ids=[row["figure"] for row in FIGURES])
def test_every_quoting_file_states_the_measured_figure(row):
    assert row["command"] and re.fullmatch(r"\d{4}-\d{2}-\d{2}", row["measured"])
    for name in row["files"].split():
        text = _text(name)
        for value in row["values"].split("|"):
            assert value in text, f"{name} does not state {value!r} ({row['figure']}: {row['command']})"


def test_configuration_counts_are_the_experiments():
    from toolkit.reports import load_experiment

    quick = len(load_experiment("quick").configurations)
    stated = {row["figure"]: row["values"] for row in FIGURES}
    assert stated["quick reproduction"].split("|")[0] == f"{quick} configurations"
    for name in ("README.md", "notebooks/experiments/README.md"):     # no other count of quick's anywhere
        counts = set(re.findall(r"(\d+) (?:curated )?configurations", _text(name)))
        assert counts <= {str(quick)} | _other_counts(), (name, counts)


def _other_counts():
    from toolkit.reports import load_experiment, list_experiments

    counts = set()
    for name in list_experiments():
        for quick in (False, True):
            counts.add(str(len(load_experiment(name, quick=quick).configurations)))
    return counts


def test_reproduction_runtimes_are_stated_once():
    """The full reproductions' runtimes live in the experiments' README (from figures.csv); the
    README, reports/README.md and the user guide point there instead of repeating them."""
    for name in ("README.md", "reports/README.md", "docs/user_guide/reproducing.rst"):
        text = _text(name)
        assert not re.search(r"\d+ minutes", text), (name, re.findall(r".{40}\d+ minutes.{10}", text))
