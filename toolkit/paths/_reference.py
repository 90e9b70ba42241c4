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

import numpy as np
import scipy.linalg as sla

from toolkit._contract import CONVERGED, is_converged
from toolkit.paths._svm import (_ELBOW, _FLOOR, _FREE_ATOL, _LEFT, _RIGHT, _TIE_RTOL, SvmPath, _empty_bounds, _end, _finish,
                                _initialize, _kkt_violation, _midpoint_alpha0, _single_segment_path)

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



def svm_path_reference(K, y, lambda_min, max_iter, ridge, refresh):
    """Plain NumPy implementation of the path (the reference for the compiled :func:`_svm_path`)."""
    l = y.size
    alpha, alpha0, lam, state, how, (top_kind, top_slope, top_bounds) = _initialize(K, y)
    if lam < 0:
        return _single_segment_path(K, y, alpha, alpha0, -lam, state, how, (top_kind, top_slope, top_bounds))
    floor = lam * _FLOOR
    if lambda_min is not None and lambda_min < floor:
        lambda_min = None
    h = K @ (y * alpha) + alpha0

    bp, al, al0, mg, esz, kinds, bnds, kkt, sing, events = [], [], [], [], [], [], [], [], [], []
    tail_direction, tail_slope0 = None, 0.0
    n_singular = 0
    end = None
    n_iter = 0

    def record(event, kind, bounds, singular):
        bp.append(lam); al.append(alpha.copy()); al0.append(alpha0); mg.append(y * h / lam)
        esz.append(int((state == _ELBOW).sum())); kinds.append(kind); bnds.append(bounds)
        kkt.append(_kkt_violation(h, lam, alpha, y, state)); sing.append(singular); events.append(event)

    pending_event = "start (" + how + ")"
    changed_at = np.full(l, np.inf)         # λ at which each point last changed set
    while True:
        elbow = np.flatnonzero(state == _ELBOW)
        if lam <= floor * (1 + 1e-12):
            record(pending_event, 0, np.full(4, np.nan), False)
            end = "floor"
            break
        if lambda_min is not None and lam <= lambda_min * (1 + 1e-12):
            record(pending_event, 0, np.full(4, np.nan), False)
            end = "lambda_min"
            break
        if elbow.size == 0:
            # ---- empty elbow: α fixed, α₀ free in an interval that collapses at λ*
            hstar = h - alpha0
            bounds = _empty_bounds(hstar, y, state)
            record(pending_event, 1, bounds, False)
            lam_next = 0.5 * (bounds[3] - bounds[1])
            if not np.isfinite(lam_next) or lam_next <= 0:
                tail_direction, tail_slope0, end = np.zeros(l), 0.0, "no_event"
                break
            if (lambda_min is not None and lam_next <= lambda_min) or lam_next < floor:
                lam = floor if lambda_min is None or lambda_min < floor else lambda_min
                alpha0 = _midpoint_alpha0(lam, bounds)
                h = hstar + alpha0
                pending_event = "lambda_min"
                continue
            lam = min(lam_next, lam)
            alpha0 = lam - bounds[3]
            h = hstar + alpha0
            enter = np.abs(y * h - lam) <= _TIE_RTOL * lam * 10
            state[enter] = _ELBOW
            changed_at[enter] = lam
            pending_event = f"elbow was empty; {int(enter.sum())} points enter"
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

        # ---- eq. (23): direction of (α₀, α_E) per unit λ, with drop-out of inconsistent entrants
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
        if elbow.size == 0:
            pending_event += "; elbow emptied"
            continue
        n_singular += int(singular)
        record(pending_event, 0, np.full(4, np.nan), singular)
        g = K[elbow].T @ c + b0                 # dh/dλ for every point

        # ---- candidate events below λ
        cand = np.full(l, -np.inf)
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
        # a point that changed set at this λ does not change again at this λ (no cycling)
        just_moved = (changed_at <= lam * (1 + 1e-12)) & (cand >= lam * (1 - 1e-8))
        cand[just_moved] = -np.inf
        lam_next = float(np.max(cand))
        if not np.isfinite(lam_next) or lam_next <= 0:
            tail_direction = np.zeros(l)
            tail_direction[elbow] = b
            tail_slope0, end = b0, "no_event"
            break
        stop_here = lambda_min is not None and lam_next <= lambda_min
        if stop_here:
            lam_next = lambda_min
        elif lam_next < floor:
            stop_here, lam_next = True, floor
        step = lam_next - lam
        alpha[elbow] = np.clip(a_e + step * b, 0.0, 1.0)
        alpha0 += step * b0
        h += step * g
        lam = lam_next
        n_iter += 1
        if stop_here:
            pending_event = "lambda_min" if lam > floor else "numerical floor"
            continue

        # ---- apply every event within the tie tolerance
        hits = np.flatnonzero(cand >= lam_next - _TIE_RTOL * max(lam_next, 1e-300) * 10)
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
        pending_event = ", ".join(words[:6]) + (" ..." if len(words) > 6 else "")
        if n_iter % refresh == 0:
            h = K @ (y * alpha) + alpha0
        # merge zero-length steps so that the breakpoints stay strictly decreasing
        if bp and lam >= bp[-1] * (1 - 1e-13):
            for store in (bp, al, al0, mg, esz, kinds, bnds, kkt, sing, events):
                store.pop()

    # merge duplicates introduced by zero-length empty-elbow collapses
    keep = [0]
    for k in range(1, len(bp)):
        if bp[k] < bp[keep[-1]] * (1 - 1e-13):
            keep.append(k)
        else:
            keep[-1] = k
    sel = np.array(keep)
    status, message = _end(end, lam, max_iter, int((state == _LEFT).sum()))
    fallbacks = _finish("svm_path", status, message, max_iter, l, n_singular, ridge, reference=True)
    arr = lambda seq, dt=float: np.asarray(seq, dtype=dt)[sel]  # noqa: E731
    history = {"lambda": arr(bp), "kkt_violation": arr(kkt), "singular": arr(sing, bool),
               "event": np.asarray(events, dtype=object)[sel]}
    result = SvmPath(
        breakpoints=arr(bp), alphas=np.asarray(al)[sel], alpha0s=arr(al0),
        elbow_sizes=arr(esz, int), y=y.copy(), status=status, message=message,
        converged=is_converged(status), n_iter=n_iter, lambda_stop=lambda_min, n_singular_steps=n_singular,
        history=history, initialization=how,
        _segment_kind=arr(kinds, int), _segment_bounds=np.asarray(bnds)[sel],
        _top_kind=int(top_kind), _top_slope=float(top_slope), _top_bounds=np.asarray(top_bounds),
        _tail_direction=tail_direction if status == CONVERGED else None, _tail_slope0=float(tail_slope0),
        fallbacks=fallbacks,
    )
    for name in ("breakpoints", "alphas", "alpha0s", "elbow_sizes", "y"):
        getattr(result, name).setflags(write=False)
    return result
