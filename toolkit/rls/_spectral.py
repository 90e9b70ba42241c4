"""Regularised least squares for every λ from one eigendecomposition (RLScore's ``solve(regparam)``).

Weighted RLS with ``D = diag(√w)`` and ``D K D = V diag(s) Vᵀ``::

    min_c  Σ_i w_i (y_i - (K c)_i)² + μ cᵀ K c,        c(μ) = D V diag(1/(s + μ)) Vᵀ D y.

:func:`toolkit.rlsc` (unit weights, ``μ = λ l``) and :func:`toolkit.rlsc_path` (weights ``w``,
``μ = λ``) decompose once with :func:`weighted_eigh` and solve for any λ with
:func:`coefficients` at ``O(n²)`` each (Rifkin & Lippert 2007, "Notes on regularized least
squares"). Private module; inputs are trusted.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg as sla

__all__ = ["weighted_eigh", "coefficients"]


def weighted_eigh(K, weights):
    """``D K D = V diag(s) Vᵀ`` with ``D = diag(√w)``; round-off negatives of ``s`` clipped at 0.

    Parameters
    ----------
    K : ndarray of shape (n_samples, n_samples)
        Symmetric; ``eigh`` reads its lower triangle only.
    weights : ndarray of shape (n_samples,)
        Positive. Equal weights only scale the spectrum, so ``K`` itself is decomposed (no copy).

    Returns
    -------
    s : ndarray of shape (n_samples,)
        Eigenvalues, ascending, ``>= 0``.
    V : ndarray of shape (n_samples, n_samples)
    sqrt_weights : ndarray of shape (n_samples,)

    Notes
    -----
    One ``O(n³)`` ``eigh``.
    """
    d = np.sqrt(weights)
    if np.all(weights == weights[0]):
        s, V = sla.eigh(K, check_finite=False)
        s = s * weights[0]
    else:
        s, V = sla.eigh(d[:, None] * K * d[None, :], check_finite=False)
    return np.maximum(s, 0.0), V, d


def coefficients(s, V, y, shift, sqrt_weights=None):
    """``c(μ) = D V diag(1/(s + μ)) Vᵀ D y`` for one shift ``μ`` or a grid of them.

    Parameters
    ----------
    s, V : ndarrays
        From :func:`weighted_eigh`.
    y : ndarray of shape (n_samples,)
    shift : float or ndarray of shape (n_shifts,)
        ``μ > 0`` (``λ l`` for RLSC's ``1/l`` loss, ``λ`` for weighted RLS).
    sqrt_weights : ndarray of shape (n_samples,), default=None
        ``diag(D)``; ``None``: ``D = I``.

    Returns
    -------
    c : ndarray of shape (n_samples,) for a scalar shift, (n_shifts, n_samples) for an array

    Notes
    -----
    ``O(n²)`` for ``Vᵀ D y``, then ``O(n²)`` per shift (one matrix product for the whole grid).
    """
    d = sqrt_weights
    z = V.T @ (y if d is None else d * y)
    if np.ndim(shift) == 0:
        c = V @ (z / (s + shift))
        return c if d is None else d * c
    shift = np.asarray(shift, dtype=float)
    C = (V @ (z[:, None] / (s[:, None] + shift[None, :]))).T
    return C if d is None else C * d[None, :]
