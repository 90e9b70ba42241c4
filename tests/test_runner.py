"""``ssl-toolkit reproduce`` as a user lives with it: relative paths, Ctrl-C, kill and resume,
kernels of this interpreter, progress, no working-directory changes.

These start the command line in a subprocess from a scratch folder, as a user types it, with the
README's relative settings; they start Jupyter kernels (a few seconds each).
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

pytest.importorskip("papermill")
psutil = pytest.importorskip("psutil")

from toolkit.reports import RECORD_MIME, run_experiment  # noqa: E402
from toolkit.reports._kernels import KernelSession  # noqa: E402

TINY = """
title = "tiny"
splits = 2
n_folds = 2

[[tasks]]
name = "G50C"
dataset = "g50c"
l = 10
u = 100
t = 100
fixed = { kernel = "rbf", sigma = 17.5 }

[[methods]]
name = "rlsc"
grid = { lam = [0.01, 1.0] }

[[methods]]
name = "svc"
grid = { C = [1.0, 10.0] }
"""

# four configurations of a few seconds each (Laplacian methods on 2 000 points)
SLOW = """
title = "slow"
splits = 3
n_folds = 2
scenarios = ["labeled-cv", "test-set"]

[[tasks]]
name = "Moons"
dataset = "moons"
options = { n = 2000, noise = 0.1, rng = 0 }
l = 10
u = 900
t = 1000
fixed = { kernel = "rbf", sigma_scale = 0.1, n_neighbors = 6 }

[[methods]]
name = "rlsc"
grid = { lam = [0.01, 1.0] }
scenarios = ["labeled-cv"]

[[methods]]
name = "lapsvm"
grid = { gamma_A = [1e-6, 1e-4, 1e-2], gamma_I = [0.01, 0.1, 1.0] }

[[methods]]
name = "laprlsc"
grid = { gamma_A = [1e-6, 1e-4, 1e-2], gamma_I = [0.01, 0.1, 1.0] }
scenarios = ["labeled-cv"]
"""


@pytest.fixture
def user_folder(tmp_path, mirror_dir):
    """A scratch folder a user works in: the mirror beside it, reached by a relative path."""
    home = tmp_path / "work"
    home.mkdir()
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "datasets").symlink_to(mirror_dir)
    return home


def user_env(folder: Path) -> dict:
    """The environment of a shell in ``folder`` with the README's relative data settings."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TOOLKIT_", "JUPYTER_PATH"))}
    env.update({"PWD": str(folder), "TOOLKIT_DATA_MIRROR": "../shared/datasets", "TOOLKIT_DATA_DIR": "cache",
                "PYTHONUNBUFFERED": "1"})
    return env


def _foreground_signals():
    """In the child: Ctrl-C's default action, as in a terminal's foreground job (a test run started in
    the background by a shell without job control inherits SIGINT ignored, and so would the child)."""
    import signal

    signal.signal(signal.SIGINT, signal.default_int_handler)


def reproduce(folder: Path, *args, **kwargs):
    return subprocess.Popen([sys.executable, "-m", "toolkit", "reproduce", *args], cwd=folder, env=user_env(folder),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            preexec_fn=_foreground_signals, **kwargs)


def test_relative_output_and_data_settings_resolve_against_the_users_folder(user_folder):
    (user_folder / "tiny.toml").write_text(textwrap.dedent(TINY))
    proc = reproduce(user_folder, "tiny.toml", "--jobs", "2")
    out, _ = proc.communicate(timeout=300)
    assert proc.returncode == 0, out
    report = user_folder / "reports" / "tiny" / "report.html"
    assert out.count("report: ") == 1 and f"report: {report}" in out
    assert report.is_file() and (user_folder / "cache" / "g50c.mat").is_file()
    # nothing nested under a run folder, no error files, no stray kernel log lines in the output
    assert not list((user_folder / "reports" / "tiny" / "runs").glob("*/reports"))
    assert not list((user_folder / "reports").rglob("error.txt"))
    assert "IPKernelApp" not in out and "Traceback" not in out
    assert "outside fitting" in out


def test_run_changes_no_working_directory_and_records_show_nothing(tmp_path, mirror_dir, monkeypatch, capsys):
    monkeypatch.setenv("TOOLKIT_DATA_MIRROR", str(mirror_dir))
    monkeypatch.setenv("TOOLKIT_DATA_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tiny.toml").write_text(textwrap.dedent(TINY))

    def forbidden(path):
        raise AssertionError(f"os.chdir({path!r}) called while kernels run in threads")

    monkeypatch.setattr(os, "chdir", forbidden)
    summary = run_experiment(Path("tiny.toml"), output="out", jobs=2, log=lambda m: None, progress=True)
    assert summary.ok and summary.folder == tmp_path / "out" / "tiny"
    assert summary.kernel_starts == 2 and summary.n_run == 2  # report rendered in a running kernel
    assert 0 < summary.fit_seconds < summary.busy_seconds
    html = summary.report.read_text()
    assert "History logging" not in html  # IPython's history of a reused kernel
    assert "failed configuration" not in html.lower() and "every configuration finished" in html
    err = capsys.readouterr().err
    assert "2/2" in err and "<" in err  # the progress bar: count, elapsed<remaining
    import nbformat

    for notebook in summary.folder.glob("runs/*/model_selection.ipynb"):
        outputs = [o for c in nbformat.read(str(notebook), as_version=4).cells for o in c.get("outputs", [])]
        recorded = [o for o in outputs if RECORD_MIME in o.get("data", {})]
        assert recorded and all(o["data"]["text/plain"] == "" for o in recorded)


def test_kernels_run_this_interpreter_from_a_spec_held_in_memory(tmp_path, monkeypatch):
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    session = KernelSession(tmp_path / "kernel-cwd")
    lines = []
    try:
        session.start()
        from jupyter_core.utils import run_sync

        run_sync(session.kc.execute_interactive)(
            "import os, sys; print(os.path.realpath(sys.executable)); print(os.getcwd())", timeout=60,
            output_hook=lambda msg: lines.extend(msg["content"].get("text", "").split()))
    finally:
        session.shutdown()
    assert lines == [os.path.realpath(sys.executable), str(tmp_path / "kernel-cwd")]
    assert not list((tmp_path / "tmp").rglob("kernel.json"))  # nothing another environment could pick up


def test_kernel_name_is_private_to_the_environment(monkeypatch, tmp_path):
    import tempfile

    from toolkit.reports import kernel_name

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    folders = []
    for python in ("/envs/a/bin/python", "/envs/b/bin/python"):
        monkeypatch.setattr(sys, "executable", python)
        monkeypatch.setenv("JUPYTER_PATH", "")
        kernel_name()
        folder = Path(os.environ["JUPYTER_PATH"].split(os.pathsep)[0])
        spec = json.loads((folder / "kernels" / "ssl-toolkit-python" / "kernel.json").read_text())
        assert spec["argv"][0] == python
        folders.append(folder)
    assert folders[0] != folders[1]


def _wait_for(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def _kernels_of(proc):
    return [p for p in psutil.Process(proc.pid).children(recursive=True) if "ipykernel" in " ".join(p.cmdline())]


@pytest.mark.slow
def test_ctrl_c_and_kill_keep_finished_results_and_a_rerun_resumes(user_folder):
    (user_folder / "slow.toml").write_text(textwrap.dedent(SLOW))
    runs = user_folder / "reports" / "slow" / "runs"

    def finished():
        return len(list(runs.glob("*/results.csv")))

    # 1. Ctrl-C once a configuration has finished: exit within seconds, kernels gone, resume hint
    proc = reproduce(user_folder, "slow.toml", "--jobs", "2")
    _wait_for(lambda: finished() >= 1 and len(_kernels_of(proc)) == 2, 240, "a finished configuration")
    kernels = _kernels_of(proc)
    kept = finished()
    proc.send_signal(signal.SIGINT)
    sent = time.monotonic()
    out, _ = proc.communicate(timeout=60)
    assert time.monotonic() - sent < 10, out
    assert proc.returncode == 130, out
    assert "run the same command again to resume" in out and "IPKernelApp" not in out
    _, alive = psutil.wait_procs(kernels, timeout=5)
    assert not alive
    assert finished() >= kept and not (user_folder / "reports" / "slow" / "report.html").exists()

    # 2. SIGKILL (no chance to clean up): the kernels notice their parent is gone and exit
    proc = reproduce(user_folder, "slow.toml", "--jobs", "2")
    _wait_for(lambda: len(_kernels_of(proc)) == 2, 120, "the kernels")
    kernels = _kernels_of(proc)
    proc.kill()
    proc.communicate(timeout=30)
    _, alive = psutil.wait_procs(kernels, timeout=15)
    assert not alive

    # 3. the same command again: finished configurations skipped, everything else run, one report
    before = finished()
    proc = reproduce(user_folder, "slow.toml", "--jobs", "2")
    out, _ = proc.communicate(timeout=600)
    assert proc.returncode == 0, out
    assert f"{before} finished before" in out
    assert finished() == 4 and (user_folder / "reports" / "slow" / "report.html").is_file()


def test_notebook_progress_bars_are_widgets_with_the_lab_extra_and_text_without(monkeypatch):
    """tqdm in JupyterLab needs ipywidgets (else ``TqdmWarning: IProgress not found``): the ``[lab]``
    extra brings it; without it the package's bars are tqdm's text bars, with no warning."""
    import tomllib
    import warnings

    from tqdm.notebook import IProgress

    from toolkit import _progress

    assert IProgress is not None
    project = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())["project"]
    assert any(dep.startswith("ipywidgets") for dep in project["optional-dependencies"]["lab"])
    monkeypatch.setattr(_progress.importlib.util, "find_spec", lambda name: None)
    import tqdm.std

    assert _progress.tqdm_class() is tqdm.std.tqdm
    from tqdm.notebook import tqdm as notebook_tqdm

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bar = notebook_tqdm(total=2, display=False)
        bar.close()
