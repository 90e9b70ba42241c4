"""The README is executable documentation: its quick start is what CI runs, its examples run."""
import re
from pathlib import Path

import matplotlib
import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def test_quick_start_has_two_commands_and_ci_runs_the_test_command():
    block = re.search(r"## Quick start\s+```bash\n(.*?)```", README, re.S).group(1)
    commands = [line for line in block.splitlines() if line.strip()]
    assert len(commands) == 2
    assert "ssl-toolkit reproduce quick" in commands[0]
    assert commands[1] in (ROOT / ".ci" / "run").read_text()


@pytest.mark.slow
def test_python_examples_run(monkeypatch, mirror_dir, tmp_path):
    matplotlib.use("Agg")
    monkeypatch.setenv("TOOLKIT_DATA_MIRROR", str(mirror_dir))
    monkeypatch.chdir(tmp_path)
    namespace = {}
    blocks = re.findall(r"```python\n(.*?)```", README, re.S)
    assert len(blocks) >= 6
    for block in blocks:                      # one namespace, in order, as a reader would run them
        exec(compile(block, "README.md", "exec"), namespace)
    assert namespace["ds"].X.shape[0] > 0 and namespace["cv"].lambda_min is not None
