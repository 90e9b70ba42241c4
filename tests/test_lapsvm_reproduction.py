"""The Melacci & Belkin (2011) reproduction script runs end to end with tiny parameters."""
from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_reproduction_script_tiny(mirror_dir, tmp_path):
    env = dict(os.environ, TOOLKIT_DATA_MIRROR=str(mirror_dir), TOOLKIT_DATA_DIR=str(tmp_path / "cache"))
    out = tmp_path / "reports"
    cmd = [sys.executable, str(ROOT / "notebooks" / "reproduce_melacci2011.py"), "splits=1", 'tasks=["g50c"]',
           'methods=["newton", "pcg-stability", "laprlsc", "dual"]', "dual_grid=[0.01, 1.0]",
           f"out_dir={str(out)!r}"]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = list(csv.DictReader(open(out / "melacci2011_tables.csv")))
    errors = {r["method"]: float(r["value"]) for r in rows if r["metric"] == "error_T"}
    assert set(errors) == {"newton", "pcg-stability", "laprlsc", "dual"}
    assert all(e <= 0.15 for e in errors.values())                      # paper: 5.5-7.3 %
    iters = {r["method"]: float(r["value"]) for r in rows if r["metric"] == "iterations"}
    assert iters["pcg-stability"] == 20                                  # Table 6: 20 (0)
    assert "| g50c | newton |" in (out / "melacci2011_tables.md").read_text()
