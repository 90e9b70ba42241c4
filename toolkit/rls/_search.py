"""Compiled search kernels for S²RLSC / maximum margin clustering (Gieseke et al. 2011, 2012).

The fitness of a labelling ``y`` is the quadratic form ``F(y) = yᵀ M y`` with
``M = λ D (D K D + λ I)⁻¹ D`` (eq. 8 / 11 of the papers, closed form of ``min_c J(c, y)``).
Two representations of ``M`` are searched by the same kernels:

``dense``     ``M`` stored (n × n).  The *state* of a labelling is ``m = M y`` (n).
              Evaluating a flip of coordinate ``j`` costs O(1), accepting it O(n):
              ``m ← m − 2 y_j M[j, :]`` (M is symmetric).
``low rank``  ``M = diag(d²) − V Vᵀ`` with ``V`` (n × r), from the Nyström factors
              (Theorem 2; Appendix 1 of the 2012 article) or from the features of a linear
              kernel.  The state is ``w = Vᵀ y`` (r); ``m_j = d²_j y_j − V_j · w`` costs O(r),
              accepting a flip ``w ← w − 2 y_j V_j`` costs O(r).

In both cases the change of F when ``y_j`` is flipped is ``Δ_j = −4 y_j m_j + 4 M_jj``.
Only *valid* flips are taken: the fraction of positive unlabelled labels ``p`` after the flip
must satisfy the balance constraint ``|p − b_c| < ε`` (eq. 5 / 8).

Everything here is private: the public functions in :mod:`toolkit.rls` validate the input
and build the operator; these kernels trust their arguments.
"""
from __future__ import annotations

import numpy as np

from toolkit._numba_cache import njit

__all__ = ["local_search", "evolutionary_search", "balance_ok"]


@njit(cache=True)
def balance_ok(n_positive, n_free, balance, eps):  # pragma: no cover - compiled
    """Balance constraint ``|n_positive / n_free − b_c| < ε``."""
    return abs(n_positive / n_free - balance) < eps


@njit(cache=True, fastmath={"reassoc", "contract"})   # lets LLVM vectorise the O(r) dot product
def _coordinate_m(j, y, state, V, d2, lowrank):  # pragma: no cover - compiled
    """``m_j = (M y)_j`` from the state of the labelling: O(1) dense, O(r) low rank."""
    if lowrank:
        acc = 0.0
        for k in range(V.shape[1]):
            acc += V[j, k] * state[k]
        return d2[j] * y[j] - acc
    return state[j]


@njit(cache=True)
def _apply_flip(j, y_j_old, state, M, V, lowrank):  # pragma: no cover - compiled
    """Update the state after flipping coordinate ``j``: O(n) dense, O(r) low rank."""
    two_y = 2.0 * y_j_old
    if lowrank:
        for k in range(V.shape[1]):
            state[k] -= two_y * V[j, k]
    else:
        row = M[j]
        for i in range(state.shape[0]):
            state[i] -= two_y * row[i]


@njit(cache=True)
def local_search(y, state, M, V, d2, diag, lowrank, first, n_positive, balance, eps, tol,
                 random_order, seed, max_sweeps, objective, history):  # pragma: no cover - compiled
    """(1+1) local search, Algorithm 1 of Gieseke et al. (2011), in place on ``y`` and ``state``.

    Coordinates ``first, ..., n−1`` are free.  A sweep visits each free coordinate once, in
    round-robin order (``random_order=False``) or in a fresh random permutation per sweep.  A
    valid flip is accepted when it lowers F by more than ``tol``.

    Stopping rule (the papers': "no change for n consecutive iterations"):
    round-robin stops after ``u`` consecutive trials without an accepted flip, random order after a
    full sweep without one; either way every free coordinate has been tried against the final
    labelling, so the result is a local optimum w.r.t. valid single flips.

    Returns ``(objective, n_sweeps, n_evaluations, n_flips, converged, n_positive)``; ``history``
    (length ``max_sweeps + 1``) receives F before the first and after every sweep.
    """
    n = y.shape[0]
    u = n - first
    if random_order:
        np.random.seed(seed)
    order = np.arange(first, n)
    n_eval = 0
    n_flip = 0
    sweeps = 0
    since_change = 0
    converged = False
    history[0] = objective
    while sweeps < max_sweeps:
        if random_order:
            np.random.shuffle(order)
        changed = False
        for t in range(u):
            j = order[t]
            y_j = y[j]
            new_positive = n_positive - 1 if y_j > 0 else n_positive + 1
            accepted = False
            if abs(new_positive / u - balance) < eps:
                n_eval += 1
                delta = -4.0 * y_j * _coordinate_m(j, y, state, V, d2, lowrank) + 4.0 * diag[j]
                if delta < -tol:
                    _apply_flip(j, y_j, state, M, V, lowrank)
                    y[j] = -y_j
                    n_positive = new_positive
                    objective += delta
                    n_flip += 1
                    accepted = True
                    changed = True
            if accepted:
                since_change = 0
            else:
                since_change += 1
                if not random_order and since_change >= u:
                    converged = True
                    break
        sweeps += 1
        history[sweeps] = objective
        if converged:
            break
        if random_order and not changed:
            converged = True
            break
    return objective, sweeps, n_eval, n_flip, converged, n_positive


@njit(cache=True)
def _sample_valid_coordinate(y, n_positive, first, balance, eps):  # pragma: no cover - compiled
    """A uniformly random free coordinate whose flip keeps the labelling valid, or −1 if none."""
    n = y.shape[0]
    u = n - first
    for _ in range(64):                       # rejection sampling: cheap, almost always succeeds
        j = first + np.random.randint(u)
        new_positive = n_positive - 1 if y[j] > 0 else n_positive + 1
        if abs(new_positive / u - balance) < eps:
            return j
    # fall back to sampling among the valid ones (rare: tight ε, labelling at the boundary)
    n_valid = 0
    for j in range(first, n):
        new_positive = n_positive - 1 if y[j] > 0 else n_positive + 1
        if abs(new_positive / u - balance) < eps:
            n_valid += 1
    if n_valid == 0:
        return -1
    pick = np.random.randint(n_valid)
    for j in range(first, n):
        new_positive = n_positive - 1 if y[j] > 0 else n_positive + 1
        if abs(new_positive / u - balance) < eps:
            if pick == 0:
                return j
            pick -= 1
    return -1


@njit(cache=True)
def _select_smallest(keys, n_keys, k, out):  # pragma: no cover - compiled
    """Indices of the ``k`` smallest of ``keys[:n_keys]`` in increasing order, ties to the lower index
    (parents come first, so a tie keeps the parent).  One pass of insertion into the sorted ``out``:
    O(n_keys) when few keys enter, O(k · n_keys) at worst; here k = μ and n_keys ≤ μ + ν."""
    m = 0
    for i in range(n_keys):
        key = keys[i]
        if m == k and not key < keys[out[k - 1]]:
            continue
        pos = m if m < k else k - 1
        while pos > 0 and key < keys[out[pos - 1]]:     # strict: an equal key stays behind
            out[pos] = out[pos - 1]
            pos -= 1
        out[pos] = i
        if m < k:
            m += 1


@njit(cache=True)
def evolutionary_search(Y, S, F, n_positive, M, V, d2, diag, lowrank, first, balance, eps, tol,
                        nu, seed, max_generations, patience, history):  # pragma: no cover - compiled
    """(μ+ν)-EA, Algorithm 2 of Gieseke et al. (2012), in place on the population.

    ``Y`` (μ × n) labellings, ``S`` their states, ``F`` their fitness, ``n_positive`` their numbers
    of positive free labels.  Each generation creates ν children, each by one valid flip of a
    uniformly chosen coordinate of a uniformly chosen parent (Steps 6-8); a child's fitness costs
    O(1) (dense) or O(r) (low rank) and its state is only materialised when it survives.  The μ
    best of parents and children form the next population (Steps 10-11); ties keep the parent, and
    a child must beat a parent by more than ``tol``.  Stops after ``patience`` consecutive
    generations without a change of the population.

    The population is ranked (best first) through a map from rank to storage row, so survivors
    never move: a surviving child costs one O(n) flip of its state, in its parent's row when the
    parent dies (its first such child), copied from the parent's row otherwise.  The rows are put
    in rank order on return.

    Returns ``(n_generations, n_evaluations, n_accepted, converged)``; ``history`` receives the
    best F of the population before the first and after every generation.
    """
    mu, n = Y.shape
    np.random.seed(seed)
    child_parent = np.empty(nu, dtype=np.int64)
    child_coord = np.empty(nu, dtype=np.int64)
    child_F = np.empty(nu)
    keys = np.empty(mu + nu)
    ranking = np.empty(mu, dtype=np.int64)
    row = np.arange(mu)                      # rank -> storage row
    new_row = np.empty(mu, dtype=np.int64)
    kept = np.empty(mu, dtype=np.bool_)      # storage row holds a surviving parent
    claim = np.empty(mu, dtype=np.int64)     # storage row -> rank of the child flipped in place there
    free = np.empty(mu, dtype=np.int64)
    n_eval = 0
    n_acc = 0
    generations = 0
    since_change = 0
    converged = False
    history[0] = F.min()
    while generations < max_generations:
        n_children = 0
        for i in range(nu):                                   # Steps 5-9
            p = np.random.randint(mu)
            q = row[p]
            j = _sample_valid_coordinate(Y[q], n_positive[q], first, balance, eps)
            if j < 0:
                continue
            delta = -4.0 * Y[q, j] * _coordinate_m(j, Y[q], S[q], V, d2, lowrank) + 4.0 * diag[j]
            n_eval += 1
            child_parent[n_children] = q
            child_coord[n_children] = j
            child_F[n_children] = F[q] + delta
            keys[mu + n_children] = F[q] + delta + tol       # a child must win by more than tol
            n_children += 1
        for s in range(mu):
            keys[s] = F[row[s]]
        _select_smallest(keys, mu + n_children, mu, ranking)            # Steps 10-11
        changed = False
        for s in range(mu):
            if ranking[s] >= mu:
                changed = True
                break
        if changed:
            kept[:] = False
            claim[:] = -1
            for s in range(mu):
                if ranking[s] < mu:
                    kept[row[ranking[s]]] = True
            for s in range(mu):                # a dying parent's row goes to its first surviving child
                if ranking[s] >= mu:
                    q = child_parent[ranking[s] - mu]
                    if not kept[q] and claim[q] < 0:
                        claim[q] = s
            n_free = 0
            for q in range(mu):                # rows nobody survives from: no child reads them
                if not kept[q] and claim[q] < 0:
                    free[n_free] = q
                    n_free += 1
            n_free = 0
            for s in range(mu):                # copies first, while every parent row is intact
                idx = ranking[s]
                if idx < mu:
                    new_row[s] = row[idx]
                    continue
                n_acc += 1
                c = idx - mu
                q = child_parent[c]
                if claim[q] == s:
                    new_row[s] = q
                    continue
                t = free[n_free]
                n_free += 1
                j = child_coord[c]
                y_j = Y[q, j]
                Y[t] = Y[q]
                S[t] = S[q]
                _apply_flip(j, y_j, S[t], M, V, lowrank)
                Y[t, j] = -y_j
                F[t] = child_F[c]
                n_positive[t] = n_positive[q] - 1 if y_j > 0 else n_positive[q] + 1
                new_row[s] = t
            for s in range(mu):                # then the flips in place
                idx = ranking[s]
                if idx >= mu:
                    c = idx - mu
                    q = child_parent[c]
                    if claim[q] == s:
                        j = child_coord[c]
                        y_j = Y[q, j]
                        _apply_flip(j, y_j, S[q], M, V, lowrank)
                        Y[q, j] = -y_j
                        F[q] = child_F[c]
                        n_positive[q] = n_positive[q] - 1 if y_j > 0 else n_positive[q] + 1
            row[:] = new_row
            since_change = 0
        else:
            since_change += 1
        generations += 1
        history[generations] = F.min()
        if since_change >= patience:
            converged = True
            break
    _rows_in_rank_order(Y, S, F, n_positive, row)
    return generations, n_eval, n_acc, converged


@njit(cache=True)
def _rows_in_rank_order(Y, S, F, n_positive, row):  # pragma: no cover - compiled
    """Permute the population's storage rows into rank order (row ``s`` ← storage row ``row[s]``)."""
    Y[:] = Y[row].copy()
    S[:] = S[row].copy()
    F[:] = F[row].copy()
    n_positive[:] = n_positive[row].copy()
