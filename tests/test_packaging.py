"""The wheel is complete: built from the source tree, installed into a throw-away venv, it finds its registry.

This is what a user gets from ``pip install .``: no editable finder, no repository on ``sys.path``.
The throw-away venv borrows the already-installed dependencies through a ``.pth`` line (so the
test needs no network) but gets ``toolkit`` itself only from the wheel.
"""
import os
import subprocess
import sys
import sysconfig
import tomllib
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_every_subpackage_is_listed_in_pyproject():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    on_disk = {".".join(p.relative_to(ROOT).parent.parts) for p in (ROOT / "toolkit").rglob("__init__.py")}
    mapped = {"toolkit.data_registry", "toolkit.notebooks"}     # top-level folders shipped inside toolkit
    assert on_disk | mapped == listed, "update [tool.setuptools] packages in pyproject.toml"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    proc = subprocess.run([sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(ROOT)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    (whl,) = out.glob("ssl_toolkit-*.whl")
    return whl


def test_wheel_installs_and_loads_a_dataset(wheel, tmp_path, mirror_dir):
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    py = env_dir / "bin" / "python"
    # dependencies come from the test interpreter's site-packages, toolkit only from the wheel
    site = Path(subprocess.check_output([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                        text=True).strip())
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([str(py), "-m", "pip", "install", "--no-deps", "--no-index", "--quiet", str(wheel)], check=True)
    env = {**os.environ, "TOOLKIT_DATA_MIRROR": str(mirror_dir), "TOOLKIT_DATA_DIR": str(tmp_path / "cache"),
           "PYTHONPATH": ""}
    code = ("import toolkit, toolkit.data as d, importlib.resources as r\n"
            "assert 'site-packages' in toolkit.__file__, toolkit.__file__\n"
            "assert r.files('toolkit.data_registry').joinpath('registry.txt').is_file()\n"
            "from toolkit.reports import notebooks_dir, list_experiments\n"
            "assert 'site-packages' in str(notebooks_dir()) and 'quick' in list_experiments()\n"
            "ds = d.load('g50c'); print(ds.X.shape)\n")
    proc = subprocess.run([str(py), "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "(550, 50)"
    cli = subprocess.run([str(env_dir / "bin" / "ssl-toolkit"), "data", "list"], cwd=tmp_path, env=env,
                         capture_output=True, text=True)
    assert cli.returncode == 0, cli.stderr
    assert "usps" in cli.stdout and "g50c" in cli.stdout
    listed = subprocess.run([str(py), "-m", "toolkit", "reproduce", "--list"], cwd=tmp_path, env=env,
                            capture_output=True, text=True)
    assert listed.returncode == 0 and "quick" in listed.stdout, listed.stderr
