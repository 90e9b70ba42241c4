"""Model selection for semi-supervised classifiers: the papers' scenarios, honestly labelled.

Three ways to choose the parameters of a solver on one split (labelled ``L``, unlabelled ``U``,
test ``T``, optionally validation ``V`` points):

``"labeled-cv"``
    k-fold cross-validation over the labelled points only (stratified); every unlabelled point
    is in every training fold and in no test fold, and the balance ``b_c`` of S²RLSC is estimated
    from the labelled points of the training fold. This is the papers' *realistic* scenario
    (Gieseke et al. 2012, §4.1.2, Table 3).
``"test-set"``
    the parameters minimising the test error (Chapelle et al. 2006; Gieseke et al. 2012, Table 2).
    It judges a model's *potential* and is **not realistic**; every output says so.
``"validation"``
    the parameters minimising the error on a held-out validation set, Melacci & Belkin (2011) §6.

The chosen parameters are then refitted on the whole training set (``L`` and ``U``) and the refit
is scored on ``T`` (and transductively on ``U``). Everything is returned as one tidy table
(dataset, task, split, method, params, scenario, fold, metric, value, seconds, seed), with
``lambda_min`` / ``lambda_1se`` summaries in the style of glmnet's ``cv.glmnet``.

Expensive pieces are shared across the grid: every job is one (kernel parameters, fold) pair and
computes its kernel matrices once for all other parameter values (:class:`CachedKernel`); a
method that has a solution path is fitted once per job and evaluated at every grid value.

The splitter :class:`SemiSupervisedKFold` works with scikit-learn's ``GridSearchCV`` and
``cross_validate`` (``y = -1`` marks unlabelled rows, scikit-learn's convention).
"""
from __future__ import annotations

import dataclasses
import hashlib
import importlib
import itertools
import json
import numbers
import time
import warnings
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from toolkit._validation import (check_consistent_rows, check_disjoint, check_indices, check_labels, check_matrix,
                                 check_option, check_rng, check_scalar)

__all__ = [
    "SemiSupervisedKFold", "select", "Selection", "Indices", "Method", "METHODS", "register_method",
    "available_methods", "get_method", "CachedKernel", "SCENARIOS", "scenario_label",
]

SCENARIOS = ("labeled-cv", "test-set", "validation")
_SCENARIO_LABELS = {
    "labeled-cv": "labeled-cv",
    "test-set": "test-set (non-realistic)",
    "validation": "validation",
}
TIDY_COLUMNS = ("dataset", "task", "split", "method", "params", "scenario", "fold", "metric", "value",
                "seconds", "seed")


def scenario_label(scenario: str) -> str:
    """The label used in every output: ``"test-set"`` is always marked ``(non-realistic)``."""
    return _SCENARIO_LABELS.get(scenario, scenario)


# ----------------------------------------------------------------------------------------------
# The splitter
# ----------------------------------------------------------------------------------------------
class SemiSupervisedKFold:
    """Stratified k-fold over the labelled rows; unlabelled rows are always in the training fold.

    A scikit-learn cross-validation splitter (``split``, ``get_n_splits``) for semi-supervised
    estimators, usable by ``GridSearchCV`` and ``cross_validate``: the labelled rows (``y`` not
    equal to ``unlabeled``) are split by :class:`sklearn.model_selection.StratifiedKFold`; every
    unlabelled row is appended to every training fold and never appears in a test fold. The test
    folds partition the labelled rows.

    Parameters
    ----------
    n_splits : int, default=5
        Number of folds, at least 2.
    shuffle : bool, default=True
        Shuffle each class before splitting.
    random_state : int, RandomState instance or None, default=None
        Seed of the shuffle (only used when ``shuffle=True``).
    unlabeled : int, default=-1
        The label that marks unlabelled rows (scikit-learn's ``-1``). Use another value (for
        instance ``0``) when ``-1`` is a class, as in the toolkit's ±1 binary tasks.

    Examples
    --------
    >>> import numpy as np
    >>> y = np.array([0, 1, -1, -1, 0, 1, -1, 0, 1, 1])
    >>> cv = SemiSupervisedKFold(n_splits=2, random_state=0)
    >>> [sorted(set(test) & {2, 3, 6}) for _, test in cv.split(np.zeros((10, 1)), y)]
    [[], []]
    """

    def __init__(self, n_splits=5, *, shuffle=True, random_state=None, unlabeled=-1):
        self.n_splits = check_scalar(n_splits, "n_splits", "SemiSupervisedKFold", kind=numbers.Integral, low=2)
        self.shuffle = bool(shuffle)
        self.random_state = random_state
        self.unlabeled = unlabeled

    def __repr__(self):
        return (f"SemiSupervisedKFold(n_splits={self.n_splits}, shuffle={self.shuffle}, "
                f"random_state={self.random_state!r}, unlabeled={self.unlabeled!r})")

    def get_n_splits(self, X=None, y=None, groups=None):
        """Number of splitting iterations (``n_splits``)."""
        return self.n_splits

    def split(self, X, y, groups=None):
        """Yield ``(train, test)`` index arrays.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Labels, with ``unlabeled`` (default ``-1``) for the unlabelled rows.
        groups : ignored

        Yields
        ------
        train : ndarray of int
            The training labelled rows followed by every unlabelled row.
        test : ndarray of int
            Labelled rows only.
        """
        from sklearn.model_selection import StratifiedKFold

        func = "SemiSupervisedKFold.split"
        if y is None:
            raise ValueError("SemiSupervisedKFold.split needs 'y' (with -1 for unlabelled rows). Got None instead.")
        y = np.asarray(y)
        if y.ndim != 1 or y.dtype.kind == "c":
            check_labels(y, "y", func)           # raises: 1-d real labels only
        n = y.shape[0] if X is None else len(X) if not hasattr(X, "shape") else X.shape[0]
        if y.shape[0] != n:
            raise ValueError(f"SemiSupervisedKFold.split: 'X' has {n} rows but 'y' has {y.shape[0]}; they must match.")
        marker_is_nan = isinstance(self.unlabeled, float) and np.isnan(self.unlabeled)
        is_unlabeled = np.isnan(y) if (marker_is_nan and y.dtype.kind == "f") else (y == self.unlabeled)
        labeled = np.flatnonzero(~is_unlabeled)
        unlabeled = np.flatnonzero(is_unlabeled)
        check_labels(y[labeled], "y", func)       # the labelled rows: finite labels
        if labeled.size < self.n_splits:
            raise ValueError(f"SemiSupervisedKFold.split: {labeled.size} labelled rows cannot be split into "
                             f"{self.n_splits} folds; use n_splits <= {labeled.size}.")
        classes, counts = np.unique(y[labeled], return_counts=True)
        if counts.max() < self.n_splits:
            per_class = ", ".join(f"{c!r}: {k}" for c, k in zip(classes.tolist(), counts.tolist()))
            raise ValueError(f"The 'n_splits' parameter of SemiSupervisedKFold must be at most the number of labelled "
                             f"rows of the largest class (stratified folds). Got n_splits={self.n_splits} with "
                             f"{{{per_class}}} labelled rows per class instead.")
        inner = StratifiedKFold(self.n_splits, shuffle=self.shuffle,
                                random_state=self.random_state if self.shuffle else None)
        for train, test in inner.split(np.zeros((labeled.size, 1)), y[labeled]):
            yield np.concatenate([labeled[train], unlabeled]), labeled[test]


# ----------------------------------------------------------------------------------------------
# Shared kernels
# ----------------------------------------------------------------------------------------------
def _digest(A) -> str:
    import scipy.sparse as sp

    h = hashlib.blake2b(digest_size=16)
    if sp.issparse(A):
        A = A.tocsr()
        for part in (A.data, A.indices, A.indptr):
            h.update(np.ascontiguousarray(part).tobytes())
    else:
        A = np.ascontiguousarray(A)
        h.update(A.tobytes())
    h.update(repr((getattr(A, "shape", None), str(getattr(A, "dtype", "")))).encode())
    return h.hexdigest()


class CachedKernel:
    """A kernel callable ``k(X, Z)`` that remembers its last matrices, keyed by the data's hash.

    Passed as ``kernel=`` to a solver, it lets every λ of a grid reuse one kernel matrix per
    (kernel, σ): the solvers concatenate and slice their inputs freely, so the key is a hash of
    the bytes of ``X`` and ``Z`` (about a millisecond per megabyte), not their identity. A copy is
    returned so that a solver may modify its kernel in place.

    Parameters
    ----------
    kernel : {"linear", "rbf", "polynomial"}, default="linear"
    sigma : float, default=None
    degree : int, default=2
    maxsize : int, default=6
        Matrices kept (least recently used evicted).
    """

    def __init__(self, kernel="linear", *, sigma=None, degree=2, maxsize=6):
        self.kernel, self.sigma, self.degree, self.maxsize = kernel, sigma, degree, maxsize
        self._cache: OrderedDict[tuple, np.ndarray] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def __repr__(self):
        return f"CachedKernel({self.kernel!r}, sigma={self.sigma!r}, degree={self.degree!r})"

    def for_solver(self):
        """What to pass as a solver's ``kernel=``: the name ``"linear"`` (solvers exploit the explicit
        feature map, e.g. S²RLSC's low-rank factorisation when d < n, which a callable would hide),
        otherwise this caching callable."""
        return "linear" if self.kernel == "linear" else self

    def __call__(self, X, Z=None):
        from toolkit.kernels import kernel_matrix

        key = (_digest(X), None if Z is None else _digest(Z))
        K = self._cache.get(key)
        if K is None:
            self.misses += 1
            K = kernel_matrix(X, Z, kernel=self.kernel, sigma=self.sigma, degree=self.degree)
            self._cache[key] = K
            if len(self._cache) > self.maxsize:
                self._cache.popitem(last=False)
        else:
            self.hits += 1
            self._cache.move_to_end(key)
        return K.copy()


# ----------------------------------------------------------------------------------------------
# The method registry: one small adapter entry per solver
# ----------------------------------------------------------------------------------------------
KERNEL_PARAMS = ("kernel", "sigma", "sigma_scale", "kernel_degree")


@dataclass(frozen=True)
class Method:
    """How :func:`select` calls one solver.

    Attributes
    ----------
    name : str
        Registry name (used in experiment files and tables).
    fit : callable
        ``fit(X_labeled, y_labeled, X_unlabeled, *, kernel, rng, **params)`` returning an object
        with ``predict(X)``; ``kernel`` is a :class:`CachedKernel`.
    params : tuple of str
        Accepted parameter names besides the kernel parameters (``kernel``, ``sigma``,
        ``sigma_scale`` (multiples of the width heuristic ``s``), ``kernel_degree``).
    grid : mapping
        Default grid (parameter -> values).
    baseline : str or None
        The supervised method it is compared with in "did the unlabelled data help?".
    family : str
        Solver family (``"supervised"``, ``"s2rlsc"``, ``"laplacian"``, ``"path"``).
    requires : str or None
        Module that must be importable for the method to be available.
    regularization : (str, str) or None
        ``(parameter, "larger" | "smaller")``: which direction is the simpler model, for
        ``lambda_1se``.
    fit_path : callable or None
        ``fit_path(X_labeled, y_labeled, X_unlabeled, values, *, kernel, rng, **params)`` returning
        one model per value of ``path_param``; when set, :func:`select` fits one path per job.
    path_param : str or None
    balance_param : str or None
        Parameter holding the class balance, set from all labels in the "test-set" scenario.
    warm_start : str or None
        Keyword through which the solver accepts the previous fit of the same job as its starting
        point (``"x0"``); consecutive grid points of a job are then warm-started.
    warm_value : callable or None
        Maps the previous fit to the warm-start value (default: the fit itself).
    warm_same : tuple of str
        Parameters that must be equal between two grid points for the warm start to be valid
        (e.g. S²RLSC's balance constraint ``eps``, ``balance``).
    description, citation : str
    """

    name: str
    fit: Callable[..., Any]
    params: tuple[str, ...]
    grid: Mapping[str, tuple] = field(default_factory=dict)
    baseline: str | None = None
    family: str = "supervised"
    requires: str | None = None
    regularization: tuple[str, str] | None = None
    fit_path: Callable[..., Any] | None = None
    path_param: str | None = None
    balance_param: str | None = None
    warm_start: str | None = None
    warm_value: Callable[[Any], Any] | None = None
    warm_same: tuple[str, ...] = ()
    description: str = ""
    citation: str = ""

    @property
    def semi_supervised(self) -> bool:
        return self.family != "supervised" and self.baseline is not None

    @property
    def available(self) -> bool:
        if self.requires is None:
            return True
        try:
            importlib.import_module(self.requires)
        except ImportError:
            return False
        return True

    @property
    def valid_params(self) -> tuple[str, ...]:
        return tuple(KERNEL_PARAMS) + tuple(self.params)


METHODS: dict[str, Method] = {}


def register_method(method: Method) -> Method:
    """Add (or replace) a method in the registry :data:`METHODS`."""
    METHODS[method.name] = method
    return method


def available_methods() -> list[str]:
    """Names of the registered methods whose solver module has landed (importable)."""
    return [name for name, m in METHODS.items() if m.available]


def get_method(name: str) -> Method:
    """The registered :class:`Method` called ``name``; the error lists the valid names."""
    if isinstance(name, Method):
        return name
    if name not in METHODS:
        raise ValueError(f"Unknown method {name!r}. Valid methods: {', '.join(sorted(METHODS))}.")
    method = METHODS[name]
    if not method.available:
        raise ImportError(f"The method {name!r} needs the module {method.requires!r}, which is not available "
                          f"in this installation. Available methods: {', '.join(available_methods())}.")
    return method


@dataclass(frozen=True)
class _Predictor:
    """A fitted model reduced to a decision function (``sign`` gives the ±1 labels)."""

    decision: Callable[[Any], np.ndarray]
    classes: tuple
    info: Mapping[str, Any] = field(default_factory=dict)

    def decision_function(self, X):
        return np.asarray(self.decision(X), dtype=float).ravel()

    def predict(self, X):
        f = self.decision_function(X)
        return np.where(f >= 0, self.classes[0], self.classes[1])


def _pos_neg(y):
    """(positive, negative) class labels: +1/-1 when present, otherwise the sorted pair."""
    classes = np.unique(y)
    if set(classes.tolist()) <= {-1, 1}:
        return 1, -1
    if classes.size != 2:
        raise ValueError(f"Model selection needs exactly two classes in the labelled points. Got {classes.tolist()} instead.")
    return classes[1].item(), classes[0].item()


def _signed(y, classes):
    return np.where(np.asarray(y) == classes[0], 1.0, -1.0)


@dataclass(frozen=True)
class _SVCModel:
    """scikit-learn SVC on a precomputed kernel, predicting from raw points (any number of classes)."""

    svc: Any
    X_train: Any
    kernel: Any

    def decision_function(self, X):
        return self.svc.decision_function(self.kernel(X, self.X_train))

    def predict(self, X):
        return self.svc.predict(self.kernel(X, self.X_train))


def _fit_svc(Xl, yl, Xu, *, kernel, rng, C=1.0):
    from sklearn.svm import SVC

    return _SVCModel(SVC(C=C, kernel="precomputed").fit(kernel(Xl, Xl), yl), Xl, kernel)


@dataclass(frozen=True)
class _AtLambda:
    """One λ of a fitted RLSC: the eigendecomposition is shared, ``predict(X, lam=)`` re-weights it."""

    fit: Any
    lam: float

    def decision_function(self, X):
        return self.fit.decision_function(X, lam=self.lam)

    def predict(self, X):
        return self.fit.predict(X, lam=self.lam)


def _fit_rlsc_models(Xl, yl, Xu, values, *, kernel, rng, **params):
    """RLSC at every λ of ``values`` from one eigendecomposition of the kernel (Gieseke et al. 2011, eq. 4)."""
    from toolkit.rls import rlsc

    fit = rlsc(Xl, yl, kernel=kernel.for_solver(), lam=float(values[0]), **params)
    return [_AtLambda(fit, float(lam)) for lam in values]


def _fit_rlsc(Xl, yl, Xu, *, kernel, rng, lam=1.0, **params):
    from toolkit.rls import rlsc

    return rlsc(Xl, yl, kernel=kernel.for_solver(), lam=lam, **params)


def _fit_s2rlsc(Xl, yl, Xu, *, kernel, rng, **params):
    from toolkit.rls import s2rlsc

    return s2rlsc(Xl, yl, Xu, kernel=kernel.for_solver(), rng=rng, **params)


_GRAPH_PARAMS = {"neighbors": 6, "degree": 1, "normalized": True, "weight": "binary", "metric": "euclidean"}
_GRAPH_CACHE: OrderedDict[tuple, Any] = OrderedDict()


def _shared_laplacian(Xl, Xu, params):
    """``L^p`` of ``[X_labeled; X_unlabeled]``, computed once per (data, graph parameters) and reused
    across the (γ_A, γ_I) grid."""
    import scipy.sparse as sp
    from toolkit.graphs import POWER_MAX_DENSITY, laplacian

    graph = {k: params.get(k, default) for k, default in _GRAPH_PARAMS.items()}
    X_all = sp.vstack([Xl, Xu]).tocsr() if sp.issparse(Xl) else np.vstack([Xl, Xu])
    key = (_digest(X_all), _params_key(graph))
    L = _GRAPH_CACHE.get(key)
    if L is None:
        L = laplacian(X_all, **graph, max_density=POWER_MAX_DENSITY)  # the L^p lapsvm itself would build
        _GRAPH_CACHE[key] = L
        if len(_GRAPH_CACHE) > 4:
            _GRAPH_CACHE.popitem(last=False)
    return L


def _fit_lapsvm(Xl, yl, Xu, *, kernel, rng, **params):
    from toolkit.manifold import lapsvm

    L = _shared_laplacian(Xl, Xu, params)
    return lapsvm(Xl, yl, Xu, kernel=kernel.for_solver(), laplacian_matrix=L, **params)


def _fit_laprlsc(Xl, yl, Xu, *, kernel, rng, **params):
    from toolkit.manifold import laprlsc

    L = _shared_laplacian(Xl, Xu, params)
    return laprlsc(Xl, yl, Xu, kernel=kernel.for_solver(), laplacian_matrix=L, **params)


def _fit_lapsvm_dual(Xl, yl, Xu, *, kernel, rng, **params):
    from toolkit.manifold import lapsvm_dual

    L = _shared_laplacian(Xl, Xu, params)
    return lapsvm_dual(Xl, yl, Xu, kernel=kernel.for_solver(), laplacian_matrix=L, **params)


def _fit_svm_path_models(Xl, yl, Xu, values, *, kernel, rng):
    from toolkit.paths import svm_path

    classes = _pos_neg(yl)
    path = svm_path(kernel(Xl, Xl), _signed(yl, classes))
    return [_Predictor(lambda X, s=s: path.decision_function(kernel(X, Xl), s), classes) for s in values]


def _fit_svm_path(Xl, yl, Xu, *, kernel, rng, lam=1.0):
    return _fit_svm_path_models(Xl, yl, Xu, [lam], kernel=kernel, rng=rng)[0]


def _fit_lap_path_models(Xl, yl, Xu, values, *, kernel, rng, **params):
    from toolkit.paths import laplacian_svm_path

    classes = _pos_neg(yl)
    path = laplacian_svm_path(Xl, _signed(yl, classes), Xu, kernel=kernel,
                                      **params)
    return [_Predictor(lambda X, s=s: path.decision_function(X, s), classes) for s in values]


def _fit_lap_path(Xl, yl, Xu, *, kernel, rng, lam=1.0, **params):
    return _fit_lap_path_models(Xl, yl, Xu, [lam], kernel=kernel, rng=rng, **params)[0]


_POW2 = tuple(float(2.0 ** k) for k in range(-10, 11, 2))

register_method(Method(
    "svc", _fit_svc, params=("C",), grid={"C": tuple(float(2.0 ** k) for k in range(-4, 11, 2))},
    family="supervised", regularization=("C", "smaller"),
    description="support vector machine (scikit-learn SVC, precomputed kernel)",
    citation="Chang & Lin (2011), LIBSVM"))
register_method(Method(
    "rlsc", _fit_rlsc, params=("lam", "offset"), grid={"lam": _POW2}, family="supervised",
    requires="toolkit.rls", regularization=("lam", "larger"), fit_path=_fit_rlsc_models, path_param="lam",
    description="regularised least-squares classifier (one eigendecomposition for all λ)",
    citation="Rifkin (2002); Gieseke et al. (2012) eq. 4"))
register_method(Method(
    "s2rlsc", _fit_s2rlsc,
    params=("lam", "lam_u", "balance", "eps", "search", "order", "mu", "nu", "init", "restarts", "n_basis",
            "offset", "patience"),
    grid={"lam": _POW2, "lam_u": (0.1, 1.0)}, baseline="rlsc", family="s2rlsc", requires="toolkit.rls",
    regularization=("lam", "larger"), balance_param="balance",
    # no warm start: starting the local search from the neighbouring grid point's labelling was
    # measured to end in worse local optima (moons, 2 restarts) for no reliable speed-up
    description="semi-supervised RLSC by local search", citation="Gieseke et al. (2012)"))
register_method(Method(
    "lapsvm", _fit_lapsvm,
    params=("gamma_A", "gamma_I", "neighbors", "degree", "normalized", "method", "stop", "weight", "metric",
            "dtype"),
    grid={"gamma_A": (1e-6, 1e-4, 1e-2), "gamma_I": (0.0, 1e-2, 1.0)}, baseline="svc", family="laplacian",
    requires="toolkit.manifold", regularization=("gamma_A", "larger"), warm_start="x0",
    description="Laplacian SVM in the primal", citation="Melacci & Belkin (2011)"))
register_method(Method(
    "laprlsc", _fit_laprlsc,
    params=("gamma_A", "gamma_I", "neighbors", "degree", "normalized", "method", "stop", "weight", "metric"),
    grid={"gamma_A": (1e-6, 1e-4, 1e-2), "gamma_I": (0.0, 1e-2, 1.0)}, baseline="rlsc", family="laplacian",
    requires="toolkit.manifold", regularization=("gamma_A", "larger"), warm_start="x0",
    description="Laplacian RLSC in the primal", citation="Melacci & Belkin (2011) eq. 14"))
register_method(Method(
    "lapsvm_dual", _fit_lapsvm_dual,
    params=("gamma_A", "gamma_I", "neighbors", "degree", "normalized", "weight", "metric"),
    grid={"gamma_A": (1e-6, 1e-4, 1e-2), "gamma_I": (1e-2, 1.0)}, baseline="svc", family="laplacian",
    requires="toolkit.manifold", regularization=("gamma_A", "larger"),
    description="Laplacian SVM, the original hinge-loss dual", citation="Belkin, Niyogi & Sindhwani (2006)"))
register_method(Method(
    "svm_path", _fit_svm_path, params=("lam",), grid={"lam": _POW2}, family="supervised",
    requires="toolkit.paths", regularization=("lam", "larger"),
    fit_path=_fit_svm_path_models, path_param="lam",
    description="entire regularisation path of the SVM", citation="Hastie et al. (2004)"))
register_method(Method(
    "lapsvm_path", _fit_lap_path,
    params=("lam", "neighbors", "gamma_ratio", "laplacian_degree", "normalized", "weight", "metric"), grid={"lam": _POW2},
    baseline="svm_path", family="path", requires="toolkit.paths", regularization=("lam", "larger"),
    fit_path=_fit_lap_path_models, path_param="lam",
    description="entire regularisation path of the Laplacian hinge-loss model", citation="Wang, Qin & Huang"))


# ----------------------------------------------------------------------------------------------
# select()
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Indices:
    """One split as index arrays into ``X``: labelled, unlabelled, test and (optional) validation rows."""

    labeled: np.ndarray
    unlabeled: np.ndarray
    test: np.ndarray
    validation: np.ndarray | None = None

    @classmethod
    def of(cls, split) -> "Indices":
        """Read a split object (``toolkit.data.split`` result, mapping, or tuple ``(l, u, t[, v])``)."""
        if isinstance(split, Indices):
            return split
        if isinstance(split, (tuple, list)):
            if not 3 <= len(split) <= 4:
                raise TypeError("A split given as a tuple must be (labeled, unlabeled, test[, validation]). "
                                f"Got {len(split)} entries instead.")
            return cls(*[None if s is None else np.asarray(s) for s in split])

        def get(*names):
            for name in names:
                value = split.get(name) if isinstance(split, Mapping) else getattr(split, name, None)
                if value is not None:
                    return np.asarray(value)   # kept as given: select refuses float or negative indices
            return None

        labeled = get("labeled", "labelled", "L", "l")
        unlabeled = get("unlabeled", "unlabelled", "U", "u")
        test = get("test", "T", "t")
        if labeled is None or unlabeled is None or test is None:
            raise TypeError("A split must give 'labeled', 'unlabeled' and 'test' index arrays. "
                            f"Got {type(split).__name__} instead.")
        return cls(labeled, unlabeled, test, get("validation", "V", "v"))


def _params_key(params: Mapping[str, Any]) -> str:
    return json.dumps({k: params[k] for k in sorted(params)}, sort_keys=True, default=float)


def _expand_grid(grid: Mapping[str, Sequence]) -> list[dict]:
    names = list(grid)
    values = [list(v) if isinstance(v, (list, tuple, np.ndarray)) else [v] for v in grid.values()]
    return [dict(zip(names, combo)) for combo in itertools.product(*values)]


def _error(model, X, y) -> float:
    if len(y) == 0:
        return float("nan")
    return float(np.mean(np.asarray(model.predict(X)) != np.asarray(y)) * 100.0)


def _take(X, idx):
    return X[idx]


def _kernel_for(kparams: Mapping[str, Any], width: float | None) -> CachedKernel:
    kind = kparams.get("kernel", "linear")
    sigma = kparams.get("sigma")
    if "sigma_scale" in kparams and kparams["sigma_scale"] is not None:
        sigma = float(kparams["sigma_scale"]) * float(width)
    return CachedKernel(kind, sigma=sigma, degree=kparams.get("kernel_degree", 2))


def _run_job(method: Method, X, y, jobs_grid, fold, train_l, train_u, evals, kparams, width, seed, base,
             warm_start=True):
    """Fit every non-kernel parameter combination of one (kernel, fold) job; return tidy rows."""
    kernel = _kernel_for(kparams, width)
    Xl, yl, Xu = _take(X, train_l), y[train_l], _take(X, train_u)
    rows = []

    def emit(params, model, seconds):
        full = {**kparams, **params}
        for metric, idx in evals.items():
            rows.append({**base, "params": _params_key(full), "fold": fold, "metric": metric,
                         "value": _error(model, _take(X, idx), y[idx]), "seconds": seconds, "seed": seed})

    path_values = None
    if method.fit_path is not None and method.path_param and all(method.path_param in p for p in jobs_grid):
        groups: dict[str, list] = {}
        for p in jobs_grid:
            rest = {k: v for k, v in p.items() if k != method.path_param}
            groups.setdefault(_params_key(rest), []).append(p)
        for members in groups.values():
            rest = {k: v for k, v in members[0].items() if k != method.path_param}
            path_values = [m[method.path_param] for m in members]
            start = time.perf_counter()
            models = method.fit_path(Xl, yl, Xu, path_values, kernel=kernel, rng=seed, **rest)
            seconds = (time.perf_counter() - start) / len(members)
            for p, model in zip(members, models):
                emit(p, model, seconds)
        return rows
    previous, previous_params = None, None
    for params in jobs_grid:
        extra = {}
        if (warm_start and method.warm_start and previous is not None
                and all(params.get(k) == previous_params.get(k) for k in method.warm_same)):
            extra = {method.warm_start: method.warm_value(previous) if method.warm_value else previous}
        start = time.perf_counter()
        model = method.fit(Xl, yl, Xu, kernel=kernel, rng=seed, **params, **extra)
        emit(params, model, time.perf_counter() - start)
        previous, previous_params = model, params
    return rows


@dataclass(frozen=True)
class Selection:
    """Result of :func:`select`.

    Attributes
    ----------
    results : pandas.DataFrame
        The tidy table: dataset, task, split, method, params (JSON), scenario, fold, metric, value
        (errors in percent), seconds, seed. Selection rows have the fold number (``labeled-cv``)
        or ``"all"``; the refit has fold ``"refit"``.
    summary_table : pandas.DataFrame
        One row per parameter combination: mean and standard error of the selection metric.
    lambda_min : dict
        Parameters with the smallest mean selection error (ties: the first in grid order).
    lambda_1se : dict
        The simplest parameters (by the method's regularisation parameter) whose mean error is
        within one standard error of the minimum (only differs from ``lambda_min`` for
        ``"labeled-cv"``, where a standard error exists).
    best_params : dict
        The parameters that were refitted (``lambda_min`` or ``lambda_1se``, see ``refit``).
    model : object or None
        The refitted model (``predict``, ``decision_function``).
    test_error, unlabeled_error : float
        Errors (percent) of the refitted model on the test and the unlabelled points.
    scenario : str
        Scenario label (``"test-set (non-realistic)"`` for the test-set scenario).
    method, seed, realistic
    """

    results: Any
    summary_table: Any
    lambda_min: dict
    lambda_1se: dict
    best_params: dict
    model: Any
    test_error: float
    unlabeled_error: float
    scenario: str
    method: str
    seed: int | None
    realistic: bool

    def plot(self, param=None, ax=None):
        """Selection error (mean ± se over folds) along ``param`` (default: the method's
        regularisation parameter), the other parameters at ``lambda_min``; ``lambda_min`` and
        ``lambda_1se`` marked, as glmnet's ``plot.cv.glmnet``."""
        import matplotlib.pyplot as plt

        m = METHODS.get(self.method)
        if param is None:
            param = m.regularization[0] if m is not None and m.regularization else next(iter(self.lambda_min))
        rest = {k: v for k, v in self.lambda_min.items() if k != param}
        rows = [(json.loads(p), mean, se) for p, mean, se in
                zip(self.summary_table["params"], self.summary_table["mean"], self.summary_table["se"])]
        curve = sorted((p[param], mean, se) for p, mean, se in rows
                       if param in p and all(p.get(k) == v for k, v in rest.items()))
        if ax is None:
            _, ax = plt.subplots(figsize=(5, 3.2))
        x = np.array([c[0] for c in curve], dtype=float)
        ax.errorbar(x, [c[1] for c in curve], yerr=[c[2] for c in curve], marker="o", capsize=3)
        if (x > 0).all():
            ax.set_xscale("log")
        for name, chosen, style in (("lambda_min", self.lambda_min, "--"), ("lambda_1se", self.lambda_1se, ":")):
            if param in chosen:
                ax.axvline(float(chosen[param]), color="gray", linestyle=style, label=f"{name} = {chosen[param]:g}")
        ax.set_xlabel(param)
        ax.set_ylabel("selection error (%)")
        ax.set_title(f"{self.method}, {self.scenario}", fontsize=10)
        ax.legend(fontsize=8)
        return ax.figure

    def summary(self) -> str:
        lines = [f"Model selection for {self.method!r}, scenario {self.scenario}"
                 + ("" if self.realistic else "  [NON-REALISTIC: parameters chosen on the test set]"),
                 f"  lambda_min : {self.lambda_min}", f"  lambda_1se : {self.lambda_1se}",
                 f"  refitted   : {self.best_params}",
                 f"  test error : {self.test_error:.2f} %   unlabelled error: {self.unlabeled_error:.2f} %",
                 f"  seed       : {self.seed}"]
        return "\n".join(lines)

    def __repr__(self):
        return self.summary()

    def _repr_html_(self):
        import html

        return (f"<pre>{html.escape(self.summary())}</pre>"
                + self.summary_table.head(20).to_html(index=False))


def select(method, X, y, split, *, grid=None, scenario="labeled-cv", n_folds=5, fixed=None,
           refit="min", warm_start=True, n_jobs=None, rng=None, progress=None, dataset="", task="", split_id=0):
    """Choose a solver's parameters on one split, refit, and score on the test points.

    Parameters
    ----------
    method : str or Method
        A registry name (see :func:`available_methods`), e.g. ``"rlsc"``, ``"s2rlsc"``, ``"lapsvm"``.
    X : array-like or sparse matrix of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        The true labels of every row (two classes); the labels of unlabelled and test rows are
        only used to score. Labelled, validation and test rows need labels of the two labelled
        classes; an unlabelled row may have NaN (unknown), and ``unlabeled_error`` is then
        computed over the unlabelled rows with known labels (NaN when there are none).
    split : Indices, mapping or object with ``labeled``, ``unlabeled``, ``test`` (and optionally
        ``validation``) index arrays, e.g. the result of ``toolkit.data.split``. Distinct,
        non-negative integer row indices below ``n_samples``; the sets are disjoint, except that
        ``test`` may be the very set ``unlabeled`` (transductive evaluation, as in
        ``toolkit.data.fixed_splits``). ``test`` must not be empty when it is scored (``refit``
        or ``scenario="test-set"``).
    grid : mapping, default=None
        Parameter -> values (at least one each; ``{}`` fits the ``fixed`` parameters without
        selection); ``None`` uses the method's default grid. Kernel parameters
        (``kernel``, ``sigma``, ``sigma_scale`` = multiples of the width heuristic ``s``,
        ``degree``) may be gridded too; one kernel matrix is computed per kernel setting and fold.
    scenario : {"labeled-cv", "test-set", "validation"}, default="labeled-cv"
        See the module docstring; ``"test-set"`` is labelled non-realistic in every output.
    n_folds : int, default=5
        Folds of the labelled points for ``"labeled-cv"``, stratified by class: every class needs
        at least 2 labelled points and some class at least ``n_folds``.
    fixed : mapping, default=None
        Parameters passed unchanged to every fit (e.g. ``{"kernel": "rbf", "sigma_scale": 0.5}``).
    refit : {"min", "1se"} or False, default="min"
        Which selected parameters to refit on ``L ∪ U``.
    warm_start : bool, default=True
        Start each fit of a job from the previous grid point's solution, for solvers that accept
        one (LapSVM / LapRLSC ``x0``). Early-stopped solvers may then stop at slightly different
        points than from a cold start; pass False for cold starts.
    n_jobs : int, default=None
        joblib workers over the (kernel setting, fold) jobs.
    rng : None, int or numpy Generator, default=None
        Seed for the folds and the randomised solvers; stored in the results.
    progress : bool, default=None
        tqdm progress bar (``tqdm.auto``: a widget in JupyterLab, text in a terminal);
        ``None`` shows it when there is more than one job.
    dataset, task, split_id : str, str, int
        Labels written into the tidy table.

    Returns
    -------
    Selection

    Notes
    -----
    Cost: (number of kernel settings) × (folds + 1) kernel matrices, and one fit per parameter
    combination and fold (one path per fold for methods that have a solution path).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import make_moons
    >>> X, y = make_moons(120, noise=0.1, random_state=0); y = 2 * y - 1
    >>> split = Indices(np.arange(20), np.arange(20, 80), np.arange(80, 120))
    >>> cv = select("rlsc", X, y, split, grid={"lam": [0.01, 1.0]}, fixed={"kernel": "rbf", "sigma": 0.5},
    ...             rng=0, progress=False)
    >>> sorted(cv.lambda_min)
    ['kernel', 'lam', 'sigma']
    """
    import pandas as pd

    m = get_method(method)
    check_option(scenario, "scenario", "select", SCENARIOS)
    if refit not in ("min", "1se", False):
        raise ValueError(f"The 'refit' parameter of select must be one of 'min', '1se', False. Got {refit!r} instead.")
    n_folds = check_scalar(n_folds, "n_folds", "select", kind=numbers.Integral, low=2)
    generator, seed = check_rng(rng)
    if seed is None:
        seed = int(generator.integers(2**31))
    X, y, idx, classes, known_unlabeled = _check_data(X, y, Indices.of(split), scenario, refit)
    grid, fixed = _check_grid(m, grid, fixed)
    if scenario == "validation" and (idx.validation is None or len(idx.validation) == 0):
        raise ValueError("scenario='validation' needs a split with 'validation' indices.")
    if scenario == "test-set" and m.balance_param and m.balance_param not in grid and m.balance_param not in fixed:
        # the non-realistic scenario estimates b_c from all available labels (Gieseke et al. 2012, §4.1.2)
        pos = _pos_neg(y[idx.labeled])[0]
        all_lab = np.unique(np.concatenate([idx.labeled, idx.unlabeled[known_unlabeled], idx.test]))
        fixed[m.balance_param] = float(np.mean(y[all_lab] == pos))
    combos = [{**fixed, **c} for c in _expand_grid(grid)] or [dict(fixed)]
    kernel_groups: dict[str, tuple[dict, list]] = {}
    for c in combos:
        kp = {k: v for k, v in c.items() if k in KERNEL_PARAMS}
        rest = {k: v for k, v in c.items() if k not in KERNEL_PARAMS}
        kernel_groups.setdefault(_params_key(kp), (kp, []))[1].append(rest)
    width = None
    if any("sigma_scale" in c for c in combos):
        from toolkit.kernels import width_heuristic

        width = width_heuristic(_take(X, np.concatenate([idx.labeled, idx.unlabeled])))

    label = scenario_label(scenario)
    base = {"dataset": dataset, "task": task, "split": split_id, "method": m.name, "scenario": label}
    jobs = []
    if scenario == "labeled-cv":
        metric = "cv_error"
        from sklearn.model_selection import StratifiedKFold

        labels, counts = np.unique(y[idx.labeled], return_counts=True)
        if counts.min() < 2 or counts.max() < n_folds:
            per_class = ", ".join(f"{c!r}: {k}" for c, k in zip(labels.tolist(), counts.tolist()))
            raise ValueError(f"The 'n_folds' parameter of select (scenario 'labeled-cv') needs at least 2 labelled "
                             f"points per class and at least n_folds={n_folds} in some class, so that the "
                             f"stratified folds exist and every training fold has both classes. Got {{{per_class}}} "
                             f"labelled points per class instead; lower 'n_folds' or label more points.")
        folds = StratifiedKFold(n_folds, shuffle=True, random_state=seed)
        with warnings.catch_warnings():  # "least populated class has fewer members than n_splits" is expected
            warnings.simplefilter("ignore", UserWarning)
            fold_pairs = list(folds.split(np.zeros((idx.labeled.size, 1)), y[idx.labeled]))
        for k, (tr, te) in enumerate(fold_pairs):
            for kp, rest in kernel_groups.values():
                jobs.append((k, idx.labeled[tr], idx.unlabeled, {metric: idx.labeled[te]}, kp, rest))
    else:
        metric = "test_error" if scenario == "test-set" else "validation_error"
        target = idx.test if scenario == "test-set" else idx.validation
        for kp, rest in kernel_groups.values():
            jobs.append(("all", idx.labeled, idx.unlabeled, {metric: target}, kp, rest))

    rows = _execute(m, X, y, jobs, width, seed, base, n_jobs=n_jobs, progress=progress, warm_start=warm_start)
    table = pd.DataFrame(rows, columns=list(TIDY_COLUMNS))
    sel = table[table["metric"] == metric]
    order = {key: i for i, key in enumerate(_params_key(c) for c in combos)}
    summary_table = (sel.groupby("params", sort=False)["value"]
                     .agg(mean="mean", sd="std", n="count").reset_index())
    summary_table["se"] = summary_table["sd"].fillna(0.0) / np.sqrt(summary_table["n"])
    summary_table["order"] = summary_table["params"].map(order)
    summary_table = summary_table.sort_values("order").drop(columns="order").reset_index(drop=True)
    means = summary_table["mean"].to_numpy()
    best_i = int(np.nanargmin(means))

    def simplest(candidates):
        """Among the candidate rows, the simplest model by the method's regularisation parameter."""
        decoded = [json.loads(summary_table["params"].iloc[i]) for i in candidates]
        if m.regularization is None or not all(m.regularization[0] in d for d in decoded):
            return decoded[0]
        param, direction = m.regularization
        sign = 1.0 if direction == "larger" else -1.0
        return sorted(zip(decoded, means[candidates]), key=lambda t: (-sign * float(t[0][param]), t[1]))[0][0]

    # ties at the minimum go to the first combination in grid order, as in scikit-learn's GridSearchCV
    lambda_min = json.loads(summary_table["params"].iloc[best_i])
    lambda_1se = lambda_min
    if scenario == "labeled-cv":
        threshold = means[best_i] + summary_table["se"].iloc[best_i]
        lambda_1se = simplest(np.flatnonzero(means <= threshold + 1e-12))
    summary_table.insert(0, "scenario", label)
    summary_table.insert(0, "method", m.name)

    model, test_error, unlabeled_error = None, float("nan"), float("nan")
    best = lambda_min if refit in ("min", False) else lambda_1se
    if refit:
        kp = {k: v for k, v in best.items() if k in KERNEL_PARAMS}
        rest = {k: v for k, v in best.items() if k not in KERNEL_PARAMS}
        kernel = _kernel_for(kp, width)
        Xl, yl, Xu = _take(X, idx.labeled), y[idx.labeled], _take(X, idx.unlabeled)
        start = time.perf_counter()
        model = m.fit(Xl, yl, Xu, kernel=kernel, rng=seed, **rest)
        seconds = time.perf_counter() - start
        test_error = _error(model, _take(X, idx.test), y[idx.test])
        unlabeled_error = _error(model, _take(Xu, np.flatnonzero(known_unlabeled)), y[idx.unlabeled][known_unlabeled])
        extra = [("test_error", test_error), ("unlabeled_error", unlabeled_error)]
        if idx.validation is not None and len(idx.validation):
            extra.append(("validation_error", _error(model, _take(X, idx.validation), y[idx.validation])))
        refit_rows = [{**base, "params": _params_key(best), "fold": "refit", "metric": name, "value": value,
                       "seconds": seconds, "seed": seed} for name, value in extra]
        table = pd.concat([table, pd.DataFrame(refit_rows, columns=list(TIDY_COLUMNS))], ignore_index=True)
    table["fold"] = table["fold"].astype(str)
    return Selection(results=table, summary_table=summary_table, lambda_min=lambda_min, lambda_1se=lambda_1se,
                     best_params=best, model=model, test_error=test_error, unlabeled_error=unlabeled_error,
                     scenario=label, method=m.name, seed=seed, realistic=scenario != "test-set")


def _check_data(X, y, idx, scenario, refit):
    """Validate ``X``, ``y`` and the split against each other, once, at the boundary of :func:`select`.

    Returns ``X`` (float array or CSR), ``y``, the split with int64 indices, the two labelled
    classes and the mask of unlabelled rows whose label is known (one of the classes).
    """
    func = "select"
    X = check_matrix(X, "X", func)
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"The 'y' parameter of {func} must be a 1-d array of labels. Got an array of shape "
                         f"{y.shape} instead.")
    if y.dtype.kind == "c":
        raise TypeError(f"The 'y' parameter of {func} must hold real class labels. Got dtype {y.dtype} instead.")
    check_consistent_rows(func, X=X, y=y)
    n = X.shape[0]
    sets = {name: check_indices(getattr(idx, name), name, func, n)
            for name in ("labeled", "unlabeled", "test")}
    sets["validation"] = None if idx.validation is None else check_indices(idx.validation, "validation", func, n)
    check_disjoint(func, allow_equal=(("test", "unlabeled"),), **sets)
    idx = Indices(sets["labeled"], sets["unlabeled"], sets["test"], sets["validation"])
    if idx.test.size == 0 and (refit or scenario == "test-set"):
        raise ValueError(f"The 'test' indices of the split given to {func} must not be empty: the test error is "
                         f"computed from them{' (scenario test-set selects on them)' if scenario == 'test-set' else ''}. "
                         "Got 0 test rows instead; pass refit=False to skip the refit.")
    if idx.labeled.size == 0:
        raise ValueError(f"The 'labeled' indices of the split given to {func} must not be empty. Got 0 rows instead.")
    y_labeled = y[idx.labeled]
    if y.dtype.kind == "f" and not np.all(np.isfinite(y_labeled)):
        bad = idx.labeled[~np.isfinite(y_labeled)]
        raise ValueError(f"The 'y' parameter of {func} must have a finite label on every labelled row. "
                         f"Got NaN or inf on {bad.size} labelled rows (e.g. row {int(bad[0])}) instead.")
    classes = np.unique(y_labeled)
    if classes.size != 2:
        raise ValueError(f"The 'y' parameter of {func} must give the labelled rows exactly two classes. "
                         f"Got {classes.tolist()} instead.")
    for name in ("test", "validation"):
        rows = getattr(idx, name)
        if rows is None or rows.size == 0:
            continue
        other = ~np.isin(y[rows], classes)
        if other.any():
            shown = ", ".join(repr(v) for v in np.unique(y[rows][other])[:3].tolist())
            raise ValueError(f"The 'y' parameter of {func} must give every {name} row a label of the labelled classes "
                             f"{classes.tolist()} (NaN is not a label: {name} rows are scored). Got {int(other.sum())} "
                             f"{name} rows labelled otherwise (e.g. row {int(rows[other][0])}: {shown}) instead.")
    known = np.isin(y[idx.unlabeled], classes)
    other = y[idx.unlabeled][~known]
    if y.dtype.kind == "f":
        other = other[~np.isnan(other)]      # NaN: the label of an unlabelled row is unknown
    if other.size:
        shown = ", ".join(repr(v) for v in np.unique(other)[:3].tolist())
        raise ValueError(f"The 'y' parameter of {func} must give every unlabelled row a label of the labelled classes "
                         f"{classes.tolist()} or NaN (unknown). Got {other.size} unlabelled rows labelled "
                         f"otherwise ({shown}) instead.")
    return X, y, idx, classes, known


def _check_grid(m, grid, fixed):
    """The parameter grid and fixed parameters of :func:`select`: mappings of known names, no empty value list."""
    func = "select"
    grid = m.grid if grid is None else grid
    if not isinstance(grid, Mapping):
        raise TypeError(f"The 'grid' parameter of {func} must be a mapping of parameter -> values. "
                        f"Got {type(grid).__name__} instead.")
    fixed = {} if fixed is None else fixed
    if not isinstance(fixed, Mapping):
        raise TypeError(f"The 'fixed' parameter of {func} must be a mapping of parameter -> value. "
                        f"Got {type(fixed).__name__} instead.")
    grid, fixed = dict(grid), dict(fixed)
    for name in list(grid) + list(fixed):
        if name not in m.valid_params:
            raise ValueError(f"Unknown parameter {name!r} for method {m.name!r}. "
                             f"Valid parameters: {', '.join(m.valid_params)}.")
    for name, values in grid.items():
        if isinstance(values, (list, tuple, np.ndarray)) and len(values) == 0:
            raise ValueError(f"The 'grid' parameter of {func} must give at least one value for every parameter "
                             f"(an empty grid {{}} fits the fixed parameters). Got no values for {name!r} instead.")
    return grid, fixed


def _execute(method, X, y, jobs, width, seed, base, *, n_jobs, progress, warm_start=True):
    """Run the jobs (serially or with joblib), with a tqdm.auto progress bar."""
    from joblib import Parallel, delayed

    show = (len(jobs) > 1) if progress is None else bool(progress)
    bar = None
    if show:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(jobs), desc=f"select {method.name}", leave=False)
    rows: list[dict] = []
    try:
        if n_jobs in (None, 1) or len(jobs) == 1:
            for job in jobs:
                rows.extend(_run_job(method, X, y, job[5], job[0], job[1], job[2], job[3], job[4], width, seed, base,
                                     warm_start))
                if bar is not None:
                    bar.update()
        else:
            parallel = Parallel(n_jobs=n_jobs, return_as="generator_unordered")
            for part in parallel(delayed(_run_job)(method, X, y, job[5], job[0], job[1], job[2], job[3], job[4],
                                                   width, seed, base, warm_start) for job in jobs):
                rows.extend(part)
                if bar is not None:
                    bar.update()
    finally:
        if bar is not None:
            bar.close()
    return rows
