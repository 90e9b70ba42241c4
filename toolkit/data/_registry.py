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

1. uses the cached copy in the cache folder after checking its hash; a cached file whose hash
   does not match is removed and reported;
2. otherwise copies it from ``TOOLKIT_DATA_MIRROR`` when that names a local folder (into a
   temporary file in the cache folder, hash-checked, then renamed into place), or
3. downloads it with pooch from ``TOOLKIT_DATA_MIRROR`` when that is an http(s) base URL, or from
   the canonical address in ``urls.txt``. pooch streams into a temporary file in the cache folder and
   moves it into place only when the hash matches, so an interrupted download never leaves a
   partial file under the registry name.

All writes end with an atomic rename (``os.replace``), so two processes filling the same cache at
the same time both succeed: each writes its own temporary file and the last rename wins with
identical bytes.
"""
from __future__ import annotations

import functools
import hashlib
import os
import shutil
import tempfile
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

ENV_DIR = "TOOLKIT_DATA_DIR"
ENV_MIRROR = "TOOLKIT_DATA_MIRROR"


class DataError(RuntimeError):
    """A data file could not be obtained or failed its hash check."""


class HashMismatchError(DataError, ValueError):
    """A cached, mirrored or downloaded file does not have the registered hash."""


DataError.__module__ = HashMismatchError.__module__ = "toolkit.data"


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


def _cache_error(action: str, folder: Path, exc: OSError) -> DataError:
    setting = _describe_setting(ENV_DIR) if _setting(ENV_DIR) else f"the default cache; set {ENV_DIR} for another"
    return DataError(f"Could not {action} the cache folder {folder} ({setting}): {exc.__class__.__name__}: {exc}.")


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
        The file cannot be obtained (missing from the mirror, unreachable source); the message
        names the file and ``TOOLKIT_DATA_MIRROR``.

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
    if target.is_file():
        found = file_hash(target, alg)
        if found != expected:
            try:
                target.unlink()
            except FileNotFoundError:
                pass
            where = f"cached at {target}" + (f", {_describe_setting(ENV_DIR)}" if _setting(ENV_DIR) else "")
            raise _mismatch(name, known, f"{alg}:{found}", where)
        return FileRecord(name, target, known, source_url(name))
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _cache_error("create", folder, exc) from exc
    base = mirror()
    if base is not None and not _is_url(base):
        _copy_from_folder(name, Path(base), target, alg, expected, known)
    else:
        _download(name, source_url(name), folder, known, progressbar)
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
    handle, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{name}.", suffix=".part")
    try:
        with os.fdopen(handle, "wb") as out, open(source, "rb") as src:
            shutil.copyfileobj(src, out, 1 << 20)
        found = file_hash(Path(tmp), alg)
        if found != expected:
            raise _mismatch(name, known, f"{alg}:{found}",
                            f"from the mirror folder {folder}, {_describe_setting(ENV_MIRROR)}")
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _download(name, url, folder, known, progressbar):
    import pooch
    import requests

    pooch.get_logger().setLevel("WARNING")
    downloader = pooch.HTTPDownloader(progressbar=progressbar, timeout=60)
    try:
        pooch.retrieve(url, known_hash=known, fname=name, path=folder, downloader=downloader)
    except ValueError as exc:  # pooch's hash mismatch; its temporary file is already deleted
        text = str(exc)
        found = text.split(" but got ", 1)[1].split(".", 1)[0] if " but got " in text else "another hash"
        alg = known.partition(":")[0]
        raise _mismatch(name, known, f"{alg}:{found}", f"downloaded from {url}") from exc
    except requests.exceptions.RequestException as exc:
        hint = (f"{ENV_MIRROR} is {_setting(ENV_MIRROR)!r}; check that it serves {name!r}"
                if mirror() else f"Set {ENV_MIRROR} to a local folder or an http(s) base URL holding the file")
        raise DataError(f"Could not download {name!r} from {url}: {exc.__class__.__name__}: {exc}. {hint}.") from exc
