"""Fetching: the real pooch download path over a loopback server, the cache, and every fault."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from _loopback import LoopbackServer

from toolkit import data
from toolkit.data import _registry

G50C_SHA = "sha256:9f0d95cb5884d817c1165861b347a428bcc255566d1e74c871bd0de58b23423f"


def _files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


def _Server(folder: Path, truncate: bool = False) -> LoopbackServer:
    """A loopback server for a folder; ``truncate`` sends only half of every file, then hangs up."""
    return LoopbackServer(folder, half=truncate)


@pytest.fixture
def corrupt_mirror(tmp_path, mirror_dir):
    """A mirror folder whose g50c.mat has one flipped byte."""
    folder = tmp_path / "corrupt-mirror"
    folder.mkdir()
    blob = bytearray((mirror_dir / "g50c.mat").read_bytes())
    blob[-100] ^= 0xFF
    (folder / "g50c.mat").write_bytes(bytes(blob))
    return folder


def test_http_mirror_downloads_once(http_mirror, fresh_cache, monkeypatch):
    monkeypatch.setenv("TOOLKIT_DATA_MIRROR", http_mirror.url)
    ds = data.load("usps", 2, 5)
    assert ds.X.shape == (1645, 256)
    assert sorted(http_mirror.requests) == ["/zip.test.gz", "/zip.train.gz"]
    assert ds.urls == (http_mirror.url + "zip.train.gz", http_mirror.url + "zip.test.gz")
    again = data.load("usps", 2, 5)
    assert len(http_mirror.requests) == 2  # the second load makes no request
    assert (again.y == 1).sum() == 929
    # raw files and their parsed arrays (keyed by the raw hash) are in the cache, nothing else
    names = _files(fresh_cache)
    assert "zip.train.gz" in names and "zip.test.gz" in names
    assert any(n.startswith("zip.train.gz.66ebf231ab51f2cf.") and n.endswith(".npz") for n in names)
    assert not any(n.endswith(".part") or n.startswith("tmp") for n in names)


def test_http_mirror_with_commas_in_file_names(http_mirror, fresh_cache, monkeypatch):
    monkeypatch.setenv("TOOLKIT_DATA_MIRROR", http_mirror.url)
    ds = data.load("ssl-book", "COIL2")
    splits = data.fixed_splits(ds, labeled=10)
    assert len(splits) == 12 and ds.X.shape == (1500, 241)
    assert len(http_mirror.requests) == 2


def test_local_mirror_copy_is_verified(mirror_dir, fresh_cache, monkeypatch):
    monkeypatch.setenv("TOOLKIT_DATA_MIRROR", str(mirror_dir))
    record = data.fetch_file("g50c.mat")
    assert record.hash == G50C_SHA and record.path == fresh_cache / "g50c.mat"
    assert _files(fresh_cache) == ["g50c.mat"]


def test_corrupted_local_mirror_file_is_refused(corrupt_mirror, fresh_cache, monkeypatch):
    monkeypatch.setenv("TOOLKIT_DATA_MIRROR", str(corrupt_mirror))
    for _ in range(2):  # refused every time, never cached
        with pytest.raises(data.HashMismatchError) as info:
            data.load("g50c")
        message = str(info.value)
        assert "'g50c.mat'" in message and G50C_SHA in message and "found sha256:" in message
        assert _files(fresh_cache) == []


def test_corrupted_http_mirror_file_is_refused(corrupt_mirror, fresh_cache, monkeypatch):
    server = _Server(corrupt_mirror)
    try:
        monkeypatch.setenv("TOOLKIT_DATA_MIRROR", server.url)
        with pytest.raises(data.HashMismatchError) as info:
            data.load("g50c")
    finally:
        server.close()
    message = str(info.value)
    assert "'g50c.mat'" in message and G50C_SHA in message and "found sha256:" in message
    assert _files(fresh_cache) == []


def test_corrupted_cached_file_is_refused_and_removed(mirror_dir, fresh_cache, monkeypatch):
    monkeypatch.setenv("TOOLKIT_DATA_MIRROR", str(mirror_dir))
    data.load("g50c")
    cached = fresh_cache / "g50c.mat"
    blob = bytearray(cached.read_bytes())
    blob[10] ^= 0xFF
    cached.write_bytes(bytes(blob))
    with pytest.raises(data.HashMismatchError) as info:
        data.load("g50c")
    assert "'g50c.mat'" in str(info.value) and G50C_SHA in str(info.value)
    assert not cached.exists()  # the bad copy is not used again
    assert data.load("g50c").X.shape == (550, 50)  # the next load fetches a good copy


def test_unreachable_source_mentions_the_mirror_setting(fresh_cache, monkeypatch):
    monkeypatch.setenv("TOOLKIT_DATA_MIRROR", "http://127.0.0.1:1/")
    with pytest.raises(data.DataError, match="TOOLKIT_DATA_MIRROR") as info:
        data.load("g50c")
    assert "g50c.mat" in str(info.value)
    assert _files(fresh_cache) == []


def test_missing_from_local_mirror_names_file_and_setting(tmp_path, fresh_cache, monkeypatch):
    monkeypatch.setenv("TOOLKIT_DATA_MIRROR", str(tmp_path))
    with pytest.raises(data.DataError, match=r"'zip.train.gz'.*TOOLKIT_DATA_MIRROR"):
        data.load("usps")


def test_interrupted_download_leaves_no_partial_file(mirror_dir, fresh_cache, monkeypatch):
    server = _Server(mirror_dir, truncate=True)
    try:
        monkeypatch.setenv("TOOLKIT_DATA_MIRROR", server.url)
        with pytest.raises(data.DataError, match="g50c.mat"):
            data.load("g50c")
    finally:
        server.close()
    assert _files(fresh_cache) == []


def test_keyboard_interrupt_during_download_leaves_no_partial_file(http_mirror, fresh_cache, monkeypatch):
    import pooch

    def interrupted(self, url, output_file, pooch_instance, check_only=False):
        with open(output_file, "wb") as out:
            out.write(b"partial bytes")
        raise KeyboardInterrupt

    monkeypatch.setattr(pooch.HTTPDownloader, "__call__", interrupted)
    monkeypatch.setenv("TOOLKIT_DATA_MIRROR", http_mirror.url)
    with pytest.raises(KeyboardInterrupt):
        data.load("g50c")
    assert _files(fresh_cache) == []


def test_two_processes_load_the_same_set_at_once(http_mirror, fresh_cache):
    env = {**os.environ, "TOOLKIT_DATA_MIRROR": http_mirror.url, "TOOLKIT_DATA_DIR": str(fresh_cache)}
    code = "import toolkit.data as d; ds = d.load('usps', 2, 5); print(ds.X.shape[0], int((ds.y == 1).sum()))"
    procs = [subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outputs = [p.communicate(timeout=120) for p in procs]
    for proc, (out, err) in zip(procs, outputs):
        assert proc.returncode == 0, err
        assert out.split() == ["1645", "929"]
    assert not any(n.endswith(".part") or n.startswith("tmp") for n in _files(fresh_cache))
    assert data.load("usps", 2, 5).X.shape == (1645, 256)


def test_default_cache_is_pooch_os_cache(monkeypatch):
    import pooch

    monkeypatch.delenv("TOOLKIT_DATA_DIR", raising=False)
    assert _registry.cache_dir() == Path(pooch.os_cache("ssl-toolkit"))


def test_registry_covers_provenance(mirror_dir):
    import re

    provenance = (mirror_dir / "PROVENANCE.md").read_text(encoding="utf-8")
    listed = dict(re.findall(r"^\| `([^`]+)` \| \d+ \| `([0-9a-f]{64})` \|", provenance, re.M))
    registry = _registry.registry()
    assert len(listed) == 38
    for name, digest in listed.items():
        assert registry[name] == f"sha256:{digest}"
    assert registry["train-images-idx3-ubyte.gz"] == "md5:f68b3c2dcbeaaa9fbdd348bbdeb94873"
    for line in (mirror_dir / "SHA256SUMS").read_text().splitlines():
        digest, name = line.split(maxsplit=1)
        assert registry[name] == f"sha256:{digest}"
    urls = _registry.urls()
    assert set(registry) <= set(urls) and "faces.tar.gz" in urls and "faces.tar.gz" not in registry
    catalogue = _registry.catalogue()
    assert catalogue["cbcl-faces"]["available"] is False and "checksum" in catalogue["cbcl-faces"]["reason"]
    files = {f for t in catalogue.values() for f in t.get("files", []) + t.get("extra_files", [])}
    files |= {f for t in catalogue["ssl-book"]["sets"].values() for f in t["files"]}
    assert set(registry) <= files
