"""Plain reference implementations of the path family, kept for tests and benchmarks.

Nothing here is fast on purpose:

* :func:`svm_path_reference` -- the event loop of :func:`toolkit.svm_path` in NumPy, the same
  steps as the compiled ``toolkit.paths._svm_numba.follow`` (used by ``_svm_path``), with the
  elbow system of eq. (23) solved by Cholesky or, when singular, by least squares (minimum norm)
  instead of the compiled loop's ridge step;
* :func:`lemma2_qp_reference` -- the primal active-set QP of Lemma 2 (the start of an
  unbalanced path) in NumPy, the twin of the compiled ``toolkit.paths._svm_numba.lemma2_qp``.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.linalg as sla

from toolkit._contract import CONVERGED, is_converged
from toolkit.paths._svm import (_ELBOW, _FLOOR, _FREE_ATOL, _LEFT, _RIGHT, _TIE_RTOL, SvmPath, _collapse, _empty_bounds,
                                _end, _finish, _initialize, _kkt_violation, _single_segment_path)

__all__ = ["svm_path_reference", "lemma2_qp_reference"]


def lemma2_qp_reference(H, q, total, tol=1e-12, max_iter=None):
    """Primal active set for ``min ½ aᵀ H a - qᵀ a`` s.t. ``0 <= a <= 1``, ``Σ a = total`` (Lemma 2).

    Starts at the vertex with ones on the ``total`` largest ``q`` and frees variables one by one;
    every equality-constrained sub-problem is solved exactly, so the free α come out exact.
    """
    n = q.size
    max_iter = 10 * n + 50 if max_iter is None else max_iter
    a = np.zeros(n)
    a[np.argsort(-q, kind="stable")[: int(total)]] = 1.0
    free = np.zeros(n, dtype=bool)
    grad = H @ a - q
    scale = 1.0 + np.max(np.abs(grad))
    for _ in range(max_iter):
        F = np.flatnonzero(free)
        if F.size == 0:
            ones, zeros = np.flatnonzero(a == 1.0), np.flatnonzero(a == 0.0)
            i = ones[np.argmax(grad[ones])]
            j = zeros[np.argmin(grad[zeros])]
            if grad[i] <= grad[j] + tol * scale:
                break
            free[[i, j]] = True
            continue
        m = F.size
        kkt = np.zeros((m + 1, m + 1))
        kkt[:m, :m] = H[np.ix_(F, F)]
        kkt[:m, m] = kkt[m, :m] = 1.0
        rhs = np.concatenate([-grad[F], [0.0]])
        sol = np.linalg.lstsq(kkt, rhs, rcond=None)[0]
        step, mu = sol[:m], sol[m]
        if np.max(np.abs(step)) <= 1e-13:
            viol = np.where(a == 0.0, -(grad + mu), grad + mu)
            viol[free] = -np.inf
            k = int(np.argmax(viol))
            if viol[k] <= tol * scale:
                break
            free[k] = True
            continue
        ratio, block = 1.0, -1
        for idx, p in zip(F, step):
            if p < 0 and -a[idx] / p < ratio:
                ratio, block = -a[idx] / p, idx
            elif p > 0 and (1.0 - a[idx]) / p < ratio:
                ratio, block = (1.0 - a[idx]) / p, idx
        a[F] += ratio * step
        grad += H[:, F] @ (ratio * step)
        if block >= 0:
            a[block] = 0.0 if a[block] < 0.5 else 1.0
            free[block] = False
    a = np.clip(a, 0.0, 1.0)
    a[a < _FREE_ATOL] = 0.0
    a[a > 1.0 - _FREE_ATOL] = 1.0
    return a


def _elbow_direction(K, y, elbow, ridge):
    """Solve eq. (23) per unit λ: ``K_EE c + b₀ 1 = y_E``, ``1ᵀ c = 0``; ``dα_E/dλ = y_E c``.

    Returns ``(c, b0, singular)``. A Cholesky factorisation of ``K_EE`` is tried first; when it
    fails or leaves a residual, the bordered system is solved by least squares (minimum norm),
    or with ``K_EE + ridge I`` when ``ridge > 0``.
    """
    KE = K[np.ix_(elbow, elbow)]
    yE = y[elbow]
    m = elbow.size
    ones = np.ones(m)
    try:
        factor = sla.cho_factor(KE, lower=True, check_finite=False)
        u = sla.cho_solve(factor, yE, check_finite=False)
        v = sla.cho_solve(factor, ones, check_finite=False)
        b0 = u.sum() / v.sum()
        c = u - b0 * v
        residual = np.max(np.abs(KE @ c + b0 - yE)) + abs(c.sum()) * np.max(np.diag(KE))
        if np.isfinite(residual) and residual <= 1e-7:
            return c, float(b0), False
    except (np.linalg.LinAlgError, ValueError, ZeroDivisionError):
        pass
    A = np.zeros((m + 1, m + 1))
    A[0, 1:] = A[1:, 0] = 1.0
    A[1:, 1:] = KE + ridge * np.eye(m)
    rhs = np.concatenate([[0.0], yE])
    if ridge > 0:
        sol = sla.solve(A, rhs, assume_a="sym", check_finite=False)
    else:
        sol = np.linalg.lstsq(A, rhs, rcond=None)[0]
    return sol[1:], float(sol[0]), True



class _Breakpoint(NamedTuple):
    """One breakpoint of the reference path: λ, the dual variables ``(α, α₀)`` there, ``|E|`` on the
    segment below it, that segment's kind (0 linear in λ, 1 empty elbow) and bounds on α₀, the largest
    KKT violation, whether its elbow system was singular, and the event that led to it."""

    lam: float
    alpha: np.ndarray
    alpha0: float
    elbow_size: int
    kind: int
    bounds: np.ndarray
    kkt_violation: float
    singular: bool
    event: str


class _Direction(NamedTuple):
    """The direction of eq. (23) on the elbow that remains after the drop-out: the elbow, ``c`` and
    ``b₀`` of ``K_EE c + b₀ 1 = y_E``, ``dα_E/dλ = y_E c``, and whether any system on the way was singular."""

    elbow: np.ndarray
    c: np.ndarray
    b0: float
    alpha_slope: np.ndarray
    singular: bool


def svm_path_reference(K, y, lambda_min, max_iter, ridge, refresh):
    """Plain NumPy implementation of the path (the reference for the compiled :func:`_svm_path`).

    From the start of Lemmas 1-2 (``_initialize``) the loop stops at the floor, at ``lambda_min``,
    when L empties (the solution is then linear down to 0) or after ``max_iter`` events; otherwise
    an empty elbow waits for its interval on α₀ to collapse (``_collapse``) and a
    non-empty one moves along the direction of eq. (23) (:func:`_reference_direction`) down to the
    next event (:func:`_reference_candidates`), where the points that reach a bound change set
    (:func:`_reference_events`). ``h = K (y α) + α₀`` is recomputed every ``refresh`` events.
    """
    l = y.size
    alpha, alpha0, lam, state, how, top = _initialize(K, y)
    if lam < 0:
        return _single_segment_path(K, y, alpha, alpha0, -lam, state, how, top)
    floor = lam * _FLOOR
    if lambda_min is not None and lambda_min < floor:
        lambda_min = None
    h = K @ (y * alpha) + alpha0
    records = []
    tail_direction, tail_slope0 = None, 0.0
    n_singular = 0
    n_iter = 0

    def record(event, kind, bounds, singular):
        records.append(_Breakpoint(lam, alpha.copy(), alpha0, int((state == _ELBOW).sum()), kind, bounds,
                                   _kkt_violation(h, lam, alpha, y, state), singular, event))

    pending_event = "start (" + how + ")"
    changed_at = np.full(l, np.inf)         # λ at which each point last changed set
    while True:
        elbow = np.flatnonzero(state == _ELBOW)
        if lam <= floor * (1 + 1e-12) or (lambda_min is not None and lam <= lambda_min * (1 + 1e-12)):
            record(pending_event, 0, np.full(4, np.nan), False)
            end = "floor" if lam <= floor * (1 + 1e-12) else "lambda_min"
            break
        if elbow.size == 0:
            # ---- empty elbow: α fixed, α₀ free in an interval that collapses at λ*
            hstar = h - alpha0
            bounds = _empty_bounds(hstar, y, state)
            record(pending_event, 1, bounds, False)
            collapse = _collapse(y, hstar, bounds, lam, state, changed_at, floor, lambda_min)
            if collapse is None:
                tail_direction, tail_slope0, end = np.zeros(l), 0.0, "no_event"
                break
            lam, alpha0, h = collapse.lam, collapse.alpha0, collapse.h
            if collapse.entered is None:
                pending_event = "lambda_min"
            else:
                pending_event = f"elbow was empty; {int(collapse.entered.sum())} points enter"
                n_iter += 1
            continue
        if not (state == _LEFT).any():
            # ---- Hastie et al.: L is empty, the solution scales linearly to λ = 0
            record(pending_event, 0, np.full(4, np.nan), False)
            tail_direction, tail_slope0, end = alpha / lam, alpha0 / lam, "left_empty"
            tail_direction = np.where(state == _ELBOW, tail_direction, 0.0)
            break
        if n_iter >= max_iter:
            record(pending_event, 0, np.full(4, np.nan), False)
            end = "max_iter"
            break
        direction = _reference_direction(K, y, alpha, state, changed_at, elbow, lam, ridge)
        elbow, b = direction.elbow, direction.alpha_slope
        if elbow.size == 0:
            pending_event += "; elbow emptied"
            continue
        n_singular += int(direction.singular)
        record(pending_event, 0, np.full(4, np.nan), direction.singular)
        g = K[elbow].T @ direction.c + direction.b0       # dh/dλ for every point
        cand = _reference_candidates(y, h, g, alpha, state, changed_at, elbow, b, lam)
        lam_next = float(np.max(cand))
        if not np.isfinite(lam_next) or lam_next <= 0:
            tail_direction = np.zeros(l)
            tail_direction[elbow] = b
            tail_slope0, end = direction.b0, "no_event"
            break
        stop_here = lambda_min is not None and lam_next <= lambda_min
        if stop_here:
            lam_next = lambda_min
        elif lam_next < floor:
            stop_here, lam_next = True, floor
        step = lam_next - lam
        alpha[elbow] = np.clip(alpha[elbow] + step * b, 0.0, 1.0)
        alpha0 += step * direction.b0
        h += step * g
        lam = lam_next
        n_iter += 1
        if stop_here:
            pending_event = "lambda_min" if lam > floor else "numerical floor"
            continue
        pending_event = _reference_events(cand, lam, alpha, state, changed_at)
        if n_iter % refresh == 0:
            h = K @ (y * alpha) + alpha0
        # merge zero-length steps so that the breakpoints stay strictly decreasing
        if records and lam >= records[-1].lam * (1 - 1e-13):
            records.pop()
    status, message = _end(end, lam, max_iter, int((state == _LEFT).sum()))
    fallbacks = _finish("svm_path", status, message, max_iter, l, n_singular, ridge, reference=True)
    return _reference_result(records, y, how, top, status, message, n_iter, lambda_min, n_singular,
                             tail_direction, tail_slope0, fallbacks)


def _reference_direction(K, y, alpha, state, changed_at, elbow, lam, ridge):
    """eq. (23): the direction of ``(α₀, α_E)`` per unit λ, with the drop-out of inconsistent
    entrants. A point that entered the elbow at a bound (α = 1 or 0) but whose α would leave
    ``[0, 1]`` at once stays outside (back to L or R, ``state`` and ``changed_at`` updated in
    place) and the system is solved again on the smaller elbow (:func:`_elbow_direction`), until
    every entrant moves inwards or all of them would leave. Returns a :class:`_Direction`."""
    singular = False
    for _ in range(elbow.size + 1):
        c, b0, sing_now = _elbow_direction(K, y, elbow, ridge)
        singular |= sing_now
        b = y[elbow] * c
        a_e = alpha[elbow]
        wrong = ((a_e >= 1.0) & (b < -1e-12)) | ((a_e <= 0.0) & (b > 1e-12))
        if not wrong.any() or wrong.all():
            break
        # a point that entered at a bound but would leave [0, 1] at once stays outside
        state[elbow[wrong]] = np.where(a_e[wrong] >= 1.0, _LEFT, _RIGHT)
        changed_at[elbow[wrong]] = lam
        elbow = elbow[~wrong]
        if elbow.size == 0:
            break
    return _Direction(elbow, c, b0, b, singular)


def _reference_candidates(y, h, g, alpha, state, changed_at, elbow, alpha_slope, lam):
    """The λ below ``lam`` at which each point changes set on this segment (``-inf``: never).

    An elbow point leaves when its α, moving at ``dα/dλ = alpha_slope``, reaches 1 or 0; a point of
    L (R) enters when its margin ``y h - λ``, moving at ``y g - 1`` (``g = dh/dλ``), reaches 0
    from below (above). Candidates are capped at ``lam``, and a point that changed set at this λ
    does not change again at this λ (no cycling). The next breakpoint is the largest candidate.
    """
    b = alpha_slope
    cand = np.full(y.size, -np.inf)
    a_e = alpha[elbow]
    with np.errstate(divide="ignore", invalid="ignore"):
        to_one = np.where(b < 0, lam + (1.0 - a_e) / b, -np.inf)
        to_zero = np.where(b > 0, lam - a_e / b, -np.inf)
    cand[elbow] = np.maximum(to_one, to_zero)
    outside = state != _ELBOW
    margin = y * h - lam
    slope = y * g - 1.0                      # d(margin)/dλ
    left = outside & (state == _LEFT) & (slope < 0)
    right = outside & (state == _RIGHT) & (slope > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        cand[left] = lam - np.minimum(margin[left], 0.0) / slope[left]
        cand[right] = lam - np.maximum(margin[right], 0.0) / slope[right]
    cand[cand > lam] = lam
    just_moved = (changed_at <= lam * (1 + 1e-12)) & (cand >= lam * (1 - 1e-8))
    cand[just_moved] = -np.inf
    return cand


def _reference_events(cand, lam, alpha, state, changed_at):
    """Apply every event at the breakpoint ``lam`` (candidates within the tie tolerance): an elbow
    point leaves to L with α = 1 or to R with α = 0, whichever bound is nearer, and a point of L or
    R enters the elbow; ``alpha``, ``state`` and ``changed_at`` are updated in place. Returns the
    event text of the breakpoint (the first six events)."""
    hits = np.flatnonzero(cand >= lam - _TIE_RTOL * max(lam, 1e-300) * 10)
    words = []
    for i in hits:
        if state[i] == _ELBOW:
            if alpha[i] >= 0.5:
                alpha[i], state[i] = 1.0, _LEFT
                words.append(f"{i} E->L")
            else:
                alpha[i], state[i] = 0.0, _RIGHT
                words.append(f"{i} E->R")
        else:
            words.append(f"{i} {'L' if state[i] == _LEFT else 'R'}->E")
            state[i] = _ELBOW
        changed_at[i] = lam
    return ", ".join(words[:6]) + (" ..." if len(words) > 6 else "")


def _reference_result(records, y, how, top, status, message, n_iter, lambda_min, n_singular, tail_direction,
                      tail_slope0, fallbacks):
    """The :class:`SvmPath` of the reference from its breakpoints (a list of :class:`_Breakpoint`),
    with duplicates that zero-length empty-elbow collapses introduced merged (the later one kept)."""
    keep = [0]
    for k in range(1, len(records)):
        if records[k].lam < records[keep[-1]].lam * (1 - 1e-13):
            keep.append(k)
        else:
            keep[-1] = k
    sel = np.array(keep)
    columns = _Breakpoint(*zip(*records))
    arr = lambda seq, dt=float: np.asarray(seq, dtype=dt)[sel]  # noqa: E731
    top_kind, top_slope, top_bounds = top
    history = {"lambda": arr(columns.lam), "kkt_violation": arr(columns.kkt_violation),
               "singular": arr(columns.singular, bool), "event": np.asarray(columns.event, dtype=object)[sel]}
    result = SvmPath(
        breakpoints=arr(columns.lam), alphas=np.asarray(columns.alpha)[sel], alpha0s=arr(columns.alpha0),
        elbow_sizes=arr(columns.elbow_size, int), y=y.copy(), status=status, message=message,
        converged=is_converged(status), n_iter=n_iter, lambda_stop=lambda_min, n_singular_steps=n_singular,
        history=history, initialization=how,
        _segment_kind=arr(columns.kind, int), _segment_bounds=np.asarray(columns.bounds)[sel],
        _top_kind=int(top_kind), _top_slope=float(top_slope), _top_bounds=np.asarray(top_bounds),
        _tail_direction=tail_direction if status == CONVERGED else None, _tail_slope0=float(tail_slope0),
        fallbacks=fallbacks,
    )
    for name in ("breakpoints", "alphas", "alpha0s", "elbow_sizes", "y"):
        getattr(result, name).setflags(write=False)
    return result
