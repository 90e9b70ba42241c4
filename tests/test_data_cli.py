"""``ssl-toolkit data list | fetch | info`` and ``python -m toolkit data list``."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from toolkit.cli import main


@pytest.fixture
def local_mirror(mirror_dir, fresh_cache, monkeypatch):
    monkeypatch.setenv("TOOLKIT_DATA_MIRROR", str(mirror_dir))
    return fresh_cache


def test_list_shows_every_set_and_cache_state(local_mirror, capsys):
    assert main(["data", "list"]) == 0
    out = capsys.readouterr().out
    for name in ("usps", "uspst", "mnist", "coil20", "g50c", "pcmac", "ssl-book 7 (g241n)", "gaussian2c",
                 "gaussian4c", "moons", "cbcl-faces"):
        assert name in out
    g50c = next(line for line in out.splitlines() if line.startswith("g50c "))
    assert "550" in g50c and "50" in g50c and g50c.rstrip().endswith("no")
    assert main(["data", "fetch", "g50c", "--no-progress"]) == 0
    capsys.readouterr()
    main(["data", "list"])
    g50c = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("g50c "))
    assert g50c.rstrip().endswith("yes")


def test_fetch_reports_known_gaps_without_failing(local_mirror, capsys):
    assert main(["data", "fetch", "mnist", "cbcl-faces", "ssl-book:4", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "t10k-images-idx3-ubyte.gz: ok" in out
    assert "train-images-idx3-ubyte.gz: unavailable" in out
    assert "cbcl-faces: unavailable" in out and "SSL,set=4,data.mat: unavailable" in out
    assert (local_mirror / "t10k-images-idx3-ubyte.gz").is_file()


def test_fetch_fails_when_an_available_set_fails(tmp_path, fresh_cache, monkeypatch, capsys):
    monkeypatch.setenv("TOOLKIT_DATA_MIRROR", str(tmp_path))  # an empty mirror
    assert main(["data", "fetch", "g50c", "--no-progress"]) == 1
    assert "g50c.mat: FAILED" in capsys.readouterr().err


def test_fetch_over_http_shows_a_progress_bar(http_mirror, fresh_cache, monkeypatch, capsys):
    monkeypatch.setenv("TOOLKIT_DATA_MIRROR", http_mirror.url)
    assert main(["data", "fetch", "g50c"]) == 0
    captured = capsys.readouterr()
    assert "g50c.mat: ok" in captured.out
    assert "%" in captured.err or "B/s" in captured.err  # tqdm's bar
    assert http_mirror.requests == ["/g50c.mat"]


def test_fetch_usage_errors(local_mirror, capsys):
    assert main(["data", "fetch"]) == 2
    assert main(["data", "fetch", "g50c", "--all"]) == 2
    with pytest.raises(SystemExit, match="unknown data set 'nope'.*usps"):
        main(["data", "fetch", "nope"])


def test_info_gives_citation_licence_provenance(local_mirror, capsys):
    assert main(["data", "info", "usps"]) == 0
    out = capsys.readouterr().out
    assert "Hastie" in out and "licence:" in out
    assert "sha256:66ebf231ab51f2cf6ac1a892d0f98ccffee1079d7a5db638c1f11f366046ca16" in out
    assert "https://hastie.su.domains/ElemStatLearn/datasets/zip.train.gz" in out
    assert main(["data", "info", "cbcl-faces"]) == 0
    assert "UNAVAILABLE" in capsys.readouterr().out


def test_python_dash_m_toolkit_data_list(local_mirror):
    env = {**os.environ, "TOOLKIT_DATA_DIR": str(local_mirror)}
    result = subprocess.run([sys.executable, "-m", "toolkit", "data", "list"], env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "usps" in result.stdout and "9298" in result.stdout
