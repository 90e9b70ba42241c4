"""Every Python block of the README and of the user guide runs as written, in order (issue 24).

A reader pastes the blocks of one page into one session from the clone's root, top to bottom:
the README's ```` ```python ```` fences share one namespace, and so do the ``.. code-block:: python``
bodies of each user-guide page (and of ``docs/index.rst``). The working directory is the
repository root, as the README tells users; matplotlib draws with Agg. The pages are read when
the test runs, so a rewritten README or page is tested as it stands. Nothing may be written into
the repository: every file the blocks open for writing, create, rename or remove under it fails
the test, named (byte code and numba's caches in ``__pycache__`` aside).
"""
from __future__ import annotations

import contextlib
import io
import os
import re
import sys
import textwrap
from pathlib import Path

import matplotlib
import pytest

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "user_guide"
SLOW_PAGES = {"selection"}     # pages whose examples take more than about 20 s on 2 cores (selection: 11-28 s)
_DIRECTIVE = re.compile(r"^(?P<indent>[ \t]*)\.\. code-block::[ \t]*python[ \t]*$")


def readme_blocks(text: str) -> list[str]:
    """The README's fenced python blocks, exactly as the acceptance script reads them."""
    return re.findall(r"^```python\n(.*?)^```", text, re.S | re.M)


def myst_blocks(text: str) -> list[str]:
    """The python fences of a MyST page (```` ```python ```` or ```` ```{code-block} python ````), options dropped."""
    blocks = re.findall(r"^```(?:python|\{code-block\}[ \t]+python)[ \t]*\n(.*?)^```", text, re.S | re.M)
    return [re.sub(r"\A(?:[ \t]*:[\w-]+:.*\n)+\n?", "", block) for block in blocks]


def rst_blocks(text: str) -> list[str]:
    """The dedented bodies of the ``.. code-block:: python`` directives, option lines dropped."""
    lines = text.splitlines()
    blocks, i = [], 0
    while i < len(lines):
        match = _DIRECTIVE.match(lines[i])
        i += 1
        if not match:
            continue
        indent = len(match["indent"].expandtabs())
        body = []
        while i < len(lines) and (not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > indent):
            body.append(lines[i])
            i += 1
        while body and (not body[0].strip() or re.match(r"^\s*:[\w-]+:", body[0])):
            body.pop(0)                         # the blank line and the options (:caption:, ...)
        blocks.append(textwrap.dedent("\n".join(body)).strip("\n") + "\n")
    return blocks


class _WriteWatch:
    """Every file a block opens for writing, creates, renames or removes under the repository.

    A process-wide audit hook (installed once, active only while blocks run) sees the writes of
    this process and its threads (a ``LocalCluster(processes=False)`` included) as they happen,
    so the check does not depend on what else changes in the working tree meanwhile.
    """

    active = False
    written: list[str] = []
    _installed = False
    _WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
    _EVENTS = {                                 # event: the (path, dir_fd) positions of what it changes
        "os.mkdir": [(0, 2)], "os.rmdir": [(0, 1)], "os.remove": [(0, 1)], "os.rename": [(0, 2), (1, 3)],
        "os.symlink": [(1, 2)], "os.link": [(1, 3)], "shutil.copyfile": [(1, None)],
        "shutil.copytree": [(1, None)], "shutil.move": [(0, None), (1, None)], "shutil.rmtree": [(0, 1)],
    }

    @classmethod
    def install(cls):
        if not cls._installed:
            sys.addaudithook(cls._hook)
            cls._installed = True

    @staticmethod
    def _resolve(path, dir_fd) -> Path | None:
        if not isinstance(path, (str, bytes, os.PathLike)):
            return None                         # a file descriptor
        path = os.fsdecode(path)
        if os.path.isabs(path) or not isinstance(dir_fd, int) or dir_fd < 0:
            return Path(os.path.abspath(path))
        try:                                    # relative to an open directory (shutil.rmtree's walk)
            return Path(os.readlink(f"/proc/self/fd/{dir_fd}"), path)
        except OSError:
            return None

    @classmethod
    def _hook(cls, event, args):
        if not cls.active:
            return
        if event == "open":
            if not isinstance(args[2], int) or not args[2] & cls._WRITE_FLAGS:
                return
            targets = [cls._resolve(args[0], None)]
        elif event in cls._EVENTS:
            targets = [cls._resolve(args[i], args[j] if j is not None and j < len(args) else None)
                       for i, j in cls._EVENTS[event]]
        else:
            return
        for full in targets:
            if full is not None and full.is_relative_to(ROOT) and "__pycache__" not in full.parts:
                cls.written.append(f"{event}: {full.relative_to(ROOT)}")   # byte code, numba caches aside


def _run_in_order(blocks: list[str], source: str, monkeypatch, mirror_dir) -> dict:
    """Execute ``blocks`` in one namespace from the repository root; return the namespace."""
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    monkeypatch.setenv("TOOLKIT_DATA_MIRROR", str(mirror_dir))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.chdir(ROOT)
    _WriteWatch.install()
    _WriteWatch.written = []
    namespace = {"__name__": "__main__"}
    output = io.StringIO()
    try:
        _WriteWatch.active = True
        for number, block in enumerate(blocks, 1):
            code = compile(block, f"{source} (python block {number})", "exec")
            with contextlib.redirect_stdout(output):   # printed results are for the reader, not the log
                exec(code, namespace)
    finally:
        _WriteWatch.active = False
        plt.close("all")
    written = sorted(set(_WriteWatch.written))
    assert not written, f"{source}'s examples wrote into the repository: {written}"
    return namespace


@pytest.mark.slow
def test_readme_python_blocks_run_in_order_from_the_repository_root(monkeypatch, mirror_dir):
    blocks = readme_blocks((ROOT / "README.md").read_text(encoding="utf-8"))
    assert len(blocks) >= 1, "README.md has no ```python block"
    _run_in_order(blocks, "README.md", monkeypatch, mirror_dir)


def page_blocks(page: Path) -> list[str]:
    text = page.read_text(encoding="utf-8")
    return myst_blocks(text) if page.suffix == ".md" else rst_blocks(text)


def _pages():
    """docs/index.rst and every user-guide page (reStructuredText or MyST) with a python block."""
    pages = [ROOT / "docs" / "index.rst", *sorted([*GUIDE.glob("*.rst"), *GUIDE.glob("*.md")])]
    return [pytest.param(page, id=page.stem if page.parent == GUIDE else "docs-index",
                         marks=[pytest.mark.slow] if page.stem in SLOW_PAGES and page.parent == GUIDE else [])
            for page in pages if page_blocks(page)]


@pytest.mark.parametrize("page", _pages())
def test_user_guide_python_blocks_run_in_order_from_the_repository_root(page, monkeypatch, mirror_dir):
    blocks = page_blocks(page)
    assert blocks
    _run_in_order(blocks, str(page.relative_to(ROOT)), monkeypatch, mirror_dir)


def test_the_block_readers_find_every_block():
    """The readers themselves: a fenced block at a line start, a directive's indented body without options."""
    readme = "text\n```python\na = 1\n```\n```bash\nls\n```\n```python\nb = a + 1\n```\n"
    assert readme_blocks(readme) == ["a = 1\n", "b = a + 1\n"]
    rst = (".. code-block:: python\n   :caption: one\n\n   x = 1\n\n   y = x\n\nprose\n\n"
           "  .. code-block:: python\n\n      z = 2\n  back\n.. code-block:: bash\n\n   ls\n")
    assert rst_blocks(rst) == ["x = 1\n\ny = x\n", "z = 2\n"]
    myst = "```python\na = 1\n```\n```{code-block} python\n:caption: two\n\nb = 2\n```\n```bash\nls\n```\n"
    assert myst_blocks(myst) == ["a = 1\n", "b = 2\n"]


def test_a_block_that_writes_into_the_repository_fails_naming_the_file(monkeypatch, mirror_dir):
    """The write check sees an attempt before it happens (these two fail: their folder does not exist)."""
    block = ("import os\n"
             "for attempt in (lambda: open('docs/no-such-folder/out.txt', 'w'), lambda: os.mkdir('no-such/dir')):\n"
             "    try:\n"
             "        attempt()\n"
             "    except FileNotFoundError:\n"
             "        pass\n")
    with pytest.raises(AssertionError, match=r"wrote into the repository.*no-such-folder/out\.txt.*no-such/dir"):
        _run_in_order([block], "a page", monkeypatch, mirror_dir)
    assert not (ROOT / "docs" / "no-such-folder").exists() and not (ROOT / "no-such").exists()
