"""Result objects of :mod:`toolkit.rls`: frozen dataclasses with ``predict`` and ``summary()``.

Their display (``summary()``, ``_repr_html_``, ``repr``) is the toolkit's one,
:class:`toolkit._display.Result`; the search results carry the solver contract's fields
(:class:`toolkit._contract.SolverResult`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from toolkit._contract import SolverResult
from toolkit._display import Result
from toolkit.kernels import kernel_matrix

__all__ = ["KernelExpansion", "RestartRecord", "RLSCResult", "S2RLSCResult", "MMCResult"]


@dataclass(frozen=True, eq=False)
class KernelExpansion:
    """``f(x) = Σ_i w_i k(p_i, x) + b``: the decision function of a fitted model.

    ``points`` are the training points (exact model) or the Nyström basis points; for
    ``kernel="precomputed"`` ``points`` is ``None`` and ``columns`` names the training columns of
    the test kernel rows that the weights apply to.  ``bias`` is ``Σ c`` when the model has an
    offset (a constant feature, i.e. ``k + 1``), else 0.
    """

    kernel: object
    sigma: float | None
    kernel_degree: int
    coef0: float
    weights: np.ndarray
    bias: float
    points: np.ndarray | None
    columns: np.ndarray | None
    n_train: int
    primal: np.ndarray | None = None      # Σ_i w_i p_i for the linear kernel

    def __call__(self, X, func="decision_function"):
        if self.kernel == "precomputed":
            X = np.asarray(X, dtype=float)
            if X.ndim != 2 or X.shape[1] != self.n_train:
                raise ValueError(f"{func}: with kernel='precomputed', 'X' must be kernel rows of shape "
                                 f"(n_samples, {self.n_train}) against the training points. Got shape "
                                 f"{X.shape} instead.")
            if not np.all(np.isfinite(X)):
                raise ValueError(f"The 'X' parameter of {func} must contain only finite values (no NaN or inf).")
            Kx = X if self.columns is None else X[:, self.columns]
            return Kx @ self.weights + self.bias
        from toolkit._validation import check_features, check_matrix
        X = check_matrix(X, "X", func)
        check_features(func, "X", X, "X_train", self.points)
        if self.primal is not None:
            return np.asarray(X @ self.primal).ravel() + self.bias
        K = kernel_matrix(X, self.points, kernel=self.kernel, sigma=self.sigma, kernel_degree=self.kernel_degree,
                          coef0=self.coef0)
        return K @ self.weights + self.bias


def _kernel_name(kernel):
    return kernel if isinstance(kernel, str) else getattr(kernel, "__name__", "callable")


@dataclass(frozen=True, eq=False, repr=False)
class RLSCResult(Result):
    """Supervised regularised least-squares classifier, eq. (4) of Gieseke et al. (2011).

    ``coefficients`` solve ``min_c (1/l)‖y − K c‖² + λ cᵀ K c``.  The eigendecomposition of ``K``
    is kept, so :meth:`coef` gives the coefficients for any other ``λ`` at O(l²) cost, and
    :meth:`predict` / :meth:`decision_function` accept ``lam=``.
    """

    coefficients: np.ndarray
    lam: float
    objective: float
    classes: np.ndarray
    kernel: str
    offset: bool
    time: float
    eigenvalues: np.ndarray = field(repr=False)
    eigenvectors: np.ndarray = field(repr=False)
    y_transformed: np.ndarray = field(repr=False)
    expansion: KernelExpansion = field(repr=False)

    def coef(self, lam=None):
        """Coefficients ``c = U diag(1/(s + λ l)) Uᵀ y`` for ``lam`` (default: the fitted λ)."""
        if lam is None:
            return self.coefficients
        from toolkit._validation import check_scalar
        lam = check_scalar(lam, "lam", "RLSCResult.coef", low=0.0, low_closed=False)
        from toolkit.rls._spectral import coefficients
        l = self.y_transformed.shape[0]
        return coefficients(self.eigenvalues, self.eigenvectors, self.y_transformed, lam * l)

    def decision_function(self, X, lam=None):
        """Real-valued predictions ``f(x) = Σ_i c_i k(x_i, x)`` (+ ``Σ c`` with an offset)."""
        c = self.coef(lam)
        ex = self.expansion
        if lam is not None:
            primal = None if ex.primal is None else ex.points.T @ c
            ex = KernelExpansion(ex.kernel, ex.sigma, ex.kernel_degree, ex.coef0, c,
                                 float(c.sum()) if self.offset else 0.0, ex.points, ex.columns,
                                 ex.n_train, primal)
        return ex(X, "RLSCResult.decision_function")

    def predict(self, X, lam=None):
        """Class labels, coded like ``y_labeled`` (``sign(f(x))``; ties go to the positive class)."""
        f = self.decision_function(X, lam)
        return self.classes[(f >= 0).astype(int)]

    _title: ClassVar[str] = "RLSC (regularised least-squares classification)"
    _html_title: ClassVar[str] = "RLSC"

    def _rows(self):
        return [("kernel", self.kernel), ("offset", self.offset), ("lambda", f"{self.lam:.6g}"),
                ("n_labeled", self.coefficients.shape[0]), ("classes (-1, +1)", self.classes.tolist()),
                ("objective (eq. 4)", f"{self.objective:.8g}"), ("time [s]", f"{self.time:.4f}")]

    def _brief(self):
        return (f"kernel={self.kernel!r}, lam={self.lam:.6g}, n_labeled={self.coefficients.shape[0]}, "
                f"objective={self.objective:.8g}")


@dataclass(frozen=True, eq=False)
class RestartRecord:
    """One restart of the search: how it started, where it ended, what it cost."""

    restart: int
    init: str                 # "x0", "rlsc" or "random"
    objective: float          # F of the final labelling of this restart (tracked through the flips)
    n_iter: int               # sweeps (1+1) or generations (mu+nu), polishing sweeps included
    n_evaluations: int        # flip evaluations Δ_j
    n_flips: int              # accepted flips (children entering the population for mu+nu)
    converged: bool           # the stopping rule fired before max_iter
    time: float


@dataclass(frozen=True, eq=False, repr=False)
class _SearchResult(SolverResult):
    """The schema shared by the search results; subclasses add their labels field and a title.

    The contract's fields (``converged``, ``status``, ``message``, ``n_iter``, ``history``,
    ``stop``, ``fallbacks``) come from :class:`toolkit._contract.SolverResult`.
    """

    coefficients: np.ndarray
    objective: float
    restart_objectives: np.ndarray
    best_restart: int
    n_evaluations: int
    n_flips: int
    time_preprocessing: float
    time_search: float
    time_total: float
    seed: int | None
    params: dict
    classes: np.ndarray
    restarts: tuple = field(repr=False)
    expansion: KernelExpansion = field(repr=False)

    def decision_function(self, X):
        """Real-valued predictions ``f(x) = Σ_i c_i k(x_i, x)`` for new points.

        ``X`` has shape ``(n_samples, n_features)``, or ``(n_samples, n_train)`` kernel rows against
        the training points (labelled first) when ``kernel="precomputed"``.
        """
        return self.expansion(X, f"{type(self).__name__}.decision_function")

    def predict(self, X):
        """Class labels for new points, coded like the training labels (ties go to the positive class)."""
        f = self.decision_function(X)
        return self.classes[(f >= 0).astype(int)]

    def _rows(self):
        p = self.params
        rows = [("kernel", p["kernel"]), ("lambda", f"{p['lam']:.6g}")]
        if "lam_u" in p:
            rows.append(("lambda'", f"{p['lam_u']:.6g}"))
        rows += [("balance b_c / eps", f"{p['balance']:.4g} / {p['eps']:.4g}"),
                 ("search", p["search"] + (f" (mu={p['mu']}, nu={p['nu']})" if p["search"] == "mu+nu"
                                           else f" ({p['order']})")),
                 ("operator", p["operator"]),
                 ("objective F", f"{self.objective:.10g}"),
                 ("restarts (best)", f"{len(self.restart_objectives)} ({self.best_restart})"),
                 ("F over restarts min/median/max",
                  "{:.6g} / {:.6g} / {:.6g}".format(*np.percentile(self.restart_objectives, [0, 50, 100]))),
                 ("evaluations / accepted flips", f"{self.n_evaluations} / {self.n_flips}"),
                 ("time preprocessing / search [s]", f"{self.time_preprocessing:.3f} / {self.time_search:.3f}"),
                 *self._status_rows(),
                 ("seed", self.seed)]
        return rows

    def _brief(self):
        return (f"objective={self.objective:.10g}, restarts={len(self.restart_objectives)}, status={self.status}, "
                f"n_iter={self.n_iter}, seed={self.seed}")


def _search_fields_doc():
    return """

    Attributes
    ----------
    coefficients : ndarray of shape (n_train,)
        ``c* = D (D K D + λ I)⁻¹ D y`` (eq. 9 / 12) for the returned labelling, one per training
        point (labelled points first).  With a Nyström basis they refer to the approximate kernel.
    objective : float
        ``F(y) = min_c J(c, y)`` (eq. 8 / 11) of the returned labelling, recomputed from scratch.
    restart_objectives : ndarray of shape (n_restarts,)
        F at the end of every restart.
    restarts : tuple of RestartRecord
    best_restart : int
    history : mapping of str to ndarray
        ``objective``: F before the first and after every sweep (1+1) or generation (best of the
        population, mu+nu) of the best restart, polishing sweeps appended; per restart:
        ``restart_objective`` (F at its end), ``best_objective`` (best F so far),
        ``restart_n_iter`` (sweeps or generations) and ``restart_converged`` (its rule fired
        before ``max_iter``).
    n_evaluations, n_flips, n_iter : int
        Totals over all restarts.
    converged, status, message
        The status table of :data:`toolkit.SOLVER_STATUS`: 0 every restart stopped by its rule
        (a local optimum), 1 an early-stopping rule passed as ``callback`` stopped the restarts,
        2 ``max_iter`` was reached in some restart (with a ``ConvergenceWarning``), 3 the callback
        raised ``StopIteration``; ``converged`` is True for 0 and 1.
    stop : StopEvent or None
        The early-stopping rule that stopped the restarts (status 1), when and on which value.
    fallbacks : tuple of str
        Numerical fallbacks taken (none in this solver: the factorisations are eigendecompositions).
    time_preprocessing, time_search, time_total : float
        Seconds: kernel and factorisation of ``M``; the restarts; the whole call.
    seed : int or None
    params : dict
        The parameters that define the problem and the search.
    """


@dataclass(frozen=True, eq=False, repr=False)
class S2RLSCResult(_SearchResult):
    __doc__ = ("Semi-supervised RLSC fitted by local / evolutionary search (Gieseke et al. 2011, 2012)."
               "\n\n    ``labels_unlabeled`` are coded like ``y_labeled``." + _search_fields_doc())

    labels_unlabeled: np.ndarray = field(kw_only=True)

    _title: ClassVar[str] = "S2RLSC (semi-supervised regularised least-squares)"
    _html_title: ClassVar[str] = "S2RLSC"


@dataclass(frozen=True, eq=False, repr=False)
class MMCResult(_SearchResult):
    __doc__ = ("Maximum margin clustering by RLSC local / evolutionary search (Gieseke et al. 2012, eq. 16-17)."
               "\n\n    ``labels`` are -1 / +1." + _search_fields_doc())

    labels: np.ndarray = field(kw_only=True)

    _title: ClassVar[str] = "MMC (maximum margin clustering, RLSC)"
    _html_title: ClassVar[str] = "MMC"
