"""The regularised least-squares path: one eigendecomposition, every λ, closed-form LOO and GCV.

Weighted RLS (RLSC of Gieseke et al. 2011 eq. 4 with weights ``1/l``; the inner problem of
S²RLSC, eq. 5-7, for a fixed labelling with weights ``1/l`` and ``λ'/u``)::

    min_c  Σ_i w_i (y_i - (K c)_i)² + λ cᵀ K c,      D = diag(√w),  D K D = V diag(s) Vᵀ,

    c(λ) = D V diag(1/(s + λ)) Vᵀ D y,       H̃(λ) = V diag(s/(s + λ)) Vᵀ  (hat matrix, D-scaled).

Leave-one-out residuals of a linear smoother: ``y_i - f⁽⁻ⁱ⁾(x_i) = (y_i - f_i) / (1 - H̃_ii)``
(Rifkin & Lippert 2007; RLScore's ``leave_one_out``), exactly the refit without point i.
"""
from __future__ import annotations

import dataclasses
import numbers
from typing import Any, ClassVar

import numpy as np

from toolkit._cv import one_standard_error
from toolkit._display import Result
from toolkit.rls._spectral import coefficients, weighted_eigh
from toolkit._validation import check_matrix, check_option, check_scalar, encode_binary_labels
from toolkit.kernels import cross_kernel, training_kernel
from toolkit.paths._svm import _PM1, _is_pm1, _labels_of

__all__ = ["RlscPath", "rlsc_path"]


@dataclasses.dataclass(frozen=True, repr=False)
class RlscPath(Result):
    """The RLS path returned by :func:`rlsc_path` (frozen).

    Attributes
    ----------
    lambdas : ndarray of shape (n_lambdas,)
        Decreasing grid; ``coef(s)`` and ``decision_function(X, s)`` accept any λ > 0.
    loo_predictions : ndarray of shape (n_lambdas, n_samples)
        ``f⁽⁻ⁱ⁾(x_i)``: the prediction at each point of the fit without it.
    loo_error : ndarray of shape (n_lambdas,)
        Misclassification error in percent of ``sign f⁽⁻ⁱ⁾(x_i)`` (classification; NaN for
        regression).
    loo_mse : ndarray of shape (n_lambdas,)
        Mean squared LOO residual.
    gcv : ndarray of shape (n_lambdas,)
        ``mean(w̄ (y - f)²) / (1 - tr H / n)²`` with weights normalised to mean 1.
    df : ndarray of shape (n_lambdas,)
        Effective degrees of freedom ``tr H = Σ s/(s + λ)``.
    lambda_min, lambda_1se, lambda_gcv : float
        Largest λ minimising the LOO error (LOO MSE for regression); largest λ whose LOO
        error is within one binomial standard error of the minimum; minimiser of GCV.
    eigenvalues, eigenvectors : ndarrays
        ``D K D = V diag(s) Vᵀ``, kept so that any λ costs ``O(n²)``.
    sqrt_weights, y : ndarrays of shape (n_samples,)
        ``y`` holds the targets fitted: the labels coded -1 / +1 (+1 for ``classes[1]``) for
        classification, the targets as given for regression.
    classes : ndarray of shape (2,) or None
        Classification: the two labels given, sorted; ``classes[1]`` is the positive class
        (``f(x) > 0``) and :meth:`predict` returns these labels. ``None`` for regression.
    """

    lambdas: np.ndarray
    loo_predictions: np.ndarray
    loo_error: np.ndarray
    loo_mse: np.ndarray
    gcv: np.ndarray
    df: np.ndarray
    lambda_min: float
    lambda_1se: float
    lambda_gcv: float
    eigenvalues: np.ndarray
    eigenvectors: np.ndarray
    sqrt_weights: np.ndarray
    y: np.ndarray
    kernel: Any = "precomputed"
    kernel_params: dict = dataclasses.field(default_factory=dict)
    X_train: Any = dataclasses.field(default=None, repr=False)
    classes: np.ndarray | None = None

    def _check_s(self, s):
        arr = np.atleast_1d(np.asarray(s, dtype=float))
        if arr.ndim != 1 or not np.all(np.isfinite(arr)) or np.any(arr <= 0):
            raise ValueError(f"The 's' parameter of RlscPath must be a float or 1-d array of floats in (0, inf). "
                             f"Got {s!r} instead.")
        return arr

    def coef(self, s):
        """Expansion coefficients ``c(λ)`` (``f = K(x, X_train) @ c``) at λ = ``s``, exact.

        Returns
        -------
        c : ndarray of shape (n_samples,) or (n_lambdas, n_samples)
        """
        C = coefficients(self.eigenvalues, self.eigenvectors, self.y, self._check_s(s), self.sqrt_weights)
        return C[0] if np.ndim(s) == 0 else C

    def decision_function(self, X, s):
        """``f(x) = K(x, X_train) c(λ)``: (n_new,) or (n_new, n_lambdas).

        ``X`` holds new points, or with ``kernel="precomputed"`` their kernel rows
        ``(n_new, n_samples)`` against the training points.
        """
        K_cross = cross_kernel(X, self.X_train, "RlscPath.decision_function", kernel=self.kernel,
                               n_train=self.y.shape[0], **self.kernel_params)
        return K_cross @ self.coef(s).T

    def predict(self, X, s):
        """Class labels at λ = ``s``: ``classes[1]`` where ``f(x) >= 0``, else ``classes[0]``.

        For a regression path (``classes`` None) ``sign f`` in {-1.0, 1.0}.
        """
        return _labels_of(_PM1 if self.classes is None else self.classes, self.decision_function(X, s))

    _title: ClassVar[str] = "Regularised least-squares path (one eigendecomposition; closed-form LOO and GCV)"

    def _rows(self):
        """The grid and the three selected λ."""
        i_min = int(np.flatnonzero(self.lambdas == self.lambda_min)[0])
        rows = [
            ("training points", f"{self.y.shape[0]}" + (" (regression)" if self.classes is None else
                                                        f" ({int((self.y > 0).sum())} positive, "
                                                        f"{int((self.y < 0).sum())} negative)")),
            ("λ grid", f"{self.lambdas.size} values from {self.lambdas[0]:.4g} to {self.lambdas[-1]:.4g}"),
            ("lambda_min (LOO)", f"{self.lambda_min:.4g}  (LOO error {self.loo_error[i_min]:.2f} %, "
                                 f"df {self.df[i_min]:.1f})"),
            ("lambda_1se", f"{self.lambda_1se:.4g}"),
            ("lambda_gcv", f"{self.lambda_gcv:.4g}"),
        ]
        if self.classes is not None and not _is_pm1(self.classes):
            labels = self.classes.tolist()
            rows.insert(1, ("classes", f"{labels} (positive: {labels[1]!r})"))
        return rows

    def _brief(self):
        return (f"n_samples={self.y.shape[0]}, n_lambdas={self.lambdas.size}, "
                f"lambda_min={self.lambda_min:.4g}, lambda_gcv={self.lambda_gcv:.4g}")

    def plot(self, kind="loo", *, ax=None):
        """Plot ``"loo"`` (LOO error and GCV) or ``"coef"`` (c against log λ), λ_min and λ_1se marked."""
        if kind not in ("loo", "coef"):
            raise ValueError(f"The 'kind' parameter of RlscPath.plot must be one of 'loo', 'coef'. Got {kind!r} instead.")
        import matplotlib.pyplot as plt
        if ax is None:
            _, ax = plt.subplots(figsize=(6, 4))
        if kind == "loo":
            ax.plot(self.lambdas, self.loo_error, label="LOO error")
            ax.plot(self.lambdas, self.gcv / np.nanmax(self.gcv) * np.nanmax(self.loo_error), ls="--",
                    label="GCV (rescaled)")
            ax.legend()
        else:
            ax.plot(self.lambdas, self.coef(self.lambdas), lw=0.7)
        ax.axvline(self.lambda_min, color="k", lw=0.8)
        ax.axvline(self.lambda_1se, color="k", lw=0.8, ls=":")
        ax.set_xscale("log")
        ax.set_xlabel("λ (log scale)")
        return ax


def rlsc_path(X, y, *, kernel="precomputed", sigma=None, kernel_degree=2, coef0=1.0, weights=None, lambdas=None,
              n_lambdas=100, lambda_min_ratio=1e-6, task="auto"):
    r"""RLS / RLSC solutions for a whole λ grid from one eigendecomposition, with LOO and GCV.

    .. math::

        \min_c \sum_i w_i (y_i - (Kc)_i)^2 + \lambda\, c^T K c,
        \qquad c(\lambda) = D V (\operatorname{diag}(s) + \lambda I)^{-1} V^T D y,

    with ``D = diag(√w)`` and ``D K D = V diag(s) Vᵀ``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_samples) or (n_samples, n_features)
        With ``kernel="precomputed"`` (the default) the symmetric positive semi-definite kernel
        matrix ``K`` (checked, within round-off tolerances, by
        ``toolkit._validation.check_kernel_matrix``, the rule every precomputed kernel follows);
        otherwise the points.
    y : array-like of shape (n_samples,)
        Class labels or real targets, as ``task`` reads them. Labels: any two values, coded as in
        :func:`toolkit.svm_path` (``classes[1]`` is +1).
    kernel : {"precomputed", "linear", "rbf", "polynomial"} or callable, default="precomputed"
        As in :func:`toolkit.svm_path`: ``decision_function`` then takes points as ``X`` was given.
    sigma, kernel_degree, coef0 : float, int, float, default=None, 2, 1.0
        The kernel's parameters.
    weights : array-like of shape (n_samples,), default=None
        Positive weights ``w_i``; ``None`` means ``1/n``, i.e. RLSC eq. (4) of Gieseke et al.
        (2011), ``c = (K + λ n I)⁻¹ y``, the same λ as :func:`toolkit.rlsc`. For the S²RLSC
        objective at a fixed labelling use ``1/l`` on labelled and ``λ'/u`` on unlabelled points.
    lambdas : array-like, default=None
        The grid (sorted decreasing). ``None``: ``n_lambdas`` log-spaced values from the
        data-derived ``λ_max = s_max`` (the top eigenvalue of ``D K D``, where the leading
        component is shrunk by half) down to ``λ_max · lambda_min_ratio``.
    n_lambdas : int, default=100
        Length of the default grid.
    lambda_min_ratio : float, default=1e-6
        Smallest λ of the default grid relative to ``λ_max``.
    task : {"auto", "classification", "regression"}, default="auto"
        ``"classification"``: ``y`` must hold exactly two labels, fitted as -1 / +1 (``loo_error``
        and ``lambda_min`` by misclassification, ``classes`` recorded, ``predict`` returns the
        labels). ``"regression"``: ``y`` real targets fitted as given (``lambda_min`` by LOO
        MSE, ``loo_error`` NaN, ``classes`` None). ``"auto"``: classification when ``y`` holds
        exactly two distinct values (or is not numeric), regression otherwise; two-valued numeric
        targets meant as regression (0 / 1 fitted as 0 / 1) need ``task="regression"``.

    Returns
    -------
    path : RlscPath
        ``lambdas``, the LOO predictions, ``loo_error``, ``loo_mse``, ``gcv`` and ``df`` per λ,
        ``lambda_min``, ``lambda_1se``, ``lambda_gcv``, ``coef(s)``, ``decision_function`` and
        ``predict``.

    Notes
    -----
    Cost: ``O(n³)`` for ``eigh`` once, then ``O(n²)`` per λ for the fitted values and the hat
    diagonal (two matrix products for the whole grid). LOO residuals are
    ``(y_i - f_i) / (1 - H_ii)``, exact for every positive weight vector.

    References
    ----------
    Rifkin & Lippert (2007), "Notes on regularized least squares"; Pahikkala et al., RLScore.

    Examples
    --------
    >>> import numpy as np
    >>> from toolkit import rlsc_path, kernel_matrix
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(50, 2)); y = np.where(X[:, 0] > 0, 1.0, -1.0)
    >>> path = rlsc_path(kernel_matrix(X, kernel="rbf", sigma=1.0), y)
    >>> c = path.coef(path.lambda_min)
    """
    func = "rlsc_path"
    K = training_kernel(X, func, kernel=kernel, sigma=sigma, kernel_degree=kernel_degree, coef0=coef0)
    check_option(task, "task", func, ("auto", "classification", "regression"))
    y, classes = _targets(y, task, func)
    n = y.shape[0]
    if K.shape[0] != n:
        raise ValueError(f"{func}: 'X' (the kernel matrix K) has {K.shape[0]} rows but 'y' has {n}; they must match.")
    if weights is None:
        w = np.full(n, 1.0 / n)
    else:
        w = check_matrix(weights, "weights", func, accept_sparse=False, ndim=1)
        if w.shape[0] != n:
            raise ValueError(f"{func}: 'weights' has {w.shape[0]} entries but 'y' has {n}; they must match.")
        if np.any(w <= 0):
            raise ValueError(f"The 'weights' parameter of {func} must be positive. Got minimum {w.min()!r} instead.")
    n_lambdas = check_scalar(n_lambdas, "n_lambdas", func, kind=numbers.Integral, low=1)
    lambda_min_ratio = check_scalar(lambda_min_ratio, "lambda_min_ratio", func, low=0.0, high=1.0,
                                    low_closed=False, high_closed=False)
    if lambdas is not None:
        lambdas = check_matrix(np.atleast_1d(lambdas), "lambdas", func, accept_sparse=False, ndim=1)
        if np.any(lambdas <= 0):
            raise ValueError(f"The 'lambdas' parameter of {func} must contain only values in (0, inf). "
                             f"Got minimum {float(lambdas.min())!r} instead.")
        lambdas = np.sort(lambdas)[::-1]
    # 1. one eigendecomposition of D K D
    s, V, d = weighted_eigh(K, w)
    # 2. the grid
    if lambdas is None:
        lam_max = float(s[-1]) if s[-1] > 0 else 1.0
        lambdas = np.geomspace(lam_max, lam_max * lambda_min_ratio, n_lambdas)
    # 3. fitted values and hat diagonal for the whole grid: two (n × n) @ (n × n_lambdas) products
    z = V.T @ (d * y)
    shrink = s[:, None] / (s[:, None] + lambdas[None, :])            # (n, n_lambdas)
    fitted = (V @ (shrink * z[:, None])) / d[:, None]                 # f = D⁻¹ H̃ D y
    hat_diag = (V * V) @ shrink                                       # H̃_ii
    residual = y[:, None] - fitted
    loo_residual = residual / (1.0 - hat_diag)
    loo_pred = (y[:, None] - loo_residual).T                          # (n_lambdas, n)
    loo_mse = np.mean(loo_residual ** 2, axis=0)
    if classes is not None:                                           # classification, y coded -1 / +1
        rate = np.mean(np.where(loo_pred >= 0, 1.0, -1.0) != y[None, :], axis=1)
        loo_error = 100.0 * rate                                      # percent, as every error of the toolkit
        crit, se = loo_error, 100.0 * np.sqrt(rate * (1 - rate) / n)
    else:
        loo_error = np.full(lambdas.size, np.nan)
        crit = loo_mse
        se = np.std(loo_residual ** 2, axis=0, ddof=1) / np.sqrt(n) if n > 1 else np.zeros(lambdas.size)
    df = shrink.sum(axis=0)
    w_bar = w * n / w.sum()
    gcv = np.mean(w_bar[:, None] * residual ** 2, axis=0) / (1.0 - df / n) ** 2
    # 4. selection (largest λ among ties: the most regularised model)
    i_min, i_1se = one_standard_error(crit, se, strength=lambdas)
    i_gcv = int(np.nanargmin(np.where(np.isfinite(gcv), gcv, np.inf)))
    for arr in (lambdas, loo_pred, loo_error, loo_mse, gcv, df, s, V, d, y) + (() if classes is None else (classes,)):
        arr.setflags(write=False)
    return RlscPath(lambdas=lambdas, loo_predictions=loo_pred, loo_error=loo_error, loo_mse=loo_mse, gcv=gcv,
                    df=df, lambda_min=float(lambdas[i_min]), lambda_1se=float(lambdas[i_1se]),
                    lambda_gcv=float(lambdas[i_gcv]), eigenvalues=s, eigenvectors=V, sqrt_weights=d, y=y,
                    kernel=kernel, kernel_params=dict(sigma=sigma, kernel_degree=kernel_degree, coef0=coef0),
                    X_train=None if kernel == "precomputed" else check_matrix(X, "X", func), classes=classes)


def _targets(y, task, func):
    """``(y fitted, classes)``: labels coded -1 / +1 with their two classes, or real targets and None.

    Numeric ``y`` is checked as a real vector first (complex, NaN and inf refused naming ``y``);
    ``task="auto"`` reads exactly two distinct values, or labels that are not numbers, as classes.
    """
    try:
        raw = np.asarray(y)
    except (TypeError, ValueError):       # ragged sequences: check_matrix names the argument
        raw = None
    if raw is None or raw.dtype.kind in "biufc" or task == "regression":
        targets = check_matrix(y, "y", func, accept_sparse=False, ndim=1)
        distinct = np.unique(targets).size
        if task == "auto" and distinct < 2:
            raise ValueError(f"The 'y' parameter of {func} holds one distinct value ({targets[0]!r} on {targets.size} "
                             "point(s)): a classifier needs two classes, and task='auto' will not read a constant "
                             "as regression targets. Pass labels of both classes, or task='regression' to fit the "
                             "constant.")
        if task == "regression" or (task == "auto" and distinct != 2):
            return targets.copy(), None
    classes, coded = encode_binary_labels(y, "y", func)
    return coded, classes
