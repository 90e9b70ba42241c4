"""Compiled event loop of the SVM path (the same steps as ``toolkit.paths._reference.svm_path_reference``).

One call follows linear segments (non-empty elbow) event after event and returns to Python on
anything that needs a decision there: the elbow empties, the left set empties, the path reaches
``lambda_min`` / the numerical floor / ``max_iter``, no further event exists, or the record
buffers are full. Every event costs ``O(l m)`` for ``dh/dλ = K[:, E] c + b₀`` plus ``O(m²)``
for the elbow system (eq. 23 in the form ``K_EE c + b₀ 1 = y_E``, ``1ᵀ c = 0``), solved with a
Cholesky factor of ``K_EE`` that is updated, not recomputed, when the elbow changes (see
:func:`follow`). The passes over all points are branch-free where they can be (so that they
vectorise) and allocate nothing per event.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from toolkit._numba_cache import njit

RIGHT, ELBOW, LEFT = 0, 1, 2
EXIT_EMPTY, EXIT_LEFT_EMPTY, EXIT_NO_EVENT, EXIT_STOP, EXIT_FLOOR, EXIT_MAXITER, EXIT_GROW = range(7)
# event codes of the records
EV_START, EV_L_TO_E, EV_R_TO_E, EV_E_TO_L, EV_E_TO_R, EV_COLLAPSE, EV_STOP, EV_FLOOR, EV_PUSHED = range(9)


class Records(NamedTuple):
    """The record buffers of a path, one row per breakpoint (``capacity`` rows, filled from the top).

    ``lam``, ``alpha`` (``(capacity, l)``), ``alpha0``: the breakpoint and the dual variables there;
    ``elbow_size``: ``|E|`` on the segment below it; ``kkt``: the largest KKT violation (margin
    units); ``singular``: whether its elbow system was singular; ``event_kind`` (an ``EV_*`` code),
    ``event_first`` (the first point, -1 for none) and ``event_count``: the event that led to it;
    ``kind`` and ``bounds``: the segment below it (0 linear, 1 empty elbow with its four bounds on
    α₀), written by the Python side. The compiled functions take the first nine as a plain tuple,
    ``records[:9]``: numba's dispatcher types a NamedTuple argument in Python on every call, and
    :func:`follow` is called once per event when the path has a callback.
    """

    lam: np.ndarray
    alpha: np.ndarray
    alpha0: np.ndarray
    elbow_size: np.ndarray
    kkt: np.ndarray
    singular: np.ndarray
    event_kind: np.ndarray
    event_first: np.ndarray
    event_count: np.ndarray
    kind: np.ndarray
    bounds: np.ndarray


class Exit(NamedTuple):
    """Where :func:`follow` returned (it returns the plain tuple, ``Exit(*follow(...))`` names it):
    ``code`` (an ``EXIT_*`` value), the records written so far
    (``n_rec``), λ and α₀ there, the events processed (``n_events``, counted over all calls), the
    segments of this call whose elbow system was singular (``n_singular``), the pending event
    (``event_kind``, ``event_first``, ``event_count``) and, for ``EXIT_NO_EVENT``, ``tail_b0``, the
    slope ``dα₀/dλ`` of the last segment (``tail`` holds ``dα/dλ``)."""

    code: int
    n_rec: int
    lam: float
    alpha0: float
    n_events: int
    n_singular: int
    event_kind: int
    event_first: int
    event_count: int
    tail_b0: float


@njit(cache=True)
def _cholesky(A, ridge):  # pragma: no cover - compiled
    """Lower Cholesky factor of ``A + ridge I``; ``ok`` is False on a non-positive pivot."""
    m = A.shape[0]
    C = np.zeros((m, m))
    for j in range(m):
        s = A[j, j] + ridge
        for k in range(j):
            s -= C[j, k] * C[j, k]
        if not s > 0.0:
            return C, False
        d = np.sqrt(s)
        C[j, j] = d
        for i in range(j + 1, m):
            t = A[i, j]
            for k in range(j):
                t -= C[i, k] * C[j, k]
            C[i, j] = t / d
    return C, True


@njit(cache=True)
def _cho_solve(C, b):  # pragma: no cover - compiled
    m = C.shape[0]
    z = np.empty(m)
    for i in range(m):
        t = b[i]
        for k in range(i):
            t -= C[i, k] * z[k]
        z[i] = t / C[i, i]
    x = np.empty(m)
    for i in range(m - 1, -1, -1):
        t = z[i]
        for k in range(i + 1, m):
            t -= C[k, i] * x[k]
        x[i] = t / C[i, i]
    return x


@njit(cache=True)
def _bordered_solve(KE, yE, ridge):  # pragma: no cover - compiled
    """``KE c + b0 1 = yE``, ``1ᵀ c = 0`` through a Cholesky factor of ``KE + ridge I``;
    returns ``(c, b0, residual)`` with the residual of the unregularised system."""
    m = yE.size
    C, ok = _cholesky(KE, ridge)
    if not ok:
        return np.zeros(m), 0.0, np.inf
    u = _cho_solve(C, yE)
    v = _cho_solve(C, np.ones(m))
    b0 = u.sum() / v.sum()
    c = u - b0 * v
    res = abs(c.sum())
    for a in range(m):
        t = b0 - yE[a]
        for b in range(m):
            t += KE[a, b] * c[b]
        res = max(res, abs(t))
    return c, b0, res


@njit(cache=True)
def _direction(K, y, elbow, ridge):  # pragma: no cover - compiled
    """``(c, b0, singular)`` with ``K_EE c + b0 1 = y_E``, ``1ᵀ c = 0`` (see ``_elbow_direction``).

    A singular elbow system (duplicated points, rank-deficient kernels) is solved with
    ``K_EE + δ I``, ``δ = ridge`` or, when ``ridge = 0``, ``δ = 1e-12 · max diag K_EE``: the ridge
    step, whose limit δ → 0 is the minimum-norm least-squares step of the NumPy reference.
    """
    m = elbow.size
    KE = np.empty((m, m))
    yE = np.empty(m)
    dmax = 0.0
    for a in range(m):
        yE[a] = y[elbow[a]]
        for b in range(m):
            KE[a, b] = K[elbow[a], elbow[b]]
        dmax = max(dmax, KE[a, a])
    c, b0, res = _bordered_solve(KE, yE, 0.0)
    if np.isfinite(res) and res * max(1.0, dmax) <= 1e-7:
        return c, b0, False
    delta = ridge if ridge > 0.0 else 1e-12 * max(dmax, 1e-300)
    for _ in range(8):
        c, b0, res = _bordered_solve(KE, yE, delta)
        if np.isfinite(res):
            break
        delta *= 100.0
    return c, b0, True


@njit(cache=True)
def _record(buffers, n, lam, alpha, alpha0, h, y, state, singular, event):  # pragma: no cover - compiled
    """Write row ``n`` of the record ``buffers`` (``Records[:9]``) at the breakpoint ``lam``: α, α₀,
    ``|E|`` counted from ``state``, the largest KKT violation recomputed from ``h = K (y α) + α₀``
    (margin units, the box and the equality ``Σ y α = 0`` included), ``singular`` and ``event``
    (kind, first, count)."""
    l = y.size
    viol = 0.0
    esz = 0
    sy = 0.0
    for i in range(l):
        mg = y[i] * h[i] / lam
        sy += y[i] * alpha[i]
        d = mg - 1.0
        if state[i] == ELBOW:
            esz += 1
            viol = max(viol, abs(d))
        elif state[i] == LEFT:
            viol = max(viol, d)
        else:
            viol = max(viol, -d)
        viol = max(viol, -alpha[i], alpha[i] - 1.0)
    _store_record(buffers, n, lam, alpha, alpha0, esz, max(viol, abs(sy) / max(1.0, l)), singular,
                  event[0], event[1], event[2])


@njit(cache=True)
def _store_record(buffers, n, lam, alpha, alpha0, elbow_size, kkt, singular, event_kind, event_first,
                  event_count):  # pragma: no cover - compiled
    """Write row ``n`` of the record ``buffers`` (``Records[:9]``)."""
    (rec_lam, rec_alpha, rec_alpha0, rec_elbow_size, rec_kkt, rec_singular, rec_event_kind, rec_event_first,
     rec_event_count) = buffers
    for i in range(alpha.size):
        rec_alpha[n, i] = alpha[i]
    rec_lam[n] = lam
    rec_alpha0[n] = alpha0
    rec_elbow_size[n] = elbow_size
    rec_kkt[n] = kkt
    rec_singular[n] = singular
    rec_event_kind[n] = event_kind
    rec_event_first[n] = event_first
    rec_event_count[n] = event_count


# ----------------------------------------------------------------------------- incremental elbow factor
@njit(cache=True)
def _grow(A, cap):  # pragma: no cover - compiled
    B = np.empty((cap, cap))
    n = A.shape[0]
    for i in range(n):
        for j in range(n):
            B[i, j] = A[i, j]
    return B


@njit(cache=True)
def _factor_from_scratch(KE, L, m):  # pragma: no cover - compiled
    """Cholesky factor of ``KE[:m, :m]`` into ``L[:m, :m]`` (lower); False on a non-positive pivot."""
    for j in range(m):
        s = KE[j, j]
        for k in range(j):
            s -= L[j, k] * L[j, k]
        if not s > 0.0:
            return False
        d = np.sqrt(s)
        L[j, j] = d
        for i in range(j + 1, m):
            t = KE[i, j]
            for k in range(j):
                t -= L[i, k] * L[j, k]
            L[i, j] = t / d
    return True


@njit(cache=True)
def _factor_append(KE, L, m):  # pragma: no cover - compiled
    """Extend the factor of ``KE[:m, :m]`` by row/column ``m`` (the row-by-row Cholesky step):
    ``O(m²)``; False on a non-positive pivot."""
    for a in range(m):
        t = KE[m, a]
        for b in range(a):
            t -= L[a, b] * L[m, b]
        L[m, a] = t / L[a, a]
    s = KE[m, m]
    for b in range(m):
        s -= L[m, b] * L[m, b]
    if not s > 0.0:
        return False
    L[m, m] = np.sqrt(s)
    return True


@njit(cache=True)
def _factor_remove(L, m, p, x):  # pragma: no cover - compiled
    """Delete row/column ``p`` of the factor of an ``m × m`` matrix: the rows below ``p`` move up
    and the trailing block takes the rank-one update ``L₃₃ L₃₃ᵀ + l₃₂ l₃₂ᵀ`` (``O((m - p)²)``)."""
    n = m - 1 - p
    for r in range(n):
        x[r] = L[p + 1 + r, p]
    for i in range(p, m - 1):
        for j in range(p):
            L[i, j] = L[i + 1, j]
        for j in range(p, i + 1):
            L[i, j] = L[i + 1, j + 1]
    for k in range(n):
        kk = p + k
        lkk = L[kk, kk]
        r = np.sqrt(lkk * lkk + x[k] * x[k])
        cs = r / lkk
        sn = x[k] / lkk
        L[kk, kk] = r
        for i in range(k + 1, n):
            ii = p + i
            v = (L[ii, kk] + sn * x[i]) / cs
            L[ii, kk] = v
            x[i] = cs * x[i] - sn * v


@njit(cache=True)
def _factor_solve(L, m, yE, c, u, v):  # pragma: no cover - compiled
    """``K_EE c + b₀ 1 = y_E``, ``1ᵀ c = 0`` from the factor (``O(m²)``); returns b₀."""
    for i in range(m):
        tu = yE[i]
        tv = 1.0
        for k in range(i):
            tu -= L[i, k] * u[k]
            tv -= L[i, k] * v[k]
        u[i] = tu / L[i, i]
        v[i] = tv / L[i, i]
    for i in range(m - 1, -1, -1):
        tu = u[i]
        tv = v[i]
        for k in range(i + 1, m):
            tu -= L[k, i] * u[k]
            tv -= L[k, i] * v[k]
        u[i] = tu / L[i, i]
        v[i] = tv / L[i, i]
    su = 0.0
    sv = 0.0
    for i in range(m):
        su += u[i]
        sv += v[i]
    b0 = su / sv
    for i in range(m):
        c[i] = u[i] - b0 * v[i]
    return b0


@njit(cache=True)
def _refresh(K, y, alpha, alpha0, h):  # pragma: no cover - compiled
    """``h = K (y α) + α₀`` from scratch, by rows of the symmetric ``K`` over the points with α ≠ 0."""
    l = y.size
    idx = np.empty(l, dtype=np.int64)
    w = np.empty(l)
    n = 0
    for j in range(l):
        if alpha[j] != 0.0:
            idx[n] = j
            w[n] = y[j] * alpha[j]
            n += 1
    _slopes(K, idx, n, w, alpha0, h)


_FM = {"nnan", "nsz", "contract"}     # no NaN reaches these loops; ±inf does


@njit(cache=True, fastmath=_FM)
def _slopes(K, E, m, c, b0, g):  # pragma: no cover - compiled
    """``g = K[:, E] c + b₀ = dh/dλ`` for every point (rows of the symmetric ``K``, four at a time)."""
    l = g.size
    for i in range(l):
        g[i] = b0
    k = 0
    while k + 4 <= m:
        r0, r1, r2, r3 = E[k], E[k + 1], E[k + 2], E[k + 3]
        c0, c1, c2, c3 = c[k], c[k + 1], c[k + 2], c[k + 3]
        for i in range(l):
            g[i] += (K[r0, i] * c0 + K[r1, i] * c1) + (K[r2, i] * c2 + K[r3, i] * c3)
        k += 4
    while k < m:
        r0 = E[k]
        c0 = c[k]
        for i in range(l):
            g[i] += K[r0, i] * c0
        k += 1


@njit(cache=True, fastmath=_FM, error_model="numpy")
def _candidates_outside(lam, sgn, y, h, g, changed_at, cand, viol):  # pragma: no cover - compiled
    """The λ below which each point outside the elbow reaches it (``-inf``: never on this
    segment; elbow points, ``sgn = 0``, get ``-inf`` here). With ``s = +1`` on R and ``-1`` on L
    the margin ``s (y h - λ)`` must fall to 0 at the rate ``s (y g - 1) > 0``; a point that just
    changed set at this λ is not moved again at once. ``viol = -s (y h - λ)``: the KKT violation
    (times λ) of the points outside the elbow. Branch-free, so it vectorises."""
    l = y.size
    lo = lam * (1 - 1e-8)
    hi = lam * (1 + 1e-12)
    ninf = -np.inf
    for i in range(l):
        s = sgn[i]
        yi = y[i]
        sm = s * (yi * h[i] - lam)
        ss = s * (yi * g[i] - 1.0)
        ok = ss > 0.0
        num = sm if sm > 0.0 else 0.0
        ci = lam - num / (ss if ok else 1.0)
        ci = ci if ci < lam else lam
        kill = (ci >= lo) & (changed_at[i] <= hi)
        cand[i] = ci if ok & ~kill else ninf
        viol[i] = -sm


@njit(cache=True)
def _reduce(cand, viol, y, alpha):  # pragma: no cover - compiled
    """``(max cand, max viol, Σ y α)`` with four independent accumulators each (no loop-carried
    dependency chain through a single maximum)."""
    l = y.size
    ninf = -np.inf
    m0 = m1 = m2 = m3 = ninf
    v0 = v1 = v2 = v3 = 0.0
    s0 = s1 = s2 = s3 = 0.0
    i = 0
    while i + 4 <= l:
        a, b, c, d = cand[i], cand[i + 1], cand[i + 2], cand[i + 3]
        m0 = a if a > m0 else m0
        m1 = b if b > m1 else m1
        m2 = c if c > m2 else m2
        m3 = d if d > m3 else m3
        a, b, c, d = viol[i], viol[i + 1], viol[i + 2], viol[i + 3]
        v0 = a if a > v0 else v0
        v1 = b if b > v1 else v1
        v2 = c if c > v2 else v2
        v3 = d if d > v3 else v3
        s0 += y[i] * alpha[i]
        s1 += y[i + 1] * alpha[i + 1]
        s2 += y[i + 2] * alpha[i + 2]
        s3 += y[i + 3] * alpha[i + 3]
        i += 4
    while i < l:
        a = cand[i]
        m0 = a if a > m0 else m0
        a = viol[i]
        v0 = a if a > v0 else v0
        s0 += y[i] * alpha[i]
        i += 1
    return max(max(m0, m1), max(m2, m3)), max(max(v0, v1), max(v2, v3)), (s0 + s1) + (s2 + s3)


@njit(cache=True, error_model="numpy")
def follow(K, y, alpha, h, state, changed_at, lam, alpha0, floor, lambda_stop, max_events, n_events,
           refresh, ridge, n_rec, event, buffers, tail):  # pragma: no cover - compiled
    """Follow linear segments of the path from λ = ``lam`` down to the next exit; returns the tuple of :class:`Exit`.

    ``alpha``, ``h = K (y α) + α₀``, ``state``, ``changed_at`` (the λ at which each point last
    changed set), the record ``buffers`` (``Records[:9]``) from row ``n_rec`` on and ``tail`` are
    updated in place; ``event`` is the pending event ``(kind, first, count)`` of the next record.
    One pass: the exit checks (:func:`_exit_code`); eq. (23) on the elbow from its Cholesky factor
    (:func:`_factor_solve`, checked by :func:`_solved`; a failed check refactorises once from
    scratch, then takes the ridge step, :func:`_solve_again`), solved again while entrants that
    would leave ``[0, 1]`` at once are pushed back out (:func:`_n_leaving`,
    :func:`_push_out_entrants`); ``g = dh/dλ`` (:func:`_slopes`); the next breakpoint and the KKT
    violation (:func:`_candidates_outside`, :func:`_elbow_candidates`, :func:`_reduce`) and the
    record of this one; the move down to it (:func:`_move`); and the events there
    (:func:`_collect_hits`; leaving points, :func:`_leave_elbow`, downdate the factor, entering ones,
    :func:`_enter_elbow`, append a row). The elbow is kept as a list ``E`` (``pos[i]`` = place of
    point i in it) with ``K_EE`` and its factor, both updated, not recomputed (``O(m²)`` per
    change). Per event: ``O(l m)`` for ``g``, one fused pass over the points for the next event
    and the KKT record, ``O(l)`` updates. The per-event steps call only helpers that call nothing
    (numba then drops the reference counting of their array arguments).
    """
    l = y.size
    n_singular = 0
    ev_kind, ev_first, ev_count = event
    rec_lam = buffers[0]                # the breakpoints' λ (Records.lam)
    cand, vbuf, g, c, u, v, x, hits = _scratch(l)
    E, pos, yE, sgn, m, n_left, KE, L = _open_elbow(K, y, state)
    valid = False                       # L holds the factor of KE[:m, :m]
    tail_b0 = 0.0
    while True:
        code = _exit_code(lam, floor, lambda_stop, m, n_left, n_events, max_events, n_rec, rec_lam.size)
        if code >= 0:
            return code, n_rec, lam, alpha0, n_events, n_singular, ev_kind, ev_first, ev_count, tail_b0
        # ---- eq. (23) with drop-out of entrants that would leave [0, 1] at once
        singular = False
        while True:
            if not valid:
                valid = _factor_from_scratch(KE, L, m)
            b0 = _factor_solve(L, m, yE, c, u, v) if valid else 0.0
            sing = not (valid and _solved(KE, m, yE, c, b0))
            if sing:                                       # drift of the updated factor, or singular
                b0, sing, valid = _solve_again(K, y, KE, L, E, m, yE, c, u, v, ridge, valid)
            singular = singular or sing
            n_out = _n_leaving(alpha, y, c, E, m)
            if n_out == 0 or n_out == m:
                break
            m, n_left = _push_out_entrants(alpha, y, c, E, pos, KE, L, yE, x, state, sgn, changed_at, lam, m,
                                           n_left, valid)
            ev_kind = EV_PUSHED
        if singular:
            n_singular += 1
        # ---- dh/dλ for every point, the next breakpoint below λ and the KKT violation at λ
        _slopes(K, E, m, c, b0, g)
        _candidates_outside(lam, sgn, y, h, g, changed_at, cand, vbuf)
        viol = _elbow_candidates(lam, y, h, alpha, E, m, c, changed_at, cand)
        lam_next, viol_out, sy = _reduce(cand, vbuf, y, alpha)
        kkt = max(max(viol, viol_out * (1.0 / lam)), abs(sy) / max(1.0, l))
        _store_record(buffers, n_rec, lam, alpha, alpha0, m, kkt, singular, ev_kind, ev_first, ev_count)
        n_rec += 1
        if not np.isfinite(lam_next) or lam_next <= 0:
            tail_b0 = _tail_slopes(y, E, m, c, b0, tail)
            return EXIT_NO_EVENT, n_rec, lam, alpha0, n_events, n_singular, ev_kind, ev_first, ev_count, tail_b0
        stop_here = False
        if lambda_stop > 0 and lam_next <= lambda_stop:
            lam_next = lambda_stop
            stop_here = True
        elif lam_next < floor:
            lam_next = floor
            stop_here = True
        step = lam_next - lam
        _move(alpha, h, g, y, c, E, m, step)
        alpha0 += step * b0
        lam = lam_next
        n_events += 1
        if stop_here:
            ev_kind = EV_STOP if lambda_stop > 0 and lam <= lambda_stop else EV_FLOOR
            ev_first = -1
            ev_count = 0
            continue
        n_hits, n_enter = _collect_hits(cand, lam_next - 1e-8 * lam_next, state, hits)
        if m + n_enter > KE.shape[0]:
            KE, L = _grow_factor(KE, L, m + n_enter, l)
        ev_first = -1
        ev_count = 0
        for q in range(n_hits):
            i = hits[q]
            if state[i] == ELBOW:                          # leaves to L (α = 1) or R (α = 0)
                kind = _leave_elbow(i, alpha, state, sgn)
                k = pos[i]
                if valid:
                    _factor_remove(L, m, k, x)
                _elbow_remove(E, pos, KE, yE, m, k)
                m -= 1
            else:                                          # enters from L or R
                kind = _enter_elbow(K, y, i, state, sgn, E, pos, KE, yE, m)
                if valid:
                    valid = _factor_append(KE, L, m)
                m += 1
            if kind == EV_E_TO_L or kind == EV_L_TO_E:     # L gains or loses the point
                n_left += 1 if kind == EV_E_TO_L else -1
            changed_at[i] = lam
            if ev_count == 0:
                ev_first = i
                ev_kind = kind
            ev_count += 1
        if n_events % refresh == 0:
            _refresh(K, y, alpha, alpha0, h)
            valid = False
        # merge zero-length steps: the breakpoints stay strictly decreasing
        if n_rec > 0 and lam >= rec_lam[n_rec - 1] * (1 - 1e-13):
            n_rec -= 1


@njit(cache=True)
def _scratch(l):  # pragma: no cover - compiled
    """The work arrays of :func:`follow`, one entry per point: ``cand``, ``vbuf`` (the candidates and the
    KKT violations outside the elbow), ``g = dh/dλ``, ``c``, ``u``, ``v`` (eq. 23 and its two solves),
    ``x`` (the downdate's column) and ``hits`` (the points of an event)."""
    return (np.empty(l), np.empty(l), np.empty(l), np.empty(l), np.empty(l), np.empty(l), np.empty(l),
            np.empty(l, dtype=np.int64))


@njit(cache=True)
def _open_elbow(K, y, state):  # pragma: no cover - compiled
    """The elbow of ``state`` as :func:`follow` keeps it: its points ``E[:m]`` (``pos[i]`` their places,
    -1 outside), ``y_E`` in ``yE[:m]``, ``sgn`` (+1 on R, -1 on L, 0 on E), and ``K_EE`` in the
    top-left of a square buffer of side ``min(l, 64)`` doubled until it holds the elbow, with a
    buffer of the same side for its Cholesky factor. Returns ``(E, pos, yE, sgn, m, n_left, KE, L)``."""
    l = y.size
    pos = np.full(l, -1, dtype=np.int64)
    E = np.empty(l, dtype=np.int64)
    yE = np.empty(l)
    sgn = np.empty(l)
    m = 0
    n_left = 0
    for i in range(l):
        sgn[i] = 1.0 - state[i]
        if state[i] == ELBOW:
            E[m] = i
            pos[i] = m
            m += 1
        elif state[i] == LEFT:
            n_left += 1
    side = min(l, 64)
    while side < m:
        side = min(l, 2 * side)
    KE = np.empty((side, side))
    L = np.empty((side, side))
    for a in range(m):
        yE[a] = y[E[a]]
        for b in range(m):
            KE[a, b] = K[E[a], E[b]]
    return E, pos, yE, sgn, m, n_left, KE, L


@njit(cache=True)
def _exit_code(lam, floor, lambda_stop, m, n_left, n_events, max_events, n_rec, capacity):  # pragma: no cover
    """Why :func:`follow` must return to Python at λ = ``lam`` (an ``EXIT_*`` code), or -1 to go on:
    the numerical floor, ``lambda_stop`` (when positive), an empty elbow, an empty left set (the
    path is linear from here), ``max_events`` events, or full record buffers, in this order."""
    if lam <= floor * (1 + 1e-12):
        return EXIT_FLOOR
    if lambda_stop > 0 and lam <= lambda_stop * (1 + 1e-12):
        return EXIT_STOP
    if m == 0:
        return EXIT_EMPTY
    if n_left == 0:
        return EXIT_LEFT_EMPTY
    if n_events >= max_events:
        return EXIT_MAXITER
    if n_rec >= capacity:
        return EXIT_GROW
    return -1


@njit(cache=True)
def _solved(KE, m, yE, c, b0):  # pragma: no cover - compiled
    """Whether ``(c, b0)`` from the factor solves eq. (23): the largest residual of ``K_EE c + b₀ 1 = y_E``
    and ``1ᵀ c = 0`` is finite and at most ``1e-7`` on the scale ``max(1, max diag K_EE)`` (a failed check
    means drift of the updated factor or a singular system)."""
    dmax = 0.0
    for a in range(m):
        dmax = max(dmax, KE[a, a])
    res = 0.0
    sc = 0.0
    for a in range(m):
        sc += c[a]
        t = b0 - yE[a]
        for b in range(m):
            t += KE[a, b] * c[b]
        res = max(res, abs(t))
    res = max(res, abs(sc))
    return np.isfinite(res) and res * max(1.0, dmax) <= 1e-7


@njit(cache=True)
def _solve_again(K, y, KE, L, E, m, yE, c, u, v, ridge, valid):  # pragma: no cover - compiled
    """eq. (23) when the factor's solution failed :func:`_solved` (rare): a factor that was valid
    (updated, so it may have drifted) is rebuilt once from scratch and solved again; when that fails
    too, or the factor could not be built, the system is singular and is solved by the ridge step
    of :func:`_direction` (``K_EE + δ I``; the factor is then invalid, rebuilt later). Returns
    ``(b0, singular, valid)`` with ``c[:m]`` written."""
    if valid:
        valid = _factor_from_scratch(KE, L, m)
        if valid:
            b0 = _factor_solve(L, m, yE, c, u, v)
            if _solved(KE, m, yE, c, b0):
                return b0, False, True
    cr, b0, sing = _direction(K, y, E[:m].copy(), ridge)
    for a in range(m):
        c[a] = cr[a]
    return b0, sing, False


@njit(cache=True)
def _n_leaving(alpha, y, c, E, m):  # pragma: no cover - compiled
    """The entrants that would leave ``[0, 1]`` at once on the direction ``dα_E/dλ = y_E c`` of eq.
    (23): elbow points at α = 1 whose α would grow as λ falls, or at α = 0 whose α would fall."""
    n_out = 0
    for k in range(m):
        j = E[k]
        bj = y[j] * c[k]
        if (alpha[j] >= 1.0 and bj < -1e-12) or (alpha[j] <= 0.0 and bj > 1e-12):
            n_out += 1
    return n_out


@njit(cache=True)
def _push_out_entrants(alpha, y, c, E, pos, KE, L, yE, x, state, sgn, changed_at, lam, m, n_left,
                       valid):  # pragma: no cover - compiled
    """The drop-out of eq. (23): each entrant that would leave ``[0, 1]`` at once (:func:`_n_leaving`)
    goes back to L (from α = 1) or R (from α = 0) and leaves the elbow list, ``K_EE`` and, when
    ``valid``, its factor (walking the list from its end, so that ``c`` stays aligned with the
    places not yet visited). Returns ``(m, n_left)``."""
    k = m - 1
    while k >= 0:
        j = E[k]
        bj = y[j] * c[k]
        if alpha[j] >= 1.0 and bj < -1e-12:
            state[j] = LEFT
            sgn[j] = -1.0
            n_left += 1
        elif alpha[j] <= 0.0 and bj > 1e-12:
            state[j] = RIGHT
            sgn[j] = 1.0
        else:
            k -= 1
            continue
        changed_at[j] = lam
        if valid:
            _factor_remove(L, m, k, x)
        _elbow_remove(E, pos, KE, yE, m, k)
        m -= 1
        k -= 1
    return m, n_left


@njit(cache=True, error_model="numpy")
def _elbow_candidates(lam, y, h, alpha, E, m, c, changed_at, cand):  # pragma: no cover - compiled
    """The λ below ``lam`` at which each elbow point leaves (into ``cand``; the points outside the
    elbow are :func:`_candidates_outside`'s): where its α, moving at ``dα/dλ = y c``, reaches 1 or 0,
    capped at ``lam``, and not again at once for a point that just changed set (``-inf``: never).
    Returns the largest KKT violation on the elbow, ``|y h - λ| / λ``."""
    viol = 0.0
    inv = 1.0 / lam
    lo = lam * (1 - 1e-8)
    hi = lam * (1 + 1e-12)
    for k in range(m):
        i = E[k]
        ai = alpha[i]
        viol = max(viol, abs(y[i] * h[i] - lam) * inv)
        bi = y[i] * c[k]
        ci = -np.inf
        if bi < 0:
            ci = lam + (1.0 - ai) / bi
        elif bi > 0:
            ci = lam - ai / bi
        if ci > lam:
            ci = lam
        if ci >= lo and changed_at[i] <= hi:
            ci = -np.inf
        cand[i] = ci
    return viol


@njit(cache=True)
def _tail_slopes(y, E, m, c, b0, tail):  # pragma: no cover - compiled
    """``dα/dλ`` of the last segment (no further event) into ``tail``: ``y_E c`` on the elbow, 0
    elsewhere; returns ``dα₀/dλ = b₀``."""
    for i in range(y.size):
        tail[i] = 0.0
    for k in range(m):
        tail[E[k]] = y[E[k]] * c[k]
    return b0


@njit(cache=True)
def _move(alpha, h, g, y, c, E, m, step):  # pragma: no cover - compiled
    """Move along the segment by ``step`` (= λ_next - λ): ``α_E += step y_E c`` (clipped to
    ``[0, 1]``) and ``h += step g``, in place."""
    for k in range(m):
        j = E[k]
        a = alpha[j] + step * y[j] * c[k]
        alpha[j] = min(1.0, max(0.0, a))
    for i in range(y.size):
        h[i] += step * g[i]


@njit(cache=True)
def _collect_hits(cand, threshold, state, hits):  # pragma: no cover - compiled
    """The events at a breakpoint: the points whose candidate is at least ``threshold`` (ties are
    processed together) into ``hits``. Returns ``(n_hits, n_enter)``, ``n_enter`` of them outside
    the elbow (they enter it)."""
    n_hits = 0
    n_enter = 0
    for i in range(cand.size):
        if cand[i] >= threshold:
            hits[n_hits] = i
            n_hits += 1
    for q in range(n_hits):
        if state[hits[q]] != ELBOW:
            n_enter += 1
    return n_hits, n_enter


@njit(cache=True)
def _grow_factor(KE, L, size, l):  # pragma: no cover - compiled
    """``K_EE`` and its factor in square buffers of side at least ``size``: the side doubles (up to
    ``l``) and the contents are copied. Returns ``(KE, L)``."""
    side = KE.shape[0]
    while side < size:
        side = min(l, 2 * side)
    return _grow(KE, side), _grow(L, side)


@njit(cache=True)
def _leave_elbow(i, alpha, state, sgn):  # pragma: no cover - compiled
    """Elbow point ``i`` leaves at a breakpoint for the nearer bound: to L with α = 1 (``α >= 0.5``)
    or to R with α = 0. Returns the event code."""
    if alpha[i] >= 0.5:
        alpha[i] = 1.0
        state[i] = LEFT
        sgn[i] = -1.0
        return EV_E_TO_L
    alpha[i] = 0.0
    state[i] = RIGHT
    sgn[i] = 1.0
    return EV_E_TO_R


@njit(cache=True)
def _enter_elbow(K, y, i, state, sgn, E, pos, KE, yE, m):  # pragma: no cover - compiled
    """Point ``i`` of L or R enters the elbow at place ``m``: ``state``, ``sgn``, ``E``, ``pos``, ``y_E``
    and a row and column of ``K_EE`` (its factor gains a row by :func:`_factor_append`). Returns the
    event code."""
    kind = EV_L_TO_E if state[i] == LEFT else EV_R_TO_E
    state[i] = ELBOW
    sgn[i] = 0.0
    E[m] = i
    pos[i] = m
    yE[m] = y[i]
    for b in range(m):
        t = K[i, E[b]]
        KE[m, b] = t
        KE[b, m] = t
    KE[m, m] = K[i, i]
    return kind


@njit(cache=True)
def _elbow_remove(E, pos, KE, yE, m, k):  # pragma: no cover - compiled
    """Remove place ``k`` of the elbow list (and of ``K_EE``, ``y_E``); the later places move up."""
    pos[E[k]] = -1
    for a in range(k, m - 1):
        E[a] = E[a + 1]
        pos[E[a]] = a
        yE[a] = yE[a + 1]
    for a in range(k, m - 1):
        for b in range(m):
            KE[a, b] = KE[a + 1, b]
    for a in range(m - 1):
        for b in range(k, m - 1):
            KE[a, b] = KE[a, b + 1]


@njit(cache=True)
def lemma2_qp(H, q, order, total, tol, max_iter):  # pragma: no cover - compiled
    """Compiled twin of ``toolkit.paths._reference.lemma2_qp_reference``: exact primal active set for
    ``min ½ aᵀ H a - qᵀ a`` s.t. ``0 <= a <= 1``, ``Σ a = total`` (``H`` symmetric); ``order``
    sorts ``q`` decreasingly (the start vertex puts ones on the first ``total``)."""
    return lemma2_qp_sub(H, np.arange(q.size), q, order, total, tol, max_iter)


@njit(cache=True)
def lemma2_qp_sub(K, M, q, order, total, tol, max_iter):  # pragma: no cover - compiled
    """:func:`lemma2_qp` with ``H = K[M][:, M]`` read through the index set ``M`` (no copy);
    ``K`` symmetric."""
    n = q.size
    a = np.zeros(n)
    for k in range(int(total)):
        a[order[k]] = 1.0
    free = np.zeros(n, dtype=np.bool_)
    grad = -q.copy()
    for j in range(n):
        if a[j] != 0.0:
            rj = M[j]
            for i in range(n):
                grad[i] += K[rj, M[i]] * a[j]
    scale = 1.0 + np.abs(grad).max()
    for _ in range(max_iter):
        m = 0
        for i in range(n):
            if free[i]:
                m += 1
        if m == 0:
            i_best, j_best = -1, -1
            for i in range(n):
                if a[i] == 1.0 and (i_best < 0 or grad[i] > grad[i_best]):
                    i_best = i
                if a[i] == 0.0 and (j_best < 0 or grad[i] < grad[j_best]):
                    j_best = i
            if i_best < 0 or j_best < 0 or grad[i_best] <= grad[j_best] + tol * scale:
                break
            free[i_best] = True
            free[j_best] = True
            continue
        F = np.empty(m, dtype=np.int64)
        k = 0
        for i in range(n):
            if free[i]:
                F[k] = i
                k += 1
        HF = np.empty((m, m))
        gF = np.empty(m)
        dmax = 0.0
        for r in range(m):
            gF[r] = grad[F[r]]
            for c in range(m):
                HF[r, c] = K[M[F[r]], M[F[c]]]
            dmax = max(dmax, HF[r, r])
        # equality-constrained step: H_FF p + μ 1 = -g_F, 1ᵀ p = 0 (ridge only if H_FF is singular)
        delta = 0.0
        for _ in range(10):
            Cf, ok = _cholesky(HF, delta)
            if ok:
                break
            delta = 1e-12 * max(dmax, 1e-300) if delta == 0.0 else delta * 100.0
        u = _cho_solve(Cf, gF)
        v = _cho_solve(Cf, np.ones(m))
        mu = -u.sum() / v.sum()
        sol = -(u + mu * v)
        big = 0.0
        for r in range(m):
            big = max(big, abs(sol[r]))
        if big * max(1.0, dmax) <= 1e-13:
            big = 0.0
        if big <= 1e-13:
            k_best, v_best = -1, -np.inf
            for i in range(n):
                if free[i]:
                    continue
                viol = -(grad[i] + mu) if a[i] == 0.0 else grad[i] + mu
                if viol > v_best:
                    k_best, v_best = i, viol
            if k_best < 0 or v_best <= tol * scale:
                break
            free[k_best] = True
            continue
        ratio, block = 1.0, -1
        for r in range(m):
            idx, p = F[r], sol[r]
            if p < 0 and -a[idx] / p < ratio:
                ratio, block = -a[idx] / p, idx
            elif p > 0 and (1.0 - a[idx]) / p < ratio:
                ratio, block = (1.0 - a[idx]) / p, idx
        for r in range(m):
            a[F[r]] += ratio * sol[r]
            rc = M[F[r]]
            step = ratio * sol[r]
            for i in range(n):
                grad[i] += K[rc, M[i]] * step
        if block >= 0:
            a[block] = 0.0 if a[block] < 0.5 else 1.0
            free[block] = False
    for i in range(n):
        a[i] = min(1.0, max(0.0, a[i]))
    return a


@njit(cache=True)
def max_asymmetry(K):  # pragma: no cover - compiled
    """``max |K - Kᵀ|`` in cache-sized blocks, without the temporaries of ``np.abs(K - K.T)``
    (``K`` finite)."""
    n = K.shape[0]
    worst = 0.0
    bs = 32
    for i0 in range(0, n, bs):
        i1 = min(n, i0 + bs)
        for j0 in range(i0, n, bs):
            j1 = min(n, j0 + bs)
            for i in range(i0, i1):
                for j in range(max(j0, i + 1), j1):
                    worst = max(worst, abs(K[i, j] - K[j, i]))
    return worst


@njit(cache=True)
def empty_bounds(h, alpha0, y, state):  # pragma: no cover - compiled
    """One pass for ``toolkit.paths._svm._empty_bounds`` on ``h* = h - α₀``: ``(min_{R+} h*, min_{L-} h*,
    max_{R-} h*, max_{L+} h*)`` (±inf where a set is empty)."""
    min_rp = np.inf
    min_lm = np.inf
    max_rm = -np.inf
    max_lp = -np.inf
    for i in range(y.size):
        v = h[i] - alpha0
        if state[i] == RIGHT:
            if y[i] > 0:
                min_rp = min(min_rp, v)
            else:
                max_rm = max(max_rm, v)
        elif state[i] == LEFT:
            if y[i] < 0:
                min_lm = min(min_lm, v)
            else:
                max_lp = max(max_lp, v)
    return np.array([min_rp, min_lm, max_rm, max_lp])
