"""The cache heals: damaged parsed arrays, writers killed mid-way, read-only folders, file modes."""
from __future__ import annotations

import errno
import io
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pytest
from _loopback import LoopbackServer
import scipy.sparse as sp

from toolkit import data
from toolkit.data import _parsers, _registry


def _files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


@pytest.fixture
def local_mirror(mirror_dir, fresh_cache, monkeypatch):
    monkeypatch.setenv("TOOLKIT_DATA_MIRROR", str(mirror_dir.resolve()))
    return fresh_cache


def _same_arrays(a: dict, b: dict) -> bool:
    if a.keys() != b.keys():
        return False
    for key in a:
        x, y = a[key], b[key]
        if sp.issparse(x) or sp.issparse(y):
            if not (sp.issparse(x) and sp.issparse(y) and x.shape == y.shape and (x != y).nnz == 0):
                return False
        elif x.dtype != y.dtype or x.shape != y.shape or not np.array_equal(x, y):
            return False
    return True


# --------------------------------------------------------------------------- damaged parsed arrays

def _flip(path: Path) -> None:
    blob = bytearray(path.read_bytes())
    blob[len(blob) // 2] ^= 0x01  # one bit inside the stored array data
    path.write_bytes(bytes(blob))


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size * 2 // 3])


def _empty(path: Path) -> None:
    path.write_bytes(b"")


@pytest.mark.parametrize("damage", [_flip, _truncate, _empty])
@pytest.mark.parametrize("name", ["g50c", "pcmac"])  # dense and sparse arrays
def test_damaged_parsed_cache_is_removed_and_rebuilt(local_mirror, name, damage):
    first = data.load(name)
    (parsed,) = local_mirror.glob("*.npz")
    damage(parsed)
    with pytest.warns(data.DataCacheWarning, match=f"The parsed-array cache {parsed} is damaged") as caught:
        again = data.load(name)
    assert "removed and is rebuilt from the verified raw file" in str(caught[0].message)
    assert caught[0].filename == __file__  # the warning points at the load() call
    if sp.issparse(first.X):
        assert (first.X != again.X).nnz == 0
    else:
        np.testing.assert_array_equal(first.X, again.X)
    np.testing.assert_array_equal(first.y, again.y)
    with warnings.catch_warnings():  # rebuilt: the next load reads it without complaint
        warnings.simplefilter("error", data.DataCacheWarning)
        np.testing.assert_array_equal(data.load(name).y, first.y)
    assert sorted(local_mirror.glob("*.npz")) == [parsed]


def test_every_single_byte_damage_is_detected_or_harmless(tmp_path):
    rng = np.random.default_rng(0)
    arrays = {"X": rng.normal(size=(7, 3)), "y": np.arange(7),
              "S": sp.random(5, 4, density=0.5, format="csr", random_state=0)}
    path = tmp_path / "small.npz"
    _parsers._write_parsed(path, arrays)
    blob = path.read_bytes()
    detected = 0
    for mask in (0xFF, 0x01, 0x80):
        for offset in range(len(blob)):
            damaged = bytearray(blob)
            damaged[offset] ^= mask
            try:
                out = _parsers.read_parsed(io.BytesIO(bytes(damaged)))
            except _parsers._DAMAGE:
                detected += 1
            else:  # bytes no reader looks at (timestamps, attributes): the arrays are intact
                assert _same_arrays(out, arrays), (offset, mask)
    for length in range(len(blob)):
        with pytest.raises(_parsers._DAMAGE):
            _parsers.read_parsed(io.BytesIO(blob[:length]))
    assert detected > 2 * len(blob)


# ------------------------------------------------------------------ writers killed mid-way (SIGKILL)

def _StallingServer(folder: Path) -> LoopbackServer:
    """Serves half of every file from ``folder`` on 127.0.0.1, then holds the connection open."""
    return LoopbackServer(folder, half=True, hold=True)


def _child(code: str, cache: Path, mirror: str) -> subprocess.Popen:
    env = {**os.environ, "TOOLKIT_DATA_DIR": str(cache), "TOOLKIT_DATA_MIRROR": mirror}
    return subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _wait_for_partial_file(proc: subprocess.Popen, cache: Path) -> Path:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        names = cache.glob("*") if cache.exists() else []
        partial = [p for p in names if p.name != "g50c.mat" and p.stat().st_size > 0]
        if partial:
            return partial[0]
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    raise AssertionError("the child wrote nothing within 60 s")


def _kill(proc: subprocess.Popen) -> None:
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL


def test_download_killed_mid_way_leaves_nothing_behind(mirror_dir, fresh_cache, monkeypatch):
    server = _StallingServer(mirror_dir)
    try:
        child = _child("import toolkit.data as d; d.fetch_file('g50c.mat')", fresh_cache, server.url)
        partial = _wait_for_partial_file(child, fresh_cache)
        try:
            # while the child is alive, another process's fetch leaves its temporary file alone
            monkeypatch.setenv("TOOLKIT_DATA_MIRROR", str(mirror_dir.resolve()))
            assert data.fetch_file("g50c.mat").path.is_file()
            assert partial.is_file()
        finally:
            _kill(child)
    finally:
        server.close()
    assert partial.is_file()  # SIGKILL: no handler ran
    assert data.load("g50c").X.shape == (550, 50)  # the next fetch removes it
    assert not partial.exists()
    names = _files(fresh_cache)
    assert names[0] == "g50c.mat" and len(names) == 2 and names[1].startswith("g50c.mat.") and names[1].endswith(".npz")


def test_copy_killed_mid_way_leaves_nothing_behind(mirror_dir, fresh_cache, monkeypatch):
    code = ("import shutil, sys, time\n"
            "def stalled(source, target, length=0):\n"
            "    target.write(source.read(4096)); target.flush()\n"
            "    print('copying', flush=True); time.sleep(120)\n"
            "shutil.copyfileobj = stalled\n"
            "import toolkit.data as d; d.fetch_file('g50c.mat')\n")
    child = _child(code, fresh_cache, str(mirror_dir.resolve()))
    try:
        assert child.stdout.readline().strip() == "copying", child.communicate()
        partial = _wait_for_partial_file(child, fresh_cache)
    finally:
        _kill(child)
    assert partial.is_file()
    monkeypatch.setenv("TOOLKIT_DATA_MIRROR", str(mirror_dir.resolve()))
    assert data.fetch_file("g50c.mat").path.is_file()
    assert _files(fresh_cache) == ["g50c.mat"]


def test_temporary_files_of_live_writers_are_kept(local_mirror):
    local_mirror.mkdir()
    target = local_mirror / "g50c.mat"
    with _registry.write_atomically(target) as tmp:
        tmp.write_bytes(b"in progress")
        assert _registry.remove_stale_temporaries(local_mirror) == []  # our own, alive
        data.fetch_file("uspst.mat")
        assert tmp.is_file()
    assert target.read_bytes() == b"in progress" and not tmp.exists()
    with pytest.raises(RuntimeError), _registry.write_atomically(target) as tmp:
        tmp.write_bytes(b"abandoned")
        raise RuntimeError("the writer fails")
    assert target.read_bytes() == b"in progress" and _files(local_mirror) == ["g50c.mat", "uspst.mat"]


def test_temporaries_of_earlier_versions_are_removed_when_stale(local_mirror):
    local_mirror.mkdir()
    old = time.time() - 2 * 24 * 3600
    for name in ("tmpab_cd123", "tmp4kq9z0xe", ".g50c.mat.k_3dh2a9.part", "notes.txt", "tmp-keep-me"):
        (local_mirror / name).write_bytes(b"x")
        os.utime(local_mirror / name, (old, old))
    (local_mirror / "tmpfresh123").write_bytes(b"a download of an older version, still running")
    data.fetch_file("g50c.mat")
    assert _files(local_mirror) == ["g50c.mat", "notes.txt", "tmp-keep-me", "tmpfresh123"]


# ------------------------------------------------------------------------------ read-only cache

@pytest.fixture
def read_only(monkeypatch):
    """Make a folder read-only: chmod 0o555, and for root (whom permissions do not stop) refuse creating
    and removing files in it the way the kernel refuses an ordinary user."""
    folders = []

    def refuse(path):
        if Path(os.fsdecode(path)).parent in folders:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fsdecode(path))

    real_open, real_unlink = os.open, os.unlink

    def guarded_open(path, flags, mode=0o777, *, dir_fd=None):
        if flags & os.O_CREAT:
            refuse(path)
        return real_open(path, flags, mode, dir_fd=dir_fd)

    def guarded_unlink(path, *, dir_fd=None):
        refuse(path)
        return real_unlink(path, dir_fd=dir_fd)

    def make(folder: Path):
        folder.chmod(0o555)
        folders.append(folder)

    if os.geteuid() == 0:
        monkeypatch.setattr(os, "open", guarded_open)
        monkeypatch.setattr(os, "unlink", guarded_unlink)
    yield make
    for folder in folders:
        folder.chmod(0o755)


def test_read_only_cache_with_the_raw_file_loads(local_mirror, monkeypatch, read_only):
    data.fetch_file("g50c.mat")
    monkeypatch.setenv("TOOLKIT_DATA_MIRROR", str(local_mirror / "no-mirror-needed"))
    read_only(local_mirror)
    with pytest.warns(data.DataCacheWarning, match="could not be written") as caught:
        ds = data.load("g50c")
    assert ds.X.shape == (550, 50) and (ds.y == 1).sum() == 275
    assert str(local_mirror) in str(caught[0].message) and "PermissionError" in str(caught[0].message)
    assert _files(local_mirror) == ["g50c.mat"]


def test_read_only_cache_loads_in_a_process_the_kernel_refuses_writes(local_mirror, tmp_path):
    """The same with permissions enforced by the kernel: root runs the child without the capability
    to override them (setpriv), so chmod 0o555 binds it as it binds an ordinary user."""
    data.fetch_file("g50c.mat")
    command = [sys.executable, "-W", "always", "-c",
               "import toolkit.data as d; print(d.load('g50c').X.shape[0]); print(d.load('g50c').X.shape[0])"]
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv: the read-only folder is simulated by the test above")
        caps = "-dac_override,-dac_read_search,-fowner"
        command = [setpriv, f"--bounding-set={caps}", f"--inh-caps={caps}", *command]
    env = {**os.environ, "TOOLKIT_DATA_DIR": str(local_mirror), "TOOLKIT_DATA_MIRROR": str(tmp_path / "none")}
    local_mirror.chmod(0o555)
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    finally:
        local_mirror.chmod(0o755)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["550", "550"]
    assert done.stderr.count("DataCacheWarning: The parsed-array cache") == 2
    assert "could not be written (PermissionError: Permission denied)" in done.stderr
    assert _files(local_mirror) == ["g50c.mat"]


def test_read_only_cache_with_damaged_parsed_arrays_loads(local_mirror, monkeypatch, read_only):
    expected = data.load("g50c")
    (parsed,) = local_mirror.glob("*.npz")
    _flip(parsed)
    read_only(local_mirror)
    with pytest.warns(data.DataCacheWarning) as caught:
        ds = data.load("g50c")
    np.testing.assert_array_equal(ds.X, expected.X)
    messages = [str(w.message) for w in caught]
    assert any("is damaged" in m and "could not be removed" in m for m in messages), messages


def test_read_only_cache_with_a_bad_raw_file_says_it_stays(local_mirror, read_only):
    cached = data.fetch_file("g50c.mat").path
    cached.write_bytes(b"damaged")
    read_only(local_mirror)
    with pytest.raises(data.HashMismatchError, match="could not be removed.*delete it by hand"):
        data.fetch_file("g50c.mat")


# ----------------------------------------------------------------------------------- file modes

@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o027, 0o640)])
@pytest.mark.parametrize("source", ["folder", "http"])
def test_cached_files_follow_the_umask(umask, mode, source, mirror_dir, fresh_cache, monkeypatch, request):
    url = request.getfixturevalue("http_mirror").url if source == "http" else str(mirror_dir.resolve())
    monkeypatch.setenv("TOOLKIT_DATA_MIRROR", url)
    previous = os.umask(umask)
    try:
        data.load("g50c")
    finally:
        os.umask(previous)
    names = _files(fresh_cache)
    assert len(names) == 2
    for name in names:
        assert stat.S_IMODE((fresh_cache / name).stat().st_mode) == mode, name
