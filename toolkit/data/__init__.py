"""Benchmark data sets, verified downloads and the papers' splits.

>>> from toolkit import data
>>> ds = data.load("usps", 2, 5)          # doctest: +SKIP
>>> ds.X.shape                            # doctest: +SKIP
(1645, 256)
>>> s = data.split(ds, l=25, u=500, t=800, rng=0)   # doctest: +SKIP

Settings (environment variables, read at every call):

``TOOLKIT_DATA_DIR``
    Cache folder (default: ``pooch.os_cache("ssl-toolkit")``).
``TOOLKIT_DATA_MIRROR``
    A local folder or an http(s) base URL that replaces the canonical addresses. Hashes are
    always checked, mirror or not.

A relative folder in either setting is resolved against the directory the command was run from:
``$PWD`` when that is set, absolute and an existing directory (so a notebook kernel started in
another folder reads the same one), otherwise the working directory. ``resolved_settings()``
returns both as absolute paths, for the environment of processes a launcher starts.

Damaged parsed-array caches are removed and rebuilt with a ``DataCacheWarning``; temporary files
of killed downloads or copies are removed by the next fetch.
"""
from ._datasets import Dataset, available, load
from ._registry import (DataCacheWarning, DataError, HashMismatchError, cache_dir, catalogue, fetch_file,
                        resolve_setting_path, resolved_settings)
from ._splits import Split, cv_splits, fixed_splits, split

__all__ = [
    "Dataset", "load", "available",
    "Split", "split", "cv_splits", "fixed_splits",
    "fetch_file", "cache_dir", "catalogue", "resolve_setting_path", "resolved_settings",
    "DataError", "HashMismatchError", "DataCacheWarning",
]
