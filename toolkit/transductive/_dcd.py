"""Compiled dual coordinate descent for the convex step of CCCP (box-constrained QP).

``min_α ½ vᵀ K̃ v − Σ_i α_i m_i``, ``v_p = Σ_{i: point_i = p} y_i (α_i − β_i)``, ``0 ≤ α_i ≤ U_i``:
the dual of eq. (9) of Collobert et al. (2006) with the offset fixed. One coordinate at a time in
cyclic order, the exact minimiser along it clipped to its box (Hsieh et al. 2008, liblinear's
dual coordinate descent, with the kernel instead of explicit features): ``g = K̃ v`` is kept, so a
step costs O(n) and an epoch O((l + 2u) n), the price of one product with K̃ per epoch.
"""
from __future__ import annotations

import numpy as np

from toolkit._numba_cache import njit


@njit(cache=True)
def coordinate_descent(Kc, y_dup, point, upper, margin, alpha, g, tol, max_epochs):  # pragma: no cover - compiled
    """Run epochs until the largest projected gradient is below ``tol`` (or ``max_epochs``).

    ``alpha`` (feasible) and ``g = K̃ v`` are updated in place; returns ``(epochs, largest
    projected gradient of the last epoch)``.
    """
    m = alpha.shape[0]
    n = g.shape[0]
    worst = np.inf
    epochs = 0
    while epochs < max_epochs:
        epochs += 1
        worst = 0.0
        for i in range(m):
            p = point[i]
            yi = y_dup[i]
            G = yi * g[p] - margin[i]
            a = alpha[i]
            if upper[i] <= 0.0:        # a fixed coordinate (the unlabelled copies of the supervised start)
                continue
            if a <= 0.0:
                pg = min(G, 0.0)
            elif a >= upper[i]:
                pg = max(G, 0.0)
            else:
                pg = G
            if abs(pg) > worst:
                worst = abs(pg)
            if pg == 0.0:
                continue
            q = Kc[p, p]
            if q > 1e-12:
                new = min(max(a - G / q, 0.0), upper[i])
            else:                      # a point at the unlabelled mean: linear along this coordinate
                new = upper[i] if G < 0.0 else 0.0
            delta = new - a
            if delta != 0.0:
                alpha[i] = new
                step = yi * delta
                for k in range(n):
                    g[k] += step * Kc[p, k]     # K̃ is symmetric: its contiguous row
        if worst < tol:
            break
    return epochs, worst
