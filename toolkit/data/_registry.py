"""The data registry: file hashes, canonical addresses, the catalogue, and verified fetching.

Every file goes through :func:`fetch_file`, which

1. uses the cached copy in ``TOOLKIT_DATA_DIR`` (default: the platform cache of pooch,
   ``pooch.os_cache("ssl-toolkit")``) after checking its hash; a cached file whose hash does not
   match is removed and reported;
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


def cache_dir() -> Path:
    """The cache folder: ``$TOOLKIT_DATA_DIR`` or pooch's platform cache for ``ssl-toolkit``.

    Examples
    --------
    >>> import os
    >>> from toolkit.data import cache_dir
    >>> os.environ["TOOLKIT_DATA_DIR"] = "ssl-cache"               # doctest: +SKIP
    >>> cache_dir()                                                # doctest: +SKIP
    PosixPath('ssl-cache')
    """
    env = os.environ.get(ENV_DIR, "").strip()
    if env:
        return Path(env).expanduser()
    import pooch

    return Path(pooch.os_cache("ssl-toolkit"))


def mirror() -> str | None:
    """``$TOOLKIT_DATA_MIRROR`` (a local folder or an http(s) base URL), or None."""
    env = os.environ.get(ENV_MIRROR, "").strip()
    return env or None


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


def _mismatch(name: str, expected: str, found: str, where: str) -> HashMismatchError:
    return HashMismatchError(
        f"The file {name!r} ({where}) does not match the registry: expected {expected}, "
        f"found {found}. The bad copy has been removed and will not be used; check "
        f"{ENV_MIRROR} or the source of the file and fetch it again."
    )


def is_cached(name: str) -> bool:
    """Whether ``name`` is present in the cache folder (its hash is checked when it is used)."""
    return (cache_dir() / name).is_file()


def source_url(name: str) -> str:
    """The address ``name`` is fetched from under the current settings."""
    base = mirror()
    if base is None:
        return urls()[name]
    if "://" in base:
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
            raise _mismatch(name, known, f"{alg}:{found}", f"cached at {target}")
        return FileRecord(name, target, known, source_url(name))
    folder.mkdir(parents=True, exist_ok=True)
    base = mirror()
    if base is not None and "://" not in base:
        _copy_from_folder(name, Path(base).expanduser(), target, alg, expected, known)
    else:
        _download(name, source_url(name), folder, known, progressbar)
    return FileRecord(name, target, known, source_url(name))


def _copy_from_folder(name, folder, target, alg, expected, known):
    source = folder / name
    if not source.is_file():
        raise DataError(
            f"The file {name!r} is not in the local mirror folder {folder} "
            f"({ENV_MIRROR}). Put a copy there, point {ENV_MIRROR} at a mirror that has it, "
            f"or unset {ENV_MIRROR} to download it from {urls().get(name, 'its canonical address')}."
        )
    handle, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{name}.", suffix=".part")
    try:
        with os.fdopen(handle, "wb") as out, open(source, "rb") as src:
            shutil.copyfileobj(src, out, 1 << 20)
        found = file_hash(Path(tmp), alg)
        if found != expected:
            raise _mismatch(name, known, f"{alg}:{found}", f"from the mirror folder {folder} ({ENV_MIRROR})")
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
        hint = (f"{ENV_MIRROR} is {mirror()!r}; check that it serves {name!r}"
                if mirror() else f"Set {ENV_MIRROR} to a local folder or an http(s) base URL holding the file")
        raise DataError(f"Could not download {name!r} from {url}: {exc.__class__.__name__}: {exc}. {hint}.") from exc
