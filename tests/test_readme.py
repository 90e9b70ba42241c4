"""The README is executable documentation: its quick start is what CI runs.

Its python blocks run, in order, in ``test_docs_examples.py``.
"""
import runpy
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def _readme_commands():
    return runpy.run_path(str(ROOT / ".ci" / "readme_commands.py"))


def test_quick_start_has_two_commands_and_ci_runs_them_with_the_readmes_mirror_setting():
    helpers = _readme_commands()
    commands = helpers["quick_start"](README)
    assert len(commands) == 2
    assert commands[0].startswith("pip install . ") and "ssl-toolkit reproduce quick" in commands[0]
    assert "python -m pytest" in commands[1]
    mirror = helpers["mirror_setting"](README)
    assert mirror == "export TOOLKIT_DATA_MIRROR=../shared/datasets"  # relative, as a user pastes it
    ci = (ROOT / ".ci" / "run").read_text()
    for what in ("mirror", "1", "2"):  # CI evaluates exactly these lines of the README, in this order
        assert f"readme_commands.py {what})" in ci
    assert ci.index('eval "$mirror"') < ci.index('eval "$main_job"') < ci.index('eval "$test_command"')
    assert "TOOLKIT_DATA_MIRROR=" not in ci.replace("export TOOLKIT_DATA_MIRROR=...", "")

