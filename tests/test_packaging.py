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


# ----------------------------------------------------------------------------- install over an install
# The README's order: ``pip install .`` then ``pip install -e ".[test]"``. Compiled-code caches
# written into the installed package (numba's default for ``cache=True``) are unknown to pip: they
# survived every uninstall and turned ``site-packages/toolkit`` into an empty namespace package
# ("cannot import name '__version__' from 'toolkit' (unknown location)").
COMPILE = ("import numpy as np, toolkit\n"
           "toolkit.kernel_matrix(np.eye(3), kernel='rbf', sigma=1.0)\n"      # a cached compiled function
           "print(toolkit.__file__)\n")


@pytest.fixture(scope="module")
def user_venv(tmp_path_factory):
    """A throw-away venv (dependencies borrowed through a .pth line) and a home folder of its own."""
    base = tmp_path_factory.mktemp("user")
    env_dir = base / "venv"
    venv.create(env_dir, with_pip=True)
    py = env_dir / "bin" / "python"
    site = Path(subprocess.check_output([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                        text=True).strip())
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_CACHE", "VIRTUAL_ENV"))}
    env.update(HOME=str(base / "home"), XDG_CACHE_HOME=str(base / "cache"), PYTHONPATH="")
    return py, site, env, base


def _ok(args, env, cwd):
    proc = subprocess.run([str(a) for a in args], env=env, cwd=cwd, capture_output=True, text=True)
    assert proc.returncode == 0, f"{' '.join(map(str, args))}\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


def _not_recorded(site):
    """Files under site-packages/toolkit that pip did not install (and so would not uninstall)."""
    (record,) = site.glob("ssl_toolkit-*.dist-info/RECORD")
    recorded = {line.split(",")[0] for line in record.read_text().splitlines()}
    return sorted(str(p.relative_to(site)) for p in (site / "toolkit").rglob("*")
                  if p.is_file() and p.suffix != ".pyc" and str(p.relative_to(site)) not in recorded)


@pytest.mark.slow
def test_install_over_install_then_editable_then_uninstall(wheel, user_venv):
    py, site, env, cwd = user_venv
    pip = [py, "-m", "pip", "install", "--no-deps", "--quiet"]
    # 1. regular install; a compiled function runs (and is cached, outside the package)
    _ok([*pip, "--no-index", wheel], env, cwd)
    assert _ok([py, "-c", COMPILE], env, cwd).strip() == str(site / "toolkit" / "__init__.py")
    assert _not_recorded(site) == []
    assert any((cwd / "cache" / "ssl-toolkit" / "numba").rglob("*.nbi"))
    # 2. the same wheel again over it
    _ok([*pip, "--no-index", "--force-reinstall", wheel], env, cwd)
    assert "reproduce" in _ok([py.parent / "ssl-toolkit", "--help"], env, cwd)
    _ok([py, "-c", COMPILE], env, cwd)
    # 3. editable install over the regular one: the package folder goes, the checkout is imported
    _ok([*pip, "-e", ROOT], env, cwd)
    assert not (site / "toolkit").exists(), sorted(map(str, (site / "toolkit").rglob("*")))
    assert "reproduce" in _ok([py.parent / "ssl-toolkit", "--help"], env, cwd)
    assert _ok([py, "-c", COMPILE], env, cwd).strip() == str(ROOT / "toolkit" / "__init__.py")
    # 4. uninstall leaves nothing of the toolkit in site-packages
    _ok([py, "-m", "pip", "uninstall", "-y", "--quiet", "ssl-toolkit"], env, cwd)
    assert not (site / "toolkit").exists()
    assert not [p.name for p in site.iterdir() if "ssl_toolkit" in p.name or "ssl-toolkit" in p.name]
