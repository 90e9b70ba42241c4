"""The Wang et al. reproduction notebook runs with tiny parameters and writes its outputs."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]


def test_reproduce_wang_paths_tiny(tmp_path):
    out = tmp_path / "wang"
    cmd = [sys.executable, str(ROOT / "notebooks" / "reproduce_wang_paths.py"), "repeats=1",
           "train_fractions=[0.5]", "labels=[2, 4]", "n_grid=12", f"out_dir={str(out)!r}"]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    df = pd.read_csv(out / "accuracy.csv")
    assert set(df.n_labeled) == {2, 4} and len(df) == 2 * 12
    assert df.accuracy.between(0, 1).all() and df.accuracy.max() > 0.6
    # one labelled point per class: no event, one breakpoint (Wang et al. §4, Fig. 1)
    assert (df[df.n_labeled == 2].breakpoints == 1).all()
    for name in ("summary.md", "fig2_accuracy_paths.png", "fig3_decision_functions.png"):
        assert (out / name).is_file()
