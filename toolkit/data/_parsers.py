"""Parsers for the raw benchmark files, with a parsed-array cache keyed by the raw file's hash.

A parsed file is stored beside the raw one as ``<file>.<hash[:16]>.v<VERSION>.npz`` (written by
:func:`toolkit.data._registry.write_atomically`: a temporary file created with the user's umask,
renamed into place with ``os.replace``), so a warm load reads binary arrays and never re-parses
text or MATLAB files. Changing a parser or the storage format bumps ``PARSER_VERSION``.

The cache heals itself. The ``.npz`` holds a member ``__keys__`` listing its arrays, and zip
checks the CRC-32 of every member as it is read, so any damage (a flipped byte anywhere, a
truncated file, lost members) is detected when it is read; the file is then removed, a
:class:`~toolkit.data.DataCacheWarning` names it, and the arrays are parsed again from the raw
file, whose hash :func:`~toolkit.data.fetch_file` has just verified. When the cache cannot be
written (a read-only cache folder, a full disk), the parsed arrays are used as they are, with a
warning.
"""
from __future__ import annotations

import gzip
import os
import struct
import warnings
import zipfile
import zlib
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ._registry import DataCacheWarning, FileRecord, write_atomically

PARSER_VERSION = 2  # 2: the __keys__ member; zip and CRC errors of damaged files are caught

_KEYS = "__keys__"

# What reading a damaged .npz raises: zip structure or CRC-32 errors (BadZipFile), a damaged
# compression method or flag (NotImplementedError, RuntimeError "password required", zlib.error),
# a damaged npy header or a short member (ValueError, EOFError, struct.error), a lost member
# (KeyError), or a read error of the disk (OSError).
_DAMAGE = (zipfile.BadZipFile, zlib.error, struct.error, ValueError, EOFError, KeyError, OSError,
           NotImplementedError, RuntimeError)


def _parsed_path(record: FileRecord) -> Path:
    digest = record.hash.partition(":")[2][:16]
    return record.path.with_name(f"{record.name}.{digest}.v{PARSER_VERSION}.npz")


def _encode(arrays: dict) -> dict:
    out = {}
    for key, value in arrays.items():
        if sp.issparse(value):
            value = sp.csr_matrix(value)
            out[f"{key}__csr_data"] = value.data
            out[f"{key}__csr_indices"] = value.indices
            out[f"{key}__csr_indptr"] = value.indptr
            out[f"{key}__csr_shape"] = np.asarray(value.shape, dtype=np.int64)
        else:
            out[key] = np.asarray(value)
    return out


def _decode(store) -> dict:
    keys = [str(k) for k in store[_KEYS]]
    if sorted(keys + [_KEYS]) != sorted(store.files):
        raise KeyError(f"the members {sorted(store.files)} do not match the recorded keys {keys}")
    arrays = {}
    for key in keys:
        if "__csr_" in key:
            base = key.split("__csr_")[0]
            if base not in arrays:
                arrays[base] = sp.csr_matrix(
                    (store[f"{base}__csr_data"], store[f"{base}__csr_indices"], store[f"{base}__csr_indptr"]),
                    shape=tuple(store[f"{base}__csr_shape"]),
                )
        else:
            arrays[key] = store[key]
    return arrays


def read_parsed(handle) -> dict:
    """The arrays of a parsed-array cache file open for binary reading.

    Raises
    ------
    zipfile.BadZipFile, ValueError, KeyError, EOFError, OSError, ...
        The file is damaged (one of ``_DAMAGE``): zip checks the CRC-32 of every member read, and
        the recorded list of members catches lost ones.
    """
    store = np.load(handle, allow_pickle=False)
    if not isinstance(store, np.lib.npyio.NpzFile):
        raise ValueError("not an npz archive")
    with store:
        return _decode(store)


def _write_parsed(path: Path, arrays: dict) -> None:
    encoded = _encode(arrays)
    encoded[_KEYS] = np.array(sorted(encoded))
    with write_atomically(path) as tmp:
        with open(tmp, "wb") as out:
            np.savez(out, **encoded)


def _discard(path: Path, handle, exc: BaseException, record: FileRecord) -> None:
    """Remove the damaged cache file read through ``handle`` and warn.

    A file another process has put in its place meanwhile (a rebuilt one) is left alone.
    """
    what = f"{exc.__class__.__name__}: {exc}"
    rebuilt = f"is rebuilt from the verified raw file {record.path}"
    try:
        if os.stat(path).st_ino == os.fstat(handle.fileno()).st_ino:
            path.unlink()
            outcome = f"it has been removed and {rebuilt}"
        else:
            outcome = f"another process has replaced it already; it {rebuilt}"
    except FileNotFoundError:
        outcome = f"another process has removed it already; it {rebuilt}"
    except OSError as err:
        outcome = (f"it could not be removed ({err.__class__.__name__}: {err}); the arrays are parsed "
                   f"from the verified raw file {record.path} instead")
    warnings.warn(f"The parsed-array cache {path} is damaged ({what}); {outcome}.", DataCacheWarning, stacklevel=5)


def parsed(record: FileRecord, parser) -> dict:
    """Arrays parsed from ``record`` by ``parser(path) -> dict``, cached beside the raw file.

    A damaged cache file is removed and rebuilt with a :class:`~toolkit.data.DataCacheWarning`;
    a cache that cannot be read or written is skipped with one.
    """
    cached = _parsed_path(record)
    try:
        handle = open(cached, "rb")
    except FileNotFoundError:
        pass
    except OSError as exc:
        warnings.warn(f"The parsed-array cache {cached} cannot be read ({exc.__class__.__name__}: {exc}); "
                      f"the arrays are parsed from {record.path}.", DataCacheWarning, stacklevel=4)
        return parser(record.path)
    else:
        with handle:
            try:
                return read_parsed(handle)
            except _DAMAGE as exc:
                _discard(cached, handle, exc, record)
    arrays = parser(record.path)
    try:
        _write_parsed(cached, arrays)
    except OSError as exc:
        reason = f"{exc.__class__.__name__}: {exc.strerror or exc}"
        warnings.warn(f"The parsed-array cache {cached} could not be written ({reason}); "
                      f"the arrays parsed from {record.path} are used, and the next load parses it again. Make "
                      f"the cache folder writable or set TOOLKIT_DATA_DIR to a writable one to keep them.",
                      DataCacheWarning, stacklevel=4)
    return arrays


def parse_esl_text(path: Path) -> dict:
    """ESL ``zip.train.gz`` / ``zip.test.gz``: rows ``digit g1 ... g256`` with grey values in [-1, 1]."""
    with gzip.open(path, "rt") as handle:
        table = np.loadtxt(handle, dtype=np.float64)
    return {"X": table[:, 1:], "y": table[:, 0].astype(np.int64)}


def parse_idx(path: Path) -> dict:
    """An IDX file (LeCun's MNIST format), gzip-compressed: big-endian header, then uint8 data."""
    with gzip.open(path, "rb") as handle:
        raw = handle.read()
    magic = int.from_bytes(raw[:4], "big")
    if magic >> 8 != 0x08:  # 0x08 = unsigned byte data
        raise ValueError(f"{path.name}: not an unsigned-byte IDX file (magic {magic:#010x})")
    ndim = magic & 0xFF
    shape = tuple(int.from_bytes(raw[4 + 4 * i: 8 + 4 * i], "big") for i in range(ndim))
    data = np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim)
    return {"data": data.reshape(shape)}


_MAT_VARIABLES = ("X", "y", "T", "fea", "gnd", "idxLabs", "idxUnls")


def parse_mat(path: Path) -> dict:
    """A MATLAB 5 file: the variables ``X``, ``y``, ``T``, ``fea``, ``gnd``, ``idxLabs``, ``idxUnls`` present.

    Label vectors are flattened; sparse matrices become CSR; split indices stay 1-based as stored.
    """
    from scipy.io import loadmat

    contents = loadmat(path)
    arrays = {}
    for key in _MAT_VARIABLES:
        if key not in contents:
            continue
        value = contents[key]
        if sp.issparse(value):
            value = sp.csr_matrix(value, dtype=np.float64)
        elif key in ("y", "gnd"):
            value = np.asarray(value).ravel().astype(np.int64)
        elif key in ("idxLabs", "idxUnls"):
            value = np.asarray(value).astype(np.int64)
        elif key in ("X", "fea"):
            value = np.asarray(value, dtype=np.float64)
        arrays[key] = value
    return arrays
