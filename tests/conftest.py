"""Shared fixtures: a deterministic hypothesis profile, the offline mirror and a loopback HTTP server.

The mirror is ``$TOOLKIT_DATA_MIRROR`` when that names a local folder, otherwise the
``shared/datasets`` folder beside the checkout (``../shared/datasets``). Tests that need it
fail with a message saying how to provide it; they are never skipped silently.
"""
from __future__ import annotations

import functools
import http.server
import os
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "deterministic", derandomize=True, deadline=None, max_examples=30,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))

ROOT = Path(__file__).resolve().parents[1]


def _mirror_folder() -> Path:
    from toolkit.data import resolve_setting_path

    env = os.environ.get("TOOLKIT_DATA_MIRROR", "")
    if env and "://" not in env:
        return resolve_setting_path(env)  # the README's relative setting, as the toolkit reads it
    return ROOT.parent / "shared" / "datasets"


@pytest.fixture(scope="session")
def mirror_dir() -> Path:
    """The local folder holding the byte-identical benchmark files."""
    folder = _mirror_folder()
    if not (folder / "SHA256SUMS").is_file():
        pytest.fail(f"the offline data mirror is not at {folder}: set TOOLKIT_DATA_MIRROR to the folder "
                    "holding the benchmark files (shared/datasets beside the checkout)")
    return folder


class _RecordingHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep test output clean
        pass

    def do_GET(self):
        self.server.requests.append(self.path)
        super().do_GET()


@pytest.fixture
def http_mirror(mirror_dir):
    """Serve the mirror on 127.0.0.1 (ephemeral port); yields an object with ``url`` and ``requests``."""
    handler = functools.partial(_RecordingHandler, directory=str(mirror_dir))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.requests = []
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    server.url = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    """An empty TOOLKIT_DATA_DIR for the duration of one test."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("TOOLKIT_DATA_DIR", str(cache))
    return cache
