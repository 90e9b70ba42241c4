"""The data registry: file hashes, canonical addresses, the catalogue, and verified fetching.

Settings (environment variables, read at every call):

``TOOLKIT_DATA_DIR``
    The cache folder (default: the platform cache of pooch, ``pooch.os_cache("ssl-toolkit")``).
``TOOLKIT_DATA_MIRROR``
    A local folder or an http(s) base URL that replaces the canonical addresses.

A relative folder in either setting (``TOOLKIT_DATA_MIRROR=../shared/datasets``) is resolved by
:func:`resolve_setting_path` against the *launch directory*, the directory the user ran the
command from: ``$PWD`` when that is set, absolute and an existing directory (POSIX shells export
it, and child processes such as Jupyter or papermill kernels inherit it even when they are
started in another working directory), otherwise :func:`os.getcwd`. ``~`` is expanded; absolute
paths are used as they are. Error messages show the resolved path and the raw setting.
:func:`resolved_settings` gives both settings as absolute paths, for a launcher to put into the
environment of the processes it starts.

Every file goes through :func:`fetch_file`, which

1. uses the cached copy in the cache folder after checking its hash; a cached file whose hash does
   not match is removed and reported;
2. otherwise copies it from ``TOOLKIT_DATA_MIRROR`` when that names a local folder, or
3. downloads it with pooch's HTTP downloader from ``TOOLKIT_DATA_MIRROR`` when that is an http(s)
   base URL, or from the canonical address in ``urls.txt``.

Copies and downloads, like the parsed-array cache of :mod:`toolkit.data._parsers`, are written by
:func:`write_atomically`: into a temporary file ``.<name>.<pid>.<random>.part`` beside the target,
created with the user's umask and locked (``flock``) by its writer while it lives, hash-checked,
then renamed into place with ``os.replace``. An interrupted or failed write removes its temporary
file, and a writer killed outright (``SIGKILL``, power loss) leaves one that the next call of
:func:`fetch_file` removes (:func:`remove_stale_temporaries`: its lock is free once the writer is
gone). So a partial file never appears under a registry name, and two processes filling the same
cache at the same time both succeed: each writes its own temporary file and the last rename wins
with identical bytes.
"""
from __future__ import annotations

import contextlib
import errno
import functools
import hashlib
import os
import re
import secrets
import shutil
import time
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: an open file cannot be removed there, which protects live writers
    fcntl = None

ENV_DIR = "TOOLKIT_DATA_DIR"
ENV_MIRROR = "TOOLKIT_DATA_MIRROR"


class DataError(RuntimeError):
    """A data file could not be obtained or failed its hash check."""


class HashMismatchError(DataError, ValueError):
    """A cached, mirrored or downloaded file does not have the registered hash."""


class DataCacheWarning(UserWarning):
    """A cache file was damaged (it is removed and rebuilt) or could not be written."""


DataError.__module__ = HashMismatchError.__module__ = DataCacheWarning.__module__ = "toolkit.data"


def _read_pairs(name: str) -> dict[str, str]:
    text = resources.files("toolkit.data_registry").joinpath(name).read_text(encoding="utf-8")
    pairs = {}
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            key, value = line.split(maxsplit=1)
            pairs[key] = value.strip()
    return pairs


@functools.cache
def registry() -> dict[str, str]:
    """File name -> ``"alg:hash"`` from ``registry.txt``."""
    return _read_pairs("registry.txt")


@functools.cache
def urls() -> dict[str, str]:
    """File name -> canonical URL from ``urls.txt``."""
    return _read_pairs("urls.txt")


@functools.cache
def catalogue() -> dict:
    """The parsed ``catalogue.toml``: data set name -> its table.

    Examples
    --------
    >>> from toolkit.data import catalogue
    >>> catalogue()["usps"]["n"], catalogue()["usps"]["d"]
    (9298, 256)
    """
    raw = resources.files("toolkit.data_registry").joinpath("catalogue.toml").read_text(encoding="utf-8")
    return tomllib.loads(raw)


def launch_directory() -> Path:
    """The directory relative settings are resolved against: ``$PWD`` if usable, else the cwd.

    ``$PWD`` is used when it is set, absolute and an existing directory. POSIX shells export it as
    the directory the command was typed in, and child processes inherit it even when they are
    started in another working directory (a Jupyter kernel run by ``jupyter nbconvert --execute
    notebooks/x.ipynb`` works in ``notebooks/``), so it names the directory the user meant.
    Otherwise :func:`os.getcwd`.

    Returns
    -------
    pathlib.Path
        An absolute path.
    """
    pwd = os.environ.get("PWD", "")
    if pwd and os.path.isabs(pwd) and os.path.isdir(pwd):
        return Path(pwd)
    return Path(os.getcwd())


def resolve_setting_path(value: str | os.PathLike) -> Path:
    """The absolute folder a path setting names.

    ``~`` is expanded first. An absolute path is returned as it is; a relative one is joined to
    :func:`launch_directory` and resolved (symbolic links and ``..`` as the operating system
    would follow them from there), so it names the same folder whatever the working directory of
    the process that reads it.

    Parameters
    ----------
    value : str or os.PathLike
        The setting, e.g. ``"../shared/datasets"`` or ``"~/.cache/ssl-toolkit"``.

    Returns
    -------
    pathlib.Path
        An absolute path.

    Examples
    --------
    >>> from toolkit.data import resolve_setting_path
    >>> resolve_setting_path("/srv/data").as_posix()
    '/srv/data'
    >>> resolve_setting_path("../shared/datasets").is_absolute()
    True
    """
    path = Path(value).expanduser()
    if path.is_absolute():
        return path
    return (launch_directory() / path).resolve()


def _setting(env: str) -> str:
    return os.environ.get(env, "").strip()


def _is_url(value: str) -> bool:
    return "://" in value


def _describe_setting(env: str) -> str:
    """``NAME`` or ``NAME='raw', resolved against /launch/dir`` for a path setting, for messages."""
    raw = _setting(env)
    if not raw or _is_url(raw):
        return env
    expanded = Path(raw).expanduser()
    if expanded.is_absolute():
        return env if str(expanded) == raw else f"{env}={raw!r}"
    return f"{env}={raw!r}, resolved against {launch_directory()}"


def cache_dir() -> Path:
    """The cache folder: ``$TOOLKIT_DATA_DIR`` or pooch's platform cache for ``ssl-toolkit``.

    A relative ``TOOLKIT_DATA_DIR`` is resolved against the directory the user ran the command
    from (``$PWD`` when that is set, absolute and an existing directory, otherwise the working
    directory; see :func:`resolve_setting_path`), so a Jupyter kernel started in another folder
    uses the same cache.

    Returns
    -------
    pathlib.Path
        An absolute path (the folder need not exist yet).

    Examples
    --------
    >>> import os
    >>> from toolkit.data import cache_dir
    >>> os.environ["TOOLKIT_DATA_DIR"] = "ssl-cache"               # doctest: +SKIP
    >>> cache_dir()                                                # doctest: +SKIP
    PosixPath('/home/user/project/ssl-cache')
    """
    env = _setting(ENV_DIR)
    if env:
        return resolve_setting_path(env)
    import pooch

    return Path(pooch.os_cache("ssl-toolkit"))


def mirror() -> str | None:
    """``$TOOLKIT_DATA_MIRROR``: an http(s) base URL as it is, a local folder as an absolute path.

    A relative folder is resolved against the directory the user ran the command from (``$PWD``
    when that is set, absolute and an existing directory, otherwise the working directory; see
    :func:`resolve_setting_path`).

    Returns
    -------
    str or None
        The URL, the absolute folder, or None when the setting is unset or empty.
    """
    env = _setting(ENV_MIRROR)
    if not env:
        return None
    return env if _is_url(env) else str(resolve_setting_path(env))


def resolved_settings() -> dict[str, str]:
    """Environment updates that give ``TOOLKIT_DATA_DIR`` and ``TOOLKIT_DATA_MIRROR`` as absolute paths.

    A launcher that starts processes in other working directories (notebook kernels, a
    reproduction runner) can pass ``{**os.environ, **resolved_settings()}`` as their environment,
    so every process reads the folders the user meant, whatever its ``$PWD``.

    Returns
    -------
    dict of str to str
        One entry per setting that is set to a local path, its value resolved by
        :func:`resolve_setting_path`; unset settings and URLs are left out.

    Examples
    --------
    >>> import os, subprocess, sys
    >>> from toolkit.data import resolved_settings
    >>> env = {**os.environ, **resolved_settings()}
    >>> subprocess.run([sys.executable, "-c", "pass"], cwd="notebooks", env=env)  # doctest: +SKIP
    """
    updates = {}
    for env in (ENV_DIR, ENV_MIRROR):
        value = _setting(env)
        if value and not _is_url(value):
            updates[env] = str(resolve_setting_path(value))
    return updates


def file_hash(path: Path, alg: str) -> str:
    """Hex digest of a file (``alg`` is ``sha256`` or ``md5``), read in 1 MiB blocks."""
    digest = hashlib.new(alg)
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@dataclass(frozen=True)
class FileRecord:
    """Provenance of one fetched file."""

    name: str
    path: Path
    hash: str  # "alg:hexdigest"
    url: str  # where it came from (mirror or canonical address)


def _split_hash(known: str) -> tuple[str, str]:
    alg, _, value = known.partition(":")
    return alg.lower(), value.lower()


def _mismatch(name: str, expected: str, found: str, where: str, removed: str = "") -> HashMismatchError:
    removed = removed or "The bad copy has been removed and will not be used"
    return HashMismatchError(
        f"The file {name!r} ({where}) does not match the registry: expected {expected}, "
        f"found {found}. {removed}; check {ENV_MIRROR} or the source of the file and fetch it again."
    )


# --------------------------------------------------------------------------------------------
# atomic writes and the removal of temporary files left by killed writers

_PART = re.compile(r"^\..+\.(\d+)\.[0-9a-f]{16}\.part$")  # .<name>.<pid>.<random>.part
# temporary files of the versions before write_atomically: pooch's downloads, mkstemp's copies
_OLD_TMP = re.compile(r"^(tmp[a-z0-9_]{8}|\..+\.[a-z0-9_]{8}\.part)$")
STALE_AFTER_S = 6 * 3600.0
"""Age (seconds since the last write) after which an unlockable temporary file counts as abandoned."""


def _create_temporary(target: Path) -> tuple[int | None, Path]:
    """A new empty file ``.<name>.<pid>.<random>.part`` beside ``target``; (locked descriptor, path).

    The file is created with mode ``0o666`` so the user's umask (and a default ACL of the folder)
    decide its permissions, as for any file the user creates. A cleaner in another process may
    remove it between its creation and the lock; the inode check catches that and starts over.
    Without ``fcntl`` (Windows) the descriptor is closed at once and None is returned in its place:
    Windows cannot rename a file that is open.
    """
    for _ in range(100):
        tmp = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(8)}.part")
        try:
            fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
        except FileExistsError:
            continue
        if fcntl is None:
            os.close(fd)
            return None, tmp
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError:  # a file system without locks: cleaners fall back to the age rule
            pass
        try:
            ours = os.stat(tmp).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            ours = False
        if ours:
            return fd, tmp
        os.close(fd)
    raise FileExistsError(errno.EEXIST, "no free temporary file name", str(target))


@contextlib.contextmanager
def write_atomically(target: Path):
    """Write ``target`` through a locked temporary file that is renamed into place on success.

    Yields the temporary file's path (empty, created with the user's umask). When the block ends
    without an exception the file is renamed to ``target`` with ``os.replace``; otherwise it is
    removed. The writer holds an exclusive ``flock`` on it until then, which tells
    :func:`remove_stale_temporaries` in other processes that it is alive; the kernel drops the
    lock when the writer dies, even by ``SIGKILL``.

    Parameters
    ----------
    target : pathlib.Path
        The final path; its folder must exist.

    Yields
    ------
    pathlib.Path
        The temporary file to write (open it by path, e.g. ``open(tmp, "wb")``).
    """
    fd, tmp = _create_temporary(target)
    try:
        yield tmp
        os.replace(tmp, target)
    finally:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        finally:
            if fd is not None:
                os.close(fd)  # releases the lock, after the rename or the removal


def _remove_if_abandoned(path: Path, pid: int) -> bool:
    """Remove the temporary file ``path`` of process ``pid`` if no live writer holds it; whether it did.

    With ``flock``, a writer is alive while it holds the lock; the file is removed while the
    cleaner holds the lock itself. Without locks (Windows, a file system without them) a file
    counts as abandoned :data:`STALE_AFTER_S` seconds after its last write.
    """
    if pid == os.getpid():
        return False  # our own (a thread of this process may be writing it)
    if fcntl is None:
        if time.time() - os.stat(path).st_mtime <= STALE_AFTER_S:
            return False
        os.unlink(path)  # refused while a writer has it open
        return True
    fd = os.open(path, os.O_RDWR)  # read-write: NFS emulates flock with write locks
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False  # its writer holds the lock
        except OSError:  # no locks on this file system
            if time.time() - os.fstat(fd).st_mtime <= STALE_AFTER_S:
                return False
        if os.stat(path).st_ino != os.fstat(fd).st_ino:
            return False  # removed and its name taken again meanwhile
        os.unlink(path)
        return True
    finally:
        os.close(fd)


def remove_stale_temporaries(folder: Path) -> list[Path]:
    """Remove the temporary files of writers that died in ``folder``; return the removed paths.

    A temporary file ``.<name>.<pid>.<random>.part`` of :func:`write_atomically` is removed when
    no process holds its lock (its writer was killed). The temporary files of earlier versions,
    which had no lock (pooch's ``tmpXXXXXXXX`` downloads, ``.<name>.XXXXXXXX.part`` copies), are
    removed when they were last written more than :data:`STALE_AFTER_S` seconds ago. Nothing else
    is touched, and files that cannot be removed (a read-only folder) are left in place.

    Parameters
    ----------
    folder : pathlib.Path
        The cache folder (a missing folder holds nothing).

    Returns
    -------
    list of pathlib.Path
        The files removed.
    """
    removed = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        part = _PART.match(entry.name)
        if part is None and not _OLD_TMP.match(entry.name):
            continue
        path = Path(entry.path)
        try:
            if not entry.is_file(follow_symlinks=False):
                continue
            if part is not None:
                gone = _remove_if_abandoned(path, int(part.group(1)))
            elif time.time() - entry.stat(follow_symlinks=False).st_mtime > STALE_AFTER_S:
                os.unlink(path)
                gone = True
            else:
                gone = False
        except OSError:  # gone meanwhile, or not ours to remove
            continue
        if gone:
            removed.append(path)
    return removed


def _cache_error(action: str, folder: Path, exc: OSError) -> DataError:
    setting = _describe_setting(ENV_DIR) if _setting(ENV_DIR) else f"the default cache; set {ENV_DIR} for another"
    return DataError(f"Could not {action} the cache folder {folder} ({setting}): {exc.__class__.__name__}: {exc}.")


# --------------------------------------------------------------------------------------------
# fetching


def is_cached(name: str) -> bool:
    """Whether ``name`` is present in the cache folder (its hash is checked when it is used)."""
    return (cache_dir() / name).is_file()


def source_url(name: str) -> str:
    """The address ``name`` is fetched from under the current settings.

    A local mirror folder is given as an absolute path (see :func:`mirror`).
    """
    base = mirror()
    if base is None:
        return urls()[name]
    if _is_url(base):
        return base.rstrip("/") + "/" + name
    return str(Path(base) / name)


def fetch_file(name: str, *, progressbar: bool = False) -> FileRecord:
    """Return the verified local copy of registry file ``name``, fetching it if needed.

    Parameters
    ----------
    name : str
        A file name from ``registry.txt``.
    progressbar : bool, default=False
        Show a tqdm progress bar while downloading.

    Returns
    -------
    FileRecord
        The file's name, local path, verified hash and source address.

    Raises
    ------
    HashMismatchError
        The cached, mirrored or downloaded file does not have the registered hash (the message
        names the file and both hashes; the bad copy is deleted).
    DataError
        The file cannot be obtained (missing from the mirror, unreachable source, a cache folder
        that cannot be written); the message names the file, the resolved folders and the
        settings ``TOOLKIT_DATA_MIRROR`` / ``TOOLKIT_DATA_DIR``.

    Notes
    -----
    Every call first removes temporary files that writers killed before they finished left in
    the cache folder (:func:`remove_stale_temporaries`). A cached file is only read, so a
    read-only cache folder that holds the file works.

    Examples
    --------
    >>> from toolkit.data import fetch_file
    >>> record = fetch_file("g50c.mat")                            # doctest: +SKIP
    >>> record.hash                                                # doctest: +SKIP
    'sha256:9f0d95cb5884d817c1165861b347a428bcc255566d1e74c871bd0de58b23423f'
    """
    reg = registry()
    if name not in reg:
        raise DataError(f"{name!r} is not a registry file; known files: {', '.join(sorted(reg))}.")
    known = reg[name]
    alg, expected = _split_hash(known)
    folder = cache_dir()
    target = folder / name
    remove_stale_temporaries(folder)
    if target.is_file():
        found = file_hash(target, alg)
        if found != expected:
            removed = ""
            try:
                target.unlink()
            except FileNotFoundError:
                pass
            except OSError as exc:
                removed = (f"The bad copy could not be removed ({exc.__class__.__name__}: {exc}); "
                           "delete it by hand")
            where = f"cached at {target}" + (f", {_describe_setting(ENV_DIR)}" if _setting(ENV_DIR) else "")
            raise _mismatch(name, known, f"{alg}:{found}", where, removed)
        return FileRecord(name, target, known, source_url(name))
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _cache_error("create", folder, exc) from exc
    base = mirror()
    try:
        if base is not None and not _is_url(base):
            _copy_from_folder(name, Path(base), target, alg, expected, known)
        else:
            _download(name, source_url(name), target, alg, expected, known, progressbar)
    except OSError as exc:  # creating, writing or renaming the temporary file in the cache folder
        raise _cache_error(f"write {name!r} into", folder, exc) from exc
    return FileRecord(name, target, known, source_url(name))


def _copy_from_folder(name, folder, target, alg, expected, known):
    source = folder / name
    if not source.is_file():
        missing = "" if folder.is_dir() else "; the folder does not exist"
        raise DataError(
            f"The file {name!r} is not in the local mirror folder {folder} "
            f"({_describe_setting(ENV_MIRROR)}{missing}). Put a copy there, point {ENV_MIRROR} at a "
            f"mirror that has it, or unset {ENV_MIRROR} to download it from "
            f"{urls().get(name, 'its canonical address')}."
        )
    try:
        src = open(source, "rb")
    except OSError as exc:
        raise DataError(f"Could not read {source} ({_describe_setting(ENV_MIRROR)}): "
                        f"{exc.__class__.__name__}: {exc}.") from exc
    with src, write_atomically(target) as tmp:
        with open(tmp, "wb") as out:
            shutil.copyfileobj(src, out, 1 << 20)
        found = file_hash(tmp, alg)
        if found != expected:
            raise _mismatch(name, known, f"{alg}:{found}",
                            f"from the mirror folder {folder}, {_describe_setting(ENV_MIRROR)}")


def _download(name, url, target, alg, expected, known, progressbar):
    import pooch
    import requests

    downloader = pooch.HTTPDownloader(progressbar=progressbar, timeout=60)
    try:
        with write_atomically(target) as tmp:
            downloader(url, str(tmp), None)
            found = file_hash(tmp, alg)
            if found != expected:
                raise _mismatch(name, known, f"{alg}:{found}", f"downloaded from {url}")
    except requests.exceptions.RequestException as exc:
        hint = (f"{ENV_MIRROR} is {_setting(ENV_MIRROR)!r}; check that it serves {name!r}"
                if mirror() else f"Set {ENV_MIRROR} to a local folder or an http(s) base URL holding the file")
        raise DataError(f"Could not download {name!r} from {url}: {exc.__class__.__name__}: {exc}. {hint}.") from exc
