"""Relative ``TOOLKIT_DATA_MIRROR`` / ``TOOLKIT_DATA_DIR``: resolved against the launch directory.

The launch directory is ``$PWD`` when that is set, absolute and an existing directory (a shell
exports it; a notebook kernel started in another folder inherits it), otherwise the working
directory. The fixture builds a project folder with a ``notebooks`` folder inside it, as a
Jupyter kernel run by ``jupyter nbconvert --execute notebooks/x.ipynb`` would see it.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from toolkit import data
from toolkit.cli import main
from toolkit.data import _registry


@pytest.fixture
def project(tmp_path, mirror_dir, monkeypatch):
    """A launch folder ``project`` (with ``notebooks/`` and an empty ``empty-mirror/``) and no data settings."""
    root = tmp_path.resolve() / "project"
    (root / "notebooks").mkdir(parents=True)
    (root / "empty-mirror").mkdir()
    mirror = mirror_dir.resolve()
    monkeypatch.delenv("TOOLKIT_DATA_DIR", raising=False)
    monkeypatch.delenv("TOOLKIT_DATA_MIRROR", raising=False)
    return SimpleNamespace(root=root, notebooks=root / "notebooks", mirror=mirror,
                           relative_mirror=os.path.relpath(mirror, root))


def _launched_in(project, monkeypatch, *, cwd):
    """The user typed the command in ``project.root``; the process now works in ``cwd``."""
    monkeypatch.setenv("PWD", str(project.root))
    monkeypatch.chdir(cwd)


def test_relative_settings_follow_the_launch_directory_not_the_working_directory(project, monkeypatch):
    _launched_in(project, monkeypatch, cwd=project.notebooks)
    monkeypatch.setenv("TOOLKIT_DATA_MIRROR", project.relative_mirror)
    monkeypatch.setenv("TOOLKIT_DATA_DIR", "cache")
    ds = data.load("g50c")
    assert ds.X.shape == (550, 50)
    assert ds.urls == (str(project.mirror / "g50c.mat"),)
    assert (project.root / "cache" / "g50c.mat").is_file()
    assert not (project.notebooks / "cache").exists()
    assert data.cache_dir() == project.root / "cache"
    assert _registry.mirror() == str(project.mirror)


def test_relative_settings_without_pwd_use_the_working_directory(project, monkeypatch):
    monkeypatch.delenv("PWD", raising=False)
    monkeypatch.chdir(project.root)
    monkeypatch.setenv("TOOLKIT_DATA_MIRROR", project.relative_mirror)
    monkeypatch.setenv("TOOLKIT_DATA_DIR", "cache")
    record = data.fetch_file("g50c.mat")
    assert record.path == project.root / "cache" / "g50c.mat"  # absolute, usable after a chdir
    assert record.url == str(project.mirror / "g50c.mat")
    monkeypatch.chdir(project.notebooks)
    assert record.path.is_file()


@pytest.mark.parametrize("pwd", ["project", "/nonexistent/launch/dir", "FILE"])
def test_unusable_pwd_falls_back_to_the_working_directory(project, monkeypatch, pwd):
    if pwd == "FILE":  # an existing path that is not a directory
        pwd = str(project.root / "a-file")
        Path(pwd).write_text("")
    monkeypatch.setenv("PWD", pwd)
    monkeypatch.chdir(project.notebooks)
    monkeypatch.setenv("TOOLKIT_DATA_DIR", "cache")
    assert data.cache_dir() == project.notebooks / "cache"
    assert _registry.launch_directory() == project.notebooks


def test_resolve_setting_path(project, monkeypatch):
    _launched_in(project, monkeypatch, cwd=project.notebooks)
    assert data.resolve_setting_path("cache") == project.root / "cache"
    assert data.resolve_setting_path("../shared/datasets") == project.root.parent / "shared" / "datasets"
    assert data.resolve_setting_path(project.mirror) == project.mirror
    assert data.resolve_setting_path("~/ssl-data") == Path.home() / "ssl-data"
    # an absolute path is kept as it is, not normalised
    assert str(data.resolve_setting_path("/srv/x/../data")) == "/srv/x/../data"


def test_missing_file_error_names_the_resolved_folder_and_the_raw_setting(project, monkeypatch):
    _launched_in(project, monkeypatch, cwd=project.notebooks)
    monkeypatch.setenv("TOOLKIT_DATA_DIR", "cache")
    monkeypatch.setenv("TOOLKIT_DATA_MIRROR", "empty-mirror")
    with pytest.raises(data.DataError) as info:
        data.load("g50c")
    message = str(info.value)
    assert (f"The file 'g50c.mat' is not in the local mirror folder {project.root / 'empty-mirror'} "
            f"(TOOLKIT_DATA_MIRROR='empty-mirror', resolved against {project.root}). ") in message
    monkeypatch.setenv("TOOLKIT_DATA_MIRROR", "../no-such-mirror")
    with pytest.raises(data.DataError) as info:
        data.load("g50c")
    assert str(project.root.parent / "no-such-mirror") in str(info.value)
    assert "TOOLKIT_DATA_MIRROR='../no-such-mirror'" in str(info.value) and "does not exist" in str(info.value)


def test_bad_cached_file_error_names_the_resolved_cache(project, monkeypatch):
    _launched_in(project, monkeypatch, cwd=project.notebooks)
    monkeypatch.setenv("TOOLKIT_DATA_DIR", "cache")
    monkeypatch.setenv("TOOLKIT_DATA_MIRROR", project.relative_mirror)
    cached = data.fetch_file("g50c.mat").path
    cached.write_bytes(b"not the file")
    with pytest.raises(data.HashMismatchError) as info:
        data.fetch_file("g50c.mat")
    assert f"cached at {project.root / 'cache' / 'g50c.mat'}" in str(info.value)
    assert f"TOOLKIT_DATA_DIR='cache', resolved against {project.root}" in str(info.value)


def test_uncreatable_cache_folder_error_names_the_resolved_folder(project, monkeypatch):
    _launched_in(project, monkeypatch, cwd=project.notebooks)
    (project.root / "occupied").write_text("a file where the cache folder should be")
    monkeypatch.setenv("TOOLKIT_DATA_DIR", "occupied/cache")
    monkeypatch.setenv("TOOLKIT_DATA_MIRROR", project.relative_mirror)
    with pytest.raises(data.DataError) as info:
        data.fetch_file("g50c.mat")
    assert f"cache folder {project.root / 'occupied' / 'cache'} (TOOLKIT_DATA_DIR='occupied/cache'" in str(info.value)


def test_subprocess_in_another_folder_inherits_pwd_and_finds_the_mirror(project):
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLKIT_")}
    env.update({"PWD": str(project.root), "TOOLKIT_DATA_MIRROR": project.relative_mirror, "TOOLKIT_DATA_DIR": "cache"})
    code = "import toolkit.data as d; ds = d.load('g50c'); print(ds.X.shape[0]); print(d.cache_dir())"
    # a kernel started in notebooks/ with the launching shell's environment
    done = subprocess.run([sys.executable, "-c", code], cwd=project.notebooks, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["550", str(project.root / "cache")]
    assert (project.root / "cache" / "g50c.mat").is_file()


def test_resolved_settings_for_a_launcher(project, monkeypatch):
    _launched_in(project, monkeypatch, cwd=project.notebooks)
    assert data.resolved_settings() == {}
    monkeypatch.setenv("TOOLKIT_DATA_DIR", "cache")
    monkeypatch.setenv("TOOLKIT_DATA_MIRROR", project.relative_mirror)
    updates = data.resolved_settings()
    assert updates == {"TOOLKIT_DATA_DIR": str(project.root / "cache"), "TOOLKIT_DATA_MIRROR": str(project.mirror)}
    # a child that neither shares the working directory nor the PWD still finds both folders
    env = {k: v for k, v in os.environ.items() if k != "PWD"}
    env.update(updates)
    code = "import toolkit.data as d; print(d.load('g50c').X.shape[0])"
    done = subprocess.run([sys.executable, "-c", code], cwd=project.root.parent, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["550"] and (project.root / "cache" / "g50c.mat").is_file()
    # URLs are left as they are; absolute and ~ paths come back expanded
    monkeypatch.setenv("TOOLKIT_DATA_MIRROR", "http://127.0.0.1:1/data/")
    monkeypatch.setenv("TOOLKIT_DATA_DIR", "~/ssl-cache")
    assert data.resolved_settings() == {"TOOLKIT_DATA_DIR": str(Path.home() / "ssl-cache")}


def test_cli_list_shows_the_resolved_folders(project, monkeypatch, capsys):
    _launched_in(project, monkeypatch, cwd=project.notebooks)
    monkeypatch.setenv("TOOLKIT_DATA_DIR", "cache")
    monkeypatch.setenv("TOOLKIT_DATA_MIRROR", project.relative_mirror)
    assert main(["data", "list"]) == 0
    out = capsys.readouterr().out
    assert f"cache: {project.root / 'cache'}\n" in out and f"source: {project.mirror}\n" in out
