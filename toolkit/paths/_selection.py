"""Model selection along a whole path: validation error or k-fold CV, ``lambda_min`` and ``lambda_1se``.

glmnet's rule (Friedman, Hastie & Tibshirani 2010, ``cv.glmnet``): ``lambda_min`` minimises the
estimated error; ``lambda_1se`` is the largest λ whose error is within one standard error of that
minimum (the most regularised model that is statistically as good). Errors are in percent, as
everywhere in the toolkit (see :mod:`toolkit.stats`).
"""
from __future__ import annotations

import dataclasses
import numbers

import numpy as np
from scipy.sparse.linalg import LinearOperator

from toolkit._cv import one_standard_error, stratified_folds
from toolkit._display import Result
from toolkit.graphs import iterated_laplacian
from toolkit._validation import check_matrix, check_rng, check_scalar, encode_binary_labels, encode_labels_as

__all__ = ["PathSelection", "validation_curve", "cv_svm_path", "cv_laplacian_svm_path", "select_lambda"]


@dataclasses.dataclass(frozen=True, repr=False)
class PathSelection(Result):
    """Error along a λ grid and the selected λ (frozen; returned by the functions of this module).

    Attributes
    ----------
    lambdas : ndarray of shape (n_lambdas,)
        Decreasing grid.
    error : ndarray of shape (n_lambdas,)
        Misclassification error in percent (validation points, or mean over folds).
    error_se : ndarray of shape (n_lambdas,)
        Its standard error in percentage points: binomial ``100 sqrt(p (1 - p) / m)`` on a
        validation set (``p = error / 100``), ``std / sqrt(k)`` over k folds.
    fold_error : ndarray of shape (n_folds, n_lambdas) or None
        Error of each fold in percent (k-fold CV).
    lambda_min, lambda_1se : float
    index_min, index_1se : int
    method : str
        ``"validation"`` or ``"k-fold"``.
    n_folds : int or None
    seed : int or None
        The seed of the fold assignment.
    path : object or None
        The path fitted on all labelled points (k-fold CV), to predict at ``lambda_min``.
    """

    lambdas: np.ndarray
    error: np.ndarray
    error_se: np.ndarray
    fold_error: np.ndarray | None
    lambda_min: float
    lambda_1se: float
    index_min: int
    index_1se: int
    method: str
    n_folds: int | None
    seed: int | None
    path: object = None

    @property
    def _title(self):
        k = f", {self.n_folds} folds" if self.n_folds else ""
        return f"Path-based model selection ({self.method}{k})"

    def _rows(self):
        """The grid, the two selected λ and their errors."""
        return [
            ("λ grid", f"{self.lambdas.size} values from {self.lambdas[0]:.4g} to {self.lambdas[-1]:.4g}"),
            ("lambda_min", f"{self.lambda_min:.4g}  (error {self.error[self.index_min]:.2f} "
                           f"± {self.error_se[self.index_min]:.2f} %)"),
            ("lambda_1se", f"{self.lambda_1se:.4g}  (error {self.error[self.index_1se]:.2f} %)"),
        ]

    def _brief(self):
        return (f"method={self.method!r}, n_lambdas={self.lambdas.size}, "
                f"lambda_min={self.lambda_min:.4g}, lambda_1se={self.lambda_1se:.4g}")

    def plot(self, *, ax=None):
        """Error ± one standard error against log λ, ``lambda_min`` and ``lambda_1se`` marked."""
        import matplotlib.pyplot as plt
        if ax is None:
            _, ax = plt.subplots(figsize=(6, 4))
        ax.plot(self.lambdas, self.error, color="C3")
        ax.fill_between(self.lambdas, self.error - self.error_se, self.error + self.error_se, color="C3", alpha=0.2)
        ax.axvline(self.lambda_min, color="k", lw=0.8, label="lambda_min")
        ax.axvline(self.lambda_1se, color="k", lw=0.8, ls=":", label="lambda_1se")
        ax.set_xscale("log")
        ax.set_xlabel("λ (log scale)")
        ax.set_ylabel("error (%)")
        ax.legend()
        return ax


def select_lambda(lambdas, error, error_se):
    """glmnet's rule on a decreasing grid: ``(index_min, index_1se)``.

    ``index_min`` is the largest λ attaining the minimum error; ``index_1se`` the largest λ with
    ``error <= error[index_min] + error_se[index_min]`` (:func:`toolkit._cv.one_standard_error`).
    """
    return one_standard_error(error, error_se, strength=lambdas)


def _default_grid(path, n_lambdas):
    """Breakpoints of an SVM-type path with geometric midpoints between them; an RLS path's own grid."""
    if hasattr(path, "lambdas"):
        return np.asarray(path.lambdas)
    bps = np.asarray(path.breakpoints)
    if n_lambdas is not None:
        return np.geomspace(bps[0], bps[-1], n_lambdas) if bps.size > 1 else bps.copy()
    mids = np.sqrt(bps[:-1] * bps[1:])
    return np.sort(np.concatenate([bps, mids]))[::-1]


def _errors(path, X_eval, y_eval, lambdas):
    """Misclassification error in percent of ``sign f`` at every λ."""
    f = np.asarray(path.decision_function(X_eval, lambdas))
    return 100.0 * np.mean(np.where(f >= 0, 1.0, -1.0) != y_eval[:, None], axis=0)


def validation_curve(path, X_val, y_val, *, lambdas=None, n_lambdas=None):
    """Misclassification error (percent) on held-out points along a path, with ``lambda_min`` and ``lambda_1se``.

    Parameters
    ----------
    path : SvmPath, LaplacianSvmPath or RlscPath
        Anything with ``decision_function(X, lambdas)``.
    X_val : array-like
        What ``path.decision_function`` takes: the cross kernel (n_val, n_train) for
        :class:`SvmPath` and :class:`RlscPath`, raw points for :class:`LaplacianSvmPath`.
    y_val : array-like of shape (n_val,)
        Labels in the coding of the path's training labels: among ``path.classes`` (any two
        values; ``classes[1]`` is the positive class), -1 / +1 for a path without classes (a
        regression :class:`RlscPath`). A label not among them is refused.
    lambdas : array-like, default=None
        The grid; ``None``: the breakpoints and their geometric midpoints (SVM paths) or the
        path's grid (RLS).
    n_lambdas : int, default=None
        With ``lambdas=None`` and an SVM path: this many log-spaced values between the first and
        last breakpoints instead.

    Returns
    -------
    PathSelection
    """
    func = "validation_curve"
    if not callable(getattr(path, "decision_function", None)):
        raise TypeError(f"The 'path' parameter of {func} must be a path with decision_function(X, lambdas) "
                        f"(SvmPath, LaplacianSvmPath, RlscPath). Got {type(path).__name__} instead.")
    X_val = check_matrix(X_val, "X_val", func)
    classes = getattr(path, "classes", None)
    source = "the path's training labels"
    if classes is None:                  # a regression RlscPath: sign f read as -1 / +1
        classes, source = np.array([-1.0, 1.0]), "a path without classes (regression)"
    y_val = encode_labels_as(y_val, classes, "y_val", func, n_rows=X_val.shape[0], rows_name="X_val",
                             source=source)
    n_lambdas = check_scalar(n_lambdas, "n_lambdas", func, kind=numbers.Integral, low=1, allow_none=True)
    if lambdas is None:
        lambdas = _default_grid(path, n_lambdas)
    else:
        lambdas = np.sort(_check_lambdas(lambdas, func))[::-1]
    try:
        err = _errors(path, X_val, y_val, lambdas)
    except ValueError as exc:      # the path's own check of the cross kernel / points, named here
        raise ValueError(f"The 'X_val' parameter of {func} does not fit the path: {exc}") from exc
    rate = err / 100.0
    se = 100.0 * np.sqrt(rate * (1 - rate) / y_val.size)
    i_min, i_1se = select_lambda(lambdas, err, se)
    return PathSelection(lambdas=lambdas, error=err, error_se=se, fold_error=None,
                         lambda_min=float(lambdas[i_min]), lambda_1se=float(lambdas[i_1se]),
                         index_min=i_min, index_1se=i_1se, method="validation", n_folds=None, seed=None,
                         path=path)


def _check_cv(y, n_folds, func):
    n_folds = check_scalar(n_folds, "n_folds", func, kind=numbers.Integral, low=2)
    smallest = int(min((y > 0).sum(), (y < 0).sum()))
    if n_folds > smallest:
        raise ValueError(f"The 'n_folds' parameter of {func} must be an int in [2, {smallest}] (the smaller "
                         f"class has {smallest} points). Got {n_folds} instead.")
    return n_folds


def _eval_lambdas(path, lambdas):
    """Clamp the grid to a fold path that was stopped (lambda_min / numerical floor)."""
    svm = getattr(path, "svm", path)
    if getattr(svm, "_tail_direction", 0) is None:
        return np.maximum(lambdas, svm.breakpoints[-1])
    return lambdas


def _cv_result(lambdas, fold_err, n_folds, seed, path):
    err = fold_err.mean(axis=0)
    se = fold_err.std(axis=0, ddof=1) / np.sqrt(n_folds)
    i_min, i_1se = select_lambda(lambdas, err, se)
    return PathSelection(lambdas=lambdas, error=err, error_se=se, fold_error=fold_err,
                         lambda_min=float(lambdas[i_min]), lambda_1se=float(lambdas[i_1se]),
                         index_min=i_min, index_1se=i_1se, method="k-fold", n_folds=n_folds, seed=seed, path=path)


def _check_lambdas(lambdas, func):
    lambdas = check_matrix(np.atleast_1d(lambdas), "lambdas", func, accept_sparse=False, ndim=1)
    if np.any(lambdas <= 0):
        raise ValueError(f"The 'lambdas' parameter of {func} must contain only values in (0, inf). "
                         f"Got minimum {float(lambdas.min())!r} instead.")
    return lambdas


def _grid_from(path, lambdas, n_lambdas, func):
    if lambdas is not None:
        return np.sort(_check_lambdas(lambdas, func))[::-1]
    bps = path.breakpoints
    low = max(bps[-1], bps[0] * 1e-6)
    return np.geomspace(bps[0], low, n_lambdas) if low < bps[0] else np.array([bps[0]])


def cv_svm_path(X, y, *, kernel="precomputed", sigma=None, kernel_degree=2, coef0=1.0, n_folds=5, lambdas=None,
                n_lambdas=100, rng=None):
    """k-fold cross-validation of the SVM along its whole path (one :func:`svm_path` per fold).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_samples) or (n_samples, n_features)
        The kernel matrix (``kernel="precomputed"``, the default) or the points, as in
        :func:`svm_path`.
    y : array-like of shape (n_samples,)
        Labels: any two values (numbers, strings); ``classes[1]`` is the positive class, as in
        :func:`svm_path`.
    kernel, sigma, kernel_degree, coef0 :
        As in :func:`svm_path`; the kernel matrix is computed once for all folds.
    n_folds : int, default=5
        Folds, stratified by class; at most the size of the smaller class.
    lambdas : array-like, default=None
        ``None``: ``n_lambdas`` log-spaced values from λ⁰ of the full-data path down to its last
        breakpoint (at most six decades).
    n_lambdas : int, default=100
    rng : None, int or numpy Generator, default=None
        Fold assignment; the seed is stored in the result.

    Returns
    -------
    PathSelection
        With ``path`` the full-data :class:`SvmPath`.

    Notes
    -----
    Cost: ``n_folds + 1`` paths, each a small multiple of one SVM fit, instead of
    ``n_folds · n_lambdas`` fits.
    """
    from toolkit.kernels import training_kernel
    from toolkit.paths._svm import svm_path
    func = "cv_svm_path"
    gen, seed = check_rng(rng)
    _, y_pm1 = encode_binary_labels(y, "y", func)     # named here; svm_path codes them alike, classes[1] ↦ +1
    full = svm_path(X, y, kernel=kernel, sigma=sigma, kernel_degree=kernel_degree, coef0=coef0)
    K = training_kernel(X, func, kernel=kernel, sigma=sigma, kernel_degree=kernel_degree, coef0=coef0, symmetrize=True)
    y = y_pm1                           # the folds and the fold paths use the coding
    n_folds = _check_cv(y, n_folds, func)
    n_lambdas = check_scalar(n_lambdas, "n_lambdas", func, kind=numbers.Integral, low=1)
    grid = _grid_from(full, lambdas, n_lambdas, func)
    fold = stratified_folds(y, n_folds, gen)
    fold_err = np.empty((n_folds, grid.size))
    for k in range(n_folds):
        train, test = np.flatnonzero(fold != k), np.flatnonzero(fold == k)
        p = svm_path(K[np.ix_(train, train)], y[train])
        fold_err[k] = _errors(p, K[np.ix_(test, train)], y[test], _eval_lambdas(p, grid))
    return _cv_result(grid, fold_err, n_folds, seed, full)


def _permuted(L, order):
    """``P L Pᵀ`` for the point order ``order``: ``L[order][:, order]`` of a matrix, the same map
    applied around a LinearOperator (whose power is never formed)."""
    if L is None:
        return None
    if not isinstance(L, LinearOperator):
        return L[order][:, order]
    inverse = np.empty_like(order)
    inverse[order] = np.arange(order.size)

    def matmat(V):
        return np.asarray(L @ np.asarray(V)[inverse])[order]

    return LinearOperator(L.shape, matvec=matmat, rmatvec=matmat, matmat=matmat, rmatmat=matmat, dtype=np.float64)


def cv_laplacian_svm_path(X_labeled, y_labeled, X_unlabeled, *, n_folds=5, lambdas=None, n_lambdas=100, rng=None,
                          kernel="rbf", graph=None, gamma_ratio=1.0, **deprecated):
    """k-fold cross-validation of :func:`laplacian_svm_path` over the labelled points.

    The held-out labelled points of a fold join the unlabelled ones (their labels hidden), so
    every fold uses the same graph on the same n points; the graph is built once.

    Parameters
    ----------
    X_labeled, y_labeled, X_unlabeled :
        As in :func:`laplacian_svm_path` (points, or kernel rows with ``kernel="precomputed"``).
    n_folds, lambdas, n_lambdas, rng :
        As in :func:`cv_svm_path`.
    kernel, graph, gamma_ratio :
        As in :func:`laplacian_svm_path`.
    **deprecated
        The flat keywords of the previous release (``sigma``, ``neighbors``, ``degree``,
        ``laplacian_matrix``, ...), translated with a ``FutureWarning`` (:func:`toolkit.specs.translate`).

    Returns
    -------
    PathSelection
        With ``path`` the :class:`LaplacianSvmPath` on all labelled points.
    """
    from toolkit.paths._laplacian import OLD_KEYWORDS, PATH_GRAPH, laplacian_svm_path
    from toolkit.specs import Kernel, translate
    func = "cv_laplacian_svm_path"
    translate(func, deprecated, [k for k in OLD_KEYWORDS if k not in ("n_basis", "basis", "neighbor_search")],
              {"kernel": kernel if isinstance(kernel, Kernel) else None, "kernel_name": kernel, "graph": graph},
              defaults={"graph": PATH_GRAPH}, stacklevel=3)
    gen, seed = check_rng(rng)
    _, y = encode_binary_labels(y_labeled, "y_labeled", func)   # named here; the folds use the coding
    kernel = Kernel.of(kernel, func)
    kernel = Kernel(kernel.name, **{"sigma": kernel.sigma, "degree": kernel.degree, "coef0": kernel.coef0,
                                    **{field: deprecated.pop(name) for name, field in
                                       (("sigma", "sigma"), ("kernel_degree", "degree"), ("coef0", "coef0"))
                                       if name in deprecated}})
    if "laplacian_matrix" in deprecated:             # a given L, as it is or raised to `degree`
        given = deprecated.pop("laplacian_matrix")
        graph = given if "degree" not in deprecated else iterated_laplacian(given, power=deprecated.pop("degree"))
    if deprecated:                                   # the other graph keywords, onto the path's default graph
        from toolkit.specs import from_flat
        graph = from_flat(deprecated, {"graph": PATH_GRAPH})[0]["graph"]
    full = laplacian_svm_path(X_labeled, y_labeled, X_unlabeled, kernel=kernel, graph=graph, gamma_ratio=gamma_ratio)
    common = dict(gamma_ratio=gamma_ratio, kernel=Kernel(kernel.name, sigma=full.sigma if kernel.name == "rbf"
                                                         else kernel.sigma, degree=kernel.degree, coef0=kernel.coef0))
    X_all = full.X_train            # validated points (or kernel rows), labelled first
    l = y.size
    n_folds = _check_cv(y, n_folds, func)
    n_lambdas = check_scalar(n_lambdas, "n_lambdas", func, kind=numbers.Integral, low=1)
    grid = _grid_from(full, lambdas, n_lambdas, func)
    L = full.laplacian_matrix       # the graph is built once, on all n points (and the width: "scale" of all n)
    fold = stratified_folds(y, n_folds, gen)
    fold_err = np.empty((n_folds, grid.size))
    for k in range(n_folds):
        train, test = np.flatnonzero(fold != k), np.flatnonzero(fold == k)
        order = np.concatenate([train, test, np.arange(l, X_all.shape[0])])
        rows = X_all[order][:, order] if kernel.name == "precomputed" else X_all[order]
        p = laplacian_svm_path(rows[:train.size], y[train], rows[train.size:], graph=_permuted(L, order), **common)
        held_out = rows[train.size:train.size + test.size]
        fold_err[k] = _errors(p, held_out, y[test], _eval_lambdas(p, grid))
    return _cv_result(grid, fold_err, n_folds, seed, full)
