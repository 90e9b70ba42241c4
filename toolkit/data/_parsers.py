"""Parsers for the raw benchmark files, with a parsed-array cache keyed by the raw file's hash.

A parsed file is stored beside the raw one as ``<file>.<hash[:16]>.v<VERSION>.npz`` (written by
:func:`toolkit.data._registry.write_atomically`: a temporary file created with the user's umask,
renamed into place with ``os.replace``), so a warm load reads binary arrays and never re-parses
text or MATLAB files. Changing a parser bumps ``PARSER_VERSION``.
"""
from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ._registry import FileRecord, write_atomically

PARSER_VERSION = 1


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
    arrays = {}
    for key in store.files:
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


def parsed(record: FileRecord, parser) -> dict:
    """Arrays parsed from ``record`` by ``parser(path) -> dict``, cached beside the raw file."""
    cached = _parsed_path(record)
    if cached.is_file():
        try:
            with np.load(cached, allow_pickle=False) as store:
                return _decode(store)
        except (OSError, ValueError, KeyError):  # unreadable cache entry: rebuild it
            pass
    arrays = parser(record.path)
    with write_atomically(cached) as tmp:
        with open(tmp, "wb") as out:
            np.savez(out, **_encode(arrays))
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
