"""Compiled event loop of the SVM path (the same steps as ``_paths_svm._svm_path_reference``).

One call follows linear segments (non-empty elbow) event after event and returns to Python on
anything that needs a decision there: the elbow empties, the left set empties, the path reaches
``lambda_min`` / the numerical floor / ``max_iter``, no further event exists, or the record
buffers are full. Every event costs ``O(l m)`` for ``dh/dλ = K[:, E] c + b₀`` plus ``O(m³)``
for the elbow system, solved by a Cholesky factorisation of ``K_EE`` (eq. 23 in the form
``K_EE c + b₀ 1 = y_E``, ``1ᵀ c = 0``).
"""
from __future__ import annotations

import numba
import numpy as np

RIGHT, ELBOW, LEFT = 0, 1, 2
EXIT_EMPTY, EXIT_LEFT_EMPTY, EXIT_NO_EVENT, EXIT_STOP, EXIT_FLOOR, EXIT_MAXITER, EXIT_GROW = range(7)
# event codes of the records
EV_START, EV_L_TO_E, EV_R_TO_E, EV_E_TO_L, EV_E_TO_R, EV_COLLAPSE, EV_STOP, EV_FLOOR, EV_PUSHED = range(9)


@numba.njit(cache=True)
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


@numba.njit(cache=True)
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


@numba.njit(cache=True)
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


@numba.njit(cache=True)
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


@numba.njit(cache=True)
def _record(n, lam, alpha, alpha0, h, y, state, singular, ev_kind, ev_first, ev_count,
            rec_lam, rec_alpha, rec_alpha0, rec_esz, rec_kkt, rec_sing,
            rec_ev_kind, rec_ev_first, rec_ev_count):  # pragma: no cover - compiled
    l = y.size
    viol = 0.0
    esz = 0
    sy = 0.0
    for i in range(l):
        mg = y[i] * h[i] / lam
        rec_alpha[n, i] = alpha[i]
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
    rec_lam[n] = lam
    rec_alpha0[n] = alpha0
    rec_esz[n] = esz
    rec_kkt[n] = max(viol, abs(sy) / max(1.0, l))
    rec_sing[n] = singular
    rec_ev_kind[n] = ev_kind
    rec_ev_first[n] = ev_first
    rec_ev_count[n] = ev_count


@numba.njit(cache=True, fastmath=True)
def _refresh(K, y, alpha, alpha0, h):  # pragma: no cover - compiled
    """``h = K (y α) + α₀`` from scratch (fast-math reductions; no inf or NaN can occur here)."""
    l = y.size
    ya = y * alpha
    for i in range(l):
        t = 0.0
        for j in range(l):
            t += K[i, j] * ya[j]
        h[i] = t + alpha0


@numba.njit(cache=True)
def follow(K, y, alpha, h, state, changed_at, lam, alpha0, floor, lambda_stop, max_events, n_events,
           refresh, ridge, n_rec, ev_kind, ev_first, ev_count,
           rec_lam, rec_alpha, rec_alpha0, rec_esz, rec_kkt, rec_sing,
           rec_ev_kind, rec_ev_first, rec_ev_count, tail):  # pragma: no cover - compiled
    """Follow linear segments; returns ``(exit, n_rec, lam, alpha0, n_events, n_singular,
    ev_kind, ev_first, ev_count, tail_b0)``; ``alpha``, ``h``, ``state`` and the buffers are updated
    in place."""
    l = y.size
    capacity = rec_lam.size
    n_singular = 0
    cand = np.empty(l)
    g = np.empty(l)
    elbow_buf = np.empty(l, dtype=np.int64)
    tail_b0 = 0.0
    while True:
        if lam <= floor * (1 + 1e-12):
            return EXIT_FLOOR, n_rec, lam, alpha0, n_events, n_singular, ev_kind, ev_first, ev_count, tail_b0
        if lambda_stop > 0 and lam <= lambda_stop * (1 + 1e-12):
            return EXIT_STOP, n_rec, lam, alpha0, n_events, n_singular, ev_kind, ev_first, ev_count, tail_b0
        m = 0
        n_left = 0
        for i in range(l):
            if state[i] == ELBOW:
                elbow_buf[m] = i
                m += 1
            elif state[i] == LEFT:
                n_left += 1
        if m == 0:
            return EXIT_EMPTY, n_rec, lam, alpha0, n_events, n_singular, ev_kind, ev_first, ev_count, tail_b0
        if n_left == 0:
            return EXIT_LEFT_EMPTY, n_rec, lam, alpha0, n_events, n_singular, ev_kind, ev_first, ev_count, tail_b0
        if n_events >= max_events:
            return EXIT_MAXITER, n_rec, lam, alpha0, n_events, n_singular, ev_kind, ev_first, ev_count, tail_b0
        if n_rec >= capacity:
            return EXIT_GROW, n_rec, lam, alpha0, n_events, n_singular, ev_kind, ev_first, ev_count, tail_b0
        # ---- eq. (23) with drop-out of entrants that would leave [0, 1] at once
        singular = False
        first = True
        while True:
            if first:
                elbow = elbow_buf[:m].copy()
                first = False
            else:
                elbow = np.empty(m, dtype=np.int64)
                k = 0
                for i in range(l):
                    if state[i] == ELBOW:
                        elbow[k] = i
                        k += 1
            c, b0, sing = _direction(K, y, elbow, ridge)
            singular = singular or sing
            n_wrong = 0
            for k in range(m):
                j = elbow[k]
                bj = y[j] * c[k]
                if (alpha[j] >= 1.0 and bj < -1e-12) or (alpha[j] <= 0.0 and bj > 1e-12):
                    n_wrong += 1
            if n_wrong == 0 or n_wrong == m:
                break
            for k in range(m):
                j = elbow[k]
                bj = y[j] * c[k]
                if alpha[j] >= 1.0 and bj < -1e-12:
                    state[j] = LEFT
                    changed_at[j] = lam
                elif alpha[j] <= 0.0 and bj > 1e-12:
                    state[j] = RIGHT
                    changed_at[j] = lam
            m -= n_wrong
            ev_kind = EV_PUSHED
        if singular:
            n_singular += 1
        _record(n_rec, lam, alpha, alpha0, h, y, state, singular, ev_kind, ev_first, ev_count,
                rec_lam, rec_alpha, rec_alpha0, rec_esz, rec_kkt, rec_sing,
                rec_ev_kind, rec_ev_first, rec_ev_count)
        n_rec += 1
        # ---- dh/dλ for every point
        for i in range(l):
            g[i] = b0
        for k in range(m):
            ck = c[k]
            row = elbow[k]
            for i in range(l):
                g[i] += K[row, i] * ck
        # ---- candidate events below λ
        lam_next = -np.inf
        k = 0
        for i in range(l):
            ci = -np.inf
            if state[i] == ELBOW:
                bi = y[i] * c[k]
                k += 1
                if bi < 0:
                    ci = lam + (1.0 - alpha[i]) / bi
                elif bi > 0:
                    ci = lam - alpha[i] / bi
            else:
                margin = y[i] * h[i] - lam
                slope = y[i] * g[i] - 1.0
                if state[i] == LEFT and slope < 0:
                    ci = lam - min(margin, 0.0) / slope
                elif state[i] == RIGHT and slope > 0:
                    ci = lam - max(margin, 0.0) / slope
            if ci > lam:
                ci = lam
            if changed_at[i] <= lam * (1 + 1e-12) and ci >= lam * (1 - 1e-8):
                ci = -np.inf
            cand[i] = ci
            if ci > lam_next:
                lam_next = ci
        if not np.isfinite(lam_next) or lam_next <= 0:
            k = 0
            for i in range(l):
                tail[i] = 0.0
                if state[i] == ELBOW:
                    tail[i] = y[i] * c[k]
                    k += 1
            tail_b0 = b0
            return EXIT_NO_EVENT, n_rec, lam, alpha0, n_events, n_singular, ev_kind, ev_first, ev_count, tail_b0
        stop_here = False
        if lambda_stop > 0 and lam_next <= lambda_stop:
            lam_next = lambda_stop
            stop_here = True
        elif lam_next < floor:
            lam_next = floor
            stop_here = True
        step = lam_next - lam
        k = 0
        for i in range(l):
            if state[i] == ELBOW:
                a = alpha[i] + step * y[i] * c[k]
                alpha[i] = min(1.0, max(0.0, a))
                k += 1
            h[i] += step * g[i]
        alpha0 += step * b0
        lam = lam_next
        n_events += 1
        if stop_here:
            ev_kind = EV_STOP if lambda_stop > 0 and lam <= lambda_stop else EV_FLOOR
            ev_first = -1
            ev_count = 0
            continue
        # ---- apply every event within the tie tolerance
        threshold = lam_next - 1e-8 * lam_next
        ev_count = 0
        ev_first = -1
        for i in range(l):
            if cand[i] >= threshold:
                if state[i] == ELBOW:
                    if alpha[i] >= 0.5:
                        alpha[i] = 1.0
                        state[i] = LEFT
                        kind = EV_E_TO_L
                    else:
                        alpha[i] = 0.0
                        state[i] = RIGHT
                        kind = EV_E_TO_R
                else:
                    kind = EV_L_TO_E if state[i] == LEFT else EV_R_TO_E
                    state[i] = ELBOW
                changed_at[i] = lam
                if ev_count == 0:
                    ev_first = i
                    ev_kind = kind
                ev_count += 1
        if n_events % refresh == 0:
            _refresh(K, y, alpha, alpha0, h)
        # merge zero-length steps: the breakpoints stay strictly decreasing
        if n_rec > 0 and lam >= rec_lam[n_rec - 1] * (1 - 1e-13):
            n_rec -= 1


@numba.njit(cache=True)
def lemma2_qp(H, q, order, total, tol, max_iter):  # pragma: no cover - compiled
    """Compiled twin of ``_paths_svm._lemma2_qp``: exact primal active set for
    ``min ½ aᵀ H a - qᵀ a`` s.t. ``0 <= a <= 1``, ``Σ a = total``; ``order`` sorts ``q``
    decreasingly (the start vertex puts ones on the first ``total``)."""
    n = q.size
    a = np.zeros(n)
    for k in range(int(total)):
        a[order[k]] = 1.0
    free = np.zeros(n, dtype=np.bool_)
    grad = -q.copy()
    for j in range(n):
        if a[j] != 0.0:
            for i in range(n):
                grad[i] += H[i, j] * a[j]
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
                HF[r, c] = H[F[r], F[c]]
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
            col = F[r]
            step = ratio * sol[r]
            for i in range(n):
                grad[i] += H[i, col] * step
        if block >= 0:
            a[block] = 0.0 if a[block] < 0.5 else 1.0
            free[block] = False
    for i in range(n):
        a[i] = min(1.0, max(0.0, a[i]))
    return a
