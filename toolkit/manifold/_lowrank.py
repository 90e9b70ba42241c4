"""Low-rank (reduced expansion) LapSVM / LapRLSC: eq. (7) restricted to ``r`` basis points.

The expansion ``f(x) = Σ_{j ≤ r} w_j k(x, z_j) + b`` over basis points ``z_1 … z_r`` drawn from the
training points (Nyström's reduced set; Belkin, Niyogi & Sindhwani 2006 §4.3 for manifold
regularisation, Rudi, Carratino & Rosasco 2017 for kernel ridge regression) turns eq. (7) into a
problem in ``r + 1`` unknowns ``θ = [b, w]``. With ``Φ = [1, K_{XZ}]`` (n × (r+1)) the objective is

    obj(θ) = ½ ( Σ_{i ≤ l} ℓ(1 − y_i φ_iᵀθ) + θᵀ G θ ),   G = γ_I Φᵀ L Φ + diag(0, γ_A K_ZZ),

with ``ℓ(m) = max(m, 0)²`` (LapSVM) or ``m²`` (LapRLSC). ``G`` is formed once, the Laplacian applied
as a sparse operator to ``Φ`` in row blocks: O(nnz(L) r + n r²) work and O(n r) memory, no n × n
matrix anywhere. Afterwards an iteration costs O(r² + l r): only the ``l`` labelled rows of ``Φ``
enter the loss. The unlabelled rows are read again only when an early-stopping rule looks at the
decisions on U (O(n r) per check).

Two solvers, as for the full expansion:

* ``"newton"``: Chapelle's primal Newton on the squared hinge (Melacci & Belkin §3.1) in ``r + 1``
  dimensions: solve ``(G + Φ_Eᵀ Φ_E) θ = Φ_Eᵀ y_E`` on the error vectors ``E``, exact line search,
  until ``E`` no longer changes (finitely many steps); LapRLSC is one solve.
* ``"pcg"``: nonlinear conjugate gradient (Polak-Ribière with restart, exact line search, §3.2)
  preconditioned by the Cholesky factor of ``G + Φ_Lᵀ Φ_L`` -- the Hessian at ``θ = 0`` where every
  labelled point is an error vector. This is FALKON's preconditioner (the small centre system,
  Rudi et al. 2017) with the graph term and the squared hinge added; it makes the iteration count
  independent of n. The early-stopping rules of :mod:`toolkit.early_stopping` work unchanged.
"""
from __future__ import annotations

import math

import numpy as np
import scipy.linalg as sla

from toolkit._contract import (BREAKDOWN, CONVERGED, MAX_ITER, IntermediateResult, lazy,
                               run_callback)
from toolkit.early_stopping import Progress
from toolkit.training import graph_gram, nystrom_map
from toolkit.manifold._core import _errors, decisions_of, exact_line_search, loss_terms, run_monitors
from toolkit.manifold._core import InnerResult

__all__ = ["TwoLevel", "labeled_rows", "newton_reduced", "pcg_reduced"]


#: Columns of K per block when the two-level preconditioner forms Φ = K_XZ T (bounds the gathered block).
_BLOCK_COLUMNS = 2048


class TwoLevel:
    """The coarse correction of the exact PCG's two-level preconditioner.

    ``P⁻¹ = diag(1, K)⁻¹ + Z_c H_c⁻¹ Z_cᵀ``: the paper's preconditioner plus an exact solve on the
    coarse space ``Z_c`` of the bias and the Nyström directions ``α = S_Z T β`` over ``r`` centres
    (additive two-level / coarse-grid correction, as in domain decomposition; the centres and
    ``T`` as in :func:`toolkit.training.reduced_system`). ``H_c = Z_cᵀ H Z_c = G + Φ_Eᵀ Φ_E`` is eq. (7)'s Hessian
    on that space -- the low-rank model's system, refactored whenever the error vectors ``E``
    change. Label information then spreads over the whole graph in one iteration instead of
    one neighbourhood per iteration, so the iteration count stops growing with n. Cost: O(n k)
    per iteration besides the product by K (k <= r kept directions), O(nnz(L) k + n k²) once.
    """

    def __init__(self, K, L, index, gamma_A, gamma_I, hinge, n_labeled, intercept=True):
        self.index = np.asarray(index)
        self.intercept = bool(intercept)      # False: the coarse space has no bias direction
        # the resolution of K's dtype: with a float32 kernel, finer directions would carry
        # coefficients whose products with K cancel to noise (PCG then stalls); the
        # coarse space, hence the early-stopped iterate, differs between float32 and float64
        self.T = nystrom_map(np.asarray(K[np.ix_(self.index, self.index)], dtype=np.float64),
                             eps=float(np.finfo(K.dtype).eps))
        # K[:, index] read as the rows K[index]ᵀ (K is symmetric): contiguous rows instead of a gather
        # of r scattered entries from every row of K; by column blocks written into Φ = [1, K_XZ T]
        # in place: no n × r temporary (fresh memory costs page faults; see toolkit.training._GRAM_BLOCK_ROWS)
        n = K.shape[0]
        Phi1 = np.empty((n, self.T.shape[1] + 1))
        Phi1[:, 0] = 1.0
        step = _BLOCK_COLUMNS
        for start in range(0, n, step):
            stop = min(start + step, n)
            np.matmul(np.asarray(K[self.index, start:stop], dtype=np.float64).T, self.T, out=Phi1[start:stop, 1:])
        self.Phi = Phi1[:, 1:]
        self.G = graph_gram(Phi1, L, gamma_A, gamma_I)
        self.Phi_L = Phi1[:n_labeled]
        if not self.intercept:
            self.G, self.Phi_L = self.G[1:, 1:], self.Phi_L[:, 1:]
        self.hinge = hinge
        self.fallbacks: list[str] = []
        self._factors: dict = {}

    @property
    def rule_samples(self):
        """The problem size whose default check period ``√(k+1) / 2`` the early-stopping rules take
        with this preconditioner (k the coarse rank): the iteration count no longer grows with n."""
        return self.T.shape[1] + 1

    def solve(self, g_b, Kg, f_labeled, Y):
        """``H_c⁻¹ Z_cᵀ ∇`` per column, ``∇ = [g_b, K ∇̂_α]``; returns shape (k + 1, C)."""
        rhs = np.vstack([np.asarray(g_b, dtype=np.float64)[None, :],
                         self.T.T @ np.asarray(Kg[self.index], dtype=np.float64)])
        if not self.intercept:
            out = np.zeros_like(rhs)                       # no bias: c_b = 0, the rest on Z_c without it
            out[1:] = self._solve(rhs[1:], f_labeled, Y)
            return out
        return self._solve(rhs, f_labeled, Y)

    def _solve(self, rhs, f_labeled, Y):
        out = np.empty_like(rhs)
        for c in range(rhs.shape[1]):
            error = (Y[:, c] * f_labeled[:, c] < 1.0) if self.hinge else np.ones(Y.shape[0], dtype=bool)
            key = error.tobytes()
            cached = self._factors.get(c)
            if cached is None or cached[0] != key:
                A = self.G + self.Phi_L[error].T @ self.Phi_L[error]
                cached = (key, _factor(A, self.fallbacks, "The coarse system of the two-level preconditioner"))
                self._factors[c] = cached
            out[:, c] = sla.cho_solve(cached[1], rhs[:, c], check_finite=False)
        return out


def _factor(A, fallbacks, what):
    """Cholesky of the SPD matrix ``A``; a relative ridge when it is numerically singular (recorded)."""
    try:
        return sla.cho_factor(A, lower=True, check_finite=False)
    except np.linalg.LinAlgError:
        ridge = 1e-10 * max(float(np.trace(A)) / A.shape[0], 1e-300)
        fallbacks.append(f"{what} was not numerically positive definite; a ridge of {ridge:.3g} (1e-10 of its mean "
                         "diagonal) was added before the Cholesky factorisation")
        return sla.cho_factor(A + ridge * np.eye(A.shape[0]), lower=True, check_finite=False)


def _column_objective(theta, f_labeled, y, G, hinge):
    return 0.5 * (loss_terms(1.0 - y * f_labeled, hinge).sum() + theta @ (G @ theta))


def labeled_rows(rows, labeled_scale=None):
    """``Φ_L`` (the ``l`` labelled rows of Φ) in float64, scaled by ``labeled_scale`` (the
    degree-normalised coordinates)."""
    Phi_L = np.array(rows, dtype=np.float64)
    if labeled_scale is not None:
        Phi_L *= np.asarray(labeled_scale, dtype=np.float64)[:, None]
    return Phi_L


def newton_reduced(Phi_L, G, Y, *, hinge, max_iter, callback=None):
    """Primal Newton in ``r + 1`` dimensions, one column of ``Y`` at a time (finite termination).

    ``Phi_L``: the labelled rows of Φ in float64 (:func:`labeled_rows`); the unlabelled rows do not
    enter Newton's method."""
    l, C = Y.shape
    r1 = G.shape[0]
    theta = np.zeros((r1, C))
    fallbacks: list[str] = []
    hist = {"objective": [], "column": [], "step": [], "n_error_vectors": []}
    steps = np.zeros(C, dtype=int)
    status, detail = CONVERGED, None
    for c in range(C):
        y = Y[:, c]
        th = theta[:, c]
        error = np.ones(l, dtype=bool)                      # θ = 0: every margin is 1
        hist["objective"].append(_column_objective(th, Phi_L @ th, y, G, hinge))
        hist["column"].append(c)
        hist["step"].append(0.0)
        hist["n_error_vectors"].append(l)
        for k in range(1, max_iter + 1):
            A = G + Phi_L[error].T @ Phi_L[error]
            target = _factor(A, fallbacks, f"The Newton system of column {c} (step {k})")
            d = sla.cho_solve(target, Phi_L[error].T @ y[error], check_finite=False) - th
            f_l, fd_l = Phi_L @ th, Phi_L @ d
            s, _ = exact_line_search(1.0 - y * f_l, y * fd_l, th @ (G @ d), d @ (G @ d), hinge)
            th += s * d
            f_l = Phi_L @ th
            new_error = (y * f_l < 1.0) if hinge else np.ones(l, dtype=bool)
            steps[c] = k
            obj = _column_objective(th, f_l, y, G, hinge)
            for key, value in (("objective", obj), ("column", c), ("step", s), ("n_error_vectors", int(new_error.sum()))):
                hist[key].append(value)
            if callback is not None:
                report = IntermediateResult(int(k), th.copy(), float(obj), column=c, step=float(s),
                                            n_error_vectors=int(new_error.sum()))
                stop = run_callback(callback, report, f"Newton step {k} of column {c}")
                if stop is not None:
                    theta[:, c] = th
                    return _raw(theta, steps, hist, stop.status, stop.detail, stop.event, fallbacks, max_iter, 0)
            # finite termination: the full step kept the error-vector set (the solve was the
            # minimiser of the right quadratic; the step differs from 1 by the round-off of an
            # ill-conditioned system), or no step decreases the objective any more
            if not hinge or s == 0.0 or (np.array_equal(new_error, error) and abs(s - 1.0) <= 1e-2):
                break
            error = new_error
        else:
            status, detail = MAX_ITER, f"max_iter={max_iter} Newton steps without a stable error-vector set (column {c})"
        theta[:, c] = th
    if detail is None:
        detail = ("the error-vector set no longer changes after a full Newton step" if hinge else
                  "the linear system of the squared loss was solved")
    return _raw(theta, steps, hist, status, detail, None, fallbacks, max_iter, 0)


def pcg_reduced(Phi_L, G, Y, *, unlabeled_decisions, hinge, tol, max_iter, monitors=(), callback=None,
                validation=None, unlabeled_truth=None, theta0=None):
    """Nonlinear PCG in ``r + 1`` dimensions, preconditioned by ``G + Φ_Lᵀ Φ_L`` (see the module).

    ``Phi_L``: the labelled rows of Φ in float64 (:func:`labeled_rows`); ``unlabeled_decisions(θ)``:
    ``Φ_U θ``, the decisions on the unlabelled rows, called only when an early-stopping rule or the
    callback looks at them (Φ_U may live elsewhere: in row blocks on Dask workers);
    ``validation``: ``(Φ_V, target)``, the validation rows' features in the same coordinates.
    """
    l, C = Y.shape
    r1 = G.shape[0]
    fallbacks: list[str] = []
    M = _factor(G + Phi_L.T @ Phi_L, fallbacks, "The preconditioner G + Φ_Lᵀ Φ_L")
    theta = np.zeros((r1, C)) if theta0 is None else np.array(theta0, dtype=float).reshape(r1, C)

    def decisions_U():
        return np.asarray(unlabeled_decisions(theta), dtype=np.float64)

    def gradient(th):
        f_l = Phi_L @ th
        residual = f_l - Y
        if hinge:
            residual = np.where(Y * f_l < 1.0, residual, 0.0)
        return Phi_L.T @ residual + G @ th, f_l

    grad, f_l = gradient(theta)
    grad_zero = np.linalg.norm(gradient(np.zeros_like(theta))[0])
    precond = sla.cho_solve(M, grad, check_finite=False)
    direction = -precond
    denom_old = np.einsum("ij,ij->j", grad, precond)

    def objective(th, f_l):
        return float(sum(_column_objective(th[:, c], f_l[:, c], Y[:, c], G, hinge) for c in range(C)))

    hist = [(objective(theta, f_l), float(np.linalg.norm(grad)), float(np.linalg.norm(precond)),
             float(math.sqrt(max(denom_old.sum(), 0.0))), 0.0, 0, 0)]
    checks = {k: [] for k in ("iteration", "rule", "value", "threshold", "stop", "error_U", "error_V")}
    status, detail, stop_event = MAX_ITER, None, None
    n_ls, t = 0, 0
    if hist[0][1] <= tol * grad_zero or grad_zero == 0.0:
        status, detail, max_iter = CONVERGED, "the starting point is optimal within tol", 0
    for t in range(1, max_iter + 1):
        steps = np.zeros(C)
        for c in range(C):                                  # 1-2. exact line search per column
            d = direction[:, c]
            fd_l = Phi_L @ d
            s, pieces = exact_line_search(1.0 - Y[:, c] * f_l[:, c], Y[:, c] * fd_l, theta[:, c] @ (G @ d),
                                          d @ (G @ d), hinge)
            n_ls += pieces
            theta[:, c] += s * d
            steps[c] = s
        grad_old, precond_old = grad, precond              # 3. gradient, preconditioned gradient
        grad, f_l = gradient(theta)
        precond = sla.cho_solve(M, grad, check_finite=False)
        denom = np.einsum("ij,ij->j", grad, precond)       # 4. Polak-Ribière with restart
        rho = np.maximum((denom - np.einsum("ij,ij->j", grad, precond_old)) / np.where(denom_old > 0, denom_old, 1.0),
                         0.0)
        rho = np.where(denom_old > 0, rho, 0.0)
        direction = -precond + rho * direction
        descent = np.einsum("ij,ij->j", grad, direction) < 0
        direction[:, ~descent] = -precond[:, ~descent]
        restarts = int(np.sum((rho == 0.0) | ~descent))
        denom_old = denom
        obj = objective(theta, f_l)
        grad_norm = float(np.linalg.norm(grad))
        hist.append((obj, grad_norm, float(np.linalg.norm(precond)), float(math.sqrt(max(denom.sum(), 0.0))),
                     float(steps.mean()), n_ls, restarts))
        if not math.isfinite(obj):
            status, detail = BREAKDOWN, f"the objective became {obj} at iteration {t}"
            break
        if monitors and any(mon.due(t) for mon in monitors):       # 5. early-stopping rules
            progress = Progress(
                t, objective=obj, grad_norm=grad_norm, pgrad_norm=hist[-1][2], mixed_product=hist[-1][3],
                decisions=lambda: decisions_of(decisions_U()),
                validation_error=(None if validation is None else
                                  (lambda: _errors(np.asarray(validation[0] @ theta), validation[1]))))
            fired = run_monitors(monitors, progress, checks,
                                 error_U=None if unlabeled_truth is None else (lambda: _errors(decisions_U(), unlabeled_truth)),
                                 with_validation=validation is not None)
            if fired is not None:
                stop_event, status, detail = fired
                break
        if callback is not None:
            report = IntermediateResult(t, lazy(lambda: theta.copy()), obj, grad_norm=grad_norm, step=float(steps.mean()),
                                        b=lazy(lambda: theta[0].copy()), decisions=lazy(decisions_U))
            stop = run_callback(callback, report, f"iteration {t}")
            if stop is not None:
                status, detail, stop_event = stop.status, stop.detail, stop.event
                break
        if grad_norm <= tol * grad_zero:
            status, detail = CONVERGED, f"||grad|| / ||grad(0)|| = {grad_norm / grad_zero:.3g} <= tol = {tol:g}"
            break
    else:
        if status == MAX_ITER:
            detail = f"max_iter={max_iter} iterations, ||grad|| / ||grad(0)|| = {hist[-1][1] / grad_zero:.3g} > tol = {tol:g}"
    columns = list(zip(*hist))
    history = {k: np.asarray(v, dtype=dt) for k, v, dt in zip(
        ("objective", "grad_norm", "pgrad_norm", "mixed_product", "step", "line_search_iters", "restarts"),
        columns, (float, float, float, float, float, int, int))}
    history.update({"check_" + k: np.asarray(v) for k, v in checks.items()})
    raw = _raw(theta, np.full(C, t if max_iter else 0), history, status, detail, stop_event, fallbacks, max_iter,
               n_ls)
    return raw


def _raw(theta, steps, history, status, detail, stop_event, fallbacks, max_iter, n_line_search):
    """The :class:`~toolkit.manifold._core.InnerResult` the public wrappers turn into a
    :class:`~toolkit.manifold.LapSVMResult` (its objective is set there, on the labelled rows)."""
    hist = {k: np.asarray(v) for k, v in history.items()}
    return InnerResult(alpha=theta[1:].copy(), b=theta[0].copy(), theta=theta,
                       n_iter=int(np.max(steps)) if len(steps) else 0, n_line_search=int(n_line_search),
                       status=status, detail=detail, stop_event=stop_event, history=hist,
                       fallbacks=tuple(fallbacks), max_iter=max_iter)
