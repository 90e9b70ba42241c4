"""Plain reference implementations for S²RLSC, kept for tests and the speed-up benchmark.

Nothing here is fast on purpose:

* :func:`direct_objective` evaluates ``F(y) = min_c J(c, y)`` of eq. (7) / (10) by a dense solve
  of the normal equations (O(n³)), independently of the operator ``M``;
* :func:`naive_local_search` is a drop-in replacement of the compiled
  :func:`toolkit.rls._search.local_search` that recomputes ``F(ȳ) = ȳᵀ M ȳ`` from scratch for
  every candidate flip (O(n²) per evaluation, O(n r) with a low-rank ``M``), the "naive way" of
  Fig. 8 in Gieseke et al. (2012);
* :func:`s2rlsc_naive` / :func:`mmc_naive` are :func:`toolkit.rls.s2rlsc` / ``mmc`` with that
  engine: the same initialisations and decisions (round-robin order), only the fitness evaluation
  differs, so the two must return the same labelling;
* :func:`best_valid_flip_gain` -- the optimality certificate of a local search, every valid
  single flip evaluated by :func:`direct_objective`;
* :func:`exhaustive_minimum` -- the global optimum by brute force over all valid labellings
  (tiny u; ``y_l`` empty for MMC).
"""
from __future__ import annotations

import itertools

import numpy as np

__all__ = ["direct_objective", "naive_local_search", "s2rlsc_naive", "mmc_naive", "best_valid_flip_gain",
           "exhaustive_minimum"]


def direct_objective(K, y, n_labeled, lam, lam_u):
    """``F(y) = ‖D y − D K c*‖² + λ c*ᵀ K c*`` with ``c* = D (D K D + λ I)⁻¹ D y`` (eq. 9), O(n³).

    ``n_labeled = 0`` with ``lam_u = 1`` gives the unsupervised objective (eq. 16).
    """
    n = K.shape[0]
    u = n - n_labeled
    d = np.r_[np.full(n_labeled, np.sqrt(1.0 / max(n_labeled, 1))), np.full(u, np.sqrt(lam_u / u))]
    a = np.linalg.solve(d[:, None] * K * d[None, :] + lam * np.eye(n), d * y)
    c = d * a
    r = d * y - d * (K @ c)
    return float(r @ r + lam * c @ K @ c)


def _fitness(y, M, V, d2, lowrank):
    if lowrank:
        w = V.T @ y
        return float(d2 @ (y * y) - w @ w)
    return float(y @ (M @ y))


def naive_local_search(y, state, M, V, d2, diag, lowrank, first, n_positive, balance, eps, tol,
                       random_order, seed, max_sweeps, objective, history):
    """Algorithm 1 with every candidate's fitness recomputed from scratch (same contract as
    :func:`toolkit.rls._search.local_search`; ``state`` and ``diag`` are not used)."""
    n = y.shape[0]
    u = n - first
    gen = np.random.default_rng(seed)
    order = np.arange(first, n)
    F = _fitness(y, M, V, d2, lowrank)
    history[0] = F
    n_eval = n_flip = sweeps = since_change = 0
    converged = False
    while sweeps < max_sweeps:
        if random_order:
            order = gen.permutation(order)
        changed = False
        for j in order:
            new_positive = n_positive - 1 if y[j] > 0 else n_positive + 1
            accepted = False
            if abs(new_positive / u - balance) < eps:
                n_eval += 1
                y[j] = -y[j]
                F_new = _fitness(y, M, V, d2, lowrank)
                if F_new - F < -tol:
                    F, n_positive, accepted, changed = F_new, new_positive, True, True
                    n_flip += 1
                else:
                    y[j] = -y[j]
            since_change = 0 if accepted else since_change + 1
            if not random_order and since_change >= u:
                converged = True
                break
        sweeps += 1
        history[sweeps] = F
        if converged or (random_order and not changed):
            converged = True
            break
    return F, sweeps, n_eval, n_flip, converged, n_positive


def s2rlsc_naive(X_labeled, y_labeled, X_unlabeled, **kwargs):
    """:func:`toolkit.rls.s2rlsc` with :func:`naive_local_search` as the (1+1) engine."""
    from toolkit.rls._solvers import _s2rlsc
    return _s2rlsc(naive_local_search, X_labeled, y_labeled, X_unlabeled, **kwargs)


def mmc_naive(X, **kwargs):
    """:func:`toolkit.rls.mmc` with :func:`naive_local_search` as the (1+1) engine."""
    from toolkit.rls._solvers import _mmc
    return _mmc(naive_local_search, X, **kwargs)


def best_valid_flip_gain(K, y_full, l, lam, lam_u, balance, eps):
    """Largest decrease of the direct F over valid single flips of the free coordinates."""
    n = len(y_full)
    u = n - l
    f0 = direct_objective(K, y_full, l, lam, lam_u)
    best = 0.0
    for j in range(l, n):
        z = y_full.copy()
        z[j] = -z[j]
        if abs(np.mean(z[l:] > 0) - balance) >= eps:
            continue
        best = max(best, f0 - direct_objective(K, z, l, lam, lam_u))
    return best, f0, u


def exhaustive_minimum(K, y_l, u, lam, lam_u, balance, eps):
    """Smallest direct F over every valid labelling of the u free points (2^u of them): the global optimum."""
    best = np.inf
    for bits in itertools.product([-1.0, 1.0], repeat=u):
        yu = np.array(bits)
        if abs(np.mean(yu > 0) - balance) >= eps:
            continue
        best = min(best, direct_objective(K, np.r_[y_l, yu], len(y_l), lam, lam_u))
    return best
