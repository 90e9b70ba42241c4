"""The classifiers: RLSC, S2RLSC, TSVM, LapSVM, LapRLSC and the path-backed LapSVMPath.

Each class only stores its parameters (named and defaulted as in the function it wraps) and
delegates to that function; see :mod:`toolkit.estimators` for the label convention.
"""
from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

from toolkit._validation import check_scalar
from toolkit.estimators._base import DEPRECATED, SemiSupervisedClassifier, is_deprecated, warn_deprecated
from toolkit.manifold import laprlsc, lapsvm
from toolkit.manifold._solvers import LAPRLSC_SOLVER, LAPSVM_SOLVER
from toolkit.paths import laplacian_svm_path
from toolkit.paths._laplacian import PATH_GRAPH
from toolkit.rls import rlsc, s2rlsc
from toolkit.specs import SEARCH_KEYWORDS, Graph, LocalSearch
from toolkit.transductive import tsvm

__all__ = ["RLSC", "S2RLSC", "TSVM", "LapSVM", "LapRLSC", "LapSVMPath"]

_CONVENTION = """
    Unlabelled rows are marked in ``y`` as the parameter ``unlabeled`` says: by default (``None``)
    they hold NaN or None (missing labels), or -1 when ``y`` holds neither (scikit-learn's
    convention); the one rule is :func:`toolkit._validation.resolve_unlabeled`. A marker equal to
    one of your classes (as ``-1`` in a -1 / +1 coding without NaN) would turn that class into
    unlabelled rows, which ``fit`` refuses when it leaves fewer than two classes. Build ``y`` with
    :meth:`toolkit.data.Dataset.target` (NaN on the unlabelled rows) for the toolkit's data sets.
"""

_FITTED = """
    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The labels of the labelled rows, sorted; ``decision_function > 0`` means ``classes_[1]``.
    result_ : {result} or tuple of them
        The function's result (one per class, one-vs-rest, for more than two classes).
    unlabeled_marker_ : object
        The marker in effect at fit time (``unlabeled``, or how ``unlabeled=None`` was read on
        ``y``: NaN, None or -1); ``score`` leaves the rows that carry it out of the accuracy.
    transduction_ : ndarray of shape (n_samples,)
        The training labels: as given on the labelled rows, {found} on the unlabelled rows.
    n_iter_ : int or ndarray of shape (n_classes,)
        ``result_.n_iter`` (per class for more than two classes).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` had column names.
"""



class _CallbackInFit:
    """An estimator whose function takes a ``callback``: it is an argument of ``fit`` (a live object of
    one fit, not a hyper-parameter); the hyper-parameter of the previous release works one release."""

    _callback = None

    def fit(self, X, y, *, callback=None):
        """Fit on labelled and unlabelled rows; the rows carrying the marker are the unlabelled ones.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Every training row, labelled or not.
        y : array-like of shape (n_samples,)
            Class labels, with the unlabelled rows marked as ``unlabeled`` says.
        callback : callable, default=None
            Called during the fit as the function's ``callback`` (raising ``StopIteration`` stops it).

        Returns
        -------
        self
        """
        warn_deprecated(self, self._deprecated_in_use())
        if callback is not None and not is_deprecated(self.callback):
            raise ValueError(f"{type(self).__name__}: callback is given to fit and as the parameter of the previous "
                             "release; give it to fit alone.")
        self._callback = callback
        try:
            return self._fit_rows(X, y)
        finally:
            del self._callback

    def _deprecated_in_use(self):
        old = [] if is_deprecated(self.callback) else [("callback", "fit(X, y, callback=...)")]
        return super()._deprecated_in_use() + old

    def _flat(self):
        flat = super()._flat()
        return {**flat, "callback": flat.get("callback", self._callback)}

class RLSC(SemiSupervisedClassifier):
    __doc__ = """Regularised least-squares classifier on the labelled rows: the supervised baseline.

    Minimises ``Σ_i (y_i − f(x_i))² + λ ‖f‖²_H`` over the labelled rows only (Gieseke et al. 2012,
    eq. 2; :func:`toolkit.rlsc`). Rows marked ``unlabeled`` are ignored, so that the same ``y``
    serves this baseline and the semi-supervised estimators.
    """ + _CONVENTION + """
    Parameters
    ----------
    kernel, sigma, kernel_degree, coef0, offset, lam
        As in :func:`toolkit.rlsc`.
    unlabeled : int, str, float or None, default=None
        The marker of unlabelled rows in ``y``; None: missing labels (NaN or None), else -1
        (:func:`toolkit._validation.resolve_unlabeled`).
    """ + _FITTED.format(result=":class:`~toolkit.rls.RLSCResult`",
                         found="predicted by the labelled fit").replace(
        "    n_iter_ : int or ndarray of shape (n_classes,)\n        ``result_.n_iter`` (per class for more than two "
        "classes).\n", "")

    _function = staticmethod(rlsc)
    _needs_unlabeled = False
    _supervised = True

    def __init__(self, *, kernel="linear", sigma=None, kernel_degree=2, coef0=1.0, offset=False, lam=1.0,
                 unlabeled=None):
        self.kernel = kernel
        self.sigma = sigma
        self.kernel_degree = kernel_degree
        self.coef0 = coef0
        self.offset = offset
        self.lam = lam
        self.unlabeled = unlabeled


class S2RLSC(_CallbackInFit, SemiSupervisedClassifier):
    __doc__ = """Semi-supervised regularised least-squares classification (S²RLSC, Gieseke et al. 2012).

    Minimises ``Σ_{i≤l} (y_i − f(x_i))² + λ' Σ_{i>l} (y_i − f(x_i))² + λ ‖f‖²_H`` over ``f`` and the
    labels ``y_i ∈ {−1, +1}`` of the unlabelled rows, with their balance kept (eq. 3, solved by
    the randomised search of :func:`toolkit.s2rlsc`). More than two classes: one-vs-rest.
    """ + _CONVENTION + """
    Parameters
    ----------
    kernel, sigma, kernel_degree, coef0, offset, lam, lam_u, balance, eps, search, order, mu, nu, init,
    restarts, n_basis, polish, tol, max_iter, patience, progress
        As in :func:`toolkit.s2rlsc` (``lam_u`` is λ'; ``kernel``, ``sigma``, ``kernel_degree``,
        ``coef0`` form its :class:`~toolkit.specs.Kernel`, ``search`` to ``patience`` its
        :class:`~toolkit.specs.LocalSearch`).
    random_state : None, int or numpy Generator, default=None
        The seed of the search (``rng`` of :func:`toolkit.s2rlsc`).
    rng, callback
        Deprecated: ``random_state``; ``fit(X, y, callback=...)``.
    unlabeled : int, str, float or None, default=None
        The marker of unlabelled rows in ``y``; None: missing labels (NaN or None), else -1
        (:func:`toolkit._validation.resolve_unlabeled`). At least one row must carry it.
    """ + _FITTED.format(result=":class:`~toolkit.rls.S2RLSCResult`",
                         found="the labels the search found (``result_.labels_unlabeled``)")

    _function = staticmethod(s2rlsc)
    _specs = {"kernel": None, "search": LocalSearch()}
    _keywords = SEARCH_KEYWORDS

    def __init__(self, *, kernel="linear", sigma=None, kernel_degree=2, coef0=1.0, offset=False, lam=1.0,
                 lam_u=1.0, balance=None, eps=0.1, search="1+1", order="round-robin", mu=5, nu=25, init="rlsc",
                 restarts=10, n_basis=None, polish=True, tol=1e-12, max_iter=None, patience=None, random_state=None,
                 progress=False, unlabeled=None, rng=DEPRECATED, callback=DEPRECATED):
        self.kernel = kernel
        self.sigma = sigma
        self.kernel_degree = kernel_degree
        self.coef0 = coef0
        self.offset = offset
        self.lam = lam
        self.lam_u = lam_u
        self.balance = balance
        self.eps = eps
        self.search = search
        self.order = order
        self.mu = mu
        self.nu = nu
        self.init = init
        self.restarts = restarts
        self.n_basis = n_basis
        self.polish = polish
        self.tol = tol
        self.max_iter = max_iter
        self.patience = patience
        self.callback = callback
        self.random_state = random_state
        self.progress = progress
        self.unlabeled = unlabeled
        self.rng = rng


class TSVM(_CallbackInFit, SemiSupervisedClassifier):
    __doc__ = """Transductive SVM with the ramp loss on unlabelled rows, by CCCP (Collobert et al. 2006).

    Minimises ``½‖w‖² + C Σ_{i≤l} H_1(y_i f(x_i)) + C* Σ_{i>l} R_s(|f(x_i)|)`` under the balance
    constraint (:func:`toolkit.tsvm`, the UniverSVM column of Gieseke et al. 2012).
    """ + _CONVENTION + """
    Parameters
    ----------
    kernel, sigma, kernel_degree, coef0, C, C_star, s, balance, tol, max_iter, qp_max_iter
        As in :func:`toolkit.tsvm`.
    unlabeled : int, str, float or None, default=None
        The marker of unlabelled rows in ``y``; None: missing labels (NaN or None), else -1
        (:func:`toolkit._validation.resolve_unlabeled`). At least one row must carry it.
    callback
        Deprecated: ``fit(X, y, callback=...)``.
    """ + _FITTED.format(result=":class:`~toolkit.transductive.TSVMResult`",
                         found="the labels found (``result_.labels_unlabeled``)")

    _function = staticmethod(tsvm)

    def __init__(self, *, kernel="linear", sigma=None, kernel_degree=2, coef0=1.0, C=1.0, C_star=None, s=-0.3,
                 balance=None, tol=1e-6, max_iter=100, qp_max_iter=10000, unlabeled=None, callback=DEPRECATED):
        self.kernel = kernel
        self.sigma = sigma
        self.kernel_degree = kernel_degree
        self.coef0 = coef0
        self.C = C
        self.C_star = C_star
        self.s = s
        self.balance = balance
        self.tol = tol
        self.max_iter = max_iter
        self.qp_max_iter = qp_max_iter
        self.callback = callback
        self.unlabeled = unlabeled


def _class_codes(classes, two_classes):
    """The labels the function is given for ``classes``: -1 / +1 for two classes (+1 for ``classes[1]``), else
    0 .. C-1, so that the function's own classes come in the order of ``classes``."""
    return np.array([-1.0, 1.0]) if two_classes else np.arange(len(classes))


#: The solver options of LapSVM / LapRLSC gathered in their ``options`` parameter (with their defaults).
OPTIONS = {"dtype": "float64", "blas_threads": 1, "neighbor_search": "auto", "line_search": True, "basis": "uniform",
           "preconditioner": "auto", "n_coarse": None}
#: The data and objects of one fit, arguments of ``fit`` (live, not hyper-parameters).
FIT_ARGUMENTS = ("validation", "callback", "scheduler")


class _Manifold(SemiSupervisedClassifier):
    """LapSVM / LapRLSC: every class in one call, ``validation`` labels coded alike, float32 kept when asked.

    ``lapsvm`` / ``laprlsc`` train the one-vs-all problems of a multi-class ``y_labeled`` themselves,
    on one kernel and one graph: the labelled rows are passed coded so that the function's
    classes are in the order of ``classes_`` (-1 / +1 for two classes, 0 .. C-1 for more), and its
    one result (``alpha`` of shape (n, C), ``decision_function`` (n, C)) is ``result_``.
    """

    _fit_arguments = {}

    def fit(self, X, y, *, validation=None, callback=None, scheduler=None):
        """Fit on labelled and unlabelled rows; the rows carrying the marker are the unlabelled ones.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Every training row, labelled or not.
        y : array-like of shape (n_samples,)
            Class labels, with the unlabelled rows marked as ``unlabeled`` says.
        validation : tuple (X_validation, y_validation), default=None
            Labelled rows for PCG's validation and mixed checks, labels coded like ``y``.
        callback : callable, default=None
            Called after every iteration, as in :func:`toolkit.lapsvm`.
        scheduler : None, str or distributed.Client, default=None
            With ``n_basis``: the Dask scheduler whose workers hold the low-rank model's row blocks.

        Returns
        -------
        self
        """
        warn_deprecated(self, self._deprecated_in_use())
        self._fit_arguments = {"validation": validation, "callback": callback, "scheduler": scheduler}
        try:
            return self._fit_rows(X, y)
        finally:
            del self._fit_arguments

    def _options(self):
        """``options`` checked and completed with the defaults of :data:`OPTIONS`."""
        options = {} if self.options is None else self.options
        if not isinstance(options, dict) or set(options) - set(OPTIONS):
            extra = sorted(set(options) - set(OPTIONS)) if isinstance(options, dict) else options
            raise ValueError(f"The 'options' parameter of {type(self).__name__} must be a dict with keys among "
                             f"{', '.join(OPTIONS)}. Got {extra!r} instead.")
        return {**OPTIONS, **options}

    def _deprecated_in_use(self):
        params = self.get_params(deep=False)
        old = {k: v for k, v in params.items() if (k in OPTIONS or k in FIT_ARGUMENTS) and not is_deprecated(v)}
        options = {k: v for k, v in old.items() if k in OPTIONS}
        return super()._deprecated_in_use() + [(k, f"options={options!r}" if k in OPTIONS else f"fit(X, y, {k}=...)")
                                               for k in old]

    def _flat(self):
        """The function's flat keywords: the hyper-parameters, the options and the fit's arguments (a
        parameter of the previous release, set, in place of its option or fit argument)."""
        flat = {k: v for k, v in super()._flat().items() if k != "options"}
        old = {k: flat.pop(k) for k in (*OPTIONS, *FIT_ARGUMENTS) if k in flat}
        return {**flat, **self._options(), **self._fit_arguments, **old}

    def _input_dtype(self):
        dtype = self._options()["dtype"] if is_deprecated(self.dtype) else self.dtype
        return np.float32 if dtype in ("float32", np.float32) else np.float64

    def _fit_classes(self, X_labeled, codes, X_unlabeled, classes):
        params = self._solver_params()
        coded = _class_codes(classes, classes.shape[0] == 2)
        validation = params.get("validation")
        if validation is not None:
            try:
                X_validation, y_validation = validation
            except (TypeError, ValueError) as exc:
                raise TypeError(f"The 'validation' argument of {type(self).__name__}.fit must be a pair "
                                f"(X_validation, y_validation) or None. Got {validation!r} instead.") from exc
            y_validation = np.asarray(y_validation)
            unknown = y_validation[~np.isin(y_validation, classes)]
            if unknown.size:
                raise ValueError(f"The 'validation' argument of {type(self).__name__}.fit must hold labels coded like "
                                 f"y, among the classes {classes.tolist()}. Got {unknown.size} other labels (e.g. "
                                 f"{unknown.tolist()[0]!r}) in y_validation instead.")
            params["validation"] = (X_validation, coded[np.searchsorted(classes, y_validation)])   # classes: sorted
        return type(self)._function(X_labeled, coded[codes], X_unlabeled, **params)

    def _iterations(self, result, n_classes):
        if n_classes == 2:
            return int(result.n_iter)
        return np.asarray(result.n_iter_per_problem, dtype=int)

    def _decision(self, result, X):
        return np.asarray(result.decision_function(X), dtype=self._input_dtype())


_MANIFOLD_PARAMS = """
    Parameters
    ----------
    kernel, sigma, kernel_degree, coef0
        The kernel, as :class:`toolkit.specs.Kernel` (``sigma="scale"``: half the median distance
        between rows).
    gamma_A, gamma_I, intercept, one_vs_all
        As in :func:`toolkit.{function}`.
    n_neighbors, laplacian_power, normalized, weight, graph_sigma, metric
        The graph, as :class:`toolkit.specs.Graph` (``n_neighbors``, ``power``, ``normalized``,
        ``weight``, ``sigma``, ``metric``). The defaults (heat weights, ``gamma_A=1e-6``,
        ``gamma_I=0.1``, ``n_neighbors=10``, ``laplacian_power=2``) are the setting of smallest mean
        error over seven benchmark tasks (``benchmarks/bench_defaults.py``); :class:`{function_cv}`
        chooses them per data set.
    method, stop, tol, max_iter
        The solver, as :class:`toolkit.specs.Solver`.
    random_state : None, int or numpy Generator, default=None
        The seed of the low-rank basis and the coarse space (``rng`` of :func:`toolkit.{function}`).
    n_basis : int, default=None
        The low-rank model over ``n_basis`` basis points (:class:`toolkit.specs.LowRank`; no n × n
        matrix, for large n).
    options : dict, default=None
        The remaining solver options, keys among ``dtype`` (``"float32"`` also keeps ``X`` and the
        decision values in float32), ``blas_threads``, ``neighbor_search``, {extra}``basis``,
        ``preconditioner``, ``n_coarse`` (:class:`toolkit.specs.Solver`, :class:`toolkit.specs.Graph`,
        :class:`toolkit.specs.LowRank`).
    unlabeled : int, str, float or None, default=None
        The marker of unlabelled rows in ``y``; None: missing labels (NaN or None), else -1
        (:func:`toolkit._validation.resolve_unlabeled`). At least one row must carry it (the
        method is semi-supervised; RLSC fits labelled rows alone).
    neighbors, degree, rng, validation, callback, scheduler, dtype, blas_threads, neighbor_search, line_search,
    basis, preconditioner, n_coarse
        Deprecated: ``neighbors``, ``degree`` and ``rng`` are ``n_neighbors``, ``laplacian_power`` and
        ``random_state``; the data of one fit are arguments of :meth:`fit`, the solver options keys
        of ``options``. Set here they are translated with a ``FutureWarning`` for one release.
"""

# one result for every class: the function trains the one-vs-all problems itself
_FITTED_ONE_CALL = _FITTED.replace(
    "    result_ : {result} or tuple of them\\n        The function's result (one per class, one-vs-rest, for more than "
    "two classes).\\n",
    "    result_ : {result}\\n        The function's one result for every class (one-vs-all inside it for more than two "
    "classes:\\n        ``alpha`` of shape (n_samples, n_classes), ``classes`` 0 .. n_classes - 1 in the order of\\n"
    "        ``classes_``; -1 / +1 for two classes).\\n").replace(
    "        ``result_.n_iter`` (per class for more than two classes).\\n",
    "        ``result_.n_iter``; for more than two classes ``result_.n_iter_per_problem``, per class.\\n")


class LapSVM(_Manifold):
    __doc__ = """Laplacian SVM in the primal, trained by Newton's method or early-stopped PCG (Melacci & Belkin 2011).

    Minimises ``½ Σ_{i≤l} max(0, 1 − y_i f(x_i))² + γ_A αᵀKα + γ_I αᵀK L K α`` over the expansion
    ``f(x) = Σ_i α_i k(x_i, x) + b`` on every training row (eq. 7; :func:`toolkit.lapsvm`), ``L``
    the Laplacian of the rows' nearest-neighbour graph. More than two classes: one-vs-all, in one call.
    """ + _CONVENTION + _MANIFOLD_PARAMS.format(extra="``line_search``, ", function="lapsvm",
                                                function_cv="LapSVMCV") + _FITTED_ONE_CALL.format(
        result=":class:`~toolkit.manifold.LapSVMResult`", found="``predict`` of the fit")

    _function = staticmethod(lapsvm)
    _specs = {"kernel": None, "graph": Graph(), "solver": LAPSVM_SOLVER, "low_rank": None}

    def __init__(self, *, kernel="rbf", sigma="scale", gamma_A=1e-6, gamma_I=0.1, n_neighbors=10,
                 laplacian_power=2,
                 normalized=True, method="pcg", stop="stability", kernel_degree=2, coef0=1.0, weight="heat",
                 graph_sigma=None, metric="euclidean", tol=1e-6, max_iter=None, random_state=None, n_basis=None,
                 intercept=True, one_vs_all="joint", options=None, unlabeled=None, neighbors=DEPRECATED,
                 degree=DEPRECATED, rng=DEPRECATED, validation=DEPRECATED,
                 callback=DEPRECATED, scheduler=DEPRECATED, dtype=DEPRECATED, blas_threads=DEPRECATED,
                 neighbor_search=DEPRECATED, line_search=DEPRECATED, basis=DEPRECATED,
                 preconditioner=DEPRECATED, n_coarse=DEPRECATED):
        self.kernel = kernel
        self.sigma = sigma
        self.gamma_A = gamma_A
        self.gamma_I = gamma_I
        self.n_neighbors = n_neighbors
        self.laplacian_power = laplacian_power
        self.normalized = normalized
        self.method = method
        self.stop = stop
        self.kernel_degree = kernel_degree
        self.coef0 = coef0
        self.weight = weight
        self.graph_sigma = graph_sigma
        self.metric = metric
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.n_basis = n_basis
        self.intercept = intercept
        self.one_vs_all = one_vs_all
        self.options = options
        self.unlabeled = unlabeled
        self.neighbors = neighbors
        self.degree = degree
        self.rng = rng
        self.validation = validation
        self.callback = callback
        self.scheduler = scheduler
        self.dtype = dtype
        self.blas_threads = blas_threads
        self.neighbor_search = neighbor_search
        self.line_search = line_search
        self.basis = basis
        self.preconditioner = preconditioner
        self.n_coarse = n_coarse


class LapRLSC(_Manifold):
    __doc__ = """Laplacian regularised least squares (LapRLSC; Belkin, Niyogi & Sindhwani 2006).

    Minimises ``Σ_{i≤l} (y_i − f(x_i))² + γ_A αᵀKα + γ_I αᵀK L K α`` (eq. 7 with the squared loss;
    :func:`toolkit.laprlsc`), solved directly or by early-stopped PCG. More than two classes:
    one-vs-all, in one call.
    """ + _CONVENTION + _MANIFOLD_PARAMS.format(extra="", function="laprlsc", function_cv="LapRLSCCV") + _FITTED_ONE_CALL.format(
        result=":class:`~toolkit.manifold.LapSVMResult`", found="``predict`` of the fit")

    _function = staticmethod(laprlsc)
    _specs = {"kernel": None, "graph": Graph(), "solver": LAPRLSC_SOLVER, "low_rank": None}

    def __init__(self, *, kernel="rbf", sigma="scale", gamma_A=1e-6, gamma_I=0.1, n_neighbors=10,
                 laplacian_power=2,
                 normalized=True, method="direct", stop=None, kernel_degree=2, coef0=1.0, weight="heat",
                 graph_sigma=None, metric="euclidean", tol=1e-6, max_iter=None, random_state=None, n_basis=None,
                 intercept=True, one_vs_all="joint", options=None, unlabeled=None, neighbors=DEPRECATED,
                 degree=DEPRECATED, rng=DEPRECATED, validation=DEPRECATED,
                 callback=DEPRECATED, scheduler=DEPRECATED, dtype=DEPRECATED, blas_threads=DEPRECATED,
                 neighbor_search=DEPRECATED, basis=DEPRECATED, preconditioner=DEPRECATED, n_coarse=DEPRECATED):
        self.kernel = kernel
        self.sigma = sigma
        self.gamma_A = gamma_A
        self.gamma_I = gamma_I
        self.n_neighbors = n_neighbors
        self.laplacian_power = laplacian_power
        self.normalized = normalized
        self.method = method
        self.stop = stop
        self.kernel_degree = kernel_degree
        self.coef0 = coef0
        self.weight = weight
        self.graph_sigma = graph_sigma
        self.metric = metric
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.n_basis = n_basis
        self.intercept = intercept
        self.one_vs_all = one_vs_all
        self.options = options
        self.unlabeled = unlabeled
        self.neighbors = neighbors
        self.degree = degree
        self.rng = rng
        self.validation = validation
        self.callback = callback
        self.scheduler = scheduler
        self.dtype = dtype
        self.blas_threads = blas_threads
        self.neighbor_search = neighbor_search
        self.basis = basis
        self.preconditioner = preconditioner
        self.n_coarse = n_coarse



class LapSVMPath(_CallbackInFit, SemiSupervisedClassifier):
    __doc__ = """The Laplacian SVM's whole regularisation path; ``lam`` is read at prediction, never refitted.

    ``fit`` computes every breakpoint of the piecewise-linear path of the Laplacian SVM's dual
    solution in λ (Wang, Qin & Huang; Hastie et al. 2004; :func:`toolkit.laplacian_svm_path`).
    ``decision_function`` and ``predict`` evaluate it at ``lam``: after ``set_params(lam=...)``
    the new λ is used at once, without refitting. By default (``lam="end"``) that is the path's
    own end, read off the data: its smallest λ, where every labelled point has reached its margin
    (the least regularised model of the path), for each binary problem.
    """ + _CONVENTION + """
    Parameters
    ----------
    lam : float or "end", default="end"
        The λ at which ``decision_function`` / ``predict`` evaluate the path (> 0); ``"end"``: the
        path's last breakpoint (``lam_``). ``python benchmarks/bench_path_default.py`` compares
        ``"end"`` with λ chosen by cross-validation along the path on the benchmark sets.
    kernel, sigma, kernel_degree, coef0, gamma_ratio, lambda_min, max_iter, ridge
        As in :func:`toolkit.laplacian_svm_path` (``sigma="scale"``: the width rule of
        :class:`LapSVM`, half the median distance between rows).
    n_neighbors, weight, graph_sigma, normalized, laplacian_power, metric
        The path's graph, as :class:`toolkit.specs.Graph` (6 neighbours, binary weights, ``L``).
    neighbors, degree, callback
        Deprecated: ``n_neighbors`` and ``laplacian_power``; ``fit(X, y, callback=...)``.
    unlabeled : int, str, float or None, default=None
        The marker of unlabelled rows in ``y``; None: missing labels (NaN or None), else -1
        (:func:`toolkit._validation.resolve_unlabeled`). At least one row must carry it.
    """ + _FITTED.format(result=":class:`~toolkit.paths.LaplacianSvmPath`",
                         found="``predict`` at ``lam``").replace(
        "        ``result_.n_iter`` (per class for more than two classes).\n",
        "        ``result_.n_iter``, the path's events (per class for more than two classes).\n"
        "    breakpoints_ : ndarray\n        The path's λ breakpoints (of the first binary problem).\n"
        "    lam_ : float or ndarray\n        The λ the model is read at: ``lam``, or the path's end (per class for more "
        "than two classes).\n")

    _function = staticmethod(laplacian_svm_path)
    _sparse = False
    _specs = {"kernel": None, "graph": PATH_GRAPH}

    def __init__(self, *, lam="end", kernel="rbf", sigma="scale", kernel_degree=2, coef0=1.0, n_neighbors=6,
                 weight="binary", graph_sigma=None, normalized=True, laplacian_power=1, metric="euclidean",
                 gamma_ratio=1.0, lambda_min=None, max_iter=None, ridge=0.0, unlabeled=None,
                 neighbors=DEPRECATED, degree=DEPRECATED, callback=DEPRECATED):
        self.lam = lam
        self.kernel = kernel
        self.sigma = sigma
        self.kernel_degree = kernel_degree
        self.coef0 = coef0
        self.n_neighbors = n_neighbors
        self.weight = weight
        self.graph_sigma = graph_sigma
        self.normalized = normalized
        self.laplacian_power = laplacian_power
        self.metric = metric
        self.gamma_ratio = gamma_ratio
        self.lambda_min = lambda_min
        self.max_iter = max_iter
        self.ridge = ridge
        self.callback = callback
        self.unlabeled = unlabeled
        self.neighbors = neighbors
        self.degree = degree

    def _solver_params(self):
        params = super()._solver_params()
        del params["lam"]
        return params

    def _lam(self, result):
        """The λ of ``result`` (one binary path) at which the model is read: ``lam``, or its path's end."""
        if isinstance(self.lam, str) and self.lam == "end":
            return float(result.svm.breakpoints[-1])
        if isinstance(self.lam, str):
            raise ValueError(f"The 'lam' parameter of LapSVMPath must be a float in (0.0, inf) or 'end'. Got "
                             f"{self.lam!r} instead.")
        return check_scalar(self.lam, "lam", "LapSVMPath", low=0.0, low_closed=False)

    def _decision(self, result, X):
        return np.asarray(result.decision_function(X, self._lam(result)))

    def fit(self, X, y, *, callback=None):
        super().fit(X, y, callback=callback)
        results = self.result_ if isinstance(self.result_, tuple) else (self.result_,)
        self.breakpoints_ = np.asarray(results[0].svm.breakpoints)
        return self

    @property
    def lam_(self):
        """The λ the model is read at: ``lam``, or each binary path's end (a float; one per class for
        more than two classes)."""
        check_is_fitted(self, "result_")
        results = self.result_ if isinstance(self.result_, tuple) else (self.result_,)
        values = [self._lam(r) for r in results]
        return values[0] if len(values) == 1 else np.asarray(values)
