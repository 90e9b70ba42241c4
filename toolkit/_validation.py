"""Validation at the public boundary, with one message template.

"The 'gamma_I' parameter of lapsvm must be a float in [0, inf). Got -1.0 instead."

Inner calls skip validation; only public functions call these helpers.
"""
from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp


def _fmt(value):
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape} and dtype {value.dtype}"
    return repr(value)


def check_scalar(value, name, func, *, kind=numbers.Real, low=None, high=None,
                 low_closed=True, high_closed=True, allow_none=False):
    """Return ``value`` as float/int after checking its type and interval.

    Raises ``TypeError`` / ``ValueError`` with the project's message template.
    """
    if value is None and allow_none:
        return None
    kind_name = "an int" if kind is numbers.Integral else "a float"
    lo = "-inf" if low is None else repr(low)
    hi = "inf" if high is None else repr(high)
    interval = f"{'[' if low_closed and low is not None else '('}{lo}, {hi}{']' if high_closed and high is not None else ')'}"
    msg = f"The {name!r} parameter of {func} must be {kind_name} in {interval}. Got {_fmt(value)} instead."
    if isinstance(value, bool) or not isinstance(value, kind):
        raise TypeError(msg)
    if kind is not numbers.Integral and not np.isfinite(value):
        raise ValueError(msg)
    if low is not None and (value < low if low_closed else value <= low):
        raise ValueError(msg)
    if high is not None and (value > high if high_closed else value >= high):
        raise ValueError(msg)
    return int(value) if kind is numbers.Integral else float(value)


def check_option(value, name, func, options):
    """Check that ``value`` is one of ``options`` (strings)."""
    if value not in options:
        opts = ", ".join(repr(o) for o in options)
        raise ValueError(f"The {name!r} parameter of {func} must be one of {opts}. Got {_fmt(value)} instead.")
    return value


def check_matrix(X, name, func, *, accept_sparse=True, ndim=2, dtype=np.float64, allow_empty=False):
    """Return ``X`` as a finite float array (or CSR matrix) of the requested dimension."""
    if sp.issparse(X):
        if not accept_sparse:
            raise TypeError(f"The {name!r} parameter of {func} must be a dense array. Got a sparse matrix instead.")
        X = sp.csr_matrix(X, dtype=dtype)
        data = X.data
    else:
        try:
            X = np.asarray(X, dtype=dtype)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"The {name!r} parameter of {func} must be a numeric array. Got {_fmt(X)} instead.") from exc
        if X.ndim != ndim:
            raise ValueError(f"The {name!r} parameter of {func} must be a {ndim}-d array. Got {_fmt(X)} instead.")
        data = X
    if not allow_empty and X.shape[0] == 0:
        raise ValueError(f"The {name!r} parameter of {func} must have at least one row. Got {_fmt(X)} instead.")
    if not np.all(np.isfinite(data)):
        raise ValueError(f"The {name!r} parameter of {func} must contain only finite values (no NaN or inf).")
    return X


def check_consistent_rows(func, **arrays):
    """Raise if the named arrays do not all have the same number of rows, naming both sizes."""
    items = [(k, v.shape[0]) for k, v in arrays.items()]
    first_name, first_n = items[0]
    for other_name, other_n in items[1:]:
        if other_n != first_n:
            raise ValueError(f"{func}: {first_name!r} has {first_n} rows but {other_name!r} has {other_n}; they must match.")


def check_features(func, name_a, A, name_b, B):
    """Raise if two matrices do not have the same number of columns, naming both sizes."""
    if A.shape[1] != B.shape[1]:
        raise ValueError(f"{func}: {name_a!r} has {A.shape[1]} features but {name_b!r} has {B.shape[1]}; they must match.")


def check_rng(rng):
    """Return ``(generator, seed)`` from ``rng`` (None, int seed or Generator); the seed is stored in results."""
    if isinstance(rng, np.random.Generator):
        return rng, None
    if rng is None:
        seed = int(np.random.SeedSequence().entropy % (2**32))
        return np.random.default_rng(seed), seed
    if isinstance(rng, numbers.Integral) and not isinstance(rng, bool) and rng >= 0:
        return np.random.default_rng(int(rng)), int(rng)
    raise TypeError(f"The 'rng' parameter must be None, a non-negative int seed or a numpy Generator. Got {_fmt(rng)} instead.")
