"""Compiled-code caches never go inside the installed package.

``numba.njit(cache=True)`` would write ``*.nbi`` / ``*.nbc`` files into ``toolkit/__pycache__``; pip
does not record them, so an uninstall leaves that folder behind and Python imports it as an empty
namespace package ``toolkit`` (every command then fails with ``cannot import name '__version__'``).
Here: every compiled family (S2RLSC search, RBF kernel matrix, LapSVM PCG loops, SVM path event
loop) runs in a fresh process with a throw-away home folder; nothing but ``*.pyc`` may appear
under the package, and the cache must be in the per-user folder (or in ``NUMBA_CACHE_DIR``).
The install / reinstall / editable / uninstall sequence itself is in ``test_install_sequence.py``.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import toolkit

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = Path(toolkit.__file__).resolve().parent

#: One tiny call per module with compiled functions (each compiles on first use).
CALL_EVERY_COMPILED_MODULE = """
import numpy as np
import toolkit
from toolkit import kernel_matrix, lapsvm, mmc, s2rlsc, svm_path, tsvm
from toolkit.graphs import knn_graph_from_kernel
rng = np.random.default_rng(0)
X = rng.normal(size=(24, 2))
y = np.where(X[:, 0] > 0, 1.0, -1.0)
y[0], y[1] = 1.0, -1.0
s2rlsc(X[:4], np.array([1, -1, 1, -1]), X[4:], restarts=1, rng=0)             # toolkit.rls._search
mmc(X, restarts=1, rng=0, search="mu+nu")
K = kernel_matrix(X, kernel="rbf", sigma=1.0)                                 # toolkit.kernels
knn_graph_from_kernel(K, n_neighbors=3, sigma=1.0)                              # toolkit.graphs
lapsvm(X[:4], y[:4], X[4:], sigma=1.0, neighbors=3, method="pcg", max_iter=3)  # toolkit.manifold._core
svm_path(K, y)                                                                # toolkit.paths._svm_numba
tsvm(X[:4], y[:4], X[4:], C_star=0.5)                                         # toolkit.transductive._dcd
"""


def _package_files():
    return {p for p in PACKAGE.rglob("*") if p.is_file()}


def _run(code, env):
    return subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True,
                          timeout=600)


@pytest.fixture
def fresh_home(tmp_path):
    """A process environment whose home and cache folders are empty and numba's own cache unset."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_CACHE")}
    env.update(HOME=str(tmp_path / "home"), XDG_CACHE_HOME=str(tmp_path / "cache"))
    return env


def test_compiled_code_is_cached_in_the_user_folder_not_in_the_package(fresh_home, tmp_path):
    before = _package_files()
    proc = _run(CALL_EVERY_COMPILED_MODULE, fresh_home)
    assert proc.returncode == 0, proc.stderr[-3000:]
    new = {p.relative_to(PACKAGE) for p in _package_files() - before if p.suffix != ".pyc"}
    assert not new, f"{len(new)} files written inside the package, e.g. {sorted(map(str, new))[:4]}"
    cache = tmp_path / "cache" / "ssl-toolkit" / "numba" / toolkit.__version__     # XDG_CACHE_HOME on Linux
    index = {re.sub(r"\.[^.]+-\d+\.py\d+\.nbi$", "", p.name) for p in cache.rglob("*.nbi")}
    assert {"_search", "kernels", "graphs", "_core", "_svm_numba", "_dcd"} <= index  # rls, kernels, graphs, manifold, paths, transductive
    assert any(cache.rglob("*.nbc"))
    # a second process loads what the first one compiled
    again = _run(CALL_EVERY_COMPILED_MODULE + "\nimport toolkit.paths._svm_numba as nb\n"
                 "assert nb.follow.stats.cache_hits, nb.follow.stats\n", fresh_home)
    assert again.returncode == 0, again.stderr[-3000:]


def test_numba_cache_dir_is_respected(fresh_home, tmp_path):
    env = {**fresh_home, "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    before = _package_files()
    code = ("import numpy as np\nfrom toolkit import kernel_matrix\n"
            "kernel_matrix(np.eye(3), kernel='rbf', sigma=1.0)\n")
    proc = _run(code, env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert not {p for p in _package_files() - before if p.suffix != ".pyc"}
    assert any((tmp_path / "numba").rglob("kernels._mirror_upper_to_lower-*.nbi"))
    assert not (tmp_path / "cache").exists()


def test_unwritable_user_folder_falls_back_to_a_temporary_folder(fresh_home, tmp_path):
    (tmp_path / "cache").write_text("a file where the cache folder should be")
    env = {**fresh_home, "TMPDIR": str(tmp_path / "tmp")}
    (tmp_path / "tmp").mkdir()
    before = _package_files()
    code = ("import numpy as np\nfrom toolkit import kernel_matrix, _numba_cache\n"
            "kernel_matrix(np.eye(3), kernel='rbf', sigma=1.0)\n"
            "from pathlib import Path\n"
            "print(_numba_cache.cache_dir())\n"
            "assert any(Path(_numba_cache.cache_dir()).rglob('*.nbi'))\n")
    proc = _run(code, env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert Path(proc.stdout.strip()).parent == tmp_path / "tmp"
    assert not {p for p in _package_files() - before if p.suffix != ".pyc"}
    assert not any((tmp_path / "tmp").iterdir()), "the temporary cache is removed at exit"


def test_other_packages_keep_numbas_own_cache_locators():
    import numba.core.caching as caching

    from toolkit import _numba_cache  # noqa: F401  (imported: must not touch numba's global list)
    import toolkit.kernels  # noqa: F401
    assert all(cls.__module__ == "numba.core.caching" for cls in caching.CacheImpl._locator_classes)


def test_every_cached_numba_function_goes_through_the_toolkit_decorator():
    """``numba.njit(cache=True)`` (or jit, cfunc, vectorize…) written directly would cache in-tree."""
    direct = re.compile(r"numba\.\w+\([^)]*cache\s*=\s*True|from numba import")
    offenders = [f"{p.relative_to(ROOT)}:{i}" for p in PACKAGE.rglob("*.py") if p.name != "_numba_cache.py"
                 for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if direct.search(line)]
    assert not offenders, "use toolkit._numba_cache.njit: " + ", ".join(offenders)
