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


import dataclasses
import math
from typing import NamedTuple

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from toolkit._contract import (BREAKDOWN, CONVERGED, EARLY_STOP, MAX_ITER, IntermediateResult, lazy,
                               run_callback)
from toolkit.early_stopping import Progress, StopEvent, default_period
from toolkit.kernels import thread_pools

# The status codes and messages are the toolkit's one table (toolkit._contract.SOLVER_STATUS); the
# solvers here return a status code and the detail that fills its message.

#: PCG recomputes f = K α + b from scratch (one extra product) every this many iterations, so the
#: round-off of the recursively updated K d and f cannot drift.
REFRESH_PERIOD = 50

#: PCG declares convergence when the objective has not decreased (beyond round-off) over this many
#: iterations: the gradient can then no longer be reduced in floating point.
STALL_WINDOW = 10

_EPS = float(np.finfo(float).eps)


@dataclasses.dataclass(frozen=True, eq=False)
class InnerResult:
    """What an inner solver of the manifold family hands to the public wrapper, which turns it into
    a :class:`~toolkit.manifold.LapSVMResult`: PCG and Newton here, their reduced forms in
    :mod:`toolkit.manifold._lowrank`, the one-vs-all PCG runs and the dual in
    :mod:`toolkit.manifold._solvers`.

    ``alpha`` has shape ``(n, C)`` and ``b``, ``objective`` shape ``(C,)``, one column per
    one-vs-all problem; ``status`` and ``detail`` fill the message of the contract's table;
    ``stop_event`` is the rule that fired; ``max_iter`` the limit the solver ran under (quoted by the
    warning). ``f = K α + b`` when the solver has it, ``theta = [b; w]`` for the reduced solvers,
    ``switched_at`` the first iteration with the coarse correction ``coarse`` (PCG's switch of
    preconditioner), ``n_kernel_products`` the products by K spent.
    """

    alpha: np.ndarray
    b: np.ndarray
    n_iter: int
    n_line_search: int
    status: int
    detail: str
    stop_event: object
    history: dict
    max_iter: int
    objective: np.ndarray | None = None
    f: np.ndarray | None = None
    fallbacks: tuple = ()
    n_kernel_products: int = 0
    theta: np.ndarray | None = None
    switched_at: int | None = None
    coarse: object = None

#: K's product with up to this many columns is formed one column at a time by BLAS symv, which
#: reads one triangle of the symmetric K: half the memory traffic of gemv, the bound of a PCG
#: iteration (``python benchmarks/bench_lapsvm.py`` times an iteration against this product). With
#: more columns one gemm, which reads K once for all of them, is faster.
SYMV_MAX_COLUMNS = 4


def symmetric_product(K, threads=None):
    """A function ``(A, out) -> out[...] = K @ A`` for the symmetric ``K`` that reads its upper triangle.

    Columns of ``A`` are cast to ``K``'s precision; ``out`` has ``K``'s dtype (or wider). With more
    than ``SYMV_MAX_COLUMNS`` columns, or a ``K`` BLAS cannot take in place, it is one ``matmul``.
    ``threads``: BLAS threads for the product alone (``None``: the current setting), so that a
    caller can run everything else of an iteration on one thread.
    """
    symv = {np.dtype(np.float64): sla.blas.dsymv, np.dtype(np.float32): sla.blas.ssymv}.get(K.dtype)
    # BLAS reads Fortran order: a C-ordered K is passed as Kᵀ (= K), whose lower triangle is K's upper one
    KF, lower = (K.T, 1) if K.flags.c_contiguous else (K, 0) if K.flags.f_contiguous else (None, 0)

    def multiply(A, out):
        if symv is None or KF is None or A.shape[1] > SYMV_MAX_COLUMNS:
            np.matmul(K, A.astype(K.dtype, copy=False), out=out)
            return out
        for c in range(A.shape[1]):
            out[:, c] = symv(1.0, KF, np.ascontiguousarray(A[:, c], dtype=K.dtype), lower=lower)
        return out

    if threads is None:
        return multiply
    pools = thread_pools()

    def product(A, out):
        with pools.limit(limits=threads, user_api="blas"):      # cheap to enter and leave
            return multiply(A, out)
    return product


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

    The walk runs compiled (:func:`_line_search_loop`, the same code PCG calls inside its fused
    iteration kernel).

    Returns
    -------
    step : float
    n_pieces : int
        Linear pieces examined (the paper's "line search iterations").
    """
    m = np.ascontiguousarray(m, dtype=np.float64).ravel()
    q = np.ascontiguousarray(q, dtype=np.float64).ravel()
    step, pieces = _kernels().line_search(m, q, float(c0), float(c1), bool(hinge))
    return float(step), int(pieces)


# ------------------------------------------------------------------------------ compiled kernels
# The O(n) work of one PCG iteration runs in three compiled loops (numba), so that an iteration
# costs one product with K, one sparse product with L and a few dozen microseconds besides,
# instead of ~40 small NumPy calls. The loops are plain Python functions (they also run
# uncompiled, slowly) compiled on first use by :func:`_kernels`; element-wise arithmetic is
# written in the same order as the NumPy expressions it replaces, reductions are sequential.

#: Planes of the PCG work array ``W`` (each ``(n, C)``).
_ALPHA, _F, _LF, _DA, _KD, _GA, _GA_OLD, _FD, _LFD = range(9)
#: Rows of the PCG scalar array ``S`` (each ``(C,)``).
_B, _GB, _GB_OLD, _DB, _DENOM_OLD, _STEP, _PB, _PB_OLD = range(8)


def _line_search_loop(m, q, c0, c1, hinge):  # pragma: no cover - compiled
    """The walk of :func:`exact_line_search` (m, q contiguous float64 vectors)."""
    l = m.shape[0]
    sqq = 0.0
    sqm = 0.0
    for i in range(l):
        if (not hinge) or m[i] > 0.0 or (m[i] == 0.0 and q[i] < 0.0):   # E just after s = 0
            sqq += q[i] * q[i]
            sqm += q[i] * m[i]
    slope = c1 + sqq
    intercept = c0 - sqm
    if intercept >= 0.0:                                   # φ'(0) >= 0: not a descent direction
        return 0.0, 1
    pieces = 1
    if hinge:
        breaks = np.empty(l)
        which = np.empty(l, dtype=np.int64)
        k = 0
        for i in range(l):
            if q[i] != 0.0:
                s_i = m[i] / q[i]
                active = m[i] > 0.0 or (m[i] == 0.0 and q[i] < 0.0)
                if s_i > 0.0 and np.isfinite(s_i) and active == (q[i] > 0.0):   # active leave, inactive enter
                    breaks[k] = s_i
                    which[k] = i
                    k += 1
        order = np.argsort(breaks[:k], kind="mergesort")  # stable: ties in index order
        for j in order:
            i = which[j]
            if slope > 0.0 and -intercept / slope <= breaks[j]:
                return -intercept / slope, pieces
            pieces += 1
            active = m[i] > 0.0 or (m[i] == 0.0 and q[i] < 0.0)
            sign = -1.0 if active else 1.0                 # v_j of the paper: leave (-1) / enter (+1)
            slope += sign * q[i] * q[i]
            intercept -= sign * q[i] * m[i]
    if slope <= 0.0:
        return 0.0, pieces                                 # unbounded below along d: cannot happen for γ > 0
    return -intercept / slope, pieces


def _gradient_entry(alpha_i, f_i, Lf_i, y_i, labelled, gamma_A, gamma_I, hinge):  # pragma: no cover - compiled
    """One entry of the preconditioned gradient ``∇̂_α = γ_A α + γ_I L f + J (f − y)`` of eq. (7)
    (the residual only on labelled rows, and for the squared hinge only where ``y f < 1``).
    Returns ``(gradient entry, residual)``; the residuals sum to the bias gradient."""
    g = gamma_A * alpha_i + gamma_I * Lf_i
    r = 0.0
    if labelled:
        r = f_i - y_i
        if hinge and not (y_i * f_i < 1.0):
            r = 0.0
        g += r
    return g, r


def _step_loop(W, S, Y, gamma_A, gamma_I, hinge, Ldata, Lindices, Lindptr, csr, m, q, gradient,  # pragma: no cover
               g_low):
    """Steps 1-2 of a PCG iteration, column by column: ``f_d = K d_α + d_b`` and ``L f_d`` (when
    ``csr``; otherwise the caller filled both planes), the line-search coefficients in the same
    pass, the exact line search, and the move ``z ← z + s d`` with f and L f updated alongside;
    if ``gradient``, the new gradient (as :func:`_gradient_loop`, ``g_low`` included) in the same
    pass as the move. Returns the pieces examined."""
    n, C = W.shape[1], W.shape[2]
    l = Y.shape[0]
    alpha, f, Lf, d_a, Kd = W[_ALPHA], W[_F], W[_LF], W[_DA], W[_KD]
    g_a, g_a_old, fd, Lfd = W[_GA], W[_GA_OLD], W[_FD], W[_LFD]
    pieces = 0
    for c in range(C):
        d_b = S[_DB, c]
        b = S[_B, c]
        if csr:
            for i in range(n):
                fd[i, c] = Kd[i, c] + d_b
        ka_d = 0.0
        fd_lf = 0.0
        d_kd = 0.0
        fd_lfd = 0.0
        for i in range(n):
            if csr:
                # row i of the CSR product, summed in storage order as SciPy's csr_matvec does;
                # unsigned indices spare the negative-index check on every gather
                acc = 0.0
                for jj in range(np.uint64(Lindptr[i]), np.uint64(Lindptr[i + 1])):
                    acc += Ldata[jj] * fd[np.uint64(Lindices[jj]), c]
                Lfd[i, c] = acc
            ka_d += (f[i, c] - b) * d_a[i, c]
            fd_lf += fd[i, c] * Lf[i, c]
            d_kd += d_a[i, c] * Kd[i, c]
            fd_lfd += fd[i, c] * Lfd[i, c]
        c0 = gamma_A * ka_d + gamma_I * fd_lf
        c1 = gamma_A * d_kd + gamma_I * fd_lfd
        for i in range(l):
            m[i] = 1.0 - Y[i, c] * f[i, c]
            q[i] = Y[i, c] * fd[i, c]
        s, p = _line_search_kernel(m, q, c0, c1, hinge)
        pieces += p
        S[_STEP, c] = s
        S[_B, c] = b + s * d_b
        if not gradient:
            for i in range(n):
                alpha[i, c] += s * d_a[i, c]
                f[i, c] += s * fd[i, c]
                Lf[i, c] += s * Lfd[i, c]
            continue
        S[_GB_OLD, c] = S[_GB, c]
        res_sum = 0.0
        lf_sum = 0.0
        for i in range(n):
            alpha[i, c] += s * d_a[i, c]
            f[i, c] += s * fd[i, c]
            Lf[i, c] += s * Lfd[i, c]
            g_a_old[i, c] = g_a[i, c]
            g, r = _gradient_entry_kernel(alpha[i, c], f[i, c], Lf[i, c], Y[i, c] if i < l else 0.0, i < l,
                                          gamma_A, gamma_I, hinge)
            res_sum += r
            g_a[i, c] = g
            g_low[i, c] = g
            lf_sum += Lf[i, c]
        S[_GB, c] = res_sum + gamma_I * lf_sum
    return pieces


def _gradient_loop(W, S, Y, gamma_A, gamma_I, hinge, g_low):  # pragma: no cover - compiled
    """Step 3 without the product by K: keep ``∇̂`` as ``∇̂_old`` and compute the new one
    (:func:`preconditioned_gradient`) into the ``_GA`` plane and the ``_GB`` row."""
    n, C = W.shape[1], W.shape[2]
    l = Y.shape[0]
    alpha, f, Lf, g_a, g_a_old = W[_ALPHA], W[_F], W[_LF], W[_GA], W[_GA_OLD]
    for c in range(C):
        S[_GB_OLD, c] = S[_GB, c]
        res_sum = 0.0
        lf_sum = 0.0
        for i in range(n):
            g_a_old[i, c] = g_a[i, c]
            g, r = _gradient_entry_kernel(alpha[i, c], f[i, c], Lf[i, c], Y[i, c] if i < l else 0.0, i < l,
                                          gamma_A, gamma_I, hinge)
            res_sum += r
            g_a[i, c] = g
            g_low[i, c] = g                                # the operand of K ∇̂_α, in K's precision
            lf_sum += Lf[i, c]
        S[_GB, c] = res_sum + gamma_I * lf_sum


def _direction_loop(W, S, Kg, Kp, Y, gamma_A, gamma_I, hinge, out):  # pragma: no cover - compiled
    """Steps 4-5 given the true gradient ``Kg = ∇_α = K ∇̂_α`` (float64 or float32), the
    preconditioned gradient ``p`` (``p_α`` in the ``_GA`` plane, ``p_b`` in the ``_PB`` row) and
    ``Kp = K p_α``: Polak-Ribière ρ with restart, the new direction with the descent safeguard,
    and the iteration's record: ``out = [objective (sum over columns), ||∇||, ||p||, sqrt(pᵀ∇),
    restarts, mean step]``. With the paper's ``P = diag(1, K)``, ``p = ∇̂`` and ``Kp`` is ``Kg``."""
    n, C = W.shape[1], W.shape[2]
    l = Y.shape[0]
    alpha, f, Lf, d_a, Kd, g_a, g_a_old = W[_ALPHA], W[_F], W[_LF], W[_DA], W[_KD], W[_GA], W[_GA_OLD]
    gb2 = 0.0
    kg2 = 0.0
    ga2 = 0.0
    gakg = 0.0
    restarts = 0
    obj = 0.0
    step_sum = 0.0
    for c in range(C):
        g_b = S[_GB, c]
        p_b = S[_PB, c]
        b = S[_B, c]
        ga_kg = 0.0
        kg_gao = 0.0
        ga_sq = 0.0
        kg_sq = 0.0
        a_ka = 0.0
        f_lf = 0.0
        for i in range(n):
            kg = np.float64(Kg[i, c])                      # float64 also for a float32 kernel
            ga_kg += g_a[i, c] * kg
            kg_gao += kg * g_a_old[i, c]
            ga_sq += g_a[i, c] * g_a[i, c]
            kg_sq += kg * kg
            a_ka += alpha[i, c] * (f[i, c] - b)
            f_lf += f[i, c] * Lf[i, c]
        denom = g_b * p_b + ga_kg                          # ∇ᵀp
        num = denom - (g_b * S[_PB_OLD, c] + kg_gao)
        rho = 0.0
        if S[_DENOM_OLD, c] > 0:
            rho = num / S[_DENOM_OLD, c]
            if rho < 0.0:
                rho = 0.0
        if rho == 0.0:
            restarts += 1
        S[_DENOM_OLD, c] = denom
        d_b = -p_b + rho * S[_DB, c]
        slope0 = 0.0
        for i in range(n):
            d_a[i, c] = -g_a[i, c] + rho * d_a[i, c]
            Kd[i, c] = -Kp[i, c] + rho * Kd[i, c]
            slope0 += Kg[i, c] * d_a[i, c]
        slope0 = g_b * d_b + slope0
        if slope0 >= 0:                                    # not a descent direction: restart on -p
            d_b = -p_b
            for i in range(n):
                d_a[i, c] = -g_a[i, c]
                Kd[i, c] = -Kp[i, c]
        S[_DB, c] = d_b
        # norms and objective (eq. 7) at the current point
        loss = 0.0
        for i in range(l):
            mi = 1.0 - Y[i, c] * f[i, c]
            if hinge:
                mi = max(mi, 0.0)
            loss += mi * mi
        gb2 += g_b * g_b
        kg2 += kg_sq
        ga2 += ga_sq
        gakg += ga_kg
        obj += 0.5 * (loss + gamma_A * a_ka + gamma_I * f_lf)
        step_sum += S[_STEP, c]
    out[0] = obj
    out[1] = np.sqrt(gb2 + kg2)
    out[2] = np.sqrt(gb2 + ga2)
    out[3] = np.sqrt(max(gb2 + gakg, 0.0))
    out[4] = restarts
    out[5] = step_sum / C


#: The line search and the gradient entry as the loops call them; rebound to compiled code by _kernels().
_line_search_kernel = _line_search_loop
_gradient_entry_kernel = _gradient_entry
_KERNELS = None


def _kernels():
    """The compiled loops (numba, cached on disk; the first call in a fresh environment compiles)."""
    global _KERNELS, _line_search_kernel, _gradient_entry_kernel
    if _KERNELS is None:
        from types import SimpleNamespace

        from toolkit._numba_cache import njit
        jit = njit(cache=True, nogil=True)
        _line_search_kernel = jit(_line_search_loop)
        _gradient_entry_kernel = njit(cache=True, nogil=True, inline="always")(_gradient_entry)
        _KERNELS = SimpleNamespace(line_search=_line_search_kernel, step=jit(_step_loop),
                                   gradient=jit(_gradient_loop), direction=jit(_direction_loop))
    return _KERNELS


_WARM = set()


def warm_up(dtype, L, hinge):
    """Load (or compile) the compiled loops for this kind of problem once per process, outside any
    timed solve: a 4-point PCG with the same kernel dtype, the same kind of ``L`` (CSR, dense or
    operator) and the same loss. Returns the seconds it took (0 when already warm).

    The first solve in a fresh process otherwise pays the loading of numba's cached machine code,
    many times a small solve, which would be reported as solve time."""
    import time

    import scipy.sparse as sp
    from scipy.sparse.linalg import LinearOperator, aslinearoperator

    kind = "sparse" if sp.issparse(L) else "operator" if isinstance(L, LinearOperator) else "dense"
    key = (np.dtype(dtype).name, kind, bool(hinge))
    if key in _WARM:
        return 0.0
    start = time.perf_counter()
    path = sp.csr_matrix(np.array([[1.0, -1, 0, 0], [-1, 2, -1, 0], [0, -1, 2, -1], [0, 0, -1, 1]]))
    small_L = path if kind == "sparse" else aslinearoperator(path) if kind == "operator" else path.toarray()
    pcg(np.eye(4, dtype=dtype), small_L, np.array([[1.0], [-1.0]]), 1e-2, 1e-2, hinge=hinge, tol=0.0, max_iter=2,
        dtype=np.dtype(dtype).type)
    _WARM.add(key)
    return time.perf_counter() - start


def decisions_of(F):
    """Decisions from the outputs: ``sign f`` for one column, the arg-max class index otherwise."""
    if F.shape[1] == 1:
        return np.where(F[:, 0] >= 0, 1, -1)
    return np.argmax(F, axis=1)


def _errors(F, target):
    """Error rate of the outputs F against target decisions (±1 for C = 1, class index otherwise)."""
    return float(np.mean(decisions_of(F) != target)) if len(target) else 0.0


def run_monitors(monitors, progress, checks, *, error_U, with_validation):
    """Let every due rule look at ``progress``; record each check in ``checks`` (the history's
    ``check_*`` columns; ``check_error_U`` and ``check_error_V`` in percent, as every error the toolkit
    reports, while the rules read the rate ``progress.validation_error``). Returns ``(StopEvent,
    EARLY_STOP, detail)`` for the first rule that fired, else None. ``error_U``: a callable giving the
    error rate on U (``y_unlabeled`` given) or None."""
    fired = None
    t = progress.iteration
    for mon in monitors:
        chk = mon.check(progress)
        if chk is None:
            continue
        for key, value in (("iteration", t), ("rule", chk.rule), ("value", chk.value), ("threshold", chk.threshold),
                           ("stop", chk.stop)):
            checks[key].append(value)
        checks["error_U"].append(np.nan if error_U is None else 100.0 * error_U())
        checks["error_V"].append(100.0 * progress.validation_error if with_validation else np.nan)
        if chk.stop and fired is None:
            fired = chk
    if fired is None:
        return None
    return (StopEvent(fired.rule, t, fired.value, fired.threshold), EARLY_STOP,
            f"{fired.rule} rule at iteration {t} ({fired.value:.4g} vs {fired.threshold:.4g})")


# ------------------------------------------------------------------------------ callbacks
def _squeeze(a):
    """One column as the public results show it: ``(n,)`` arrays and float scalars for C = 1."""
    a = np.asarray(a)
    if a.shape[-1] != 1:
        return a
    return float(a[0]) if a.ndim == 1 else a[:, 0]


def _pcg_report(t, alpha, b, f, l, objective, grad_norm, pgrad_norm, mixed, step, validation):
    """The :class:`~toolkit._contract.IntermediateResult` of PCG iteration ``t``.

    ``x`` and ``alpha``: α (``(n,)`` for two classes, ``(n, C)`` one-vs-all), ``b``, ``objective``
    (eq. 7 summed over the columns), ``grad_norm`` ``||∇||``, ``pgrad_norm`` ``||∇̂||``,
    ``mixed_product`` ``sqrt(∇̂ᵀ∇)``, ``step`` (mean line-search step), ``decisions`` on the
    unlabelled points and, with a validation set, ``validation_error`` (the error rate in [0, 1] that
    Melacci & Belkin's validation check compares with ``1/|V|``; both computed on access),
    ``n_samples`` and ``n_validation`` (the sizes the rules' default constants use).
    """
    alpha, b, f_u = alpha.copy(), b.copy(), f[l:].copy()
    extras = dict(alpha=_squeeze(alpha), b=_squeeze(b), grad_norm=grad_norm, pgrad_norm=pgrad_norm,
                  mixed_product=mixed, step=step, decisions=lazy(lambda: decisions_of(f_u)),
                  n_samples=alpha.shape[0])
    if validation is not None:
        extras["validation_error"] = lazy(lambda: _errors(validation[0] @ alpha + b, validation[1]))
        extras["n_validation"] = len(validation[1])
    return IntermediateResult(t, extras["alpha"], objective, **extras)


# ------------------------------------------------------------------------------ PCG
def pcg(K, L, Y, gamma_A, gamma_I, *, hinge=True, tol=1e-6, max_iter=1000, alpha0=None, b0=None,
        monitors=(), callback=None, validation=None, unlabeled_truth=None, dtype=np.float64, coarse=None,
        intercept=True, product_threads=None, switch=None):
    """Algorithm 1 (PCG with P = diag(1, K), Polak-Ribière with restart, exact line search).

    One product ``K @ (n × C)`` per iteration: ``K ∇̂_α`` (needed for ``∇ = P ∇̂``); ``K d`` follows
    from ``d_t = -∇̂_t + ρ d_{t-1}`` as ``K d_t = -K ∇̂_t + ρ K d_{t-1}``, and ``f`` is updated as
    ``f ← f + s (K d_α + d_b)``. ``L`` enters through one sparse product ``L f_d`` per iteration.
    Everything else is O(n) and runs in compiled loops (:func:`_step_loop`, :func:`_direction_loop`)
    on preallocated state (:func:`_pcg_start`), so that an iteration costs little more than its
    product with K, which reads only the upper triangle of the symmetric K (:func:`symmetric_product`).
    After each iteration the goal conditions are checked in order: a non-finite objective
    (breakdown), the early-stopping rules and the callback (:func:`_watch`), then optimality
    (:func:`_converged`).

    ``validation`` is ``(K_V, target)`` with ``K_V`` of shape ``(|V|, n)``; ``unlabeled_truth`` the
    true decisions on U (history only). ``intercept=False`` fixes ``b = 0``: the bias component of
    every gradient is zeroed, so ``p_b = d_b = 0`` (the iteration runs in the α-subspace).
    ``product_threads``: BLAS threads for the products by K alone (:func:`symmetric_product`).
    ``switch``: ``(t_s, make_coarse)``: without ``coarse``, after ``t_s`` iterations that did not stop,
    the coarse correction ``make_coarse()`` is added to the preconditioner from then on
    (:func:`_switch_preconditioner`); ``switched_at`` of the result is then ``t_s + 1``.
    Returns an :class:`InnerResult` for the public wrapper.
    """
    n, C = K.shape[0], Y.shape[1]
    l = Y.shape[0]
    kern = _kernels()
    Y = np.ascontiguousarray(Y, dtype=np.float64)
    gamma_A, gamma_I, hinge = float(gamma_A), float(gamma_I), bool(hinge)
    # every product by K reads one triangle of it (symmetric_product; K is the symmetric training kernel)
    product = symmetric_product(K, product_threads)

    def matmul(A):
        return product(A, np.empty((n, A.shape[1]), dtype=K.dtype))
    # all state in two preallocated arrays, updated in place by the compiled loops
    W, S, n_products, cold = _pcg_start(n, C, alpha0, b0, matmul, L)
    alpha, f, Lf, Kd, g_a, fd, Lfd = W[_ALPHA], W[_F], W[_LF], W[_KD], W[_GA], W[_FD], W[_LFD]
    b = S[_B]
    csr, Ldata, Lindices, Lindptr = _csr_arrays(L)
    # the product by K, in place and in K's precision: the gradient loops also write ∇̂_α into
    # g_low (g_a itself for float64; rounded to float32 for a float32 kernel, as astype does), and
    # the direction loop reads K ∇̂_α back in float64
    g_low = g_a if dtype == np.float64 else np.empty((n, C), dtype=dtype)
    Kg = np.empty((n, C), dtype=np.result_type(K.dtype, g_low.dtype))
    Kp_coarse = None if coarse is None else np.empty((n, C))
    # iteration 0: ∇̂, K ∇̂, and d = -∇̂ (the direction loop with ρ = 0, as S[_DENOM_OLD] = 0 and
    # d = 0 so far), which also gives the objective and the norms at the starting point
    rec = np.zeros(6)
    kern.gradient(W, S, Y, gamma_A, gamma_I, hinge, g_low)
    if not intercept:
        S[_GB] = 0.0
    product(g_low, Kg)
    n_products += 1
    Kp = _precondition(W, S, Kg, Y, coarse, Kp_coarse)
    kern.direction(W, S, Kg, Kp, Y, gamma_A, gamma_I, hinge, rec)
    obj0, *gnorm0 = rec[:4].tolist()
    grad_zero = gnorm0[0] if cold else _gradient_at_zero(K, Y, intercept)
    # history: one tuple per iteration (objective, ||∇||, ||∇̂||, sqrt(∇̂ᵀ∇), mean step, line-search
    # pieces so far, restarts), turned into arrays at the end
    hist = [(obj0, gnorm0[0], gnorm0[1], gnorm0[2], 0.0, 0, 0)]
    watch = _watchers(monitors, gnorm0, callback, validation, unlabeled_truth)
    watching = bool(watch.monitors) or callback is not None
    status, detail, stop_event = MAX_ITER, None, None
    n_ls = 0
    t = 0
    switched_at = None
    if gnorm0[2] == 0.0 or gnorm0[0] <= tol * grad_zero:
        status, detail = CONVERGED, "the starting point is optimal within tol"
        max_iter_eff = 0
    else:
        max_iter_eff = max_iter
    m_buf, q_buf = np.empty(l), np.empty(l)
    tol_abs = tol * grad_zero
    step_kernel, gradient_kernel, direction_kernel = kern.step, kern.gradient, kern.direction
    for t in range(1, max_iter_eff + 1):
        # 1-2. exact line search along d, column by column, and the move z ← z + s d with f and
        # L f updated alongside (L(f + s f_d) = L f + s L f_d)
        if not csr:
            np.add(Kd, S[_DB], out=fd)
            Lfd[:] = L @ fd
        # 3. new preconditioned gradient (in the same call unless f is recomputed first), and the
        # true one: the iteration's product by K
        refresh = t % REFRESH_PERIOD == 0
        S[_PB_OLD] = S[_PB]
        n_ls += step_kernel(W, S, Y, gamma_A, gamma_I, hinge, Ldata, Lindices, Lindptr, csr, m_buf, q_buf,
                            not refresh, g_low)
        if refresh:
            f[:] = np.asarray(matmul(alpha), dtype=float) + b
            Lf[:] = L @ f
            n_products += 1
            gradient_kernel(W, S, Y, gamma_A, gamma_I, hinge, g_low)
        if not intercept:
            S[_GB] = 0.0
        product(g_low, Kg)
        n_products += 1
        if switch is not None and coarse is None and t == switch[0] + 1:
            coarse, Kp_coarse = _switch_preconditioner(switch[1], monitors, S, n)
            switched_at = t
        # 4. Polak-Ribière with automatic restart, descent safeguard; norms and objective
        Kp = _precondition(W, S, Kg, Y, coarse, Kp_coarse)
        direction_kernel(W, S, Kg, Kp, Y, gamma_A, gamma_I, hinge, rec)
        obj, grad_norm, pgrad_norm, mixed, restarts, step = rec.tolist()
        hist.append((obj, grad_norm, pgrad_norm, mixed, step, n_ls, int(restarts)))
        # 5. goal conditions: breakdown, early-stopping rules and the callback (when there are any), optimality
        if not math.isfinite(obj):
            status, detail = BREAKDOWN, (f"the objective became {obj} at iteration {t} (overflow or a kernel "
                                         "that is not positive semi-definite)")
            break
        stop = _watch(watch, t, obj, grad_norm, pgrad_norm, mixed, step, alpha, b, f, l) if watching else None
        if stop is None:
            stop = _converged(t, obj, grad_norm, hist, tol, tol_abs, grad_zero)
        if stop is not None:
            status, detail, stop_event = stop
            break
    else:
        if status == MAX_ITER:
            status, detail = MAX_ITER, (f"max_iter={max_iter} iterations, ||grad|| / ||grad(0)|| = "
                                        f"{hist[-1][1] / grad_zero:.3g} > tol = {tol:g}")
    alpha, b, f, obj = _final_point(alpha, b, matmul, L, Y, gamma_A, gamma_I, hinge)
    n_products += 1
    return InnerResult(alpha=alpha, b=b, objective=obj, f=f, n_iter=t if max_iter_eff else 0,
                       n_line_search=int(n_ls), status=status, detail=detail, stop_event=stop_event,
                       history=_pcg_history(hist, watch.checks), n_kernel_products=n_products, fallbacks=(),
                       max_iter=max_iter, switched_at=switched_at, coarse=coarse)


class _PcgStart(NamedTuple):
    """PCG's preallocated state at the start (:func:`_pcg_start`): the planes ``W`` (``_ALPHA``,
    ``_F``, ...; each ``(n, C)``) and rows ``S`` (``_B``, ``_GB``, ...; each ``(C,)``), the products
    by K spent so far, and whether the start is ``z = 0``."""

    W: np.ndarray
    S: np.ndarray
    n_products: int
    cold: bool


def _pcg_start(n, C, alpha0, b0, matmul, L):
    """PCG's state, every plane and row zero but ``z₀ = [b₀, α₀]`` (when given), ``f = K α₀ + b₀``
    and ``L f`` (one product by K unless ``α₀ = 0``; none of ``L`` for a cold start, where
    ``f = 0``). Returns a :class:`_PcgStart`."""
    W = np.zeros((9, n, C))
    S = np.zeros((8, C))
    alpha, f, Lf, b = W[_ALPHA], W[_F], W[_LF], S[_B]
    if alpha0 is not None:
        alpha[:] = np.asarray(alpha0, dtype=float).reshape(n, C)
    if b0 is not None:
        b[:] = np.asarray(b0, dtype=float).reshape(C)
    n_products = 0
    cold = not (np.any(alpha) or np.any(b))                # z = 0: f = 0 and L f = 0
    if np.any(alpha):
        f[:] = np.asarray(matmul(alpha), dtype=float) + b
        n_products += 1
    else:
        f[:] = b
    if not cold:
        Lf[:] = L @ f
    return _PcgStart(W, S, n_products, cold)


def _csr_arrays(L):
    """``(csr, data, indices, indptr)``: for a sparse ``L`` (any scipy format, read as CSR once) its
    CSR arrays, so that the compiled step forms ``L f_d`` itself; otherwise ``csr`` is False and
    the arrays are empty (the caller forms ``L f_d``)."""
    if sp.issparse(L):
        Lc = L.tocsr()
        return True, np.ascontiguousarray(Lc.data, dtype=np.float64), Lc.indices, Lc.indptr
    return False, np.zeros(0), np.zeros(0, dtype=np.int32), np.zeros(1, dtype=np.int32)


def _gradient_at_zero(K, Y, intercept):
    """``||∇||`` at ``z = 0``, ``[-1ᵀy, -K J_Lᵀ y]`` (no bias part without intercept): the scale of
    PCG's optimality test, so that ``tol`` means the same for cold and warm starts."""
    l = Y.shape[0]
    return np.sqrt((np.sum(Y.sum(axis=0) ** 2) if intercept else 0.0)
                   + np.sum(np.asarray(K[:, :l] @ Y.astype(K.dtype), dtype=float) ** 2))


def _precondition(W, S, Kg, Y, coarse, Kp_coarse):
    """The preconditioned gradient ``p`` and ``K p_α``: the paper's ``p = ∇̂`` (``P = diag(1, K)``,
    ``K p_α = K ∇̂_α`` is ``Kg``), plus the coarse correction of the two-level preconditioner when
    ``coarse`` is given (see ``TwoLevel``), ``p_α = ∇̂_α + S_Z T c_β`` in the ``_GA`` plane and
    ``K p_α = K ∇̂_α + K_XZ T c_β`` in ``Kp_coarse``. ``p_b`` goes to the ``_PB`` row; returns ``K p_α``."""
    if coarse is None:
        S[_PB] = S[_GB]
        return Kg
    l = Y.shape[0]
    correction = coarse.solve(S[_GB], Kg, W[_F][:l], Y)      # (k+1, C): [c_b; c_β]
    S[_PB] = S[_GB] + correction[0]
    W[_GA][coarse.index] += coarse.T @ correction[1:]
    np.add(Kg, coarse.Phi @ correction[1:], out=Kp_coarse)
    return Kp_coarse


def _switch_preconditioner(make_coarse, monitors, S, n):
    """Add the coarse correction ``make_coarse()`` to the preconditioner from this iteration on: the
    direction restarts on the new preconditioned gradient (``ρ = 0``), and rules of the default
    period check from then on as with the two-level preconditioner, every ``√(k+1) / 2`` iterations
    (k the coarse rank). Returns the coarse space and the buffer for ``K p_α``."""
    coarse = make_coarse()
    S[_DENOM_OLD] = 0.0
    for mon in monitors:
        if getattr(mon.rule, "period", 0) is None:
            mon.period = default_period(coarse.rule_samples)
    return coarse, np.empty((n, S.shape[1]))


@dataclasses.dataclass(frozen=True)
class _Watchers:
    """What looks at PCG's iterations besides the optimality test: the early-stopping monitors and
    their ``due`` methods, the table of their checks (the history's ``check_*`` columns, filled in
    place), the callback, and what the rules may read: ``validation`` ``(K_V, target)`` and the true
    decisions on U."""

    monitors: tuple
    due: tuple
    checks: dict
    callback: object
    validation: object
    unlabeled_truth: object


def _watchers(monitors, gnorm0, callback, validation, unlabeled_truth):
    """The :class:`_Watchers` of a PCG run, after the classic rules (those with a ``start``) have taken
    their scale from iteration 0: ``||∇||``, ``||∇̂||`` or ``sqrt(∇̂ᵀ∇)`` there (``gnorm0``)."""
    for mon in monitors:
        if hasattr(mon.rule, "start"):
            mon.rule.start(mon, {"gradient": gnorm0[0], "preconditioned_gradient": gnorm0[1],
                                 "mixed_product": gnorm0[2]}[mon.rule.name])
    return _Watchers(tuple(monitors), tuple(mon.due for mon in monitors),
                     {k: [] for k in ("iteration", "rule", "value", "threshold", "stop", "error_U", "error_V")},
                     callback, validation, unlabeled_truth)


def _watch(watch, t, obj, grad_norm, pgrad_norm, mixed, step, alpha, b, f, l):
    """The early-stopping rules due at iteration ``t`` (their :class:`~toolkit.early_stopping.Progress`
    built only then, decisions and errors computed on access), then the callback, which sees every
    iteration (as in scipy.optimize: before the optimality test). Returns ``(status, detail,
    stop_event)`` when one of them stops the solver, else None."""
    if watch.monitors and any(due(t) for due in watch.due):
        validation, truth = watch.validation, watch.unlabeled_truth
        progress = Progress(
            t, objective=obj, grad_norm=grad_norm, pgrad_norm=pgrad_norm,
            mixed_product=mixed, decisions=lambda: decisions_of(f[l:]),
            validation_error=(None if validation is None else
                              (lambda: _errors(validation[0] @ alpha + b, validation[1]))))
        fired = run_monitors(watch.monitors, progress, watch.checks,
                             error_U=None if truth is None else (lambda: _errors(f[l:], truth)),
                             with_validation=validation is not None)
        if fired is not None:
            stop_event, status, detail = fired
            return status, detail, stop_event
    if watch.callback is not None:
        report = _pcg_report(t, alpha, b, f, l, obj, grad_norm, pgrad_norm, mixed, step, watch.validation)
        stop = run_callback(watch.callback, report, f"iteration {t}")
        if stop is not None:
            return stop.status, stop.detail, stop.event
    return None


def _converged(t, obj, grad_norm, hist, tol, tol_abs, grad_zero):
    """PCG's optimality test at iteration ``t``: ``||∇|| <= tol ||∇(0)||`` (``tol_abs``), or an
    objective that has not decreased beyond round-off (``8 ε |obj|``) over ``STALL_WINDOW``
    iterations, where the gradient can no longer be reduced in floating point. Returns
    ``(CONVERGED, detail, None)`` or None."""
    if grad_norm <= tol_abs:
        return CONVERGED, f"||grad|| / ||grad(0)|| = {grad_norm / grad_zero:.3g} <= tol = {tol:g}", None
    if t > STALL_WINDOW and hist[-STALL_WINDOW - 1][0] - obj <= 8 * _EPS * abs(obj):
        return CONVERGED, (f"the objective did not decrease over {STALL_WINDOW} iterations (round-off "
                           f"level; ||grad|| / ||grad(0)|| = {grad_norm / grad_zero:.3g}, tol = {tol:g})"), None
    return None


def _final_point(alpha, b, matmul, L, Y, gamma_A, gamma_I, hinge):
    """The point PCG returns: copies of ``(α, b)``, ``f = K α + b`` recomputed from scratch (one
    product by K) and the objective of eq. (7) there, per column, so that the reported objective
    is that of the returned point and not of the recursively updated ``f``."""
    alpha, b = alpha.copy(), b.copy()
    f = np.asarray(matmul(alpha), dtype=float) + b
    return alpha, b, f, objective(alpha, b, f, L @ f, Y, gamma_A, gamma_I, hinge)


def _pcg_history(hist, checks):
    """PCG's ``history``: the per-iteration tuples as arrays (``objective``, ``grad_norm``,
    ``pgrad_norm``, ``mixed_product``, ``step``, ``line_search_iters``, ``restarts``) and the
    early-stopping checks as ``check_*`` arrays."""
    columns = list(zip(*hist))
    history = {k: np.asarray(v, dtype=dt) for k, v, dt in zip(
        ("objective", "grad_norm", "pgrad_norm", "mixed_product", "step", "line_search_iters", "restarts"),
        columns, (float, float, float, float, float, int, int))}
    return {**history, **{"check_" + k: np.asarray(v) for k, v in checks.items()}}


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


def _solve_or_lstsq(A, rhs, what, fallbacks):
    """``A z = rhs`` by LU; a singular ``A`` (LU breaks down) is solved by least squares instead,
    and the fallback is appended to ``fallbacks`` (never silent). Returns ``(z, used_lstsq)``."""
    try:
        return sla.solve(A, rhs, check_finite=False), False
    except (sla.LinAlgError, ValueError):
        z, _, rank, _ = sla.lstsq(A, rhs, check_finite=False)
        fallbacks.append(f"{what}: the matrix is singular (rank {rank} of {A.shape[0]}); solved by least "
                         "squares (scipy.linalg.lstsq, minimum-norm solution)")
        return z, True


def _column_objective(alpha_c, b_c, f, Lf, y, gamma_A, gamma_I, hinge):
    """eq. (7) (or LapRLSC's objective) of one column from ``f = K α + b`` and ``L f``."""
    l = y.shape[0]
    loss = loss_terms(1.0 - y * f[:l], hinge).sum()
    return float(0.5 * (loss + gamma_A * alpha_c @ (f - b_c) + gamma_I * f @ Lf))


def _newton_report(n_steps, alpha, b, objective, **extras):
    """The :class:`~toolkit._contract.IntermediateResult` of a Newton step (or the direct solve):
    ``x`` and ``alpha``, ``b``, ``objective`` of the column just updated, and ``column``, ``step``
    (the line-search step, 1 for a full Newton step), ``n_error_vectors``, ``n_samples``."""
    a = _squeeze(alpha.copy())
    return IntermediateResult(n_steps, a, objective, alpha=a, b=_squeeze(b.copy()), n_samples=alpha.shape[0],
                              **extras)


def _solve_system(A, rhs, what, fallbacks, intercept):
    """The Newton / eq. (14) system in ``[b; α]``; without intercept its first row and column are
    dropped and ``b = 0``."""
    if intercept:
        return _solve_or_lstsq(A, rhs, what, fallbacks)
    z_alpha, used = _solve_or_lstsq(A[1:, 1:], rhs[1:], what, fallbacks)
    return np.concatenate([np.zeros((1,) + rhs.shape[1:]), np.reshape(z_alpha, (-1,) + rhs.shape[1:])]), used


def _direct_squared(K, L, Y, gamma_A, gamma_I, base, top_base, L1, callback=None, intercept=True):
    """LapRLSC, eq. (14): one LU factorisation shared by all C right-hand sides (one-vs-all)."""
    n, C = K.shape[0], Y.shape[1]
    l = Y.shape[0]
    idx = np.arange(l)
    A = _system(K, idx, base, top_base, L1, gamma_I)
    rhs = np.zeros((n + 1, C))
    rhs[0] = Y.sum(axis=0)
    rhs[1:l + 1] = Y
    fallbacks = []
    z, used_lstsq = _solve_system(A, rhs, "the system of eq. (14)", fallbacks, intercept)
    b, alpha = z[0].copy(), np.ascontiguousarray(z[1:])
    f = K @ alpha + b
    obj = objective(alpha, b, f, L @ f, Y, gamma_A, gamma_I, False)
    status, detail, stop_event = CONVERGED, "direct solve of eq. (14)" + (
        " by least squares (singular system)" if used_lstsq else ""), None
    if callback is not None:
        stop = run_callback(callback, _newton_report(1, alpha, b, float(obj.sum()), column=None, step=1.0,
                                                     n_error_vectors=l), "iteration 1 (the direct solve)")
        if stop is not None:
            status, detail, stop_event = stop.status, stop.detail, stop.event
    # α = 0, b = 0 gives every margin 1: the objective there is l / 2 per column
    history = {"objective": np.asarray([0.5 * l * C, float(obj.sum())]), "lstsq": np.array([False, used_lstsq]),
               "newton_steps": np.ones(C, dtype=int)}
    return InnerResult(alpha=alpha, b=b, objective=obj, f=f, n_iter=1, n_line_search=0, status=status,
                       detail=detail, stop_event=stop_event, history=history, n_kernel_products=0,
                       fallbacks=tuple(fallbacks), max_iter=1)


def newton(K, L, Y, gamma_A, gamma_I, *, hinge=True, max_iter=50, alpha0=None, b0=None, callback=None,
           line_search=True, intercept=True):
    """Newton's method, eq. (8)-(10), one column at a time; ``hinge=False`` is LapRLSC's direct solve.

    Each step solves ``Ĥ_E z = ĉ_E`` (the system of eq. 11 with ``P = diag(1, K)`` factored out
    of the α rows, eq. 12),

        [ |E| + γ_I 1ᵀL1      1ᵀ I_E K + γ_I 1ᵀ L K     ] [b]   [1ᵀ I_E y]
        [ I_E 1 + γ_I L 1     I_E K + γ_A I + γ_I L K   ] [α] = [  I_E y ],

    by a dense LU factorisation (O(n³)), then takes the exact line-search step towards its
    solution, or with ``line_search=False`` the full step s = 1 (the paper's experiments). Converged when the error-vector set E no longer changes after a
    full step. For the squared loss E is all labelled points and one step solves eq. (14).
    A singular system (LU breaks down, e.g. γ_A = 0 with a singular kernel) is solved by least
    squares; every such step is listed in ``fallbacks`` and flagged in ``history["lstsq"]``.
    ``intercept=False`` fixes ``b = 0`` (the system's first row and column are dropped).

    ``history`` has one entry per column start and per step: ``objective`` (of the column being
    solved), ``column``, ``step`` (NaN at a column start), ``n_error_vectors``, ``lstsq``; and
    ``newton_steps`` per column. The callback's ``n_iter`` counts steps over all columns.
    """
    n, C = K.shape[0], Y.shape[1]
    l = Y.shape[0]
    LK = _dense_LK(L, K)
    L1 = np.asarray(L @ np.ones(n)).ravel()
    base = gamma_I * LK
    base[np.diag_indices(n)] += gamma_A
    top_base = gamma_I * (K @ L1)                          # 1ᵀ L K = (K L 1)ᵀ, L and K symmetric
    if not hinge:
        return _direct_squared(K, L, Y, gamma_A, gamma_I, base, top_base, L1, callback, intercept)
    alpha = np.zeros((n, C)) if alpha0 is None else np.array(alpha0, dtype=float).reshape(n, C)
    b = np.zeros(C) if b0 is None else np.array(b0, dtype=float).reshape(C)
    n_iter = np.zeros(C, dtype=int)
    status, detail, stop_event = CONVERGED, "the error-vector set no longer changes after a full Newton step", None
    n_ls = 0
    n_steps = 0
    fallbacks = []
    unfinished = []                                        # (column, points that changed side at the last step)
    hist = {k: [] for k in ("objective", "column", "step", "n_error_vectors", "lstsq")}

    def record(c, obj_c, s, n_err, lstsq):
        for key, value in zip(hist, (obj_c, c, s, n_err, lstsq)):
            hist[key].append(value)

    for c in range(C):
        y = Y[:, c]
        f = K @ alpha[:, c] + b[c]
        E = y * f[:l] < 1.0
        record(c, _column_objective(alpha[:, c], b[c], f, L @ f, y, gamma_A, gamma_I, True), np.nan,
               int(E.sum()), False)
        changed = 0
        for t in range(1, max_iter + 1):
            idx = np.flatnonzero(E)
            A = _system(K, idx, base, top_base, L1, gamma_I)
            rhs = np.zeros(n + 1)
            rhs[0] = y[idx].sum()
            rhs[1 + idx] = y[idx]
            where = f"Newton step {t}" + (f" of column {c}" if C > 1 else "")
            z, used_lstsq = _solve_system(A, rhs, where + " (eq. 11)", fallbacks, intercept)
            d_b, d_a = z[0] - b[c], z[1:] - alpha[:, c]
            fd = K @ d_a + d_b
            Lf, Lfd = L @ f, L @ fd                        # for the line search and the objective
            c0 = gamma_A * (f - b[c]) @ d_a + gamma_I * fd @ Lf
            c1 = gamma_A * d_a @ (fd - d_b) + gamma_I * fd @ Lfd
            if line_search:
                s, pieces = exact_line_search(1.0 - y * f[:l], y * fd[:l], c0, c1, True)
                n_ls += pieces
                s = 1.0 if abs(s - 1.0) < 1e-10 else s
            else:
                s = 1.0
            alpha[:, c] += s * d_a
            b[c] += s * d_b
            f = f + s * fd
            n_iter[c] = t
            n_steps += 1
            E_new = y * f[:l] < 1.0
            obj_c = _column_objective(alpha[:, c], b[c], f, Lf + s * Lfd, y, gamma_A, gamma_I, True)
            record(c, obj_c, s, int(E_new.sum()), used_lstsq)
            if callback is not None:
                stop = run_callback(callback, _newton_report(n_steps, alpha, b, obj_c, column=c, step=s,
                                                             n_error_vectors=int(E_new.sum())), where)
                if stop is not None:
                    status, detail, stop_event = stop.status, stop.detail, stop.event
                    break
            if s == 1.0 and np.array_equal(E_new, E):
                break
            if s == 0.0 and np.array_equal(E_new, E):
                break                                      # no descent possible: at the optimum
            changed = int(np.sum(E_new != E))
            E = E_new
        else:
            unfinished.append((c, changed))
        if status != CONVERGED:                           # the callback stopped
            break
    if unfinished and status == CONVERGED:
        cols = ", ".join(f"{c} ({k} changed)" if C > 1 else f"{k} labelled points changed side at the last step"
                         for c, k in unfinished)
        status, detail = MAX_ITER, (f"max_iter={max_iter} Newton steps without a fixed error-vector set ("
                                    + ("columns " if C > 1 else "") + cols + ")")
    f = K @ alpha + b
    Lf = L @ f
    obj = objective(alpha, b, f, Lf, Y, gamma_A, gamma_I, True)
    history = {k: np.asarray(v, dtype=dt) for (k, v), dt in zip(hist.items(), (float, int, float, int, bool))}
    history["newton_steps"] = n_iter.copy()
    return InnerResult(alpha=alpha, b=b, objective=obj, f=f, n_iter=int(n_iter.max()), n_line_search=n_ls,
                       status=status, detail=detail, stop_event=stop_event, history=history,
                       n_kernel_products=0, fallbacks=tuple(fallbacks), max_iter=max_iter)
