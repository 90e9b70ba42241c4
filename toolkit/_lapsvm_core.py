"""Numerical kernels of the primal Laplacian SVM / RLSC (Melacci & Belkin 2011).

Notation follows the paper. The first ``l`` of the ``n`` training points are labelled; ``K`` is the
``n × n`` kernel matrix, ``L`` the (iterated) graph Laplacian, ``z = [b, α]``, ``f = K α + 1 b``.
Every routine works on ``C`` problems at once (columns): ``Y`` is ``(l, C)`` with entries ±1
(one-vs-all coding for multi-class), ``alpha`` is ``(n, C)``, ``b`` is ``(C,)``. Binary problems are
the case ``C = 1``; the solvers then cost one matrix-*matrix* product with ``K`` per iteration
instead of ``C`` matrix-vector products.

Objective (eq. 7, squared hinge) and its LapRLSC variant (eq. 14, squared loss), per column:

    obj(α, b) = ½ ( Σ_{i ≤ l} ℓ(m_i) + γ_A αᵀKα + γ_I fᵀ L f ),   m_i = 1 - y_i f_i,

with ``ℓ(m) = max(m, 0)²`` (LapSVM) or ``m²`` (LapRLSC, since ``(y - f)² = (1 - y f)²``).
The labelled points with ``m_i > 0`` are the *error vectors* ``E`` (all labelled points for LapRLSC).
"""
from __future__ import annotations


import numpy as np
import scipy.linalg as sla

from toolkit.early_stopping import Progress, StopEvent

# ------------------------------------------------------------------------------ status table
STATUS_MESSAGES = {
    0: "Optimality reached: {detail}.",
    1: "Stopped early by the {detail}.",
    2: "Maximum number of iterations ({detail}) reached before convergence.",
    3: "Stopped by the callback (StopIteration) at iteration {detail}.",
    4: "Numerical breakdown: {detail}.",
}

#: PCG recomputes f = K α + b from scratch (one extra product) every this many iterations, so the
#: round-off of the recursively updated K d and f cannot drift.
REFRESH_PERIOD = 50

#: PCG declares convergence when the objective has not decreased (beyond round-off) over this many
#: iterations: the gradient can then no longer be reduced in floating point.
STALL_WINDOW = 10

_EPS = float(np.finfo(float).eps)


# ------------------------------------------------------------------------------ small pieces
def margins(f_labeled, Y):
    """``m = 1 - y ∘ f`` on the labelled points; ``m > 0`` marks the error vectors."""
    return 1.0 - Y * f_labeled


def loss_terms(m, hinge):
    return np.maximum(m, 0.0) ** 2 if hinge else m * m


def objective(alpha, b, f, Lf, Y, gamma_A, gamma_I, hinge):
    """eq. (7) (``hinge=True``) or the LapRLSC objective, per column, from maintained f and L f."""
    l = Y.shape[0]
    Ka = f - b
    loss = loss_terms(margins(f[:l], Y), hinge).sum(axis=0)
    return 0.5 * (loss + gamma_A * np.einsum("ij,ij->j", alpha, Ka) + gamma_I * np.einsum("ij,ij->j", f, Lf))


def preconditioned_gradient(alpha, f, Lf, Y, gamma_A, gamma_I, hinge):
    """``∇̂ = P⁻¹ ∇`` of eq. (9) with ``P = diag(1, K)`` (Algorithm 1), without any product by K.

    ``∇̂_b = 1ᵀ I_E (f - y) + γ_I 1ᵀ L f`` and ``∇̂_α = I_E (f - y) + γ_A α + γ_I L f``; the true
    gradient is ``∇ = [∇̂_b, K ∇̂_α]``.
    """
    l = Y.shape[0]
    residual = f[:l] - Y
    if hinge:
        residual = np.where(Y * f[:l] < 1.0, residual, 0.0)
    g_alpha = gamma_A * alpha + gamma_I * Lf
    g_alpha[:l] += residual
    g_b = residual.sum(axis=0) + gamma_I * Lf.sum(axis=0)
    return g_b, g_alpha


def exact_line_search(m, q, c0, c1, hinge):
    """Minimiser ``s* >= 0`` of ``φ(s) = obj(z + s d)`` for one column (§3.2.1).

    ``φ'(s) = c0 + c1 s - Σ_{i ∈ E(s)} q_i (m_i - s q_i)`` is piecewise linear and increasing, with
    ``m_i = 1 - y_i f_i``, ``q_i = y_i f_d,i``, ``E(s) = {i : m_i - s q_i > 0}``,
    ``c0 = γ_A (Kα)ᵀ d_α + γ_I f_dᵀ L f`` and ``c1 = γ_A d_αᵀ K d_α + γ_I f_dᵀ L f_d``.
    Walk the break points ``s_i = m_i / q_i`` in increasing order, updating the slope and intercept
    of the current linear piece when one point enters or leaves ``E`` (the ``ψ_j`` updates of the
    paper), until the piece's zero lies inside its interval. For the squared loss (LapRLSC) there
    is one piece: ``s* = -∇ᵀd / dᵀHd``.

    Returns
    -------
    step : float
    n_pieces : int
        Linear pieces examined (the paper's "line search iterations").
    """
    if hinge:
        active = (m > 0) | ((m == 0) & (q < 0))           # E just after s = 0
    else:
        active = np.ones(m.shape, dtype=bool)
    slope = c1 + np.dot(q[active], q[active])
    intercept = c0 - np.dot(q[active], m[active])
    if intercept >= 0.0:                                   # φ'(0) >= 0: not a descent direction
        return 0.0, 1
    pieces = 1
    if hinge:
        with np.errstate(divide="ignore", invalid="ignore"):
            breaks = np.where(q != 0, m / q, np.inf)
        candidates = np.flatnonzero((breaks > 0) & np.isfinite(breaks)
                                    & (active == (q > 0)))  # active points leave, inactive enter
        order = candidates[np.argsort(breaks[candidates], kind="stable")]
        for i in order:
            if slope > 0 and -intercept / slope <= breaks[i]:
                return -intercept / slope, pieces
            pieces += 1
            sign = -1.0 if active[i] else 1.0              # v_j of the paper: leave (-1) / enter (+1)
            slope += sign * q[i] * q[i]
            intercept -= sign * q[i] * m[i]
    if slope <= 0:
        return 0.0, pieces                                 # unbounded below along d: cannot happen for γ > 0
    return -intercept / slope, pieces


def decisions_of(F):
    """Decisions from the outputs: ``sign f`` for one column, the arg-max class index otherwise."""
    if F.shape[1] == 1:
        return np.where(F[:, 0] >= 0, 1, -1)
    return np.argmax(F, axis=1)


def _errors(F, target):
    """Error rate of the outputs F against target decisions (±1 for C = 1, class index otherwise)."""
    return float(np.mean(decisions_of(F) != target)) if len(target) else 0.0


# ------------------------------------------------------------------------------ PCG
def pcg(K, L, Y, gamma_A, gamma_I, *, hinge=True, tol=1e-6, max_iter=1000, alpha0=None, b0=None,
        monitors=(), callback=None, validation=None, unlabeled_truth=None, dtype=np.float64):
    """Algorithm 1 (PCG with P = diag(1, K), Polak-Ribière with restart, exact line search).

    One product ``K @ (n × C)`` per iteration: ``K ∇̂_α`` (needed for ``∇ = P ∇̂``); ``K d`` follows
    from ``d_t = -∇̂_t + ρ d_{t-1}`` as ``K d_t = -K ∇̂_t + ρ K d_{t-1}``, and ``f`` is updated as
    ``f ← f + s (K d_α + d_b)``. ``L`` enters through one sparse product ``L f_d`` per iteration.

    ``validation`` is ``(K_V, target)`` with ``K_V`` of shape ``(|V|, n)``; ``unlabeled_truth`` the
    true decisions on U (history only). Returns a dict of raw results for the public wrapper.
    """
    n, C = K.shape[0], Y.shape[1]
    l = Y.shape[0]
    matmul = (lambda A: K @ A.astype(dtype, copy=False)) if dtype != np.float64 else (lambda A: K @ A)
    alpha = np.zeros((n, C)) if alpha0 is None else np.array(alpha0, dtype=float).reshape(n, C)
    b = np.zeros(C) if b0 is None else np.array(b0, dtype=float).reshape(C)
    n_products = 0
    if alpha0 is not None and np.any(alpha):
        f = np.asarray(matmul(alpha), dtype=float) + b
        n_products += 1
    else:
        f = np.zeros((n, C)) + b
    Lf = L @ f

    def fresh_gradient():
        g_b, g_a = preconditioned_gradient(alpha, f, Lf, Y, gamma_A, gamma_I, hinge)
        Kg = np.asarray(matmul(g_a), dtype=float)
        return g_b, g_a, Kg

    g_b, g_a, Kg = fresh_gradient()
    n_products += 1
    d_b, d_a, Kd = -g_b, -g_a, -Kg
    gnorm0 = _norms(g_b, g_a, Kg)
    # scale of the optimality test: ||∇|| at z = 0, [-1ᵀy, -K J_Lᵀ y], so that tol means the same
    # for cold and warm starts
    grad_zero = np.sqrt(np.sum(Y.sum(axis=0) ** 2)
                        + np.sum(np.asarray(K[:, :l] @ Y.astype(K.dtype), dtype=float) ** 2))
    hist = {k: [] for k in ("objective", "grad_norm", "pgrad_norm", "mixed_product", "step",
                            "line_search_iters", "restarts")}
    checks = {k: [] for k in ("iteration", "rule", "value", "threshold", "stop", "error_U", "error_V")}
    obj0 = objective(alpha, b, f, Lf, Y, gamma_A, gamma_I, hinge)
    _record(hist, obj0, gnorm0, 0.0, 0, 0)
    for mon in monitors:                                   # classic rules: normalise by iteration 0
        if hasattr(mon.rule, "start"):
            mon.rule.start(mon, {"gradient": gnorm0[0], "preconditioned_gradient": gnorm0[1],
                                 "mixed_product": gnorm0[2]}[mon.rule.name])
    status, detail, stop_event = 2, str(max_iter), None
    n_ls = 0
    t = 0
    if gnorm0[2] == 0.0 or gnorm0[0] <= tol * grad_zero:
        status, detail = 0, "the starting point is optimal within tol"
        max_iter_eff = 0
    else:
        max_iter_eff = max_iter
    denom_old = np.einsum("j,j->j", g_b, g_b) + np.einsum("ij,ij->j", g_a, Kg)   # ∇ᵀ∇̂ per column
    for t in range(1, max_iter_eff + 1):
        # 1. exact line search along d, column by column
        fd = Kd + d_b
        Lfd = L @ fd
        Ka = f - b
        c0 = gamma_A * np.einsum("ij,ij->j", Ka, d_a) + gamma_I * np.einsum("ij,ij->j", fd, Lf)
        c1 = gamma_A * np.einsum("ij,ij->j", d_a, Kd) + gamma_I * np.einsum("ij,ij->j", fd, Lfd)
        m = margins(f[:l], Y)
        q = Y * fd[:l]
        steps = np.empty(C)
        for c in range(C):
            steps[c], pieces = exact_line_search(m[:, c], q[:, c], c0[c], c1[c], hinge)
            n_ls += pieces
        # 2. move: z ← z + s d, with f and L f updated alongside
        alpha += steps * d_a
        b = b + steps * d_b
        f += steps * fd
        Lf += steps * Lfd
        if t % REFRESH_PERIOD == 0:
            f = np.asarray(matmul(alpha), dtype=float) + b
            Lf = L @ f
            n_products += 1
        # 3. new preconditioned gradient and the true one (the iteration's product by K)
        g_b_old, g_a_old = g_b, g_a
        g_b, g_a, Kg = fresh_gradient()
        n_products += 1
        # 4. Polak-Ribière with automatic restart: ρ = max(∇ᵀ(∇̂ - ∇̂_old) / ∇_oldᵀ∇̂_old, 0)
        denom = np.einsum("j,j->j", g_b, g_b) + np.einsum("ij,ij->j", g_a, Kg)
        num = denom - (g_b * g_b_old + np.einsum("ij,ij->j", Kg, g_a_old))
        with np.errstate(divide="ignore", invalid="ignore"):
            rho = np.where(denom_old > 0, np.maximum(num / denom_old, 0.0), 0.0)
        denom_old = denom
        d_b = -g_b + rho * d_b
        d_a = -g_a + rho * d_a
        Kd = -Kg + rho * Kd
        # descent safeguard: φ'(0) = ∇ᵀd must be negative, otherwise restart on -∇̂
        slope0 = g_b * d_b + np.einsum("ij,ij->j", Kg, d_a)
        bad = slope0 >= 0
        if bad.any():
            d_b = np.where(bad, -g_b, d_b)
            d_a[:, bad], Kd[:, bad] = -g_a[:, bad], -Kg[:, bad]
        gnorm = _norms(g_b, g_a, Kg)
        obj = objective(alpha, b, f, Lf, Y, gamma_A, gamma_I, hinge)
        _record(hist, obj, gnorm, float(np.mean(steps)), int(n_ls), int(np.sum(rho == 0)))
        # 5. goal conditions: early-stopping rules first, then optimality, then the callback
        if monitors:
            progress = Progress(
                t, objective=float(obj.sum()), grad_norm=gnorm[0], pgrad_norm=gnorm[1],
                mixed_product=gnorm[2], decisions=lambda: decisions_of(f[l:]),
                validation_error=(None if validation is None else
                                  (lambda: _errors(validation[0] @ alpha + b, validation[1]))))
            fired = None
            for mon in monitors:
                chk = mon.check(progress)
                if chk is None:
                    continue
                checks["iteration"].append(t)
                checks["rule"].append(chk.rule)
                checks["value"].append(chk.value)
                checks["threshold"].append(chk.threshold)
                checks["stop"].append(chk.stop)
                checks["error_U"].append(np.nan if unlabeled_truth is None else _errors(f[l:], unlabeled_truth))
                checks["error_V"].append(np.nan if validation is None else progress.validation_error)
                if chk.stop and fired is None:
                    fired = chk
            if fired is not None:
                stop_event = StopEvent(fired.rule, t, fired.value, fired.threshold)
                status, detail = 1, f"{fired.rule} rule at iteration {t} ({fired.value:.4g} vs {fired.threshold:.4g})"
                break
        if gnorm[0] <= tol * grad_zero:
            status, detail = 0, f"||grad|| / ||grad(0)|| = {gnorm[0] / grad_zero:.3g} <= tol = {tol:g}"
            break
        if t > STALL_WINDOW and (hist["objective"][-STALL_WINDOW - 1] - hist["objective"][-1]
                                 <= 8 * _EPS * abs(hist["objective"][-1])):
            status, detail = 0, (f"the objective did not decrease over {STALL_WINDOW} iterations (round-off "
                                 f"level; ||grad|| / ||grad(0)|| = {gnorm[0] / grad_zero:.3g}, tol = {tol:g})")
            break
        if callback is not None:
            try:
                callback(t, alpha.copy(), b.copy())
            except StopIteration:
                status, detail = 3, str(t)
                break
    # final f from scratch so that the reported objective is eq. (7) at the returned (α, b)
    f = np.asarray(matmul(alpha), dtype=float) + b
    Lf = L @ f
    n_products += 1
    obj = objective(alpha, b, f, Lf, Y, gamma_A, gamma_I, hinge)
    return dict(alpha=alpha, b=b, objective=obj, f=f, n_iter=t if max_iter_eff else 0,
                n_line_search=int(n_ls), status=status, detail=detail, stop_event=stop_event,
                history={**{k: np.asarray(v) for k, v in hist.items()},
                         **{"check_" + k: np.asarray(v) for k, v in checks.items()}},
                n_kernel_products=n_products)


def _norms(g_b, g_a, Kg):
    """(||∇||, ||∇̂||, sqrt(∇̂ᵀ∇)) over all columns."""
    grad = np.sqrt(np.sum(g_b * g_b) + np.sum(Kg * Kg))
    pgrad = np.sqrt(np.sum(g_b * g_b) + np.sum(g_a * g_a))
    mixed = np.sqrt(max(np.sum(g_b * g_b) + np.sum(g_a * Kg), 0.0))
    return grad, pgrad, mixed


def _record(hist, obj, gnorm, step, n_ls, restarts):
    hist["objective"].append(float(np.sum(obj)))
    hist["grad_norm"].append(gnorm[0])
    hist["pgrad_norm"].append(gnorm[1])
    hist["mixed_product"].append(gnorm[2])
    hist["step"].append(step)
    hist["line_search_iters"].append(n_ls)
    hist["restarts"].append(restarts)


# ------------------------------------------------------------------------------ Newton / direct
def _dense_LK(L, K):
    LK = L @ K
    return np.asarray(LK.toarray() if hasattr(LK, "toarray") else LK, dtype=float)


def _system(K, idx, base, top_base, L1, gamma_I):
    """The matrix ``Ĥ_E`` of eq. (11)/(12) with P = diag(1, K) factored out of the α rows."""
    n = K.shape[0]
    A = np.empty((n + 1, n + 1))
    A[0, 0] = len(idx) + gamma_I * L1.sum()
    A[0, 1:] = K[idx].sum(axis=0) + top_base
    A[1:, 0] = gamma_I * L1
    A[1 + idx, 0] += 1.0
    A[1:, 1:] = base
    A[1 + idx, 1:] += K[idx]
    return A


def _direct_squared(K, L, Y, gamma_A, gamma_I, base, top_base, L1):
    """LapRLSC, eq. (14): one LU factorisation shared by all C right-hand sides (one-vs-all)."""
    n, C = K.shape[0], Y.shape[1]
    l = Y.shape[0]
    idx = np.arange(l)
    A = _system(K, idx, base, top_base, L1, gamma_I)
    rhs = np.zeros((n + 1, C))
    rhs[0] = Y.sum(axis=0)
    rhs[1:l + 1] = Y
    try:
        z = sla.solve(A, rhs, check_finite=False)
    except (sla.LinAlgError, ValueError):
        z = sla.lstsq(A, rhs, check_finite=False)[0]
    b, alpha = z[0].copy(), np.ascontiguousarray(z[1:])
    f = K @ alpha + b
    obj = objective(alpha, b, f, L @ f, Y, gamma_A, gamma_I, False)
    return dict(alpha=alpha, b=b, objective=obj, f=f, n_iter=1, n_line_search=0, status=0,
                detail="direct solve of eq. (14)", stop_event=None,
                history={"objective": np.asarray([float(obj.sum())]), "newton_steps": np.ones(C, dtype=int)},
                n_kernel_products=0)


def newton(K, L, Y, gamma_A, gamma_I, *, hinge=True, max_iter=50, alpha0=None, b0=None, callback=None):
    """Newton's method, eq. (8)-(10), one column at a time; ``hinge=False`` is LapRLSC's direct solve.

    Each step solves ``Ĥ_E z = ĉ_E`` (the system of eq. 11 with ``P = diag(1, K)`` factored out
    of the α rows, eq. 12),

        [ |E| + γ_I 1ᵀL1      1ᵀ I_E K + γ_I 1ᵀ L K     ] [b]   [1ᵀ I_E y]
        [ I_E 1 + γ_I L 1     I_E K + γ_A I + γ_I L K   ] [α] = [  I_E y ],

    by a dense LU factorisation (O(n³)), then takes the exact line-search step towards its
    solution (s = 1 in practice). Converged when the error-vector set E no longer changes after a
    full step. For the squared loss E is all labelled points and one step solves eq. (14).
    """
    n, C = K.shape[0], Y.shape[1]
    l = Y.shape[0]
    LK = _dense_LK(L, K)
    L1 = np.asarray(L @ np.ones(n)).ravel()
    base = gamma_I * LK
    base[np.diag_indices(n)] += gamma_A
    top_base = gamma_I * (K @ L1)                          # 1ᵀ L K = (K L 1)ᵀ, L and K symmetric
    if not hinge:
        return _direct_squared(K, L, Y, gamma_A, gamma_I, base, top_base, L1)
    alpha = np.zeros((n, C)) if alpha0 is None else np.array(alpha0, dtype=float).reshape(n, C)
    b = np.zeros(C) if b0 is None else np.array(b0, dtype=float).reshape(C)
    n_iter = np.zeros(C, dtype=int)
    status, detail = 0, "the error-vector set no longer changes"
    n_ls = 0
    hist_obj = []
    for c in range(C):
        y = Y[:, c]
        f = K @ alpha[:, c] + b[c]
        E = y * f[:l] < 1.0
        for t in range(1, max_iter + 1):
            idx = np.flatnonzero(E)
            A = _system(K, idx, base, top_base, L1, gamma_I)
            rhs = np.zeros(n + 1)
            rhs[0] = y[idx].sum()
            rhs[1 + idx] = y[idx]
            try:
                z = sla.solve(A, rhs, check_finite=False)
            except (sla.LinAlgError, ValueError):
                z = sla.lstsq(A, rhs, check_finite=False)[0]
            d_b, d_a = z[0] - b[c], z[1:] - alpha[:, c]
            fd = K @ d_a + d_b
            Lf, Lfd = L @ f, L @ fd                        # exact line search towards z (s = 1 in practice)
            c0 = gamma_A * (f - b[c]) @ d_a + gamma_I * fd @ Lf
            c1 = gamma_A * d_a @ (fd - d_b) + gamma_I * fd @ Lfd
            s, pieces = exact_line_search(1.0 - y * f[:l], y * fd[:l], c0, c1, True)
            n_ls += pieces
            s = 1.0 if abs(s - 1.0) < 1e-10 else s
            alpha[:, c] += s * d_a
            b[c] += s * d_b
            f = f + s * fd
            n_iter[c] = t
            E_new = y * f[:l] < 1.0
            if callback is not None:
                try:
                    callback(t, alpha.copy(), b.copy())
                except StopIteration:
                    status, detail = 3, str(t)
                    break
            if s == 1.0 and np.array_equal(E_new, E):
                break
            if s == 0.0 and np.array_equal(E_new, E):
                break                                      # no descent possible: at the optimum
            E = E_new
        else:
            status, detail = 2, str(max_iter)
        if status == 3:
            break
    f = K @ alpha + b
    Lf = L @ f
    obj = objective(alpha, b, f, Lf, Y, gamma_A, gamma_I, True)
    hist_obj.append(float(obj.sum()))
    return dict(alpha=alpha, b=b, objective=obj, f=f, n_iter=int(n_iter.max()), n_line_search=n_ls,
                status=status, detail=detail, stop_event=None,
                history={"objective": np.asarray(hist_obj), "newton_steps": n_iter.copy()},
                n_kernel_products=0)
