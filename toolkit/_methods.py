"""The method registry: how model selection, the reports and the statistics call each solver.

One :class:`Method` per solver, registered in :data:`METHODS`: a small adapter ``fit(X_labeled,
y_labeled, X_unlabeled, *, kernel, rng, **params)`` (and ``fit_path`` for methods with a solution
path), the accepted parameters under their one name in the toolkit, the default grid, the
regularisation direction used by the 1-SE rule, and the supervised baseline each semi-supervised
method is compared with ("did the unlabelled data help?", :func:`toolkit.stats.unlabeled_data_helped`).

It sits beside :mod:`toolkit.selection` and :mod:`toolkit.stats` so that both can use it without
one depending on the other; the adapters only import their solver family when called.
"""
from __future__ import annotations

import functools
import importlib
import inspect
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

from toolkit._validation import encode_binary_labels
from toolkit.specs import FLAT_KEYWORDS, RENAMED_FLAT, SEARCH_KEYWORDS, from_flat

__all__ = ["Method", "METHODS", "register_method", "available_methods", "get_method", "KERNEL_PARAMS",
           "signature_params", "current_names"]

KERNEL_PARAMS = ("kernel", "sigma", "sigma_scale", "kernel_degree")
#: What the selection hands a solver itself (the data, the kernel and its width, the seed, warm starts,
#: validation data, callbacks, clients): never a parameter of a grid.
SUPPLIED = frozenset({"X", "X_labeled", "y_labeled", "X_unlabeled", "kernel", "sigma", "kernel_degree", "coef0",
                      "rng", "x0", "callback", "validation", "y_unlabeled", "scheduler", "progress", "operator"})
#: The spec parameters of the solvers, which the registry spells as the flat keywords of their fields.
SPEC_PARAMETERS = ("graph", "solver", "low_rank", "search")


@functools.lru_cache(maxsize=None)
def signature_params(function, exclude=(), extra=()):
    """The registry's parameters of a solver, read off its signature.

    Every keyword parameter of ``function`` (``"module:name"``) but what the selection supplies
    (:data:`SUPPLIED`) and ``exclude``, each spec parameter (``graph``, ``solver``, ``low_rank``,
    ``search``) spelled as the flat keywords of its fields (:data:`toolkit.specs.FLAT_KEYWORDS`; the
    local search's :data:`toolkit.specs.SEARCH_KEYWORDS`), then ``extra``. Read when first asked, so
    that the registry imports no solver family at import time.

    Examples
    --------
    >>> signature_params("toolkit.rls:rlsc")
    ('offset', 'lam')
    """
    module, name = function.split(":")
    solver = getattr(importlib.import_module(module), name)
    names = []
    for parameter in inspect.signature(solver).parameters.values():
        if parameter.kind is not parameter.KEYWORD_ONLY or parameter.name in SUPPLIED or parameter.name in exclude:
            continue
        if parameter.name in SPEC_PARAMETERS:
            table = SEARCH_KEYWORDS if parameter.name == "search" else FLAT_KEYWORDS
            names += [flat for flat, (spec, spec_field) in table.items() if spec == parameter.name
                      and spec_field is not None and flat not in RENAMED_FLAT and flat not in exclude]
        else:
            names.append(parameter.name)
    return tuple(dict.fromkeys(names + list(extra)))


def current_names(params, where, stacklevel=3):
    """``params`` with the flat names of the previous release (:data:`toolkit.specs.RENAMED_FLAT`:
    ``neighbors``, ``degree``) under their current names, with one ``FutureWarning`` that names them.

    The one translation of the registry's layer (the selection's ``grid`` and ``fixed``, the
    experiment files). A name given twice, old and new, is refused.
    """
    old = [name for name in params if name in RENAMED_FLAT]
    if not old:
        return dict(params)
    both = [name for name in old if RENAMED_FLAT[name] in params]
    if both:
        raise ValueError(f"{where}: {both[0]!r} and {RENAMED_FLAT[both[0]]!r} are the same parameter (the first is "
                         f"its name of the previous release); give {RENAMED_FLAT[both[0]]!r} alone.")
    warnings.warn(f"{where}: the parameter name{'s' if len(old) > 1 else ''} {', '.join(map(repr, old))} "
                  f"{'are' if len(old) > 1 else 'is'} deprecated and will be removed in the next release; use "
                  f"{', '.join(repr(RENAMED_FLAT[name]) for name in old)} instead.", FutureWarning,
                  stacklevel=stacklevel)
    return {RENAMED_FLAT.get(name, name): value for name, value in params.items()}


@dataclass(frozen=True)
class Method:
    """How :func:`select` calls one solver.

    Attributes
    ----------
    name : str
        Registry name (used in experiment files and tables).
    fit : callable
        ``fit(X_labeled, y_labeled, X_unlabeled, *, kernel, rng, **params)`` returning an object
        with ``predict(X)``; ``kernel`` is a :class:`toolkit.selection.CachedKernel` (anything with
        ``__call__(X, Z)`` and ``for_solver()``). Methods with ``shares_graph`` also get
        ``graphs=``, a :class:`toolkit.selection.GraphCache` or None.
    params : tuple of str or None
        Accepted parameter names besides the kernel parameters (``kernel``, ``sigma``,
        ``sigma_scale`` (multiples of the width heuristic ``s``), ``kernel_degree``). None: read
        off the signature of ``solver`` (:func:`signature_params`).
    grid : mapping
        Default grid (parameter -> values).
    baseline : str or None
        The supervised method it is compared with in "did the unlabelled data help?".
    family : str
        Solver family (``"supervised"``, ``"s2rlsc"``, ``"transductive"``, ``"laplacian"``, ``"path"``).
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
    shares_graph : bool
        The fit takes ``graphs=`` (one ``L^p`` per data and graph setting, shared across the grid).
    multiclass : bool
        The solver handles more than two classes (one-vs-all or natively); the others need exactly two.
    validation_param : str or None
        The fit's keyword for a labelled validation set ``(X_V, y_V)``: select passes the split's
        validation points there when the early-stopping rule (``stop``) is the validation or the
        mixed check of Melacci & Belkin (§4.1, Tables 6-8).
    solver : str or None
        The solver the adapter calls, ``"module:function"``, whose signature gives ``params``
        (less ``exclude``, plus ``extra``).
    exclude, extra : tuple of str
    description, citation : str
    """

    name: str
    fit: Callable[..., Any]
    params: tuple[str, ...] | None = None
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
    shares_graph: bool = False
    validation_param: str | None = None
    multiclass: bool = False
    solver: str | None = None
    exclude: tuple[str, ...] = ()
    extra: tuple[str, ...] = ()
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
        """The kernel parameters, then ``params`` (read off ``solver``'s signature when None)."""
        params = self.params if self.params is not None else signature_params(self.solver, self.exclude, self.extra)
        return tuple(KERNEL_PARAMS) + tuple(params)


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
        return np.where(f >= 0, self.classes[1], self.classes[0])


def two_classes(y):
    """``(classes, y_pm1)`` of a two-class method's labelled points: the toolkit's one coding
    (:func:`toolkit._validation.encode_binary_labels`: ``classes`` sorted, ``classes[1]`` ↦ +1)."""
    return encode_binary_labels(y, "y", "the selection of a two-class method")


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


def _fit_svc(Xl, yl, Xu, *, kernel, rng, C=1.0, intercept=True):
    from sklearn.svm import SVC

    from toolkit.transductive._svm import svm_dual_without_intercept

    if not isinstance(intercept, (bool, np.bool_)):
        raise TypeError(f"The 'intercept' parameter of svc must be a bool. Got {intercept!r} instead.")
    if intercept:
        return _SVCModel(SVC(C=C, kernel="precomputed").fit(kernel(Xl, Xl), yl), Xl, kernel)
    classes, y = two_classes(yl)
    alpha, info = svm_dual_without_intercept(kernel(Xl, Xl), y, C)
    coef = alpha * y
    return _Predictor(lambda X: kernel(X, Xl) @ coef, classes, info)


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
    from toolkit.specs import SEARCH_KEYWORDS, LocalSearch

    specs, rest = from_flat(params, {"search": LocalSearch()}, SEARCH_KEYWORDS)
    return s2rlsc(Xl, yl, Xu, kernel=kernel.for_solver(), rng=rng, **specs, **rest)


def _fit_tsvm(Xl, yl, Xu, *, kernel, rng, C=1.0, C_star_u=1.0, **params):
    """:func:`toolkit.transductive.tsvm` with ``C* = C_star_u / u``: Gieseke et al. (2011, 2012) search
    C* in {0.01, 1, 100} / u, a grid that only reads the same for every data set in units of 1/u."""
    from toolkit._validation import check_scalar
    from toolkit.transductive import tsvm

    C_star_u = check_scalar(C_star_u, "C_star_u", "the tsvm method (C* = C_star_u / u)", low=0.0)
    # the caching callable, not for_solver(): one kernel matrix per fold for the whole (C, C*) grid
    return tsvm(Xl, yl, Xu, kernel=kernel, C=C, C_star=C_star_u / Xu.shape[0], **params)


def _laplacian_of(Xl, Xu, graph, graphs):
    """``L^p`` of ``[X_labeled; X_unlabeled]`` under the :class:`~toolkit.specs.Graph` ``graph``, exactly
    as :func:`toolkit.lapsvm` builds it (``max_density=POWER_MAX_DENSITY``), taken from the
    selection's :class:`~toolkit.selection.GraphCache` when one is given, so that it is built once
    per (data, graph) and shared across the (γ_A, γ_I) grid."""
    import scipy.sparse as sp
    from toolkit.graphs import POWER_MAX_DENSITY

    X_all = sp.vstack([Xl, Xu]).tocsr() if sp.issparse(Xl) else np.vstack([Xl, Xu])

    def build():
        return graph.laplacian(X_all, max_density=POWER_MAX_DENSITY)

    return build() if graphs is None else graphs.get(X_all, graph, build)


def _manifold_arguments(params, solver):
    """The registry's flat parameters of a Laplacian solver as its specs (:func:`toolkit.specs.from_flat`):
    ``graph``, ``solver`` (from the function's default ``solver``; None for the dual, which takes
    ``tol`` / ``max_iter`` itself) and ``low_rank``, and the rest."""
    from toolkit.specs import Graph

    defaults = {"graph": Graph(), "low_rank": None}
    if solver is not None:
        defaults["solver"] = solver
    specs, rest = from_flat(params, defaults)
    specs.setdefault("graph", Graph())
    return specs, rest


def _low_rank_kernel(kernel):
    """The low-rank model's kernel: by name (it computes K(X, Z) by row blocks itself, nothing
    n × n to cache) instead of the selection's caching callable."""
    from toolkit.specs import Kernel

    return Kernel(kernel.kernel, sigma=kernel.sigma, degree=kernel.kernel_degree)


def _fit_manifold(function, solver, Xl, yl, Xu, kernel, rng, graphs, extra, params):
    """Call a Laplacian solver with the registry's flat ``params`` as specs: the low-rank model builds
    its own graph (it works in the graph's degree-normalised coordinates, which a shared ``L^p``
    does not carry; and no warm start: ``x0`` is not defined for the reduced expansion); the exact
    model gets the selection's shared ``L^p``."""
    specs, rest = _manifold_arguments(params, solver)
    if specs.get("low_rank") is not None:
        rest.pop("x0", None)
        return function(Xl, yl, Xu, kernel=_low_rank_kernel(kernel), rng=rng, **extra, **specs, **rest)
    graph = specs.pop("graph")
    specs.pop("low_rank", None)
    return function(Xl, yl, Xu, kernel=kernel.for_solver(), graph=_laplacian_of(Xl, Xu, graph, graphs), **extra,
                    **specs, **rest)


def _fit_lapsvm(Xl, yl, Xu, *, kernel, rng, graphs=None, validation=None, **params):
    from toolkit.manifold._solvers import LAPSVM_SOLVER, lapsvm

    return _fit_manifold(lapsvm, LAPSVM_SOLVER, Xl, yl, Xu, kernel, rng, graphs, {"validation": validation}, params)


def _fit_laprlsc(Xl, yl, Xu, *, kernel, rng, graphs=None, validation=None, **params):
    from toolkit.manifold._solvers import LAPRLSC_SOLVER, laprlsc

    return _fit_manifold(laprlsc, LAPRLSC_SOLVER, Xl, yl, Xu, kernel, rng, graphs, {"validation": validation}, params)


def _fit_lapsvm_dual(Xl, yl, Xu, *, kernel, rng, graphs=None, **params):
    from toolkit.manifold import lapsvm_dual

    return _fit_manifold(lapsvm_dual, None, Xl, yl, Xu, kernel, rng, graphs, {}, params)


def _fit_svm_path_models(Xl, yl, Xu, values, *, kernel, rng):
    from toolkit.paths import svm_path

    classes, signed = two_classes(yl)
    path = svm_path(kernel(Xl, Xl), signed)
    return [_Predictor(lambda X, s=s: path.decision_function(kernel(X, Xl), s), classes) for s in values]


def _fit_svm_path(Xl, yl, Xu, *, kernel, rng, lam=1.0):
    return _fit_svm_path_models(Xl, yl, Xu, [lam], kernel=kernel, rng=rng)[0]


def _fit_lap_path_models(Xl, yl, Xu, values, *, kernel, rng, **params):
    from toolkit.paths import laplacian_svm_path

    from toolkit.paths._laplacian import PATH_GRAPH

    classes, signed = two_classes(yl)
    specs, rest = from_flat(params, {"graph": PATH_GRAPH, "low_rank": None})
    if specs.get("low_rank") is not None:
        path = laplacian_svm_path(Xl, signed, Xu, kernel=_low_rank_kernel(kernel), rng=rng, **specs,
                                  **rest)
    else:
        path = laplacian_svm_path(Xl, signed, Xu, kernel=kernel, **specs, **rest)
    return [_Predictor(lambda X, s=s: path.decision_function(X, s), classes) for s in values]


def _fit_lap_path(Xl, yl, Xu, *, kernel, rng, lam=1.0, **params):
    return _fit_lap_path_models(Xl, yl, Xu, [lam], kernel=kernel, rng=rng, **params)[0]


_POW2 = tuple(float(2.0 ** k) for k in range(-10, 11, 2))

register_method(Method(
    "svc", _fit_svc, params=("C", "intercept"), grid={"C": tuple(float(2.0 ** k) for k in range(-4, 11, 2))},
    family="supervised", regularization=("C", "smaller"), multiclass=True,
    description="support vector machine (scikit-learn SVC, precomputed kernel; intercept=False: the "
                "same hinge loss without bias, two classes)",
    citation="Chang & Lin (2011), LIBSVM"))
register_method(Method(
    "rlsc", _fit_rlsc, solver="toolkit.rls:rlsc", grid={"lam": _POW2}, family="supervised",
    requires="toolkit.rls", regularization=("lam", "larger"), fit_path=_fit_rlsc_models, path_param="lam",
    description="regularised least-squares classifier (one eigendecomposition for all λ)",
    citation="Rifkin (2002); Gieseke et al. (2012) eq. 4"))
register_method(Method(
    "s2rlsc", _fit_s2rlsc, solver="toolkit.rls:s2rlsc",
    grid={"lam": _POW2, "lam_u": (0.1, 1.0)}, baseline="rlsc", family="s2rlsc", requires="toolkit.rls",
    regularization=("lam", "larger"), balance_param="balance",
    # no warm start: starting the local search from the neighbouring grid point's labelling ends
    # in worse local optima (two moons) for no reliable speed-up
    description="semi-supervised RLSC by local search", citation="Gieseke et al. (2012)"))
register_method(Method(
    "tsvm", _fit_tsvm, solver="toolkit.transductive:tsvm", exclude=("C_star",), extra=("C_star_u",),
    grid={"C": _POW2, "C_star_u": (0.01, 1.0, 100.0)}, baseline="svc", family="transductive",
    requires="toolkit.transductive",
    regularization=("C", "smaller"), balance_param="balance",
    description="transductive SVM, ramp loss by CCCP (UniverSVM's algorithm); C_star_u = u C*",
    citation="Collobert, Sinz, Weston & Bottou (2006)"))
register_method(Method(
    "lapsvm", _fit_lapsvm, solver="toolkit.manifold:lapsvm",
    shares_graph=True, validation_param="validation",
    multiclass=True,
    grid={"gamma_A": (1e-6, 1e-4, 1e-2), "gamma_I": (0.0, 1e-2, 1.0)}, baseline="svc", family="laplacian",
    requires="toolkit.manifold", regularization=("gamma_A", "larger"), warm_start="x0",
    description="Laplacian SVM in the primal", citation="Melacci & Belkin (2011)"))
register_method(Method(
    "laprlsc", _fit_laprlsc, solver="toolkit.manifold:laprlsc",
    shares_graph=True,
    validation_param="validation", multiclass=True,
    grid={"gamma_A": (1e-6, 1e-4, 1e-2), "gamma_I": (0.0, 1e-2, 1.0)}, baseline="rlsc", family="laplacian",
    requires="toolkit.manifold", regularization=("gamma_A", "larger"), warm_start="x0",
    description="Laplacian RLSC in the primal", citation="Melacci & Belkin (2011) eq. 14"))
register_method(Method(
    "lapsvm_dual", _fit_lapsvm_dual, solver="toolkit.manifold:lapsvm_dual", shares_graph=True, multiclass=True,
    grid={"gamma_A": (1e-6, 1e-4, 1e-2), "gamma_I": (1e-2, 1.0)}, baseline="svc", family="laplacian",
    requires="toolkit.manifold", regularization=("gamma_A", "larger"),
    description="Laplacian SVM, the original hinge-loss dual", citation="Belkin, Niyogi & Sindhwani (2006)"))
register_method(Method(
    "svm_path", _fit_svm_path, params=("lam",), grid={"lam": _POW2}, family="supervised",
    requires="toolkit.paths", regularization=("lam", "larger"),
    fit_path=_fit_svm_path_models, path_param="lam",
    description="entire regularisation path of the SVM", citation="Hastie et al. (2004)"))
register_method(Method(
    "lapsvm_path", _fit_lap_path, solver="toolkit.paths:laplacian_svm_path", extra=("lam",),
    grid={"lam": _POW2},
    baseline="svm_path", family="path", requires="toolkit.paths", regularization=("lam", "larger"),
    fit_path=_fit_lap_path_models, path_param="lam",
    description="entire regularisation path of the Laplacian hinge-loss model", citation="Wang, Qin & Huang"))
