"""Specifications: what a kernel, a graph, a solver, a low-rank model and a local search are.

Frozen, hashable descriptions that the solver families take instead of long lists of flat keywords,
as :mod:`toolkit.early_stopping`'s rules already are (and as ``scipy.optimize.minimize`` takes
``method=`` and ``options=``):

* :class:`Kernel` -- the kernel and its width or degree (``kernel=`` of every solver);
* :class:`Graph` -- the neighbour graph and its Laplacian power ``L^p`` (``graph=`` of the Laplacian
  solvers and paths); :meth:`Graph.laplacian` builds ``L^p`` of a set of points;
* :class:`Solver` -- how LapSVM / LapRLSC are solved: Newton, PCG or the direct solve, the
  preconditioner and the stopping rule (``solver=``);
* :class:`LowRank` -- the reduced expansion over ``n_basis`` points (``low_rank=``);
* :class:`LocalSearch` -- the label search of S²RLSC and MMC (``search=``).

A string stays the shorthand of the common case: ``kernel="rbf"`` is ``Kernel("rbf")``,
``solver="pcg"`` the function's default solver with ``method="pcg"``, ``search="mu+nu"``
``LocalSearch("mu+nu")``, ``low_rank=200`` ``LowRank(200)``.

The flat keywords these replace (``sigma=``, ``neighbors=``, ``degree=``, ``method=``, ``n_basis=``, ...)
keep working for one release through :func:`translate`, the one place that maps them, with a
``FutureWarning`` that names the new spelling.

Examples
--------
>>> from toolkit.specs import Graph, Kernel
>>> Graph(n_neighbors=6, weight="binary", power=1)
Graph(n_neighbors=6, weight='binary', sigma=None, metric='euclidean', normalized=True, power=1, neighbor_search='auto')
>>> Kernel("rbf", sigma=0.5) == Kernel("rbf", sigma=0.5)
True
"""
from __future__ import annotations

import dataclasses
import numbers
import warnings
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from toolkit._validation import check_option, check_scalar
from toolkit import graphs
from toolkit.graphs import METRICS, NEIGHBOR_SEARCHES, WEIGHTS
from toolkit.kernels import DTYPES, KERNELS, SIGMA_RULES

__all__ = ["Kernel", "Graph", "Solver", "LowRank", "LocalSearch", "translate", "from_flat", "flat_name"]

#: The low-rank basis choices (:mod:`toolkit.manifold`): evenly spaced rows or k-means++ seeding.
BASES = ("uniform", "kmeans++")
#: The preconditioners of the PCG solver (:func:`toolkit.lapsvm`).
PRECONDITIONERS = ("auto", "kernel", "two-level")


def _check_bool(value, name, spec):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"The {name!r} field of {spec} must be a bool. Got {value!r} instead.")
    return bool(value)


def _set(spec, **values):
    """Store checked values on a frozen dataclass (its ``__post_init__`` normalises them)."""
    for name, value in values.items():
        object.__setattr__(spec, name, value)


@dataclass(frozen=True)
class Kernel:
    """A kernel: ``name`` and its parameters.

    Parameters
    ----------
    name : {"rbf", "linear", "polynomial", "precomputed"} or callable, default="rbf"
        ``"rbf"``: ``exp(-‖x - z‖² / (2 σ²))``; ``"polynomial"``: ``(xᵀz + coef0)^degree``;
        ``"precomputed"``: the solver's ``X`` arguments are kernel matrices; a callable
        ``k(X, Z)`` returns the matrix.
    sigma : float or "scale", default="scale"
        The RBF width σ; ``"scale"`` reads it off the training rows, half the median distance
        between two of them (:func:`toolkit.kernels.scale_width`, scikit-learn's
        ``gamma="scale"``). Not used by the other kernels.
    degree : int, default=2
        The polynomial kernel's degree (the Laplacian's power is :attr:`Graph.power`).
    coef0 : float, default=1.0
        The polynomial kernel's constant.

    Examples
    --------
    >>> Kernel("polynomial", degree=3)
    Kernel(name='polynomial', sigma='scale', degree=3, coef0=1.0)
    """

    name: str | Callable = "rbf"
    sigma: float | str | None = "scale"
    degree: int = 2
    coef0: float = 1.0

    def __post_init__(self):
        spec = "Kernel"
        if not callable(self.name):
            check_option(self.name, "name", spec, KERNELS)
        sigma = self.sigma
        if isinstance(sigma, str):
            check_option(sigma, "sigma", spec, SIGMA_RULES)
        else:
            sigma = check_scalar(sigma, "sigma", spec, low=0.0, low_closed=False, allow_none=True)
        _set(self, sigma=sigma, degree=check_scalar(self.degree, "degree", spec, kind=numbers.Integral, low=1),
             coef0=check_scalar(self.coef0, "coef0", spec))

    @classmethod
    def of(cls, value, func, *, sigma="scale"):
        """``value`` as a :class:`Kernel`: a spec as given, a name or a callable with ``sigma``."""
        if isinstance(value, cls):
            return value
        if isinstance(value, str):
            return cls(check_option(value, "kernel", func, KERNELS), sigma=sigma)
        if callable(value):
            return cls(value, sigma=sigma)
        raise TypeError(f"The 'kernel' parameter of {func} must be a Kernel, one of {', '.join(map(repr, KERNELS))} "
                        f"or a callable. Got {value!r} instead.")

    def flat(self):
        """The solvers' keyword arguments (``kernel``, ``sigma``, ``kernel_degree``, ``coef0``)."""
        return {"kernel": self.name, "sigma": self.sigma, "kernel_degree": self.degree, "coef0": self.coef0}


@dataclass(frozen=True)
class Graph:
    """The symmetrised k-nearest-neighbour graph of the training points and its Laplacian power ``L^p``.

    The intrinsic regulariser of manifold regularisation is ``fᵀ L^p f`` (Melacci & Belkin 2011,
    eq. 3 and Table 9).

    Parameters
    ----------
    n_neighbors : int, default=10
        ``k`` of the kNN graph (:func:`toolkit.graphs.knn_graph`), ``1 <= k < n``.
    weight : {"heat", "binary", "distance"}, default="heat"
        Edge weights: ``exp(-d² / (2 σ_G²))`` (Melacci & Belkin's experiments, LapSVMp), 1, or
        the distance.
    sigma : float, default=None
        The heat weights' width σ_G; ``None``: the mean distance of the points' kNN lists before
        symmetrisation (LapSVMp's default).
    metric : {"euclidean", "cosine", "manhattan", "sqeuclidean"}, default="euclidean"
        The neighbour metric (``"cosine"`` for text).
    normalized : bool, default=True
        ``I - D^{-1/2} W D^{-1/2}`` (the paper's choice) if True, ``D - W`` otherwise.
    power : int, default=2
        ``p`` of ``L^p`` (the "degree" of the Laplacian in Melacci & Belkin's Table 9, LapSVMp's
        ``LaplacianDegree``).
    neighbor_search : {"auto", "kdtree", "sklearn", "pynndescent", "kernel"}, default="auto"
        How the neighbours are found among the points: exact by SciPy's k-d tree or scikit-learn,
        approximate by NN-descent (:func:`toolkit.graphs.knn_graph`; ``"auto"``:
        :func:`toolkit.graphs.choose_neighbor_search`); ``"kernel"``: read off the RBF kernel
        matrix that the exact Laplacian solvers compute anyway
        (:func:`toolkit.graphs.knn_graph_from_kernel`), the same neighbours up to ties for O(n²)
        instead of O(n² d). A precomputed kernel's graph is always read off the kernel.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(20, 2))
    >>> L = Graph(n_neighbors=3, weight="binary", normalized=False, power=1).laplacian(X)
    >>> bool(np.allclose(L.sum(axis=1), 0))
    True
    """

    n_neighbors: int = 10
    weight: str = "heat"
    sigma: float | None = None
    metric: str = "euclidean"
    normalized: bool = True
    power: int = 2
    neighbor_search: str = "auto"

    def __post_init__(self):
        spec = "Graph"
        check_option(self.weight, "weight", spec, WEIGHTS)
        check_option(self.metric, "metric", spec, METRICS)
        check_option(self.neighbor_search, "neighbor_search", spec, NEIGHBOR_SEARCHES + ("kernel",))
        _set(self, n_neighbors=check_scalar(self.n_neighbors, "n_neighbors", spec, kind=numbers.Integral, low=1),
             sigma=check_scalar(self.sigma, "sigma", spec, low=0.0, low_closed=False, allow_none=True),
             normalized=_check_bool(self.normalized, "normalized", spec),
             power=check_scalar(self.power, "power", spec, kind=numbers.Integral, low=1))

    def laplacian(self, X, *, max_density=None, rng=None):
        """``L^p`` of the points ``X`` (:meth:`build`).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            All training points, labelled and unlabelled.
        max_density : float in (0, 1], default=None
            As in :func:`toolkit.graphs.iterated_laplacian`: ``None`` gives the CSR matrix, a
            density above which ``L^p`` is returned as an operator.
        rng : None, int or Generator, default=None
            Seeds the approximate neighbour search.

        Returns
        -------
        L : scipy.sparse.csr_matrix or LinearOperator of shape (n_samples, n_samples)
        """
        return self.build(X, max_density=max_density, rng=rng).L

    def build(self, X, *, max_density=None, rng=None, kernel_matrix=None, kernel_sigma=None):
        """``L^p`` of ``X`` with the degrees and the search taken (:func:`toolkit.graphs.build_laplacian`).

        The one construction of the solvers, the paths and the selection. With ``X`` None the graph
        is read off ``kernel_matrix`` (a precomputed kernel); so it is with
        ``neighbor_search="kernel"`` and an RBF ``kernel_matrix`` of width ``kernel_sigma``.

        Returns
        -------
        toolkit.graphs.BuiltGraph
        """
        return graphs.build_laplacian(X, n_neighbors=self.n_neighbors, weight=self.weight, graph_sigma=self.sigma,
                                      normalized=self.normalized, power=self.power, metric=self.metric,
                                      neighbor_search=self.neighbor_search, max_density=max_density, rng=rng,
                                      kernel_matrix=kernel_matrix, kernel_sigma=kernel_sigma)

    def flat(self):
        """The solvers' keyword arguments (``neighbors``, ``weight``, ``graph_sigma``, ...)."""
        return {"neighbors": self.n_neighbors, "weight": self.weight, "graph_sigma": self.sigma,
                "metric": self.metric, "normalized": self.normalized, "degree": self.power,
                "neighbor_search": self.neighbor_search}


@dataclass(frozen=True)
class Solver:
    """How LapSVM and LapRLSC are solved (:func:`toolkit.lapsvm`, :func:`toolkit.laprlsc`).

    Parameters
    ----------
    method : {"pcg", "newton", "direct"}, default="pcg"
        Preconditioned conjugate gradient (Melacci & Belkin 2011, Algorithm 1: Polak-Ribière
        update, exact piecewise line search of §3.2.1, O(n²) per iteration), Newton's method
        (eq. 8-10, LapSVM, O(n³) per step) or the direct solve of eq. (14) (LapRLSC).
    stop : str, rule or None, default="stability"
        PCG's early-stopping rule (:mod:`toolkit.early_stopping`, §4.1): ``"stability"``
        (Algorithm 2), ``"validation"`` (Algorithm 3, needs ``validation``), ``"mixed"``, or the
        classic ``"gradient"``, ``"preconditioned_gradient"``, ``"mixed_product"``,
        ``"relative_objective"`` (threshold ``tol``); ``None`` runs to ``tol``.
    tol : float, default=1e-6
        PCG: stop when ``‖∇‖ <= tol ‖∇(0)‖``; also the threshold of the classic rules.
    max_iter : int, default=None
        PCG iterations (default ``10 n``) or Newton steps (default 50). Reaching it gives status 2
        and a :class:`~toolkit.ConvergenceWarning`.
    line_search : bool, default=True
        Newton: the exact line-search step along each direction (eq. 8); ``False``: the full
        step ``s = 1`` of Melacci & Belkin's experiments (LapSVMp's ``NewtonLineSearch = 0``).
    preconditioner : {"auto", "kernel", "two-level"}, default="auto"
        PCG: the paper's ``P = diag(1, K)`` (``"kernel"``), or that plus an exact solve on a coarse
        space of ``n_coarse`` Nyström directions (``"two-level"``), whose iteration count does not
        grow with n; ``"auto"`` takes the two-level one from
        :data:`toolkit.manifold._solvers.TWO_LEVEL_MIN_SAMPLES` points and adds it to a run the
        paper's has not stopped after :data:`~toolkit.manifold._solvers.SWITCH_ITERATIONS`.
    n_coarse : int, default=None
        Centres of the two-level coarse space; ``None``: ``4 √n`` between 100 and 500.
    dtype : {"float64", "float32"}, default="float64"
        Precision of ``K`` for PCG (float32 halves memory and the cost of ``K @ v``; the iterates
        stay float64). Newton always uses float64.
    blas_threads : int, default=1
        BLAS threads of PCG's products by ``K``; ``None``: the current setting.

    Examples
    --------
    >>> Solver("newton")
    Solver(method='newton', stop='stability', tol=1e-06, max_iter=None, line_search=True, preconditioner='auto', n_coarse=None, dtype='float64', blas_threads=1)
    """

    method: str = "pcg"
    stop: Any = "stability"
    tol: float = 1e-6
    max_iter: int | None = None
    line_search: bool = True
    preconditioner: str = "auto"
    n_coarse: int | None = None
    dtype: str = "float64"
    blas_threads: int | None = 1

    def __post_init__(self):
        spec = "Solver"
        check_option(self.method, "method", spec, ("pcg", "newton", "direct"))
        check_option(self.preconditioner, "preconditioner", spec, PRECONDITIONERS)
        check_option(self.dtype, "dtype", spec, DTYPES)
        try:
            hash(self.stop)
        except TypeError:
            raise TypeError(f"The 'stop' field of {spec} must be a rule name, a rule object of "
                            f"toolkit.early_stopping or None. Got {self.stop!r} instead.") from None
        _set(self, tol=check_scalar(self.tol, "tol", spec, low=0.0),
             max_iter=check_scalar(self.max_iter, "max_iter", spec, kind=numbers.Integral, low=0, allow_none=True),
             line_search=_check_bool(self.line_search, "line_search", spec),
             n_coarse=check_scalar(self.n_coarse, "n_coarse", spec, kind=numbers.Integral, low=1, allow_none=True),
             blas_threads=check_scalar(self.blas_threads, "blas_threads", spec, kind=numbers.Integral, low=1,
                                       allow_none=True))

    @classmethod
    def of(cls, value, func, *, default):
        """``value`` as a :class:`Solver`: a spec as given, ``None`` the function's ``default``, a
        method name the default with that method."""
        if value is None:
            return default
        if isinstance(value, cls):
            return value
        if isinstance(value, str):
            return dataclasses.replace(default, method=value)
        raise TypeError(f"The 'solver' parameter of {func} must be a Solver, a method name or None. "
                        f"Got {value!r} instead.")

    def flat(self):
        """The solvers' keyword arguments (``method``, ``stop``, ``tol``, ...)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}


@dataclass(frozen=True)
class LowRank:
    """The reduced expansion ``f(x) = Σ_j w_j k(z_j, x) + b`` over ``n_basis`` of the training points.

    Parameters
    ----------
    n_basis : int
        The basis points ``z_j`` (every labelled point, then unlabelled ones); the model needs
        O(n · n_basis) memory instead of O(n²).
    basis : {"uniform", "kmeans++"}, default="uniform"
        How the unlabelled basis points are drawn: evenly spaced rows (or drawn by ``rng``), or
        k-means++ seeding (:func:`sklearn.cluster.kmeans_plusplus`).

    Examples
    --------
    >>> LowRank(200)
    LowRank(n_basis=200, basis='uniform')
    """

    n_basis: int
    basis: str = "uniform"

    def __post_init__(self):
        check_option(self.basis, "basis", "LowRank", BASES)
        _set(self, n_basis=check_scalar(self.n_basis, "n_basis", "LowRank", kind=numbers.Integral, low=1))

    @classmethod
    def of(cls, value, func):
        """``value`` as a :class:`LowRank` or None: a spec as given, an int the number of basis points."""
        if value is None or isinstance(value, cls):
            return value
        if isinstance(value, numbers.Integral) and not isinstance(value, bool):
            return cls(int(value))
        raise TypeError(f"The 'low_rank' parameter of {func} must be a LowRank, an int (n_basis) or None. "
                        f"Got {value!r} instead.")

    @staticmethod
    def flat_of(spec):
        """The solvers' keyword arguments (``n_basis``, ``basis``) of a spec or None."""
        return {"n_basis": None, "basis": "uniform"} if spec is None else {"n_basis": spec.n_basis, "basis": spec.basis}


@dataclass(frozen=True)
class LocalSearch:
    """The search over the unlabelled points' labels of S²RLSC and MMC (Gieseke et al. 2012, §3).

    Parameters
    ----------
    kind : {"1+1", "mu+nu"}, default="1+1"
        One flip at a time (the (1+1) search) or the (μ+ν) evolution strategy.
    order : {"round-robin", "random"}, default="round-robin"
        (1+1): the order in which the flips are tried.
    mu : int, default=5
        (μ+ν): parents per generation.
    nu : int, default=25
        (μ+ν): offspring per generation.
    restarts : int, default=10
        Independent restarts; the best labelling is kept.
    polish : bool, default=True
        (μ+ν): finish every restart's best with (1+1) sweeps, so the result is a local optimum.
    tol : float, default=1e-12
        A flip is accepted when it lowers F by more than ``tol · (1 + λ')``.
    max_iter : int, default=None
        Sweeps (1+1; default 1000) or generations (μ+ν; default 100 u) per restart.
    patience : int, default=None
        (μ+ν): stop after this many generations without change (default u).

    Examples
    --------
    >>> LocalSearch("mu+nu", restarts=3).restarts
    3
    """

    kind: str = "1+1"
    order: str = "round-robin"
    mu: int = 5
    nu: int = 25
    restarts: int = 10
    polish: bool = True
    tol: float = 1e-12
    max_iter: int | None = None
    patience: int | None = None

    def __post_init__(self):
        spec = "LocalSearch"
        check_option(self.kind, "kind", spec, ("1+1", "mu+nu"))
        check_option(self.order, "order", spec, ("round-robin", "random"))
        _set(self, mu=check_scalar(self.mu, "mu", spec, kind=numbers.Integral, low=1),
             nu=check_scalar(self.nu, "nu", spec, kind=numbers.Integral, low=1),
             restarts=check_scalar(self.restarts, "restarts", spec, kind=numbers.Integral, low=1),
             polish=_check_bool(self.polish, "polish", spec),
             tol=check_scalar(self.tol, "tol", spec, low=0.0),
             max_iter=check_scalar(self.max_iter, "max_iter", spec, kind=numbers.Integral, low=1, allow_none=True),
             patience=check_scalar(self.patience, "patience", spec, kind=numbers.Integral, low=1, allow_none=True))

    @classmethod
    def of(cls, value, func):
        """``value`` as a :class:`LocalSearch`: a spec as given, ``"1+1"`` / ``"mu+nu"`` the default of that kind."""
        if isinstance(value, cls):
            return value
        if isinstance(value, str):
            return cls(check_option(value, "search", func, ("1+1", "mu+nu")))
        raise TypeError(f"The 'search' parameter of {func} must be a LocalSearch, '1+1' or 'mu+nu'. "
                        f"Got {value!r} instead.")

    def flat(self):
        """The solvers' keyword arguments (``search``, ``order``, ``mu``, ...)."""
        values = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        values["search"] = values.pop("kind")
        return values


# ---- the flat keywords ---------------------------------------------------------------------------
#: Each flat keyword: (the spec parameter it belongs to, the field of that parameter's spec). The
#: flat vocabulary of the layers that speak flat names (the selection's grids, the experiment files,
#: the estimators' hyper-parameters, through :func:`from_flat`), and the functions' keywords of the
#: previous release (through :func:`translate`). The graph's neighbours are ``n_neighbors`` and its
#: Laplacian power ``laplacian_power`` (scikit-learn's ``degree`` is a polynomial kernel's); the
#: previous release's ``neighbors`` and ``degree`` (:data:`RENAMED_FLAT`) are understood for one release.
FLAT_KEYWORDS = {
    "sigma": ("kernel", "sigma"), "kernel_degree": ("kernel", "degree"), "coef0": ("kernel", "coef0"),
    "n_neighbors": ("graph", "n_neighbors"), "laplacian_power": ("graph", "power"),
    "neighbors": ("graph", "n_neighbors"), "weight": ("graph", "weight"), "graph_sigma": ("graph", "sigma"),
    "metric": ("graph", "metric"), "normalized": ("graph", "normalized"), "degree": ("graph", "power"),
    "neighbor_search": ("graph", "neighbor_search"), "laplacian_matrix": ("graph", None),
    "method": ("solver", "method"), "stop": ("solver", "stop"), "tol": ("solver", "tol"),
    "max_iter": ("solver", "max_iter"), "line_search": ("solver", "line_search"),
    "preconditioner": ("solver", "preconditioner"), "n_coarse": ("solver", "n_coarse"),
    "dtype": ("solver", "dtype"), "blas_threads": ("solver", "blas_threads"),
    "n_basis": ("low_rank", "n_basis"), "basis": ("low_rank", "basis"),
    "order": ("search", "order"), "mu": ("search", "mu"), "nu": ("search", "nu"),
    "restarts": ("search", "restarts"), "polish": ("search", "polish"), "patience": ("search", "patience"),
}
#: The same for the local search of :func:`toolkit.s2rlsc` and :func:`toolkit.mmc`, whose ``tol`` and
#: ``max_iter`` are the search's and whose ``search`` names its kind.
SEARCH_KEYWORDS = {**{k: FLAT_KEYWORDS[k] for k in ("sigma", "kernel_degree", "coef0", "order", "mu", "nu", "restarts",
                                                   "polish", "patience")},
                   "tol": ("search", "tol"), "max_iter": ("search", "max_iter"), "search": ("search", "kind")}
#: The flat names of the previous release and their current names (one release, with a FutureWarning
#: where a layer reads them: :func:`toolkit._methods.current_names`).
RENAMED_FLAT = {"neighbors": "n_neighbors", "degree": "laplacian_power"}
_SPEC_NAMES = {"kernel": "Kernel", "graph": "Graph", "solver": "Solver", "low_rank": "LowRank", "search": "LocalSearch"}


def translate(func, old, accepted, given, *, defaults=None, stacklevel=4):
    """Check the old flat keywords of ``func`` that a caller passed, with a ``FutureWarning``.

    The one place the flat keywords that the specs replace are still understood. Each is refused
    when the spec parameter that replaces it was also given (``given[parameter]`` not None), since
    the two would contradict each other.

    Parameters
    ----------
    func : str
        The public function, for messages.
    old : dict
        The keyword arguments the caller passed that are not in ``func``'s signature.
    accepted : collection of str or mapping
        The old keywords ``func`` understands: names of :data:`FLAT_KEYWORDS`, or a mapping like it
        (:data:`SEARCH_KEYWORDS`).
    given : dict
        Spec parameter name -> the value the caller gave (None: left at its default); under
        ``"kernel_name"`` the kernel's name when it was given as a string (for the message).
    defaults : mapping, default=None
        Spec parameter -> the function's default spec, when it is not the spec class's default
        (e.g. :func:`toolkit.laprlsc`'s solver): the new spelling then names its fields too.
    stacklevel : int, default=4
        Of the warning: the caller of a public function that calls ``translate`` through one helper.

    Returns
    -------
    dict
        ``old``, for the function's body, which takes these keywords.

    Raises
    ------
    TypeError
        A keyword that ``func`` never took (as Python raises).
    ValueError
        An old keyword beside the spec parameter that replaces it.
    """
    table = accepted if isinstance(accepted, dict) else FLAT_KEYWORDS
    unknown = [name for name in old if name not in accepted]
    if unknown:
        raise TypeError(f"{func}() got an unexpected keyword argument {unknown[0]!r}")
    if not old:
        return old
    fields = {}
    for name, value in old.items():
        parameter, field = table[name]
        if given.get(parameter) is not None:
            raise ValueError(f"{func}: {name}={value!r} and {parameter}= both set the {parameter}; "
                             f"pass {parameter}={_SPEC_NAMES[parameter]}(...) alone.")
        if field is not None:
            fields.setdefault(parameter, {})[field] = value
    spellings = [_spelling(parameter, values, (defaults or {}).get(parameter), given.get("kernel_name"))
                 for parameter, values in fields.items()]
    if "laplacian_matrix" in old:       # a given L (and its power): graph= takes the matrix itself
        power = f"toolkit.graphs.iterated_laplacian(L, power={old['degree']!r})" if "degree" in old else "L"
        spellings = [s for s in spellings if not s.startswith("graph=")] + [f"graph={power} (L: the laplacian_matrix)"]
    warnings.warn(f"{func}: the keyword{'s' if len(old) > 1 else ''} {', '.join(old)} "
                  f"{'are' if len(old) > 1 else 'is'} deprecated and will be removed in the next release; pass "
                  f"{'; '.join(spellings)} instead (toolkit.specs).", FutureWarning, stacklevel=stacklevel)
    return old


def _spelling(parameter, values, default, kernel_name):
    """``parameter=Spec(...)``: the spec the old keywords ``values`` give, by its fields that differ from
    the class's defaults (starting from the function's ``default`` spec when given)."""
    cls = _SPEC_CLASSES[parameter]
    if default is not None:
        values = {f.name: getattr(default, f.name) for f in dataclasses.fields(cls)} | values
    if parameter == "low_rank":
        return "low_rank=None" if values.get("n_basis") is None else f"low_rank=LowRank({values['n_basis']!r}, " \
            f"basis={values.get('basis', 'uniform')!r})"
    plain = cls()
    shown = [f"{k}={v!r}" for k, v in values.items() if v != getattr(plain, k)]
    if parameter == "kernel" and isinstance(kernel_name, str):
        shown.insert(0, repr(kernel_name))
    return f"{parameter}={_SPEC_NAMES[parameter]}({', '.join(shown)})"


def flat_name(spec, field):
    """The flat keyword of a spec's field: ``flat_name("Graph", "power")`` is ``"laplacian_power"``; None
    for a field no flat keyword names. How a layer that speaks the flat names (the selection, the
    experiment files) names a field a spec refused."""
    for table in (FLAT_KEYWORDS, SEARCH_KEYWORDS):
        for name, (parameter, spec_field) in table.items():
            if _SPEC_NAMES[parameter] == spec and spec_field == field and name not in RENAMED_FLAT:
                return name
    return None


_SPEC_CLASSES = {"kernel": Kernel, "graph": Graph, "solver": Solver, "low_rank": LowRank, "search": LocalSearch}


def from_flat(flat, defaults, keywords=FLAT_KEYWORDS):
    """Split flat keywords into specs: ``{parameter: spec}`` and the keywords that are not a spec's.

    How a layer whose own vocabulary is flat (the registry's grids and experiment files, the
    estimators' hyper-parameters) calls the solvers, without the deprecation of :func:`translate`.

    Parameters
    ----------
    flat : mapping
        Keyword -> value, e.g. ``{"n_neighbors": 6, "gamma_I": 0.1, "method": "newton"}``.
    defaults : mapping
        Spec parameter -> the spec that the keywords of ``flat`` change (``dataclasses.replace``),
        for the parameters to build: e.g. ``{"graph": Graph(), "solver": LAPSVM_SOLVER}``. Keywords
        of a parameter not named here stay in the rest. A ``low_rank`` whose ``n_basis`` is None
        is None.
    keywords : mapping, default=FLAT_KEYWORDS
        Keyword -> (parameter, field); :data:`SEARCH_KEYWORDS` for S²RLSC and MMC.

    Returns
    -------
    specs : dict
        Parameter -> spec, for each parameter of ``defaults`` that ``flat`` changes.
    rest : dict
        The other keywords.

    Examples
    --------
    >>> from_flat({"n_neighbors": 6, "gamma_I": 0.1}, {"graph": Graph()})
    ({'graph': Graph(n_neighbors=6, weight='heat', sigma=None, metric='euclidean', normalized=True, power=2, neighbor_search='auto')}, {'gamma_I': 0.1})
    """
    fields, rest = {}, {}
    for name, value in flat.items():
        parameter, field = keywords.get(name, (None, None))
        if parameter in defaults and field is not None:
            fields.setdefault(parameter, {})[field] = value
        else:
            rest[name] = value
    specs = {}
    for parameter, values in fields.items():
        if parameter == "low_rank" and values.get("n_basis", getattr(defaults[parameter], "n_basis", None)) is None:
            specs[parameter] = None
            continue
        default = defaults[parameter]
        specs[parameter] = (_SPEC_CLASSES[parameter](**values) if default is None
                            else dataclasses.replace(default, **values))
    return specs, rest
