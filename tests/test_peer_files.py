"""The committed peer files are what their documented commands give.

``benchmarks/peer_melacci2011.py --export`` writes one file per (task, split), named by ``slug``, and the
Octave driver writes one row per (task, method, split, metric) of every file; so the committed
``notebooks/experiments/peers/lapsvmp_melacci2011_splits.csv`` must hold every task and method the
export selects from ``melacci2011.toml``, each on all of its splits, and no other.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]


def _peer_script():
    spec = importlib.util.spec_from_file_location("peer_melacci2011", ROOT / "benchmarks" / "peer_melacci2011.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_task_has_a_file_stem_of_its_own():
    from toolkit.reports import load_experiment

    peer = _peer_script()
    tasks = list(peer.peer_methods(load_experiment("melacci2011")))
    stems = [peer.slug(t) for t in tasks]
    assert len(set(stems)) == len(tasks) > 1
    assert peer.slug("COIL20 [40/1000/40/360] · L = D - W") != peer.slug("COIL20 [40/1000/40/360]")


def test_the_committed_lapsvmp_csv_covers_what_the_export_selects():
    from toolkit.reports import load_experiment

    peer = _peer_script()
    exp = load_experiment("melacci2011")
    wanted = {(task, label) for task, methods in peer.peer_methods(exp).items() for label, _, _ in methods}
    splits = {c.task: c.parameters["n_splits"] for c in exp.configurations}
    rows = pd.read_csv(ROOT / "notebooks" / "experiments" / "peers" / "lapsvmp_melacci2011_splits.csv")
    assert set(rows["experiment"]) == {"lapsvmp"}
    have = rows.groupby(["task", "method"])["split"].nunique()
    assert set(have.index) == wanted
    assert all(have[(task, label)] == splits[task] for task, label in wanted)
    assert not rows.duplicated(["task", "method", "split", "metric"]).any()
