"""The transductive SVM with the ramp loss, trained by the concave-convex procedure (CCCP).

Collobert, Sinz, Weston & Bottou, "Large scale transductive SVMs", JMLR 7 (2006), §3-4: the
algorithm of UniverSVM, the semi-supervised column of Gieseke et al. (2012), Tables 2-3.
"""
from __future__ import annotations

import numbers
import time
from dataclasses import dataclass, field
from typing import ClassVar, Mapping

import numpy as np

from toolkit._contract import (CONVERGED, MAX_ITER, IntermediateResult, SolverResult, is_converged, lazy,
                               run_callback, status_message, warn_not_converged)
from toolkit._validation import check_features, check_matrix, check_scalar, encode_binary_labels
from toolkit.kernels import stacked_training_kernel
from toolkit.rls._results import KernelExpansion
from toolkit.rls._solvers import _check_kernel

__all__ = ["tsvm", "TSVMResult"]


@dataclass(frozen=True, eq=False, repr=False)
class TSVMResult(SolverResult):
    """A transductive SVM fitted by CCCP (Collobert et al. 2006, Algorithm 2).

    ``decision_function(x) = Σ_i coefficients_i k(x_i, x) + bias`` over the training points
    (labelled first); its mean over the unlabelled points is ``2 b_c − 1`` exactly (the balancing
    constraint, eq. 6). ``objective`` is the ramp-loss objective J of eq. (5) at the returned
    model; ``history`` holds J, the number of changed β and the inner QP's epochs and duality
    gap per CCCP iteration (index 0: the supervised start). ``converged``, ``status``,
    ``message``, ``n_iter`` (CCCP iterations), ``stop`` and ``fallbacks`` are the solver
    contract's (:class:`toolkit._contract.SolverResult`).
    """

    coefficients: np.ndarray
    bias: float
    objective: float
    labels_unlabeled: np.ndarray
    classes: np.ndarray
    params: Mapping
    time: float
    expansion: KernelExpansion = field(repr=False)

    _title: ClassVar[str] = "TSVM (transductive SVM, ramp loss, CCCP)"
    _html_title: ClassVar[str] = "TSVM"

    def decision_function(self, X):
        """Real-valued predictions ``f(x)`` for new points (kernel rows against the training points,
        labelled first, when ``kernel="precomputed"``)."""
        return self.expansion(X, "TSVMResult.decision_function")

    def predict(self, X):
        """Class labels for new points, coded like the training labels (ties go to the positive class)."""
        return self.classes[(self.decision_function(X) >= 0).astype(int)]

    def _rows(self):
        p = self.params
        return [("kernel", p["kernel"]), ("C / C*", f"{p['C']:.6g} / {p['C_star']:.6g}"), ("s (ramp)", p["s"]),
                ("balance b_c", f"{p['balance']:.4g}"), ("classes (-1, +1)", self.classes.tolist()),
                ("objective J (eq. 5)", f"{self.objective:.10g}"),
                ("CCCP iterations", self.n_iter),
                ("largest duality gap of a convex step", f"{np.max(self.history['duality_gap']):.3g}"),
                *self._status_rows(), ("time [s]", f"{self.time:.4f}")]

    def _brief(self):
        return f"objective={self.objective:.10g}, n_iter={self.n_iter}, status={self.status}"


def _ramp_objective(v, f, Kv_dot, y_l, l, C, C_star, s):
    """J of eq. (5): ½‖w‖² + C Σ_l H_1(y_i f_i) + C* Σ_u [R_s(f_j) + R_s(−f_j)], R_s = min(1 − s, H_1)."""
    hinge = np.maximum(0.0, 1.0 - y_l * f[:l]).sum()
    f_u = f[l:]
    ramp = (np.minimum(1.0 - s, np.maximum(0.0, 1.0 - f_u)) + np.minimum(1.0 - s, np.maximum(0.0, 1.0 + f_u))).sum()
    return 0.5 * Kv_dot + C * hinge + C_star * ramp


def _convex_step(Kc, y_dup, point, upper, margin, beta, alpha0, tol, max_iter):
    """One convex problem of CCCP (eq. 9) in its dual, a box-constrained QP over the l + 2u copies:

    ``max_α Σ_i α_i m_i − ½ vᵀ K̃ v``, ``v_p = Σ_{i: point(i) = p} y_i (α_i − β_i)``, ``0 ≤ α_i ≤ C_i``,

    with ``m_i = 1 − y_i b`` (the fixed offset), by dual coordinate descent
    (:func:`toolkit.transductive._dcd.coordinate_descent`) from ``alpha0`` until every projected gradient
    is below ``tol``. Returns ``(alpha, v, K̃ v, epochs, duality gap, reached)``.
    """
    from toolkit.transductive._dcd import coordinate_descent

    n = Kc.shape[0]
    alpha = np.clip(alpha0, 0.0, upper)
    v = np.bincount(point, weights=y_dup * (alpha - beta), minlength=n)
    g = Kc @ v
    epochs, worst = coordinate_descent(Kc, y_dup, point, upper, margin, alpha, g, tol, max_iter)
    v = np.bincount(point, weights=y_dup * (alpha - beta), minlength=n)
    g = Kc @ v                                   # afresh: no drift from the in-place updates
    # duality gap of the convex step: primal(v) − dual(α) = vᵀK̃v + Σ C_i H(m_i − y_i g) + Σ β_i y_i g − Σ α_i m_i
    gap = float(v @ g + (upper * np.maximum(0.0, margin - y_dup * g[point])).sum()
                + (beta * y_dup * g[point]).sum() - margin @ alpha)
    return alpha, v, g, int(epochs), gap, bool(worst < tol)


def tsvm(X_labeled, y_labeled, X_unlabeled, *, kernel="linear", sigma=None, kernel_degree=2, coef0=1.0, C=1.0,
         C_star=None, s=-0.3, balance=None, tol=1e-6, max_iter=100, qp_max_iter=10000, callback=None):
    r"""Transductive SVM with the symmetric ramp loss, trained by CCCP (UniverSVM's algorithm).

    Minimises eq. (5) of Collobert, Sinz, Weston & Bottou (2006),

    .. math::
        J(f) = \tfrac12 \|f\|_K^2 + C \sum_{i=1}^{l} H_1(y_i f(x_i))
               + C^* \sum_{j=1}^{u} \big[R_s(f(x_j)) + R_s(-f(x_j))\big],
        \qquad \frac1u \sum_{j=1}^{u} f(x_j) = 2 b_c - 1,

    with the hinge ``H_1(t) = max(0, 1 − t)`` and the ramp ``R_s(t) = min(1 − s, H_1(t))``
    (``s < 1``), subject to the balancing constraint of eq. (6) (the mean unlabelled output equals
    that of labels with a fraction ``b_c`` of positives). ``f(x) = ⟨w, Φ(x) − m_u⟩ + 2 b_c − 1``
    with ``m_u`` the mean of the unlabelled points in feature space satisfies the constraint for
    every ``w`` (the free bias of the paper is fixed by it), so the problem is solved in ``w`` with
    the kernel centred on the unlabelled points. CCCP (Algorithm 2) writes ``R_s = H_1 − H_s``,
    linearises the concave part ``−C* H_s`` at the current model (``β_i = C*`` on the copies with
    ``y_i f(x_i) < s``, else 0) and solves the convex rest (eq. 9) in its dual, a box-constrained
    QP over the labelled points and two copies of each unlabelled point (labels +1 and −1),
    until ``β`` no longer changes. J does not increase between iterations.

    Parameters
    ----------
    X_labeled : array-like or sparse matrix of shape (n_labeled, n_features)
        Labelled inputs; with ``kernel="precomputed"`` the rows (n_labeled, n) of the training kernel
        matrix, columns ordered labelled then unlabelled.
    y_labeled : array-like of shape (n_labeled,)
        Labels of exactly two classes (the larger value is the positive class).
    X_unlabeled : array-like or sparse matrix of shape (n_unlabeled, n_features)
        Unlabelled inputs (at least one); with ``kernel="precomputed"`` the rows (n_unlabeled, n).
    kernel : {"linear", "rbf", "polynomial", "precomputed"} or callable, default="linear"
    sigma : float, default=None
        RBF width, required for ``kernel="rbf"``.
    kernel_degree, coef0 : int, float, default=2, 1.0
        Polynomial kernel ``(xᵀz + coef0)^kernel_degree``.
    C : float, default=1.0
        C > 0, weight of each labelled point's hinge loss.
    C_star : float, default=None
        C* >= 0, weight of each unlabelled point's symmetric ramp loss (the paper's C*; Gieseke et al.
        2012 search {0.01, 1, 100} / u). None: ``C``. ``C_star=0`` gives the supervised SVM with the
        same fixed offset.
    s : float, default=-0.3
        The ramp's hinge point, s < 1 (UniverSVM's ``-S``; -0.3 is the paper's and Gieseke et al.'s
        setting).
    balance : float, default=None
        ``b_c`` in (0, 1), the fraction of positives the unlabelled outputs are balanced to (eq. 6;
        UniverSVM's ``-w``); None: the fraction among the labelled points.
    tol : float, default=1e-6
        Each convex step stops when every projected gradient of its dual is below ``tol`` (the
        labelled margins are 1, so this is relative); its duality gap is kept in ``history``.
    max_iter : int, default=100
        Maximum CCCP iterations; reaching it gives status 2 and a
        :class:`~toolkit.ConvergenceWarning`.
    qp_max_iter : int, default=10000
        Maximum epochs of coordinate descent per convex step; a step that stops there is recorded
        in ``fallbacks``.
    callback : callable, default=None
        ``callback(intermediate_result)`` after every CCCP iteration (:mod:`toolkit._contract`) with
        ``n_iter``, ``x`` (the expansion weights over the training points), ``objective`` (J),
        ``changed`` (how many β changed) and ``decision_function(X)`` (computed on use). Raising
        ``StopIteration`` stops cleanly with status 3.

    Returns
    -------
    TSVMResult
        ``coefficients`` and ``bias`` of the decision function, ``objective`` J,
        ``labels_unlabeled`` (coded like ``y_labeled``), ``history``, ``n_iter``, ``converged``,
        ``status`` (:data:`toolkit.SOLVER_STATUS`: 0 β fixed, 2 ``max_iter``, 3 the callback),
        ``message``, ``fallbacks``, ``predict`` / ``decision_function``.

    Raises
    ------
    ValueError
        Labels not of two classes, C <= 0, C* < 0, s >= 1, ``b_c`` outside (0, 1), no unlabelled
        points, NaN / inf, mismatched shapes.

    Notes
    -----
    Cost per CCCP iteration: dual coordinate descent over the l + 2u copies (Hsieh et al. 2008,
    compiled), O(n) per coordinate step, an epoch costing about one product with the n × n
    centred kernel, warm-started from the previous iteration's dual. The initial model is the SVM on the labelled
    points (Algorithm 2, step 1); UniverSVM's defaults otherwise. Reference: Collobert et al. (2006),
    eq. 3-9 and Algorithm 2.

    Examples
    --------
    >>> import numpy as np
    >>> from toolkit import tsvm
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 2)); X[:100, 0] -= 2.5; X[100:, 0] += 2.5; X[:, 1] *= 3
    >>> y = np.r_[np.zeros(100, int), np.ones(100, int)]
    >>> lab = np.r_[0, 100]
    >>> unl = np.setdiff1d(np.arange(200), lab)
    >>> fit = tsvm(X[lab], y[lab], X[unl], C=1.0, C_star=1.0)
    >>> bool(np.mean(fit.labels_unlabeled == y[unl]) > 0.95)
    True
    """
    func = "tsvm"
    t_start = time.perf_counter()
    sigma, kernel_degree, coef0 = _check_kernel(kernel, sigma, kernel_degree, coef0, func)
    C = check_scalar(C, "C", func, low=0.0, low_closed=False)
    C_star = C if C_star is None else check_scalar(C_star, "C_star", func, low=0.0)
    s = check_scalar(s, "s", func, high=1.0, high_closed=False)
    balance = check_scalar(balance, "balance", func, low=0.0, high=1.0, low_closed=False, high_closed=False,
                           allow_none=True)
    tol = check_scalar(tol, "tol", func, low=0.0, low_closed=False)
    max_iter = check_scalar(max_iter, "max_iter", func, kind=numbers.Integral, low=1)
    qp_max_iter = check_scalar(qp_max_iter, "qp_max_iter", func, kind=numbers.Integral, low=1)
    if callback is not None and not callable(callback):
        raise TypeError(f"The 'callback' parameter of {func} must be callable or None. Got {callback!r} instead.")
    precomputed = kernel == "precomputed"
    X_l = check_matrix(X_labeled, "X_labeled", func, accept_sparse=not precomputed)
    X_u = check_matrix(X_unlabeled, "X_unlabeled", func, accept_sparse=not precomputed)
    classes, y_l = encode_binary_labels(y_labeled, "y_labeled", func, n_rows=X_l.shape[0], rows_name="X_labeled")
    l, u = X_l.shape[0], X_u.shape[0]
    if u == 0:
        raise ValueError(f"The 'X_unlabeled' parameter of {func} must hold at least one point. Got 0 rows instead.")
    if not precomputed:
        check_features(func, "X_labeled", X_l, "X_unlabeled", X_u)
    X, K = stacked_training_kernel(X_l, X_u, func, kernel=kernel, sigma=sigma, kernel_degree=kernel_degree,
                                   coef0=coef0)
    n = l + u
    if balance is None:
        balance = float(np.mean(y_l > 0))
    offset = 2.0 * balance - 1.0

    # the kernel centred on the unlabelled points: k̃(x, z) = ⟨Φ(x) − m_u, Φ(z) − m_u⟩
    m = K[:, l:].mean(axis=1)
    m_bar = float(m[l:].mean())
    Kc = K - m[:, None] - m[None, :] + m_bar

    # the l + 2u copies: labelled points, then every unlabelled point labelled +1, then −1
    y_dup = np.concatenate([y_l, np.ones(u), -np.ones(u)])
    point = np.concatenate([np.arange(l), np.arange(l, n), np.arange(l, n)])
    margin = 1.0 - y_dup * offset
    upper_sup = np.concatenate([np.full(l, C), np.zeros(2 * u)])
    upper = np.concatenate([np.full(l, C), np.full(2 * u, C_star)])
    unl_copy = np.arange(l + 2 * u) >= l

    fallbacks = []
    history = {"objective": [], "changed": [], "qp_epochs": [], "duality_gap": []}

    def step(up, beta, alpha0, what):
        alpha, v, g, nit, gap, reached = _convex_step(Kc, y_dup, point, up, margin, beta, alpha0, tol, qp_max_iter)
        if not reached:
            fallbacks.append(f"{what}: the convex step stopped at qp_max_iter={qp_max_iter} epochs of coordinate "
                             f"descent before tol={tol:g} (duality gap {gap:.3g}); CCCP went on from that point")
        return alpha, v, g, nit, gap

    def record(v, g, changed, nit, gap):
        history["objective"].append(_ramp_objective(v, g + offset, v @ g, y_l, l, C, C_star, s))
        history["changed"].append(changed)
        history["qp_epochs"].append(nit)
        history["duality_gap"].append(gap)

    # Algorithm 2, step 1: the SVM on the labelled points
    alpha, v, g, nit, gap = step(upper_sup, np.zeros(l + 2 * u), np.zeros(l + 2 * u), "the supervised start")
    record(v, g, 0, nit, gap)

    def betas(g):
        return np.where(unl_copy & (y_dup * (g[point] + offset) < s), C_star, 0.0)

    def weights_of(v):
        # f(x) = Σ_p v_p k̃(x_p, x) + offset = Σ_p w_p k(x_p, x) + bias
        w = v.copy()
        w[l:] -= v.sum() / u
        return w, float(offset - m @ v + m_bar * v.sum())

    def expansion_of(v):
        w, bias = weights_of(v)
        primal = None
        if not precomputed and kernel == "linear":
            primal = np.asarray(X.T @ w).ravel()
        return KernelExpansion(kernel, sigma, kernel_degree, coef0, w, bias, None if precomputed else X, None, n,
                               primal)

    beta = betas(g)
    status, detail, stop = MAX_ITER, f"{max_iter} CCCP iterations with β still changing", None
    n_iter = 0
    for n_iter in range(1, max_iter + 1):
        alpha, v, g, nit, gap = step(upper, beta, alpha, f"CCCP iteration {n_iter}")
        new_beta = betas(g)
        changed = int(np.count_nonzero(new_beta != beta))
        record(v, g, changed, nit, gap)
        beta = new_beta
        if callback is not None:
            v_now = v.copy()
            intermediate = IntermediateResult(
                n_iter, weights_of(v_now)[0], history["objective"][-1], changed=changed,
                decision_function=lazy(lambda: (lambda Xn: expansion_of(v_now)(Xn))))
            halt = run_callback(callback, intermediate, f"CCCP iteration {n_iter}")
            if halt is not None:
                status, detail, stop = halt.status, halt.detail, halt.event
                break
        if changed == 0:
            status, detail = CONVERGED, f"β unchanged after {n_iter} CCCP iteration(s), J = {history['objective'][-1]:.6g}"
            break
    message = status_message(status, detail)
    if status == MAX_ITER:
        warn_not_converged(func, message, "Raise max_iter.")
    expansion = expansion_of(v)
    f_u = g[l:] + offset
    return TSVMResult(
        coefficients=expansion.weights, bias=expansion.bias, objective=float(history["objective"][-1]),
        labels_unlabeled=classes[(f_u >= 0).astype(int)], classes=classes,
        params=dict(kernel=kernel if isinstance(kernel, str) else getattr(kernel, "__name__", "callable"), sigma=sigma, kernel_degree=kernel_degree, coef0=coef0, C=C, C_star=C_star, s=s,
                    balance=balance, tol=tol, max_iter=max_iter),
        history={k: np.asarray(val) for k, val in history.items()}, n_iter=n_iter, converged=is_converged(status),
        status=status, message=message, stop=stop, fallbacks=tuple(fallbacks), time=time.perf_counter() - t_start,
        expansion=expansion)
