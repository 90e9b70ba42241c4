"""The hinge-loss SVM without intercept, solved in its dual: the selection's supervised ``svc`` with
``intercept=False`` (scikit-learn's SVC always fits the bias)."""
from __future__ import annotations

import warnings

import numpy as np
from scipy.optimize import minimize

from toolkit._contract import ConvergenceWarning

__all__ = ["svm_dual_without_intercept"]


def svm_dual_without_intercept(K, y, C, *, tol=1e-9, max_iter=15000):
    """Solve the hinge-loss SVM without intercept in its dual, a box-constrained QP.

    ``max_α Σ_i α_i − ½ Σ_ij α_i α_j y_i y_j k(x_i, x_j)`` subject to ``0 ≤ α_i ≤ C``: the dual
    of ``min_f ½‖f‖²_K + C Σ_i max(0, 1 − y_i f(x_i))`` with ``f(x) = Σ_i α_i y_i k(x_i, x)``
    (no bias, so no equality constraint ``Σ α_i y_i = 0``; Vapnik 1998, §10.2). Solved by
    L-BFGS-B on the bound-constrained dual (the labelled sets this serves hold tens of points).

    Returns ``(alpha, info)``; ``info`` records the solver's status, iterations and the duality
    gap; a run that stops at ``max_iter`` issues :class:`toolkit.ConvergenceWarning`.
    """
    K = np.asarray(K, dtype=float)
    y = np.asarray(y, dtype=float)
    Q = K * np.outer(y, y)

    def negative_dual(alpha):
        Qa = Q @ alpha
        return 0.5 * alpha @ Qa - alpha.sum(), Qa - 1.0

    res = minimize(negative_dual, np.zeros(len(y)), jac=True, method="L-BFGS-B",
                   bounds=[(0.0, C)] * len(y), options={"ftol": 0.0, "gtol": tol, "maxiter": max_iter, "maxfun": 10 * max_iter})
    alpha = np.clip(res.x, 0.0, C)

    def gap(a):
        """primal minus dual at f = Σ a_i y_i k(x_i, ·): zero exactly at the optimum"""
        Qa = Q @ a
        return a @ Qa + C * np.maximum(0.0, 1.0 - Qa).sum() - a.sum()

    # polish: with the active set of L-BFGS-B fixed, the free α solve Q_FF α_F = 1 - Q_FB α_B
    # exactly (least squares: Q may be singular); kept when it stays in the box and closes the gap
    polished = False
    free = (alpha > 1e-8 * C) & (alpha < (1 - 1e-8) * C)
    if free.any():
        candidate = alpha.copy()
        rhs = 1.0 - Q[np.ix_(free, ~free)] @ alpha[~free]
        candidate[free] = np.linalg.lstsq(Q[np.ix_(free, free)], rhs, rcond=None)[0]
        if np.all(candidate >= 0) and np.all(candidate <= C) and gap(candidate) < gap(alpha):
            alpha, polished = candidate, True
    info = {"status": int(res.status), "n_iter": int(res.nit), "duality_gap": float(gap(alpha)),
            "polished": polished, "message": str(res.message)}
    if res.status == 1:
        warnings.warn(f"svm_dual_without_intercept stopped at max_iter={max_iter} with duality gap "
                      f"{info['duality_gap']:.3g}; raise max_iter.", ConvergenceWarning, stacklevel=2)
    return alpha, info
