"""The Table 2/3 reproduction script runs end to end with tiny parameters and writes its tables."""
from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_reproduction_script_tiny(mirror_dir, tmp_path):
    env = dict(os.environ, TOOLKIT_DATA_MIRROR=str(mirror_dir), TOOLKIT_DATA_DIR=str(tmp_path / "cache"))
    out = tmp_path / "reports"
    cmd = [sys.executable, str(ROOT / "notebooks" / "reproduce_gieseke2012.py"), "partitions=1",
           'tasks=["COIL(3,6)"]', "lam_exponents=[-2, 2]", "lam_u_grid=[1.0]", "restarts_select=2",
           "restarts_final=3", f"out_dir={str(out)!r}"]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = list(csv.DictReader(open(out / "gieseke2012_tables.csv")))
    assert {(r["scenario"], r["method"]) for r in rows} == {
        (s, m) for s in ("non-realistic", "realistic") for m in ("RLSC", "SVC", "S2RLSC")}
    assert all(0.0 <= float(r["error"]) <= 1.0 for r in rows)
    assert "COIL(3,6)" in (out / "gieseke2012_tables.md").read_text()
