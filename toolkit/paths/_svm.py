"""The entire regularisation path of the hinge-loss SVM with bias (Hastie et al. 2004).

Problem, for every λ > 0 (scikit-learn's ``SVC`` with ``C = 1/λ``)::

    min_{w, β₀}  Σ_i (1 - y_i f(x_i))_+ + (λ/2) ‖w‖²,        f(x) = ⟨w, φ(x)⟩ + β₀.

In the dual variables of Hastie et al. (2004) / Wang, Qin & Huang (eq. 16-18)
``α_i ∈ [0, 1]``, ``Σ_i y_i α_i = 0`` and ``α₀ = λ β₀``::

    f(x) = (1/λ) (Σ_j α_j y_j K(x, x_j) + α₀) = h(x) / λ,

so ``SVC(C=1/λ).dual_coef_ = y α / λ`` and ``intercept_ = α₀ / λ``. The points split into the
elbow ``E`` (``y_i f(x_i) = 1``), the left set ``L`` (``α_i = 1``) and the right set ``R``
(``α_i = 0``); between two events the elbow is fixed and ``(α₀, α_E)`` are linear in λ (eq. 23).
"""
from __future__ import annotations

import dataclasses
import numbers
from typing import Any, ClassVar, NamedTuple

import numpy as np

from toolkit._contract import (CONVERGED, MAX_ITER, REQUESTED_END, RESOLUTION_LIMIT, IntermediateResult,
                               SolverResult, is_converged, run_callback, status_message, warn_not_converged)
from toolkit._validation import check_labels, check_matrix, check_scalar, encode_binary_labels
from toolkit.kernels import cross_kernel, training_kernel

__all__ = ["SvmPath", "svm_path"]

_RIGHT, _ELBOW, _LEFT = 0, 1, 2
# How a path ends: the status of the toolkit's one table (toolkit._contract.SOLVER_STATUS) and the
# detail of its message. A callback or an early-stopping rule ends it with status 3 or 1.
_ENDS = {
    "left_empty": (CONVERGED, "the left set L emptied: from the last breakpoint (λ = {lam:.6g}) the solution "
                              "is linear down to λ = 0"),
    "no_event": (CONVERGED, "no further event: the last segment, from λ = {lam:.6g}, extends down to λ = 0"),
    "single_segment": (CONVERGED, "no point ever reaches the elbow: one segment for all λ > 0 (the breakpoint "
                                  "λ = {lam:.6g} is a reference λ)"),
    "lambda_min": (REQUESTED_END, "the path reached lambda_min = {lam:.6g}"),
    "floor": (RESOLUTION_LIMIT, "the path reached λ⁰·1e-12 = {lam:.6g}, below which margins are not resolved "
                                "in double precision"),
    "max_iter": (MAX_ITER, "max_iter={max_iter} events; the path stops at λ = {lam:.6g} with {n_left} "
                           "points still in L"),
}
_FLOOR = 1e-12            # the path is not followed below λ⁰ · _FLOOR
_TIE_RTOL = 1e-9          # events closer than this (relative to λ) are processed together
_FREE_ATOL = 1e-12        # α strictly inside (0, 1) by more than this counts as free
_PM1 = np.array([-1.0, 1.0])   # the classes of a path computed on labels already coded -1 / +1


# ============================================================================ result
@dataclasses.dataclass(frozen=True, repr=False)
class SvmPath(SolverResult):
    """The piecewise-linear SVM path returned by :func:`svm_path` (frozen).

    Attributes
    ----------
    breakpoints : ndarray of shape (n_breakpoints,)
        The λ values where the elbow changes, strictly decreasing; ``breakpoints[0]`` is λ⁰ of
        Lemmas 1-2.
    alphas : ndarray of shape (n_breakpoints, n_samples)
        The dual variables ``α ∈ [0, 1]`` at the breakpoints.
    alpha0s : ndarray of shape (n_breakpoints,)
        ``α₀ = λ β₀`` at the breakpoints.
    elbow_sizes : ndarray of shape (n_breakpoints,)
        ``|E|`` on the segment just below each breakpoint.
    y : ndarray of shape (n_samples,)
        The labels coded -1 / +1, +1 for ``classes[1]`` (the coding the dual variables use).
    classes : ndarray of shape (2,)
        The two labels given, sorted; ``classes[1]`` is the positive class (``f(x) > 0``) and
        :meth:`predict` returns these labels.
    status, message, converged, n_iter :
        Why the path stopped, from the toolkit's one status table (:data:`toolkit.SOLVER_STATUS`):
        0 the path is complete (L emptied, no further event, or a single segment), 1 an
        early-stopping rule passed as ``callback`` stopped it, 2 ``max_iter`` events (with a
        :class:`~toolkit.ConvergenceWarning`), 3 the callback raised ``StopIteration``, 5 it
        reached ``lambda_min``, 6 the numerical floor λ⁰·1e-12. ``converged`` is False for 2 and 3;
        ``n_iter`` is the number of events processed.
    lambda_stop : float or None
        The requested lower end (the ``lambda_min`` argument).
    n_singular_steps : int
        Segments whose elbow system was singular (duplicated points, rank-deficient kernels)
        and was solved by the ridge step (least squares in the NumPy reference).
    history : dict of ndarrays
        Per breakpoint: ``"lambda"`` (= ``breakpoints``), ``"kkt_violation"`` (largest violation
        of the KKT conditions, in margin units), ``"singular"`` (bool), ``"event"`` (a short text).
    initialization : str
        ``"lemma1"`` (balanced classes) or ``"lemma2"`` (unbalanced; one small QP).
    stop : StopEvent or None
        The early-stopping rule that stopped the path (status 1), when and on which value.
    fallbacks : tuple of str
        The numerical fallbacks taken (singular elbow systems solved by the ridge step), one
        sentence each; empty when none was needed.
    """

    breakpoints: np.ndarray
    alphas: np.ndarray
    alpha0s: np.ndarray
    elbow_sizes: np.ndarray
    y: np.ndarray
    lambda_stop: float | None
    n_singular_steps: int
    initialization: str
    # the segment below breakpoint k: kind 0 = linear in λ, 1 = empty elbow (α fixed, α₀ the
    # midpoint of its feasible interval); bounds = (min_{R+} h*, min_{L-} h*, max_{R-} h*, max_{L+} h*)
    _segment_kind: np.ndarray
    _segment_bounds: np.ndarray
    _top_kind: int                      # the segment above breakpoints[0]
    _top_slope: float                   # dα₀/dλ there when linear
    _top_bounds: np.ndarray
    _tail_direction: np.ndarray | None  # dα/dλ below the last breakpoint (None: stopped)
    _tail_slope0: float
    kernel: Any = "precomputed"
    kernel_params: dict = dataclasses.field(default_factory=dict)
    X_train: Any = dataclasses.field(default=None, repr=False)
    classes: np.ndarray = dataclasses.field(default_factory=lambda: _PM1.copy())

    # ------------------------------------------------------------------ evaluation
    @property
    def n_samples(self) -> int:
        return self.y.shape[0]

    def _cross_kernel(self, X, func):
        return cross_kernel(X, self.X_train, func, kernel=self.kernel, n_train=self.n_samples, **self.kernel_params)

    def _check_s(self, s):
        arr = np.atleast_1d(np.asarray(s, dtype=float))
        if arr.ndim != 1 or not np.all(np.isfinite(arr)) or np.any(arr <= 0):
            raise ValueError(f"The 's' parameter of SvmPath must be a float or 1-d array of floats in (0, inf). "
                             f"Got {s!r} instead.")
        if self._tail_direction is None and np.any(arr < self.breakpoints[-1] * (1 - 1e-12)):
            remedy = {REQUESTED_END: "Recompute with a smaller lambda_min.",
                      MAX_ITER: "Recompute with a larger max_iter."}.get(self.status, "Recompute without the stop.")
            raise ValueError(f"The path stops at λ = {self.breakpoints[-1]:.6g} (status {self.status}: "
                             f"{self.message}); s={arr.min():.6g} lies below it. {remedy}")
        return arr

    def coef(self, s):
        """Dual coefficients ``(α, α₀)`` at λ = ``s``, exact (linear interpolation on the path).

        Parameters
        ----------
        s : float or array-like of shape (n_lambdas,)

        Returns
        -------
        alpha : ndarray of shape (n_samples,) or (n_lambdas, n_samples)
        alpha0 : float or ndarray of shape (n_lambdas,)
            ``α₀ = λ β₀``; the decision function is ``(K_cross @ (y α) + α₀) / λ``.
        """
        arr = self._check_s(s)
        alphas = np.empty((arr.size, self.n_samples))
        alpha0 = np.empty(arr.size)
        bps = self.breakpoints
        for t, lam in enumerate(arr):
            if lam >= bps[0]:
                alphas[t] = self.alphas[0]
                if self._top_kind == 0:
                    alpha0[t] = self.alpha0s[0] + (lam - bps[0]) * self._top_slope
                else:
                    alpha0[t] = _midpoint_alpha0(lam, self._top_bounds)
                continue
            if lam <= bps[-1]:
                k = bps.size - 1
                if self._tail_direction is None:
                    # stopped path (lambda_min, floor, max_iter): s is the last breakpoint itself
                    # (``_check_s`` rejects anything further below)
                    alphas[t] = self.alphas[k]
                    alpha0[t] = self.alpha0s[k]
                elif self._segment_kind[k] == 1:
                    alphas[t] = self.alphas[k]
                    alpha0[t] = _midpoint_alpha0(lam, self._segment_bounds[k])
                else:
                    alphas[t] = np.clip(self.alphas[k] + (lam - bps[k]) * self._tail_direction, 0.0, 1.0)
                    alpha0[t] = self.alpha0s[k] + (lam - bps[k]) * self._tail_slope0
                continue
            k = int(np.searchsorted(-bps, -lam, side="right")) - 1   # bps[k] >= lam > bps[k+1]
            if self._segment_kind[k] == 1:
                alphas[t] = self.alphas[k]
                alpha0[t] = _midpoint_alpha0(lam, self._segment_bounds[k])
            else:
                w = (bps[k] - lam) / (bps[k] - bps[k + 1])
                alphas[t] = (1 - w) * self.alphas[k] + w * self.alphas[k + 1]
                alpha0[t] = (1 - w) * self.alpha0s[k] + w * self.alpha0s[k + 1]
        if np.ndim(s) == 0:
            return alphas[0], float(alpha0[0])
        return alphas, alpha0

    def dual_coef(self, s):
        """scikit-learn's parametrisation at λ = ``s``: ``(y α / λ, α₀ / λ)`` = ``(dual_coef_, intercept_)``."""
        alpha, alpha0 = self.coef(s)
        lam = np.asarray(s, dtype=float)
        if np.ndim(s) == 0:
            return self.y * alpha / lam, alpha0 / lam
        return self.y * alpha / lam[:, None], alpha0 / lam

    def decision_function(self, X, s):
        """``f(x) = (Σ_j α_j y_j K(x, x_j) + α₀) / λ`` at λ = ``s``.

        Parameters
        ----------
        X : array-like of shape (n_new, n_features) or (n_new, n_samples)
            New points, or with ``kernel="precomputed"`` their kernel values against the
            ``n_samples`` training points.
        s : float or array-like of shape (n_lambdas,)

        Returns
        -------
        f : ndarray of shape (n_new,) or (n_new, n_lambdas)
        """
        return self._decision(self._cross_kernel(X, "SvmPath.decision_function"), s)

    def _decision(self, K_cross, s):
        alpha, alpha0 = self.coef(s)
        lam = np.asarray(s, dtype=float)
        if np.ndim(s) == 0:
            return (K_cross @ (self.y * alpha) + alpha0) / lam
        return (K_cross @ (self.y[None, :] * alpha).T + alpha0[None, :]) / lam[None, :]

    def margins(self, K):
        """``y_i f(x_i)`` of the training points at every breakpoint, shape (n_breakpoints, n_samples).

        Parameters
        ----------
        K : array-like of shape (n_samples, n_samples)
            The training kernel the path was computed on (not stored in the path).
        """
        K = check_matrix(K, "K", "SvmPath.margins", accept_sparse=False)
        if K.shape != (self.n_samples, self.n_samples):
            raise ValueError(f"SvmPath.margins: 'K' has shape {K.shape} but the path has {self.n_samples} "
                             "training points; it must be square of that size.")
        h = (self.y[None, :] * self.alphas) @ K + self.alpha0s[:, None]
        return self.y[None, :] * h / self.breakpoints[:, None]

    def predict(self, X, s):
        """Class labels at λ = ``s``: ``classes[1]`` where ``f(x) >= 0``, else ``classes[0]``.

        ``X`` and the shapes are those of :meth:`decision_function`; the labels are those given to
        :func:`svm_path` (``-1.0`` / ``1.0`` for labels coded so).
        """
        return _labels_of(self.classes, self.decision_function(X, s))

    # ------------------------------------------------------------------ reporting
    _title: ClassVar[str] = "SVM regularisation path (Hastie et al. 2004; Wang, Qin & Huang eq. 23)"

    def _rows(self):
        """Size, start (Lemma 1 or 2), end, events, singular steps, KKT."""
        rows = [
            ("training points", f"{self.n_samples} ({int((self.y > 0).sum())} positive, "
                                f"{int((self.y < 0).sum())} negative)"),
            ("initialisation", self.initialization),
            ("breakpoints", f"{self.breakpoints.size}  (λ from {self.breakpoints[0]:.6g} "
                            f"down to {self.breakpoints[-1]:.6g})"),
            ("events processed", self.n_iter),
            ("largest elbow", int(self.elbow_sizes.max())),
            ("singular elbow steps", self.n_singular_steps),
            ("max KKT violation", f"{float(np.max(self.history['kkt_violation'])):.2e}"),
            *self._status_rows(),
        ]
        if not _is_pm1(self.classes):
            labels = self.classes.tolist()
            rows.insert(1, ("classes", f"{labels} (positive: {labels[1]!r})"))
        return rows

    def _brief(self):
        return (f"n_samples={self.n_samples}, n_breakpoints={self.breakpoints.size}, "
                f"lambda=[{self.breakpoints[0]:.4g} .. {self.breakpoints[-1]:.4g}], status={self.status}")

    def plot(self, kind="coef", *, K=None, ax=None, max_lines=None):
        """Plot the path against log λ with the breakpoints marked.

        Parameters
        ----------
        kind : {"coef", "margin"}, default="coef"
            ``"coef"``: the α_i; ``"margin"``: ``y_i f(x_i)`` (needs ``K``).
        K : array-like of shape (n_samples, n_samples), default=None
            The training kernel, for ``kind="margin"``.
        ax : matplotlib Axes, default=None
        max_lines : int, default=None
            Plot only this many points' curves (the first ones).

        Returns
        -------
        ax : matplotlib Axes
        """
        if kind not in ("coef", "margin"):
            raise ValueError(f"The 'kind' parameter of SvmPath.plot must be one of 'coef', 'margin'. Got {kind!r} instead.")
        import matplotlib.pyplot as plt
        if ax is None:
            _, ax = plt.subplots(figsize=(6, 4))
        if kind == "margin" and K is None:
            raise ValueError("SvmPath.plot: kind='margin' needs the training kernel K (plot('margin', K=K)).")
        values = self.alphas if kind == "coef" else self.margins(K)
        if max_lines is not None:
            values = values[:, :max_lines]
        ax.plot(self.breakpoints, values, lw=0.8)
        ax.set_xscale("log")
        for bp in self.breakpoints:
            ax.axvline(bp, color="0.85", lw=0.4, zorder=0)
        ax.set_xlabel("λ (log scale)")
        ax.set_ylabel("α_i" if kind == "coef" else "y_i f(x_i)")
        ax.set_title(f"SVM path: {self.breakpoints.size} breakpoints")
        return ax


def _is_pm1(classes):
    """Whether the two classes are the labels -1 and +1 themselves (the coding changes nothing)."""
    return np.asarray(classes).dtype.kind in "biuf" and np.array_equal(classes, _PM1)


def _labels_of(classes, f):
    """``classes[1]`` where ``f >= 0`` (0 maps to the positive class), else ``classes[0]``; any shape of ``f``."""
    return np.asarray(classes)[(np.asarray(f) >= 0).astype(np.intp)]


def _midpoint_alpha0(lam, bounds):
    """α₀ at λ on an empty-elbow segment: the midpoint of its feasible interval (libsvm's rule).

    With α fixed the KKT conditions only bound α₀:
    ``max(λ - min_{R+} h*, -λ - min_{L-} h*) <= α₀ <= min(-λ - max_{R-} h*, λ - max_{L+} h*)``.
    """
    min_rp, min_lm, max_rm, max_lp = bounds
    lower = max(lam - min_rp, -lam - min_lm)
    upper = min(-lam - max_rm, lam - max_lp)
    if not np.isfinite(lower):
        return upper
    if not np.isfinite(upper):
        return lower
    return 0.5 * (lower + upper)


# ============================================================================ algorithm
def _empty_bounds(hstar, y, state):
    """The four extreme values of ``h* = K (y α)`` that bound α₀ when the elbow is empty."""
    def ext(mask, fn, default):
        return float(fn(hstar[mask])) if mask.any() else default
    pos, neg = y > 0, y < 0
    right, left = state == _RIGHT, state == _LEFT
    return np.array([ext(right & pos, np.min, np.inf), ext(left & neg, np.min, np.inf),
                     ext(right & neg, np.max, -np.inf), ext(left & pos, np.max, -np.inf)])


def _kkt_violation(h, lam, alpha, y, state):
    """Largest violation of the KKT conditions in margin units (``y_i f(x_i) - 1``)."""
    margin = y * h / lam - 1.0
    v_right = np.max(-margin[state == _RIGHT], initial=0.0)
    v_left = np.max(margin[state == _LEFT], initial=0.0)
    v_elbow = np.max(np.abs(margin[state == _ELBOW]), initial=0.0)
    v_box = max(np.max(-alpha), np.max(alpha - 1.0), 0.0)
    v_eq = abs(float(y @ alpha)) / max(1.0, y.size)
    return max(v_right, v_left, v_elbow, v_box, v_eq)


def svm_path(X, y, *, kernel="precomputed", sigma=None, kernel_degree=2, coef0=1.0, lambda_min=None, max_iter=None,
             ridge=0.0, refresh=250, callback=None):
    r"""The entire regularisation path of the SVM with bias, for every λ (Hastie et al. 2004).

    Computes, for all λ > 0 at once, the solutions of

    .. math::

        \min_{w, \beta_0} \sum_{i=1}^l (1 - y_i f(x_i))_+ + \frac{\lambda}{2}\|w\|^2,
        \qquad f(x) = \frac{1}{\lambda}\Big(\sum_j \alpha_j y_j K(x, x_j) + \alpha_0\Big),

    which is scikit-learn's ``SVC(C=1/λ, kernel="precomputed")`` (Wang, Qin & Huang eq. 16-18
    with ``Q = Y K Y``). The dual variables are piecewise linear in λ.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_samples) or (n_samples, n_features)
        With ``kernel="precomputed"`` (the default: the path is stated for a kernel matrix) the
        symmetric positive semi-definite kernel matrix ``K`` of the training points; otherwise the
        points themselves.
    y : array-like of shape (n_samples,)
        Labels: any two values (numbers, strings), both present; ``classes[1]`` of the sorted pair
        is coded +1, the other -1 (:func:`toolkit._validation.encode_binary_labels`).
    kernel : {"precomputed", "linear", "rbf", "polynomial"} or callable, default="precomputed"
        See :func:`toolkit.kernels.kernel_matrix`; the path keeps the points and the kernel, so
        ``decision_function`` takes points as ``X`` was given (kernel rows when precomputed).
    sigma, kernel_degree, coef0 : float, int, float, default=None, 2, 1.0
        The kernel's parameters (``sigma`` required for ``kernel="rbf"``).
    lambda_min : float, default=None
        Stop when λ reaches this value; ``None`` follows the path to its end (the left set ``L``
        empties, or no further event occurs, after which the solution is linear down to 0).
    max_iter : int, default=None
        At most this many events; ``None`` means ``50 n_samples + 100``. Reaching it gives status 2
        and a :class:`~toolkit.ConvergenceWarning` (the path is then cut short at its last λ).
    ridge : float, default=0.0
        A singular elbow system (duplicated points, a rank-deficient kernel: the Cholesky
        factorisation of ``K_EE`` fails or leaves a residual above 1e-7) is solved with
        ``K_EE + δ I``, ``δ = ridge``, or ``δ = 1e-12 · max diag K_EE`` when ``ridge = 0`` (the
        ridge step, whose limit is the minimum-norm least-squares step); duplicates then share
        their α equally and the decision function stays exact. Such steps are counted in
        ``n_singular_steps``, flagged in ``history["singular"]`` and listed in ``fallbacks``.
    refresh : int, default=250
        Recompute ``h = K (y α) + α₀`` from scratch every ``refresh`` events (limits drift).
    callback : callable, default=None
        ``callback(intermediate_result)`` at λ⁰ and after every event (:mod:`toolkit._contract`),
        with an :class:`~toolkit.IntermediateResult` of the breakpoint: ``n_iter`` (events so
        far), ``x`` (= ``alpha``), ``alpha0``, ``lam``, ``objective`` (the primal above at λ),
        ``margins`` (``y_i f(x_i)``), ``elbow_size``, ``n_left``, ``event`` and
        ``decision_function(K_cross)``. Raising ``StopIteration`` ends the path there (status 3);
        a rule of :mod:`toolkit.early_stopping` wrapped in
        :class:`~toolkit.early_stopping.EarlyStopping` ends it with status 1. With a callback the
        elbow factor is rebuilt after every event (``O(m³)``).

    Returns
    -------
    path : SvmPath
        Breakpoints (decreasing λ), α and α₀ there, ``coef(s)``, ``decision_function(K_cross, s)``
        (positive for ``classes[1]``), ``predict(K_cross, s)`` (the labels given), ``classes``,
        ``plot()``, ``summary()``; ``converged``, ``status``, ``message``
        (:data:`toolkit.SOLVER_STATUS`), ``n_iter``, ``history``, ``stop``, ``fallbacks``.

    Notes
    -----
    *Initialisation* (Wang et al. §3.1). Balanced classes (Lemma 1): all ``α_i = 1`` and λ⁰ is
    eq. (21) with the first positive and negative points to reach the elbow, eq. (19)-(20).
    Unbalanced classes (Lemma 2): the minority keeps ``α = 1`` and the majority's α minimise
    ``αᵀ Q α`` under the box and equality constraints, one small QP solved by an exact active
    set; then λ⁰ is where the first minority point reaches the elbow.

    *Path following* (Theorem 1). Between events the elbow ``E`` is fixed and
    ``(α₀, α_E) = (α₀ˡ, α_Eˡ) + (λ - λˡ) A_E⁻¹ yᵃ`` (eq. 23), solved as
    ``K_EE c + b₀ 1 = y_E``, ``1ᵀ c = 0`` by a Cholesky factorisation of ``K_EE``, updated
    when a point enters (row append) or leaves (rank-one downdate) the elbow; a direction whose
    residual check fails is recomputed from a fresh factorisation (then the ridge step). The next
    breakpoint is the largest λ < λˡ at which an elbow α reaches 0 or 1, or a point outside the
    elbow reaches ``y_i f(x_i) = 1``; simultaneous events (duplicated points) are processed
    together. When the elbow empties, α is fixed, α₀ is not unique (the midpoint of its
    feasible interval is reported, as libsvm does) and the path resumes where the interval
    collapses, with one positive and one negative point entering the elbow.

    *End*. The path stops when L empties (then α, α₀ and h are proportional to λ: f is fixed
    down to 0), when no further event exists, at ``lambda_min``, or at the numerical floor
    ``λ⁰ · 1e-12``; ``status`` and ``message`` say which (0 complete, 5 ``lambda_min``, 6 the
    floor, 2 ``max_iter``). When no point ever reaches the elbow (possible with rank-deficient
    kernels and unbalanced classes) the path is one segment for all λ (status 0, the message
    says so).

    *Cost*: ``O(l m)`` per event for ``dh/dλ`` of every point plus ``O(m²)`` for the elbow
    system (``m = |E|``; ``O(m³)`` only on refactorisation), ``O(l²)`` every ``refresh`` events,
    and typically ``O(l)`` events: the whole path costs a few scikit-learn ``SVC`` fits (see the
    benchmarks page, ``python benchmarks/bench_paths.py``). The event loop is compiled with numba
    (``toolkit.paths._svm_numba.follow``, cached on disk);
    ``toolkit.paths._reference.svm_path_reference`` is the same algorithm in NumPy.

    References
    ----------
    Hastie, Rosset, Tibshirani & Zhu (2004), JMLR 5: 1391-1415.
    Wang, Qin & Huang, "Efficient computation and model selection in semi-supervised
    learning", eq. (16)-(23), Lemmas 1-2, Theorem 1.

    Examples
    --------
    >>> import numpy as np
    >>> from toolkit import svm_path, kernel_matrix
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 2)); y = np.where(X[:, 0] > 0, 1.0, -1.0)
    >>> K = kernel_matrix(X, kernel="rbf", sigma=1.0)
    >>> path = svm_path(K, y)
    >>> bool(np.all(np.diff(path.breakpoints) < 0))
    True
    >>> f = path.decision_function(K, [1.0, 0.1])   # (40, 2): two values of λ

    Any two labels give the same path; ``predict`` returns them (``classes[1]`` where ``f >= 0``):

    >>> named = svm_path(K, np.where(y > 0, "pos", "neg"))
    >>> named.classes.tolist(), bool(np.array_equal(named.breakpoints, path.breakpoints))
    (['neg', 'pos'], True)
    >>> named.predict(K[:4], 0.1).tolist()
    ['pos', 'pos', 'neg', 'pos']
    """
    func = "svm_path"
    # symmetric PSD; (K + Kᵀ)/2 within round-off
    K = training_kernel(X, func, kernel=kernel, sigma=sigma, kernel_degree=kernel_degree, coef0=coef0, symmetrize=True)
    y = check_labels(y, "y", func)
    if y.shape[0] != K.shape[0]:
        raise ValueError(f"{func}: 'X' (the kernel matrix K) has {K.shape[0]} rows but 'y' has {y.shape[0]}; "
                         "they must match.")
    classes, y = encode_binary_labels(y, "y", func)       # any two labels, classes[1] ↦ +1
    lambda_min = check_scalar(lambda_min, "lambda_min", func, low=0.0, low_closed=False, allow_none=True)
    l = y.shape[0]
    max_iter = 50 * l + 100 if max_iter is None else check_scalar(max_iter, "max_iter", func,
                                                                  kind=numbers.Integral, low=1)
    ridge = check_scalar(ridge, "ridge", func, low=0.0)
    refresh = check_scalar(refresh, "refresh", func, kind=numbers.Integral, low=1)
    if callback is not None and not callable(callback):
        raise TypeError(f"The 'callback' parameter of {func} must be callable or None. Got {callback!r} instead.")
    path = _svm_path(K, y, lambda_min, max_iter, ridge, refresh, callback=callback)
    classes.setflags(write=False)
    if kernel == "precomputed":
        return dataclasses.replace(path, classes=classes)
    return dataclasses.replace(path, kernel=kernel, X_train=check_matrix(X, "X", func), classes=classes,
                               kernel_params=dict(sigma=sigma, kernel_degree=kernel_degree, coef0=coef0))


def _initialize(K, y, return_hstar=False):
    """Wang et al. §3.1: α⁰, the elbow at λ⁰, λ⁰, α₀⁰ and the segment above λ⁰ (and, with
    ``return_hstar``, ``h* = K (y α⁰)`` as a seventh item)."""
    l = y.size
    n_pos, n_neg = int((y > 0).sum()), int((y < 0).sum())
    alpha = np.ones(l)
    if n_pos == n_neg:
        how = "lemma1"
    else:
        how = "lemma2"
        major = 1.0 if n_pos > n_neg else -1.0
        M, N = np.flatnonzero(y == major), np.flatnonzero(y != major)
        # αᵀQα = aᵀ K_MM a - 2 aᵀ K_MN 1 + const  (a = α_M, α_N = 1)
        from toolkit.paths._svm_numba import lemma2_qp_sub
        q = (K @ (y != major).astype(float))[M]          # Σ_{j ∈ N} K_ij, one matrix-vector product
        a = lemma2_qp_sub(K, M, q, np.argsort(-q, kind="stable"), float(N.size), 1e-12, 10 * M.size + 50)
        a[a < _FREE_ATOL] = 0.0
        a[a > 1.0 - _FREE_ATOL] = 1.0
        alpha[M] = a
    hstar = K @ (y * alpha)
    state = np.where(alpha >= 1.0, _LEFT, _RIGHT)
    free = (alpha > _FREE_ATOL) & (alpha < 1 - _FREE_ATOL)
    if free.any():
        # Lemma 2, case (1): the free majority points sit at the elbow, α₀ = c λ - h*_free
        major = y[free][0]
        h_free = float(np.mean(hstar[free]))
        minority = np.flatnonzero(y != major)
        lam0 = major * (h_free - hstar[minority]) / 2.0
        j = minority[np.argmax(lam0)]
        lam0 = float(lam0.max())
        alpha0 = major * lam0 - h_free
        state[free] = _ELBOW
        top = (0, major, np.full(4, np.nan))
    else:
        bounds = _empty_bounds(hstar, y, state)
        lam0 = 0.5 * (bounds[3] - bounds[1])
        alpha0 = lam0 - bounds[3]
        top = (1, np.nan, bounds)
    if not np.isfinite(lam0) or lam0 <= 0:
        # no point ever reaches the elbow at λ > 0 (e.g. a rank-deficient kernel where the
        # minority stays in L): the segment above λ⁰ extends down to 0; report it at a
        # reference λ on the kernel's scale
        lam0 = max(float(np.max(np.diag(K))), np.finfo(float).tiny)
        alpha0 = (top[1] * lam0 - h_free) if top[0] == 0 else _midpoint_alpha0(lam0, top[2])
        return (alpha, alpha0, -lam0, state, how, top) + ((hstar,) if return_hstar else ())
    h = hstar + alpha0
    margin = y * h - lam0
    state[np.abs(margin) <= _TIE_RTOL * lam0 * 10] = _ELBOW
    return (alpha, alpha0, lam0, state, how, top) + ((hstar,) if return_hstar else ())


def _end(end, lam, max_iter=None, n_left=None):
    """``(status, message)`` of a path that ended by ``end`` (a key of ``_ENDS``) at λ = ``lam``."""
    status, detail = _ENDS[end]
    return status, status_message(status, detail.format(lam=lam, max_iter=max_iter, n_left=n_left))


def _finish(func, status, message, max_iter, l, n_singular, ridge, reference=False):
    """Warn when ``max_iter`` cut the path short; the fallbacks of the run, one sentence each."""
    if status == MAX_ITER:
        warn_not_converged(func, message, f"Increase max_iter (now {max_iter}; the default is 50 n_samples + 100 "
                                          f"= {50 * l + 100}), or end the path earlier with lambda_min.",
                           stacklevel=4)
    if not n_singular:
        return ()
    how = ("least squares (minimum-norm solution)" if reference else
           "the ridge step K_EE + δ I (δ = " + (f"{ridge:g}" if ridge > 0 else "1e-12 · max diag K_EE") + ")")
    return (f"{n_singular} singular elbow system(s) (duplicated points or a rank-deficient kernel: the Cholesky "
            f"factor of K_EE failed or left a residual above 1e-7) solved by {how}; see history['singular']",)


def _single_segment_path(K, y, alpha, alpha0, lam, state, how, top):
    """The path when no event exists at any λ > 0 (``_initialize`` returned a negative λ)."""
    h = K @ (y * alpha) + alpha0
    kind, slope, bounds = top
    history = {"lambda": np.array([lam]), "kkt_violation": np.array([_kkt_violation(h, lam, alpha, y, state)]),
               "singular": np.array([False]), "event": np.array([f"start ({how}); no event"], dtype=object)}
    status, message = _end("single_segment", lam)
    result = SvmPath(
        breakpoints=np.array([lam]), alphas=alpha[None, :].copy(), alpha0s=np.array([alpha0]),
        elbow_sizes=np.array([int((state == _ELBOW).sum())]), y=y.copy(), status=status, message=message,
        converged=True, n_iter=0, lambda_stop=None, n_singular_steps=0, history=history, initialization=how,
        _segment_kind=np.array([kind]), _segment_bounds=np.asarray(bounds)[None, :],
        _top_kind=int(kind), _top_slope=float(slope), _top_bounds=np.asarray(bounds),
        _tail_direction=np.zeros(y.size), _tail_slope0=float(slope) if kind == 0 else 0.0,
    )
    for name in ("breakpoints", "alphas", "alpha0s", "elbow_sizes", "y"):
        getattr(result, name).setflags(write=False)
    return result


_EVENT_WORDS = {0: "start", 1: "L->E", 2: "R->E", 3: "E->L", 4: "E->R", 5: "elbow was empty; points enter",
                6: "lambda_min", 7: "numerical floor", 8: "entrants left at once"}


def _event_text(kind, first, count, how):
    """The ``history["event"]`` text of a record (event code, first point, number of points)."""
    if kind == 0:
        return f"start ({how})"
    if first < 0:
        return _EVENT_WORDS[kind]
    return f"{first} {_EVENT_WORDS[kind]}" + (f" (+{count - 1} more)" if count > 1 else "")


def _path_report(n_events, lam, alpha, alpha0, h, y, state, event, extend=None):
    """The :class:`~toolkit._contract.IntermediateResult` at a breakpoint of the path (see the
    ``callback`` parameter of :func:`svm_path`); ``extend(alpha, alpha0, lam)`` adds or replaces
    fields (the Laplacian path's decision function on raw points)."""
    a = alpha.copy()
    ya = y * a
    hstar = h - alpha0                                     # K (y α)
    margins = y * h / lam
    objective = float(np.maximum(1.0 - margins, 0.0).sum() + 0.5 * float(ya @ hstar) / lam)

    def decision_function(K_cross):
        return (np.asarray(K_cross, dtype=float) @ ya + alpha0) / lam

    fields = dict(alpha=a, alpha0=float(alpha0), lam=float(lam), margins=margins,
                  elbow_size=int((state == _ELBOW).sum()), n_left=int((state == _LEFT).sum()), event=event,
                  decision_function=decision_function)
    if extend is not None:
        fields.update(extend(a, float(alpha0), float(lam)))
    return IntermediateResult(n_events, a, objective, **fields)


def _svm_path(K, y, lambda_min, max_iter, ridge, refresh, callback=None, func="svm_path", extend=None):
    """The path with the event loop compiled (``toolkit.paths._svm_numba.follow``).

    Python handles the start (Lemmas 1-2, :func:`_initialize`), the segments with an empty elbow
    (:func:`_collapse`), the end of the path and the result (:func:`_path_from_records`); the
    compiled loop follows the segments in between and returns on anything that needs a decision
    here (its ``EXIT_*`` codes). With a ``callback`` the compiled loop returns after every event,
    so that the callback sees every breakpoint (:func:`_path_report`).
    """
    from toolkit.paths import _svm_numba as nb
    K = np.ascontiguousarray(K, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.float64)
    l = y.size
    alpha, alpha0, lam, state, how, top, hstar = _initialize(K, y, True)
    if lam < 0:
        return _single_segment_path(K, y, alpha, alpha0, -lam, state, how, top)
    state = state.astype(np.int64)
    floor = lam * _FLOOR
    if lambda_min is not None and lambda_min < floor:
        lambda_min = None
    stop = -1.0 if lambda_min is None else float(lambda_min)
    h = hstar + alpha0
    changed_at = np.full(l, np.inf)
    tail = np.zeros(l)
    # records: about 1.5-1.8 l breakpoints are typical; np.empty reserves the rows without
    # touching them, so a generous start (capped at 2^27 doubles) avoids regrowing
    records = _allocate_records(int(max(256, min(2 * l + 64, 2 ** 27 // max(l, 1)))), l)
    n_rec, n_events, n_singular = 0, 0, 0
    ev = (nb.EV_START, -1, 0)

    def record(kind=0, bounds=None):
        nonlocal records
        if n_rec >= records.lam.size:
            records = _allocate_records(2 * records.lam.size, l, records, n_rec)
        nb._record(records[:9], n_rec, lam, alpha, alpha0, h, y, state, False, ev)
        records.kind[n_rec] = kind
        if bounds is not None:
            records.bounds[n_rec] = bounds
        return n_rec + 1

    notified = -1                       # events seen by the callback

    def notify():
        """Call the callback at the current breakpoint; a CallbackStop when it stops the path."""
        nonlocal notified
        notified = n_events
        report = _path_report(n_events, lam, alpha, alpha0, h, y, state, _event_text(*ev, how), extend)
        return run_callback(callback, report, f"event {n_events} (λ = {lam:.6g})")

    tail_direction, tail_slope0, halt, end = None, 0.0, None, None
    while True:
        if callback is not None and n_events > notified:
            halt = notify()
            if halt is not None:
                n_rec = record()
                break
        limit = max_iter if callback is None else min(max_iter, n_events + 1)
        out = nb.Exit(*nb.follow(K, y, alpha, h, state, changed_at, lam, alpha0, floor, stop, limit, n_events,
                                 refresh, ridge, n_rec, ev, records[:9], tail))
        n_rec, lam, alpha0, n_events = out.n_rec, out.lam, out.alpha0, out.n_events
        n_singular += out.n_singular
        ev = (out.event_kind, out.event_first, out.event_count)
        if out.code == nb.EXIT_GROW:
            records = _allocate_records(2 * records.lam.size, l, records, n_rec)
            continue
        if out.code == nb.EXIT_MAXITER and n_events < max_iter:
            continue                    # one event done: back to the callback
        if out.code == nb.EXIT_EMPTY:
            hstar = h - alpha0
            bounds = nb.empty_bounds(h, alpha0, y, state)
            n_rec = record(1, bounds)
            if callback is not None and n_events > notified:
                halt = notify()
                if halt is not None:
                    break
            collapse = _collapse(y, hstar, bounds, lam, state, changed_at, floor, lambda_min)
            if collapse is None:
                tail_direction, tail_slope0, end = np.zeros(l), 0.0, "no_event"
                break
            lam, alpha0, h = collapse.lam, collapse.alpha0, collapse.h
            if collapse.entered is None:
                ev = (nb.EV_STOP if lam == lambda_min else nb.EV_FLOOR, -1, 0)
                n_rec = record()
                end = "lambda_min" if lam == lambda_min else "floor"
                break
            enter = collapse.entered
            ev = (nb.EV_COLLAPSE, int(np.flatnonzero(enter)[0]) if enter.any() else -1, int(enter.sum()))
            n_events += 1
            continue
        if out.code == nb.EXIT_NO_EVENT:
            tail_direction, tail_slope0, end = tail.copy(), float(out.tail_b0), "no_event"
            break
        n_rec = record()
        if out.code == nb.EXIT_LEFT_EMPTY:
            tail_direction = np.where(state == _ELBOW, alpha / lam, 0.0)
            tail_slope0, end = alpha0 / lam, "left_empty"
        else:
            end = {nb.EXIT_STOP: "lambda_min", nb.EXIT_FLOOR: "floor", nb.EXIT_MAXITER: "max_iter"}[out.code]
        break
    if halt is not None:
        status, message = halt.status, status_message(halt.status, halt.detail)
    else:
        status, message = _end(end, lam, max_iter, int((state == _LEFT).sum()))
    fallbacks = _finish(func, status, message, max_iter, l, n_singular, ridge)
    return _path_from_records(records, n_rec, y, how, top, status, message, n_events, lambda_min, n_singular,
                              tail_direction, tail_slope0, halt, fallbacks)


def _allocate_records(capacity, l, old=None, n=0):
    """Record buffers (``toolkit.paths._svm_numba.Records``) for ``capacity`` breakpoints of a path on
    ``l`` points, with the first ``n`` rows of ``old`` copied in (when the buffers grow)."""
    from toolkit.paths._svm_numba import Records
    new = Records(lam=np.empty(capacity), alpha=np.empty((capacity, l)), alpha0=np.empty(capacity),
                  elbow_size=np.empty(capacity, np.int64), kkt=np.empty(capacity),
                  singular=np.zeros(capacity, np.bool_), event_kind=np.zeros(capacity, np.int64),
                  event_first=np.full(capacity, -1, np.int64), event_count=np.zeros(capacity, np.int64),
                  kind=np.zeros(capacity, np.int64), bounds=np.full((capacity, 4), np.nan))
    if old is not None:
        for buffer, previous in zip(new, old):
            buffer[:n] = previous[:n]
    return new


class _Collapse(NamedTuple):
    """Where an empty elbow's feasible interval for α₀ collapses (or the path stops first): λ, α₀ and
    ``h = h* + α₀`` there, and the points that enter the elbow (None when the path stops there, at
    ``lambda_min`` or the numerical floor, with the midpoint α₀)."""

    lam: float
    alpha0: float
    h: np.ndarray
    entered: np.ndarray | None


def _collapse(y, hstar, bounds, lam, state, changed_at, floor, lambda_min):
    """The end of an empty-elbow segment below ``lam``. With α fixed the KKT conditions leave α₀ an
    interval (``bounds`` of ``h* = K (y α)``, see :func:`_midpoint_alpha0`) that shrinks as λ falls and
    collapses at ``λ* = (max_{L+} h* - min_{L-} h*) / 2``, where the points whose margin is 1 enter
    the elbow (``state`` and ``changed_at`` updated in place). Returns a :class:`_Collapse`, or None
    when the interval never collapses (no further event: the segment extends down to λ = 0)."""
    lam_next = 0.5 * (bounds[3] - bounds[1])
    if not np.isfinite(lam_next) or lam_next <= 0:
        return None
    if (lambda_min is not None and lam_next <= lambda_min) or lam_next < floor:
        lam = floor if lambda_min is None or lambda_min < floor else lambda_min
        alpha0 = _midpoint_alpha0(lam, bounds)
        return _Collapse(lam, alpha0, hstar + alpha0, None)
    lam = min(lam_next, lam)
    alpha0 = lam - bounds[3]
    h = hstar + alpha0
    enter = np.abs(y * h - lam) <= _TIE_RTOL * lam * 10
    state[enter] = _ELBOW
    changed_at[enter] = lam
    return _Collapse(lam, alpha0, h, enter)


def _path_from_records(records, n_rec, y, how, top, status, message, n_events, lambda_min, n_singular,
                       tail_direction, tail_slope0, halt, fallbacks):
    """The :class:`SvmPath` from the first ``n_rec`` rows of the record buffers. Records at equal λ
    (zero-length empty-elbow collapses) are merged, the later one kept: record ``k - 1`` survives
    when record ``k`` lies strictly below it; with nothing merged the arrays are views of the buffers."""
    lam_rec = records.lam[:n_rec]
    last = np.ones(n_rec, dtype=bool)
    last[:-1] = lam_rec[1:] < lam_rec[:-1] * (1 - 1e-13)
    sel = np.flatnonzero(last)
    words = [_event_text(kind, first, count, how)
             for kind, first, count in zip(records.event_kind[sel].tolist(), records.event_first[sel].tolist(),
                                           records.event_count[sel].tolist())]
    if sel.size == n_rec:
        take = lambda a: a[:n_rec]          # noqa: E731 - nothing merged: views of the records
    else:
        take = lambda a: a[sel]             # noqa: E731 - fancy indexing copies
    top_kind, top_slope, top_bounds = top
    history = {"lambda": take(records.lam), "kkt_violation": take(records.kkt), "singular": take(records.singular),
               "event": np.asarray(words, dtype=object)}
    result = SvmPath(
        breakpoints=take(records.lam), alphas=take(records.alpha), alpha0s=take(records.alpha0),
        elbow_sizes=take(records.elbow_size), y=y.copy(), status=status,
        message=message, converged=is_converged(status), n_iter=n_events, lambda_stop=lambda_min,
        n_singular_steps=n_singular, history=history, initialization=how,
        _segment_kind=take(records.kind), _segment_bounds=take(records.bounds),
        _top_kind=int(top_kind), _top_slope=float(top_slope), _top_bounds=np.asarray(top_bounds),
        _tail_direction=tail_direction if status == CONVERGED else None, _tail_slope0=float(tail_slope0),
        stop=None if halt is None else halt.event, fallbacks=fallbacks,
    )
    for name in ("breakpoints", "alphas", "alpha0s", "elbow_sizes", "y"):
        getattr(result, name).setflags(write=False)
    return result
