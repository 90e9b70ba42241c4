"""Laplacian SVM and Laplacian RLSC trained in the primal (Melacci & Belkin, JMLR 2011).

Manifold regularisation (Belkin, Niyogi & Sindhwani 2006) with the expansion
``f(x) = Σ_i α_i k(x_i, x) + b`` over the ``n = l + u`` labelled and unlabelled points:

* :func:`lapsvm` -- squared-hinge LapSVM in the primal, eq. (7), by Newton's method (eq. 8-10) or by
  preconditioned conjugate gradient (Algorithm 1) with the exact line search of §3.2.1 and the early
  stopping rules of §4.1 (:mod:`toolkit.early_stopping`);
* :func:`laprlsc` -- Laplacian RLSC, eq. (14), by a direct solve or by PCG;
* :func:`lapsvm_dual` -- the original hinge-loss LapSVM through its dual (eq. 5-6), solved by
  scikit-learn's ``SVC`` on the precomputed ``l × l`` kernel ``Q``.

All three return a frozen :class:`LapSVMResult` with ``predict``, ``decision_function`` and
``summary``. More than two classes are handled one-vs-all; the PCG solver trains all binary
problems together (one ``K @ (n × C)`` product per iteration) and the stopping rules look at the
joint arg-max decisions.
"""
from __future__ import annotations

import contextlib
import dataclasses
import numbers
import time
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from toolkit.manifold import _core as core
from toolkit.manifold import _lowrank as lowrank
from toolkit._contract import (BREAKDOWN, CALLBACK, CONVERGED, EARLY_STOP, MAX_ITER, ConvergenceWarning,
                               DegenerateFitWarning, ReadOnlyDict, SolverResult, is_converged, status_message,
                               warn_not_converged)
from toolkit._validation import (check_consistent_rows, check_features, check_labels,
                                 check_matrix, check_option, check_rng, check_scalar, label_classes,
                                 one_vs_rest_targets)
from toolkit.early_stopping import make_rule, start_monitor, ValidationCheck, MixedCheck
from toolkit.graphs import GRAPH_PARAMS, METRICS, NEIGHBOR_SEARCHES, POWER_MAX_DENSITY, WEIGHTS
from toolkit.specs import BASES, PRECONDITIONERS, Graph, Kernel, LowRank, Solver, translate
from toolkit.kernels import KERNELS, _blas_threads, check_dtype, cross_kernel, thread_pools
from toolkit.training import choose_basis, lapsvm_dual_kernel, reduced_system, training_set

__all__ = ["lapsvm", "laprlsc", "lapsvm_dual", "LapSVMResult", "ConvergenceWarning"]


#: ``preconditioner="auto"`` takes the two-level preconditioner from this many training points (or
#: whenever ``n_coarse`` is given) and the paper's ``diag(1, K)`` below it. On hard settings (few
#: neighbours, small γ_I) the paper's preconditioner needs more iterations as n grows, up to
#: ``max_iter`` at a few thousand points, while the two-level one keeps the count flat in n; but on
#: the real tasks below this size (the seven that chose the defaults, Melacci & Belkin's COIL20(B)
#: and PCMAC) the paper's early-stopped iterates err less. So the threshold stays above those tasks;
#: below it, a run the paper's preconditioner has not stopped after :data:`SWITCH_ITERATIONS`
#: iterations gets the coarse correction from then on.
TWO_LEVEL_MIN_SAMPLES = 2500
#: ``preconditioner="auto"`` below :data:`TWO_LEVEL_MIN_SAMPLES`: the paper's preconditioner for this
#: many iterations, then, if PCG has not stopped, the two-level coarse correction added for the rest
#: (``params["preconditioner_switch"]``: the first iteration with it). On the hard settings above
#: the switch bounds the iterations far below ``max_iter`` (default ``10 n``), and most runs that
#: switch err less. An earlier switch would bound them further but cuts the paper's long runs that
#: real tasks need (LapSVMCV on SSL-book COIL2 with 100 labels errs more with a switch before this
#: many iterations); the seven tasks that chose the defaults all stop before it.
SWITCH_ITERATIONS = 300


ONE_VS_ALL = ("joint", "separate")


def _resolve_preconditioner(preconditioner, n_samples, n_coarse):
    """The preconditioner ``"auto"`` stands for (see :data:`TWO_LEVEL_MIN_SAMPLES`)."""
    if preconditioner != "auto":
        return preconditioner
    return "two-level" if n_coarse is not None or n_samples >= TWO_LEVEL_MIN_SAMPLES else "kernel"


def default_coarse_size(n_samples):
    """Centres of the two-level preconditioner's coarse space by default: ``4 √n``, between 100 and 500.

    On two moons this many centres bring the early-stopped iterate close to Newton's exact solution
    in the time that about half as many take to stop at a clearly worse one; the bounds keep the
    coarse solve small.
    """
    return int(min(500, max(100, round(4 * np.sqrt(n_samples)))))


# ------------------------------------------------------------------------------ result
@dataclass(frozen=True, repr=False)
class LapSVMResult(SolverResult):
    """Result of :func:`lapsvm`, :func:`laprlsc` or :func:`lapsvm_dual`.

    Attributes
    ----------
    alpha : ndarray of shape (n_samples,) or (n_samples, n_classes)
        Expansion coefficients over the training points ``[X_labeled; X_unlabeled]``
        (one column per one-vs-all problem when there are more than two classes).
    b : float or ndarray of shape (n_classes,)
        Unregularised bias.
    objective : float or ndarray of shape (n_classes,)
        The solver's objective at the returned ``(α, b)``: eq. (7) for ``lapsvm``, the squared-loss
        version for ``laprlsc``, the hinge primal (eq. 4, intrinsic term ``αᵀKLKα``) for the dual.
    converged : bool
        True when the solver ended on its goal condition (optimality or an early-stopping rule).
    status : int
        The toolkit's one status table (:data:`toolkit.SOLVER_STATUS`): 0 optimal, 1 stopped
        early by a rule (``stop=`` or a rule passed as ``callback``), 2 ``max_iter`` reached (with a
        :class:`~toolkit.ConvergenceWarning`), 3 stopped by the callback, 4 numerical breakdown (a
        non-finite objective).
    message : str
    n_iter : int
        PCG iterations, or Newton steps (the largest over the one-vs-all problems).
    n_iter_per_problem : ndarray of shape (n_problems,)
        The iterations of each binary problem (one for two classes): Newton's steps per column,
        PCG's per problem with ``one_vs_all="separate"``, and ``n_iter`` for each with the joint
        PCG (which moves every problem at every iteration).
    n_line_search : int
        Total linear pieces examined by the exact line searches (§3.2.1).
    stop : StopEvent or None
        The early-stopping rule that fired, when and on which value.
    stop_reason : str
    history : mapping of str to ndarray
        PCG, per iteration (iteration 0 first): ``objective``, ``grad_norm`` (``||∇||``),
        ``pgrad_norm`` (``||∇̂||``), ``mixed_product``, ``step``, ``line_search_iters``
        (cumulative), ``restarts``; at each check of the ``stop`` rule: ``check_iteration``,
        ``check_rule``, ``check_value``, ``check_threshold``, ``check_stop``, ``check_error_U``
        (if ``y_unlabeled`` was given) and ``check_error_V`` (errors in percent; the validation
        rule's ``check_value`` and ``check_threshold`` are the rates of Algorithm 3). Newton, at each column start and
        after every step: ``objective`` (of the column), ``column``, ``step``,
        ``n_error_vectors``, ``lstsq`` (the step's system was solved by least squares), and
        ``newton_steps`` per column. PCG with ``one_vs_all="separate"``: the arrays above, one
        problem after the other, with ``problem`` (``check_problem``) the column of each row and
        ``pcg_iterations`` per column. The direct solve and the dual: ``objective`` at the start
        (α = 0, b = 0) and at the solution.
    fallbacks : tuple of str
        Every numerical fallback the solver took, one sentence each (a singular Newton / eq. (14)
        system solved by least squares); empty when none was needed.
    timings : mapping of str to float
        Seconds per phase: ``validation`` (checking the inputs), ``kernel`` (the kernel matrix, or
        the low-rank model's features and reduced system, and the width rule), ``graph`` (the kNN
        search and weights), ``laplacian`` (L and its power L^p; absent for a given L),
        ``compile`` (loading the compiled PCG loops, once per process) and ``solve``.
    method, loss : str
    classes : ndarray
        The class labels; for two classes ``classes[1]`` is the positive class (``f > 0``).
    params : mapping
        The parameters that define the model.
    """
    alpha: np.ndarray
    b: Any
    objective: Any
    n_line_search: int
    stop_reason: str
    timings: Any
    method: str
    loss: str
    classes: np.ndarray
    params: Any
    X_train: Any = field(repr=False)

    @property
    def n_iter_per_problem(self):
        for key in ("pcg_iterations", "newton_steps"):
            if key in self.history:
                return np.asarray(self.history[key])
        return np.full(1 if np.ndim(self.b) == 0 else len(self.b), self.n_iter)

    # -------------------------------------------------------------- prediction
    def decision_function(self, X):
        """``f(x) = Σ_i α_i k(x_i, x) + b``; shape (n,) for two classes, (n, n_classes) otherwise."""
        p = self.params
        Kx = cross_kernel(X, self.X_train, "decision_function", kernel=p["kernel"], n_train=self.X_train.shape[0],
                          sigma=p["sigma"], kernel_degree=p["kernel_degree"], coef0=p["coef0"])
        return Kx @ self.alpha + self.b

    def predict(self, X):
        """Class labels: ``classes[1]`` where ``f(x) > 0`` (two classes), else the arg-max class."""
        F = self.decision_function(X)
        if F.ndim == 1:
            return np.where(F > 0, self.classes[1], self.classes[0])
        return self.classes[np.argmax(F, axis=1)]

    # -------------------------------------------------------------- display
    @property
    def _title(self):
        return f"{self.params['solver']} ({self.method}, {self.loss} loss)"

    def _rows(self):
        p, t = self.params, self.timings
        return [
            ("training points", f"{p['n_labeled']} labelled + {p['n_unlabeled']} unlabelled"),
            ("classes", self.classes.tolist()),
            ("kernel", self._kernel_text()),
            ("graph", self._graph_text()),
            ("weights", f"gamma_A = {p['gamma_A']:g}, gamma_I = {p['gamma_I']:g}"),
            ("objective", np.array2string(np.atleast_1d(self.objective), precision=6)),
            *self._status_rows(),
            ("iterations / line-search pieces", f"{self.n_iter} / {self.n_line_search}"),
            ("time", ", ".join(f"{label} {t[key]:.3f} s" for key, label in (
                ("validation", "validation"), ("kernel", "kernel"), ("graph", "graph"), ("laplacian", "L^p"),
                ("solve", "solve")) if key in t)),
        ]

    def _graph_text(self):
        p = self.params
        if p.get("laplacian_matrix") == "given":
            power = "as given" if p["degree"] is None else f"raised to p = {p['degree']}"
            return f"Laplacian given ({power})"
        return f"neighbors = {p['neighbors']}, Laplacian power p = {p['degree']}, normalized = {p['normalized']}"

    def _kernel_text(self):
        p = self.params
        if p["kernel"] == "rbf":
            return f"rbf (sigma={p['sigma']:g})"
        if p["kernel"] == "polynomial":
            return f"polynomial (kernel_degree={p['kernel_degree']}, coef0={p['coef0']:g})"
        return getattr(p["kernel"], "__name__", str(p["kernel"]))

    def _brief(self):
        return (f"method={self.method!r}, loss={self.loss!r}, status={self.status}, "
                f"n_iter={self.n_iter}, objective={np.round(self.objective, 6)!r}")


# ------------------------------------------------------------------------------ shared setup
def _prepare(func, X_labeled, y_labeled, X_unlabeled, *, kernel, sigma, kernel_degree, coef0,
             gamma_A, gamma_I, neighbors, degree, normalized, weight, graph_sigma, metric, laplacian_matrix,
             dtype, neighbor_search="auto", low_rank=None, rng=None):
    """The checked arguments, the training set (:func:`toolkit.training.training_set`), the coded labels,
    the parameters and the timings of :func:`lapsvm`, :func:`laprlsc` and :func:`lapsvm_dual`."""
    t_enter = time.perf_counter()
    precomputed = kernel == "precomputed"
    X_l = check_matrix(X_labeled, "X_labeled", func, accept_sparse=not precomputed)
    X_u = check_matrix(X_unlabeled, "X_unlabeled", func, allow_empty=True, accept_sparse=not precomputed)
    if X_u.ndim != 2:
        raise ValueError(f"The 'X_unlabeled' parameter of {func} must be a 2-d array.")
    check_features(func, "X_labeled", X_l, "X_unlabeled", X_u)
    y = check_labels(y_labeled, "y_labeled", func, n_rows=X_l.shape[0], rows_name="X_labeled")
    classes = label_classes(y, "y_labeled", func)          # sorted: with two, classes[1] ↦ +1 as every solver
    y_idx = np.searchsorted(classes, y)
    if len(classes) < 2:
        raise ValueError(f"The 'y_labeled' parameter of {func} must contain at least two classes. "
                         f"Got only {classes.tolist()} instead.")
    gamma_A = check_scalar(gamma_A, "gamma_A", func, low=0.0)
    gamma_I = check_scalar(gamma_I, "gamma_I", func, low=0.0)
    if gamma_A == 0.0 and gamma_I == 0.0:
        raise ValueError(f"The 'gamma_A' and 'gamma_I' parameters of {func} cannot both be 0 "
                         "(the problem would have no unique solution).")
    l, u = X_l.shape[0], X_u.shape[0]
    n = l + u
    degree = check_scalar(degree, "degree", func, kind=numbers.Integral, low=1, allow_none=True)
    if not isinstance(normalized, (bool, np.bool_)):
        raise TypeError(f"The 'normalized' parameter of {func} must be a bool. Got {normalized!r} instead.")
    check_option(weight, "weight", func, WEIGHTS)
    graph_sigma = check_scalar(graph_sigma, "graph_sigma", func, low=0.0, low_closed=False, allow_none=True)
    check_option(metric, "metric", func, METRICS)
    check_option(neighbor_search, "neighbor_search", func, NEIGHBOR_SEARCHES + ("kernel",))
    if not callable(kernel):
        check_option(kernel, "kernel", func, KERNELS)
    kernel_degree = check_scalar(kernel_degree, "kernel_degree", func, kind=numbers.Integral, low=1)
    dtype = check_dtype(dtype, func)
    graph_args = None
    if laplacian_matrix is not None:     # the graph is given: what would build one must not be set
        graph, graph_args = laplacian_matrix, {k: (v, GRAPH_DEFAULTS[k]) for k, v in dict(
            neighbors=neighbors, normalized=normalized, weight=weight, graph_sigma=graph_sigma, metric=metric,
            neighbor_search=neighbor_search).items()}
    else:
        degree = GRAPH_DEFAULTS["degree"] if degree is None else degree
        neighbors = check_scalar(neighbors, "neighbors", func, kind=numbers.Integral, low=1, high=n - 1)
        if neighbor_search == "kernel" and (low_rank is not None or kernel != "rbf"):
            raise ValueError(f"The 'neighbor_search' parameter of {func} is 'kernel', which reads the graph off the "
                             "exact model's RBF kernel matrix. Got it with "
                             f"{'the low-rank model' if low_rank is not None else f'kernel={kernel!r}'} instead; "
                             "use 'auto'.")
        graph = Graph(n_neighbors=neighbors, weight=weight, sigma=graph_sigma, metric=metric, normalized=normalized,
                      power=degree, neighbor_search=neighbor_search)
    t_validation = time.perf_counter() - t_enter
    train = training_set(func, X_l, X_u, kernel=kernel, sigma=sigma, kernel_degree=kernel_degree, coef0=coef0,
                         graph=graph, laplacian_power=degree, graph_args=graph_args, low_rank=low_rank,
                         dtype=dtype, max_density=POWER_MAX_DENSITY, rng=rng)      # float32: K computed in float32
    if laplacian_matrix is not None:
        neighbors = normalized = weight = graph_sigma = metric = None

    Y = one_vs_rest_targets(y_idx, len(classes))      # the one-vs-all targets, the estimators' coding
    if train.K is not None and kernel == "rbf":
        _warn_narrow_width(train.K, train.sigma, func)
    params = dict(kernel=kernel, sigma=train.sigma, sigma_rule=train.sigma_rule, kernel_degree=kernel_degree, coef0=coef0,
                  gamma_A=gamma_A, gamma_I=gamma_I, neighbors=neighbors, degree=degree,
                  normalized=None if normalized is None else bool(normalized), weight=weight,
                  graph_sigma=graph_sigma, metric=metric, n_labeled=l, n_unlabeled=u, dtype=np.dtype(dtype).name,
                  neighbor_search=train.neighbor_search, laplacian_matrix=None if laplacian_matrix is None else "given")
    return train, Y, classes, params, {"validation": t_validation, **train.timings}


#: The graph of the Laplacian solvers when they build it (``degree=None``: 2): the registry's
#: :data:`toolkit.graphs.GRAPH_PARAMS`, plus the neighbour search.
GRAPH_DEFAULTS = {**GRAPH_PARAMS, "neighbor_search": "auto"}

#: The width check reads this many rows of K (evenly spaced): O(rows × n), a fraction of one PCG iteration.
WIDTH_CHECK_ROWS = 200
#: The width check warns when the typical nearest-neighbour kernel value is below this, ``exp(-2)``:
#: ``sigma`` below half the nearest-neighbour distance.
NARROW_KERNEL_VALUE = float(np.exp(-2.0))


def _warn_narrow_width(K, sigma, func):
    """Warn when the RBF width lies below half the typical nearest-neighbour distance.

    Then ``k(x, x') = exp(-d² / (2σ²))`` is below ``exp(-2) = 0.14`` for the nearest other row of
    most rows: K is close to the identity and the classifier close to 0 away from the labelled rows
    (predicting one class). Read off K itself: the largest off-diagonal entry of a row is its
    nearest neighbour's kernel value, ``d_nn = σ sqrt(-2 log k_max)``; the median over
    :data:`WIDTH_CHECK_ROWS` evenly spaced rows is compared with ``exp(-2)``. The threshold is half
    the distance, not the distance itself: on high-dimensional data the nearest neighbour is
    nearly as far as the median row, and the default width (``sigma="scale"``) lies just below the
    nearest-neighbour distance on USPS(2,5) and G50C, where it fits well.
    """
    n = K.shape[0]
    if n < 3:
        return
    rows = np.unique(np.linspace(0, n - 1, min(n, WIDTH_CHECK_ROWS)).astype(np.int64))
    block = np.array(K[rows], dtype=np.float64)
    block[np.arange(rows.size), rows] = -np.inf
    nearest = np.max(block, axis=1)
    k_typical = float(np.median(nearest))
    if k_typical >= NARROW_KERNEL_VALUE:
        return
    with np.errstate(divide="ignore"):
        d_nn = float(sigma * np.sqrt(-2.0 * np.log(k_typical))) if k_typical > 0 else float("inf")
    warnings.warn(
        f"{func}: the RBF width sigma={sigma:.4g} is below half the typical distance between a row and its "
        f"nearest neighbour ({d_nn:.4g}, the median over {rows.size} rows): the kernel is close to the identity "
        f"(median nearest-neighbour kernel value {k_typical:.3g}) and the fit is likely to predict one class away "
        "from the labelled rows. Use sigma='scale' (half the median distance between rows), or choose sigma by "
        "cross-validation (toolkit.estimators.LapSVMCV / LapRLSCCV).", DegenerateFitWarning, stacklevel=5)


def _warn_one_class(result, K, func, f=None):
    """Warn when the fit assigns one class to every training row, labelled and unlabelled alike.

    Such a fit cannot be right (the labelled rows hold at least two classes); the usual causes are
    a kernel width far from the data's scale or weights that flatten ``f``. ``f``: the solver's own
    ``K α + b`` on every training row when it has it (PCG's final product, which saves a product by
    K), else computed here.
    """
    shape = np.shape(result.alpha)
    if f is not None and np.size(f) == int(np.prod(shape)):
        F = np.asarray(f).reshape(shape)
    else:
        F = K @ np.asarray(result.alpha, dtype=K.dtype) + np.asarray(result.b, dtype=K.dtype)
    if not np.all(np.isfinite(F)):
        return
    found = np.where(F > 0, 1, 0) if F.ndim == 1 else np.argmax(F, axis=1)
    if np.unique(found).size > 1:
        return
    p = result.params
    width = f"sigma={p['sigma']:.4g}" + (f" (sigma='{p['sigma_rule']}')" if p.get("sigma_rule") else "") \
        if p["kernel"] == "rbf" else f"kernel={p['kernel']!r}"
    label = result.classes[int(found[0])]
    label = label.item() if isinstance(label, np.generic) else label
    remedy = "smaller gamma_A / gamma_I" if p.get("sigma_rule") or p["kernel"] != "rbf" else \
        "sigma='scale' (half the median distance between rows), smaller gamma_A / gamma_I"
    warnings.warn(
        f"{func} predicts one class ({label!r}) for all {F.shape[0]} training rows, labelled "
        f"and unlabelled, although the labelled rows hold {len(result.classes)} classes; |f| <= "
        f"{float(np.max(np.abs(F))):.3g}, with {width}, gamma_A={p['gamma_A']:g}, gamma_I={p['gamma_I']:g}. "
        f"Such a fit cannot be right: try {remedy}, or choose them by cross-validation "
        "(toolkit.estimators.LapSVMCV / LapRLSCCV).", DegenerateFitWarning, stacklevel=4)


def _initial(x0, n, C, func):
    """(alpha0, b0) from a previous result, a pair (alpha, b), or None."""
    if x0 is None:
        return None, None
    if isinstance(x0, LapSVMResult):
        alpha0, b0 = x0.alpha, x0.b
    else:
        try:
            alpha0, b0 = x0
        except (TypeError, ValueError) as exc:
            raise TypeError(f"The 'x0' parameter of {func} must be None, a LapSVMResult or a pair (alpha, b). "
                            f"Got {type(x0).__name__} instead.") from exc
    alpha0 = np.asarray(alpha0, dtype=float)
    b0 = np.asarray(b0, dtype=float)
    if alpha0.size != n * C or b0.size != C:
        raise ValueError(f"{func}: 'x0' has alpha of size {alpha0.size} and b of size {b0.size}; "
                         f"expected {n * C} and {C} (n = {n} training points, {C} problem(s)).")
    if not (np.all(np.isfinite(alpha0)) and np.all(np.isfinite(b0))):
        raise ValueError(f"The 'x0' parameter of {func} must contain only finite values.")
    return alpha0.reshape(n, C), b0.reshape(C)


def _validation_targets(validation, X_train, classes, params, func, C):
    if validation is None:
        return None
    try:
        X_v, y_v = validation
    except (TypeError, ValueError) as exc:
        raise TypeError(f"The 'validation' parameter of {func} must be None or a pair (X_val, y_val).") from exc
    K_v = cross_kernel(X_v, X_train, func, kernel=params["kernel"], n_train=X_train.shape[0], sigma=params["sigma"],
                       kernel_degree=params["kernel_degree"], coef0=params["coef0"])
    y_v = np.asarray(y_v)
    check_consistent_rows(func, X_val=K_v, y_val=y_v)
    if not np.all(np.isin(y_v, classes)):
        raise ValueError(f"{func}: 'y_val' contains labels not in y_labeled's classes {classes.tolist()}.")
    idx = np.searchsorted(classes, y_v)
    target = np.where(idx == 1, 1, -1) if C == 1 else idx
    return K_v, target


def _unlabeled_targets(y_unlabeled, u, classes, func, C):
    if y_unlabeled is None:
        return None
    y_u = np.asarray(y_unlabeled)
    if y_u.shape != (u,):
        raise ValueError(f"{func}: 'y_unlabeled' has shape {y_u.shape} but X_unlabeled has {u} rows.")
    unknown = ~np.isin(y_u, classes)
    if unknown.any():
        raise ValueError(f"{func}: 'y_unlabeled' contains labels not in y_labeled's classes {classes.tolist()}: "
                         f"{np.unique(y_u[unknown]).tolist()[:5]} ({int(unknown.sum())} of {u} points).")
    idx = np.searchsorted(classes, y_u)
    return np.where(idx == 1, 1, -1) if C == 1 else idx


def _finish(raw, *, func, method, loss, classes, params, X, timings, t_solve, warn_fix, stacklevel=4):
    """The :class:`LapSVMResult` of an inner solver's :class:`~toolkit.manifold._core.InnerResult`
    (one column: scalars), with the contract's message and warning."""
    C = raw.alpha.shape[1]
    alpha = raw.alpha[:, 0].copy() if C == 1 else raw.alpha
    b = float(raw.b[0]) if C == 1 else np.asarray(raw.b)
    obj = float(raw.objective[0]) if C == 1 else np.asarray(raw.objective)
    status = raw.status
    message = status_message(status, raw.detail)
    if status in (MAX_ITER, BREAKDOWN):
        remedy = (f"Increase max_iter (now {raw.max_iter}){warn_fix}." if status == MAX_ITER else
                  "Check the kernel (positive semi-definite, finite) and the scale of gamma_A / gamma_I.")
        warn_not_converged(f"{func} (method={method!r})", message, remedy, stacklevel=stacklevel)
    stop = raw.stop_event
    stop_reason = str(stop) if stop is not None else message
    return LapSVMResult(
        alpha=alpha, b=b, objective=obj, converged=is_converged(status), status=status, message=message,
        n_iter=int(raw.n_iter), n_line_search=int(raw.n_line_search), stop=stop,
        stop_reason=stop_reason, history=ReadOnlyDict(raw.history),
        timings=ReadOnlyDict({**timings, "solve": t_solve}), method=method, loss=loss,
        classes=classes, params=ReadOnlyDict({**params, "solver": func, "method": method}), X_train=X,
        fallbacks=tuple(raw.fallbacks))


def _blas_limit(threads):
    """Context limiting the BLAS thread pool (None: leave it alone), through the process's one
    :func:`toolkit.kernels.thread_pools` controller (a fresh ``threadpool_limits`` rescans the
    loaded libraries every time, which costs as much as many PCG iterations on a small problem)."""
    if threads is None:
        return contextlib.nullcontext()
    return thread_pools().limit(limits=threads, user_api="blas")


def _pcg_separately(K, L, Y, alpha0, b0, validation, unlabeled_truth, classes, solve, new_monitors):
    """Each one-vs-all problem by its own PCG run, with its own early-stopping rule on its own sign
    decisions (LapSVMp trains binary classifiers only; a multi-class problem is C of them).

    Returns the :class:`~toolkit.manifold._core.InnerResult` of :func:`core.pcg` for the C columns
    together: ``n_iter`` the largest
    count, ``history["pcg_iterations"]`` each problem's, the other history arrays one problem after
    the other with ``history["problem"]`` (and ``check_problem``) naming the column of each row.
    """
    C = Y.shape[1]
    runs = []
    for c in range(C):
        val_c = None if validation is None else (validation[0], np.where(validation[1] == c, 1, -1))
        truth_c = None if unlabeled_truth is None else np.where(unlabeled_truth == c, 1, -1)
        runs.append(core.pcg(K, L, Y[:, [c]], alpha0=None if alpha0 is None else alpha0[:, [c]],
                             b0=None if b0 is None else b0[[c]], monitors=new_monitors(), validation=val_c,
                             unlabeled_truth=truth_c, **solve))
    severity = {BREAKDOWN: 4, MAX_ITER: 3, CALLBACK: 2, EARLY_STOP: 1, CONVERGED: 0}
    k = max(range(C), key=lambda c: (severity.get(runs[c].status, 5), runs[c].n_iter))
    worst = runs[k]
    history = {}
    for key in runs[0].history:
        history[key] = np.concatenate([np.asarray(r.history[key]) for r in runs])
    history["problem"] = np.concatenate([np.full(len(r.history["objective"]), c) for c, r in enumerate(runs)])
    history["check_problem"] = np.concatenate([np.full(len(r.history["check_iteration"]), c)
                                               for c, r in enumerate(runs)])
    history["pcg_iterations"] = np.array([r.n_iter for r in runs])
    each = "; ".join(f"class {classes[c]}: {r.n_iter} iterations" for c, r in enumerate(runs))
    detail = f"{worst.detail}, in the problem of class {classes[k]} (each of the {C} one-vs-all problems on its own: {each})"
    return core.InnerResult(
        alpha=np.hstack([r.alpha for r in runs]), b=np.concatenate([r.b for r in runs]),
        objective=np.concatenate([r.objective for r in runs]),
        f=np.hstack([r.f for r in runs]), n_iter=int(history["pcg_iterations"].max()),
        n_line_search=sum(r.n_line_search for r in runs), status=worst.status,
        detail=detail,
        stop_event=None, history=history,
        n_kernel_products=sum(r.n_kernel_products for r in runs),
        fallbacks=tuple(dict.fromkeys([f for r in runs for f in r.fallbacks] + [  # and each switched run's
            f for r in runs if r.switched_at is not None for f in r.coarse.fallbacks])),
        max_iter=runs[0].max_iter,
        switched_at=min((r.switched_at for r in runs if r.switched_at is not None), default=None),
        coarse=next((r.coarse for r in runs if r.switched_at is not None), solve["coarse"]))


def _fit(func, hinge, X_labeled, y_labeled, X_unlabeled, *, kernel, sigma, kernel_degree, coef0,
         gamma_A, gamma_I, neighbors, degree, normalized, weight, graph_sigma, metric, method, stop, validation,
         y_unlabeled, tol, max_iter, x0, callback, rng, laplacian_matrix, dtype, blas_threads,
         neighbor_search, line_search=True, n_basis=None, basis="uniform", preconditioner="auto", n_coarse=None,
         scheduler=None, intercept=True, one_vs_all="joint"):
    check_option(method, "method", func, ("newton", "pcg") if hinge else ("direct", "pcg"))
    check_option(one_vs_all, "one_vs_all", func, ONE_VS_ALL)
    if not isinstance(line_search, (bool, np.bool_)):
        raise TypeError(f"The 'line_search' parameter of {func} must be a bool. Got {line_search!r} instead.")
    if not isinstance(intercept, (bool, np.bool_)):
        raise TypeError(f"The 'intercept' parameter of {func} must be a bool. Got {intercept!r} instead.")
    intercept = bool(intercept)
    if callback is not None and not callable(callback):
        raise TypeError(f"The 'callback' parameter of {func} must be callable or None. Got {callback!r} instead.")
    # draws only the basis points of the low-rank expansion / the coarse space's centres; None:
    # evenly spaced rows, so that the default fit stays deterministic
    generator = None if rng is None else check_rng(rng)[0]
    n_basis = check_scalar(n_basis, "n_basis", func, kind=numbers.Integral, low=1, allow_none=True)
    check_option(basis, "basis", func, BASES)
    check_option(preconditioner, "preconditioner", func, PRECONDITIONERS)
    n_coarse = check_scalar(n_coarse, "n_coarse", func, kind=numbers.Integral, low=1, allow_none=True)
    if scheduler is not None:
        from toolkit._dask import check_scheduler

        check_scheduler(scheduler, func)
        if n_basis is None:
            raise ValueError(f"The 'scheduler' parameter of {func} distributes the low-rank model's row blocks and "
                             "needs n_basis (the exact model's n × n kernel stays on one machine). Got "
                             "n_basis=None instead.")
    blas_threads = check_scalar(blas_threads, "blas_threads", func, kind=numbers.Integral, low=1, allow_none=True)
    tol = check_scalar(tol, "tol", func, low=0.0)
    max_iter = check_scalar(max_iter, "max_iter", func, kind=numbers.Integral, low=0, allow_none=True)
    train, Y, classes, params, timings = _prepare(
        func, X_labeled, y_labeled, X_unlabeled, kernel=kernel, sigma=sigma, kernel_degree=kernel_degree,
        coef0=coef0, gamma_A=gamma_A, gamma_I=gamma_I, neighbors=neighbors, degree=degree,
        normalized=normalized, weight=weight, graph_sigma=graph_sigma, metric=metric, laplacian_matrix=laplacian_matrix,
        dtype=dtype, neighbor_search=neighbor_search, low_rank=None if n_basis is None else LowRank(n_basis, basis),
        rng=rng)
    X, K, L = train.X, train.K, train.L
    n, C = X.shape[0], Y.shape[1]
    l = Y.shape[0]
    params.update(intercept=intercept)
    if C > 1 and method == "pcg":
        if one_vs_all == "separate" and n_basis is not None:
            raise ValueError(f"The 'one_vs_all' parameter of {func} can be 'separate' for the exact model only; the "
                             "low-rank model (n_basis) trains its one-vs-all problems jointly. Got "
                             f"one_vs_all='separate' with n_basis={n_basis} instead.")
        params.update(one_vs_all=one_vs_all)
    if n_basis is not None:
        return _fit_reduced(func, hinge, train, Y, classes, params, timings, method=method, stop=stop,
                            validation=validation, y_unlabeled=y_unlabeled, tol=tol, max_iter=max_iter, x0=x0,
                            callback=callback, basis=basis, blas_threads=blas_threads, scheduler=scheduler,
                            intercept=intercept)
    alpha0, b0 = _initial(x0, n, C, func)
    if not intercept and b0 is not None and np.any(b0 != 0):
        raise ValueError(f"The 'x0' parameter of {func} holds a bias b = {np.ravel(b0).tolist()}, but intercept=False "
                         "fixes b = 0; pass a start without bias.")
    rule = make_rule(stop, tol=tol, func=func)
    val = _validation_targets(validation, X, classes, params, func, C)
    if isinstance(rule, (ValidationCheck, MixedCheck)) and val is None:
        raise ValueError(f"The 'stop' parameter of {func} is {getattr(rule, 'name', rule)!r}, which needs "
                         "validation=(X_val, y_val). Got validation=None instead.")
    y_u = _unlabeled_targets(y_unlabeled, n - l, classes, func, C)
    params.update(stop=getattr(rule, "name", None), tol=tol)
    # loading compiled code is not solve time: PCG's loops are warmed first and that time is "compile"
    timings["compile"] = core.warm_up(K.dtype, L, hinge) if method == "pcg" else 0.0
    t0 = time.perf_counter()
    if method == "pcg":
        if max_iter is None:
            max_iter = 10 * n
        coarse, period_n, switch = None, n, None
        auto = preconditioner == "auto"
        preconditioner = _resolve_preconditioner(preconditioner, n, n_coarse)
        r = min(n, default_coarse_size(n) if n_coarse is None else n_coarse)

        def make_coarse():
            return lowrank.TwoLevel(K, L, choose_basis(X, l, r, basis, generator), params["gamma_A"],
                                    params["gamma_I"], hinge, l, intercept=intercept)

        if preconditioner == "two-level":
            coarse = make_coarse()
            period_n = coarse.rule_samples          # the rules' period follows the coarse dimension
            params.update(n_coarse=r, coarse_rank=int(coarse.T.shape[1]))
        elif auto:          # the paper's preconditioner, and the coarse correction if it has not stopped
            switch = (SWITCH_ITERATIONS, make_coarse)
        params.update(preconditioner=preconditioner)
        def new_monitors(rule):       # a rule keeps state: each (separately trained) problem starts its own
            return [] if rule is None else [start_monitor(rule, period_n, None if val is None else len(val[1]))]
        # only the product by K is worth several BLAS threads: the rest of an iteration (the coarse
        # solve, O(n) updates) is small, and threaded small calls cost more than they save
        threads = _blas_threads() if blas_threads is None else blas_threads
        solve = dict(gamma_A=params["gamma_A"], gamma_I=params["gamma_I"], hinge=hinge, tol=tol, max_iter=max_iter,
                     callback=callback, dtype=K.dtype.type, coarse=coarse, intercept=intercept,
                     product_threads=threads if threads > 1 else None, switch=switch)
        with _blas_limit(1 if threads > 1 else blas_threads):
            if C > 1 and one_vs_all == "separate":
                raw = _pcg_separately(K, L, Y, alpha0, b0, val, y_u, classes, solve,
                                      lambda: new_monitors(make_rule(stop, tol=tol, func=func)))
            else:
                raw = core.pcg(K, L, Y, alpha0=alpha0, b0=b0, monitors=new_monitors(rule), validation=val,
                               unlabeled_truth=y_u, **solve)
        if raw.switched_at is not None:     # recorded: "kernel" until this iteration, then two-level
            coarse = raw.coarse
            params.update(preconditioner_switch=int(raw.switched_at), n_coarse=r,
                          coarse_rank=int(coarse.T.shape[1]))
        if coarse is not None and coarse.fallbacks:
            raw = dataclasses.replace(raw, fallbacks=tuple(dict.fromkeys(raw.fallbacks + tuple(coarse.fallbacks))))
        fix = ", or use an early-stopping rule (stop='stability')"
    else:
        if max_iter is None:
            max_iter = 50
        if params["gamma_I"] == 0.0 and (alpha0 is None or not np.any(alpha0[l:])):
            # γ_I = 0 is the supervised problem (the SVM with the squared hinge / RLSC): by the
            # representer theorem its minimiser has α_u = 0, and the exact solve works on the l × l
            # labelled block (O(l³), not O(n³)); the same objective, α padded with zeros
            K64 = np.asarray(K[:l, :l], dtype=float)
            raw = core.newton(K64, sp.csr_matrix((l, l)), Y, params["gamma_A"], 0.0, hinge=hinge,
                              max_iter=max_iter, alpha0=None if alpha0 is None else alpha0[:l], b0=b0,
                              callback=callback, line_search=line_search, intercept=intercept)
            raw = dataclasses.replace(raw, alpha=np.vstack([raw.alpha, np.zeros((n - l, C))]))
        else:
            K64 = np.asarray(K, dtype=float)
            raw = core.newton(K64, L, Y, params["gamma_A"], params["gamma_I"], hinge=hinge,
                              max_iter=max_iter, alpha0=alpha0, b0=b0, callback=callback, line_search=line_search,
                              intercept=intercept)
        if hinge:
            params.update(line_search=bool(line_search))
        fix = ""
    t_solve = time.perf_counter() - t0
    result = _finish(raw, func=func, method=method, loss="squared_hinge" if hinge else "squared",
                     classes=classes, params=params, X=X, timings=timings, t_solve=t_solve, warn_fix=fix)
    _warn_one_class(result, K, func, raw.f)
    return result


def _fit_reduced(func, hinge, train, Y, classes, params, timings, *, method, stop, validation, y_unlabeled,
                 tol, max_iter, x0, callback, basis, blas_threads, scheduler=None, intercept=True):
    """eq. (7) on the reduced expansion over ``n_basis`` training points (:mod:`toolkit.manifold._lowrank`).

    With the normalised Laplacian of a graph built here, the expansion models the degree-normalised
    decisions ``h = (D / d̄)^{-1/2} f`` (the coordinates in which ``L_sym`` is the combinatorial
    Laplacian): ``f = S Φ θ`` on the training points, ``S = diag(√(d_i / d̄))``, so the graph term is
    ``γ_I θᵀ Φᵀ S L_sym S Φ θ`` and the loss reads ``f_i = s_i φ_iᵀθ``. A reduced expansion cannot
    follow the √d modulation that ``L_sym`` asks of ``f`` (its null space is ``D^{1/2} 1``), and
    without this change of coordinates it pays ``½ γ_I Σ w_ij (1/√d_i − 1/√d_j)²``-type terms that
    grow with n: on two moons they ruin the fit from about 10^5 points, where this scaling keeps the
    test error of the exact kernel.
    ``decision_function`` returns ``h(x) = φ(x)ᵀθ``, which has the sign of ``f``.
    """
    X, L, degrees = train.X, train.L, train.degrees
    n, l, C = X.shape[0], Y.shape[0], Y.shape[1]
    if x0 is not None:
        raise ValueError(f"The 'x0' parameter of {func} is not supported with n_basis (the warm start of the "
                         "reduced expansion is not defined). Got a value instead of None.")
    t0 = time.perf_counter()
    Z = train.Z
    dtype = np.float32 if params["dtype"] == "float32" else np.float64
    scale = None
    if params["normalized"] and degrees is not None:
        scale = np.sqrt(degrees / degrees.mean())
        if sp.issparse(L):                                 # S L S entry by entry (not two sparse products)
            L = sp.csr_matrix(L, copy=True)
            L.data = (np.repeat(scale, np.diff(L.indptr)) * L.data) * scale[L.indices]
        else:                                              # L^p as an operator
            L = sp.diags(scale) @ L @ sp.diags(scale)
    params.update(degree_normalized=scale is not None)
    with contextlib.ExitStack() as stack:
        if scheduler is None:
            Phi, G, T = reduced_system(X, Z, L, params["gamma_A"], params["gamma_I"], kernel=params["kernel"],
                                               sigma=params["sigma"], kernel_degree=params["kernel_degree"],
                                               coef0=params["coef0"], dtype=dtype)

            def unlabeled_decisions(theta):
                return Phi[l:] @ theta
        else:                           # Φ in row blocks on the workers; G, T and Φ_L come back
            from toolkit._dask import dask_client
            from toolkit.manifold import _distributed

            client = stack.enter_context(dask_client(scheduler, func))
            Phi = _distributed.reduced_system(client, X, Z, L, params["gamma_A"], params["gamma_I"],
                                              kernel=params["kernel"], sigma=params["sigma"],
                                              kernel_degree=params["kernel_degree"], coef0=params["coef0"],
                                              dtype=dtype)
            stack.callback(Phi.release)
            G, T, unlabeled_decisions = Phi.G, Phi.T, (lambda theta: Phi.decisions(theta, start=l))
            params.update(n_row_blocks=Phi.n_blocks, n_workers=Phi.n_workers)
        Phi_L = lowrank.labeled_rows(Phi[:l] if scheduler is None else Phi.rows(0, l),
                                     None if scale is None else scale[:l])
        first = 0 if intercept else 1            # without intercept: θ = β alone (the bias column dropped)
        if not intercept:
            Phi_L, G, full_decisions = Phi_L[:, 1:], G[1:, 1:], unlabeled_decisions

            def unlabeled_decisions(theta):
                return full_decisions(np.concatenate([np.zeros((1,) + np.shape(theta)[1:]), theta]))
        timings["kernel"] += time.perf_counter() - t0
        rule = make_rule(stop, tol=tol, func=func)
        val = _validation_targets(validation, Z, classes, params, func, C)
        if val is not None:                  # the validation rows in the solver's coordinates θ = [b, β] (w = T β)
            val = (np.c_[np.ones(len(val[1])), np.asarray(val[0]) @ T][:, first:], val[1])
        if isinstance(rule, (ValidationCheck, MixedCheck)) and val is None:
            raise ValueError(f"The 'stop' parameter of {func} is {getattr(rule, 'name', rule)!r}, which needs "
                             "validation=(X_val, y_val). Got validation=None instead.")
        y_u = _unlabeled_targets(y_unlabeled, n - l, classes, func, C)
        params.update(stop=getattr(rule, "name", None), tol=tol, n_basis=int(Z.shape[0]), basis=basis,
                      basis_rank=int(T.shape[1]))
        timings["compile"] = 0.0
        t0 = time.perf_counter()
        with _blas_limit(blas_threads):
            if method == "pcg":
                # the rules' check period follows the problem's dimension, r + 1 (not n)
                monitors = [] if rule is None else [start_monitor(rule, Z.shape[0] + 1,
                                                                  None if val is None else len(val[1]))]
                raw = lowrank.pcg_reduced(Phi_L, G, Y, unlabeled_decisions=unlabeled_decisions, hinge=hinge, tol=tol,
                                          max_iter=1000 if max_iter is None else max_iter, monitors=monitors,
                                          callback=callback, validation=val, unlabeled_truth=y_u)
                fix = ", or use an early-stopping rule (stop='stability')"
            else:
                raw = lowrank.newton_reduced(Phi_L, G, Y, hinge=hinge, max_iter=50 if max_iter is None else max_iter,
                                             callback=callback)
                fix = ""
    theta = raw.theta
    objective = np.array([0.5 * (core.loss_terms(1.0 - Y[:, c] * (Phi_L @ theta[:, c]), hinge).sum()
                                 + theta[:, c] @ (G @ theta[:, c])) for c in range(C)])
    alpha, b = (theta.copy(), np.zeros(C)) if first else (raw.alpha, raw.b)   # first: the bias row back, b = 0
    # back to the expansion coefficients over the basis points
    raw = dataclasses.replace(raw, objective=objective, alpha=T @ alpha, b=b)
    t_solve = time.perf_counter() - t0
    result = _finish(raw, func=func, method=method, loss="squared_hinge" if hinge else "squared",
                     classes=classes, params=params, X=Z, timings=timings, t_solve=t_solve, warn_fix=fix,
                     stacklevel=5)
    return result


# ------------------------------------------------------------------------------ public API
#: The solver of :func:`lapsvm` when ``solver=None``: PCG stopped by the stability check (Algorithm 2).
LAPSVM_SOLVER = Solver()
#: The solver of :func:`laprlsc` when ``solver=None``: the direct solve of eq. (14).
LAPRLSC_SOLVER = Solver("direct", stop=None)
#: The flat keywords that :class:`~toolkit.specs.Kernel`, :class:`~toolkit.specs.Graph`,
#: :class:`~toolkit.specs.Solver` and :class:`~toolkit.specs.LowRank` replace, understood for one
#: release (:func:`toolkit.specs.translate`).
OLD_KEYWORDS = ("sigma", "kernel_degree", "coef0", "neighbors", "degree", "normalized", "weight", "graph_sigma",
                "metric", "neighbor_search", "laplacian_matrix", "method", "stop", "tol", "max_iter", "dtype",
                "blas_threads", "line_search", "n_basis", "basis", "preconditioner", "n_coarse")
#: Those of :func:`lapsvm_dual`, which takes ``tol`` and ``max_iter`` itself and has no solver spec.
OLD_DUAL_KEYWORDS = ("sigma", "kernel_degree", "coef0", "neighbors", "degree", "normalized", "weight", "graph_sigma",
                     "metric", "neighbor_search", "laplacian_matrix")


def _graph_arguments(graph, func):
    """The body's graph keywords: the default graph, a :class:`~toolkit.specs.Graph`, or a given ``L``."""
    if graph is None:
        return {**GRAPH_DEFAULTS, "degree": None, "laplacian_matrix": None}
    if isinstance(graph, Graph):
        return {**graph.flat(), "laplacian_matrix": None}
    if isinstance(graph, (str, bool, numbers.Number)):
        raise TypeError(f"The 'graph' parameter of {func} must be a Graph, a precomputed Laplacian (sparse matrix, "
                        f"ndarray or LinearOperator) or None. Got {graph!r} instead.")
    return {**GRAPH_DEFAULTS, "degree": None, "laplacian_matrix": graph}


def _arguments(func, old, accepted, *, kernel, graph, solver=None, low_rank=None, default_solver=None):
    """The flat keywords of the body (:func:`_fit`) from the specs, and the old keywords translated."""
    translate(func, old, accepted, {"kernel": kernel if isinstance(kernel, Kernel) else None, "kernel_name": kernel,
                                    "graph": graph, "solver": solver, "low_rank": low_rank},
              defaults={"solver": default_solver})
    flat = {**Kernel.of(kernel, func).flat(), **_graph_arguments(graph, func)}
    if default_solver is not None:
        flat.update(Solver.of(solver, func, default=default_solver).flat())
        flat.update(LowRank.flat_of(LowRank.of(low_rank, func)))
    flat.update(old)
    return flat


_SHARED_PARAMETERS = r"""X_labeled : array-like or sparse matrix of shape (n_labeled, n_features)
        Labelled points; with ``kernel="precomputed"`` their rows ``(n_labeled, n)`` of the training
        kernel matrix (columns: the labelled points first, then the unlabelled ones).
    y_labeled : array-like of shape (n_labeled,)
        Labels, at least two classes (any sortable values). With two, ``classes[1]`` (the larger
        label) is the positive class; with more, one-vs-all.
    X_unlabeled : array-like or sparse matrix of shape (n_unlabeled, n_features)
        Unlabelled points; with ``kernel="precomputed"`` their rows ``(n_unlabeled, n)``.
    kernel : Kernel, str or callable, default="rbf"
        A :class:`~toolkit.specs.Kernel`, or its name (``Kernel(name)``: the RBF width read off the
        training rows, ``sigma="scale"``). With ``"precomputed"`` the graph is read off the kernel's
        feature-space distances (:func:`toolkit.graphs.knn_graph_from_kernel`) and new points are
        given by their kernel rows against the ``n`` training points.
    graph : Graph, sparse matrix, ndarray or LinearOperator, default=None
        A :class:`~toolkit.specs.Graph` built on ``[X_labeled; X_unlabeled]``, or a precomputed
        ``L^p`` of shape ``(n, n)`` used as given (checked finite and symmetric with a non-negative
        diagonal). ``None``: ``Graph()`` (10 neighbours, heat weights, normalised, ``p = 2``).
    gamma_A : float, default=1e-6
        Weight γ_A >= 0 of the ambient norm ``αᵀKα``.
    gamma_I : float, default=0.1
        Weight γ_I >= 0 of the intrinsic norm ``fᵀ L^p f``."""

_FIT_PARAMETERS = r"""low_rank : LowRank or int, default=None
        The reduced expansion ``f(x) = Σ_{j ≤ r} w_j k(x, z_j) + b`` over ``r`` training points
        (every labelled point, then unlabelled ones; :class:`~toolkit.specs.LowRank`), with no
        n × n matrix: O(n r + nnz(L)) memory, O(r² + l r) per iteration. ``alpha`` and ``X_train``
        of the result are then over the basis points. ``None``: every training point.
    validation : tuple (X_val, y_val), default=None
        Labelled validation set of the validation and mixed checks (Algorithm 3); its error is
        recorded at every check.
    y_unlabeled : array-like of shape (n_unlabeled,), default=None
        True labels of the unlabelled points, used only to record ``err(U)`` at each check in
        ``history`` (the paper's Figures 5-7); never for training.
    x0 : LapSVMResult or tuple (alpha, b), default=None
        Warm start, e.g. the fit at neighbouring (γ_A, γ_I) (exact model only).
    callback : callable, default=None
        ``callback(intermediate_result)`` after every PCG iteration or Newton step
        (:mod:`toolkit._contract`) with ``n_iter``, ``x`` (= ``alpha``), ``b``, ``objective`` and the
        solver's quantities (PCG: ``grad_norm``, ``decisions``, ``validation_error``, ...).
        Raising ``StopIteration`` stops with status 3; a rule of :mod:`toolkit.early_stopping`
        wrapped in :class:`~toolkit.early_stopping.EarlyStopping` stops with status 1.
    rng : None, int or Generator, default=None
        Draws the low-rank basis and the two-level preconditioner's centres and seeds the
        approximate neighbour search; ``None``: evenly spaced rows (seed 0), so the default fit is
        deterministic. Nothing else is random.
    scheduler : None, str or distributed.Client, default=None
        With ``low_rank``: a Dask scheduler address or client whose workers hold the features
        ``Φ = [1, K(X, Z) T]`` in row blocks (:mod:`toolkit.manifold._distributed`); the same
        numbers as ``None`` up to the summation order of ``Φᵀ L Φ``.
    intercept : bool, default=True
        Fit the unregularised bias ``b``; ``False`` fixes ``b = 0`` (LapSVMp's ``UseBias = 0``,
        the setting of Melacci & Belkin's experiments).
    one_vs_all : {"joint", "separate"}, default="joint"
        How PCG trains more than two classes: all one-vs-all problems in one iteration, the rule
        reading the arg-max decisions, or each on its own with its own rule (as LapSVMp does).
        Exact model only.
    **deprecated
        The flat keywords of the previous release (``sigma``, ``neighbors``, ``degree``, ``method``,
        ``n_basis``, ...), translated with a ``FutureWarning`` (:func:`toolkit.specs.translate`).

    Returns
    -------
    result : LapSVMResult
        ``alpha``, ``b``, ``objective`` at the returned point, ``converged``, ``status`` and
        ``message`` (:data:`toolkit.SOLVER_STATUS`: 0 optimal, 1 early-stopping rule, 2
        ``max_iter``, 3 callback, 4 breakdown), ``n_iter``, ``stop``, ``history``, ``fallbacks``,
        ``timings``, ``params``, ``predict``, ``decision_function``, ``summary()``.

    Raises
    ------
    ValueError, TypeError
        An argument out of its range, naming it; a validation rule without ``validation``."""


def lapsvm(X_labeled, y_labeled, X_unlabeled, *, kernel="rbf", graph=None, gamma_A=1e-6, gamma_I=0.1,
           solver=None, low_rank=None, validation=None, y_unlabeled=None, x0=None, callback=None, rng=None,
           scheduler=None, intercept=True, one_vs_all="joint", **deprecated):
    return _fit("lapsvm", True, X_labeled, y_labeled, X_unlabeled, gamma_A=gamma_A, gamma_I=gamma_I,
                validation=validation, y_unlabeled=y_unlabeled, x0=x0, callback=callback, rng=rng,
                scheduler=scheduler, intercept=intercept, one_vs_all=one_vs_all,
                **_arguments("lapsvm", deprecated, OLD_KEYWORDS, kernel=kernel, graph=graph, solver=solver,
                             low_rank=low_rank, default_solver=LAPSVM_SOLVER))


lapsvm.__doc__ = r"""Laplacian SVM with the squared hinge loss, trained in the primal.

    Minimises eq. (7) of Melacci & Belkin (2011) over ``α ∈ R^n`` and the unregularised bias ``b``:

    .. math::

        \tfrac12 \Big( \sum_{i=1}^{l} \max(1 - y_i (k_i^T α + b), 0)^2
        + γ_A α^T K α + γ_I (Kα + 1b)^T L^p (Kα + 1b) \Big),

    where ``K`` is the kernel matrix and ``L`` the graph Laplacian of all ``n = l + u`` points
    ``[X_labeled; X_unlabeled]`` (labelled first), so that ``f(x) = Σ_i α_i k(x_i, x) + b``.

    Parameters
    ----------
    """ + _SHARED_PARAMETERS + r"""
    solver : Solver or str, default=None
        A :class:`~toolkit.specs.Solver` or a method name: ``"pcg"`` (Algorithm 1, preconditioner
        ``diag(1, K)``, exact piecewise line search of §3.2.1, O(n²) per iteration) or ``"newton"``
        (eq. 8-10, O(n³) per step, converged when the error-vector set stops changing). ``None``:
        ``Solver()``, PCG stopped by the stability check (Algorithm 2).
    """ + _FIT_PARAMETERS + r"""

    Notes
    -----
    Costs: kernel O(n² d), graph O(n² d) (brute force) or less, PCG O(n²) per iteration, Newton
    O(n³) per step. Newton's system (eq. 10) is non-singular for γ_A > 0; a singular one is solved
    by least squares and listed in ``fallbacks``. Early-stopped PCG solutions are approximate by
    design; the objective and the rule that fired are in the result. The defaults are chosen on
    the benchmark sets (``benchmarks/bench_defaults.py``, docs/benchmarks.md); the cross-validated
    :class:`toolkit.estimators.LapSVMCV` chooses them per data set. A fit that cannot be right (one
    class for every training row, or an RBF width below half the typical nearest-neighbour
    distance) issues a :class:`toolkit.DegenerateFitWarning` with a remedy.

    References
    ----------
    S. Melacci and M. Belkin. Laplacian Support Vector Machines Trained in the Primal. JMLR 12,
    2011 (eq. 7-13, Algorithms 1-3). M. Belkin, P. Niyogi, V. Sindhwani. Manifold Regularization.
    JMLR 7, 2006.

    Examples
    --------
    >>> import numpy as np
    >>> from toolkit import lapsvm
    >>> from toolkit.specs import Kernel
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(-2, 1, (100, 2)), rng.normal(2, 1, (100, 2))]
    >>> y = np.r_[-np.ones(100), np.ones(100)]
    >>> idx = np.r_[0, 100]                                  # one labelled point per class
    >>> rest = np.setdiff1d(np.arange(200), idx)
    >>> fit = lapsvm(X[idx], y[idx], X[rest], kernel=Kernel("rbf", sigma=1.0), gamma_A=1e-2, gamma_I=1.0)
    >>> float(np.mean(fit.predict(X[rest]) == y[rest])) > 0.95
    True
    """


def laprlsc(X_labeled, y_labeled, X_unlabeled, *, kernel="rbf", graph=None, gamma_A=1e-6, gamma_I=0.1,
            solver=None, low_rank=None, validation=None, y_unlabeled=None, x0=None, callback=None, rng=None,
            scheduler=None, intercept=True, one_vs_all="joint", **deprecated):
    return _fit("laprlsc", False, X_labeled, y_labeled, X_unlabeled, gamma_A=gamma_A, gamma_I=gamma_I,
                validation=validation, y_unlabeled=y_unlabeled, x0=x0, callback=callback, rng=rng,
                scheduler=scheduler, intercept=intercept, one_vs_all=one_vs_all,
                **_arguments("laprlsc", deprecated, OLD_KEYWORDS, kernel=kernel, graph=graph, solver=solver,
                             low_rank=low_rank, default_solver=LAPRLSC_SOLVER))


laprlsc.__doc__ = r"""Laplacian Regularized Least Squares classifier (LapRLSC), Melacci & Belkin (2011) eq. (14).

    Minimises eq. (7) with the squared loss in place of the squared hinge,

    .. math::

        \tfrac12 \Big( \sum_{i=1}^{l} (y_i - k_i^T α - b)^2
        + γ_A α^T K α + γ_I (Kα + 1b)^T L^p (Kα + 1b) \Big),

    whose minimiser solves one linear system (eq. 14): directly, O(n³), or by PCG with the early
    stopping rules of §4.1.

    Parameters
    ----------
    """ + _SHARED_PARAMETERS + r"""
    solver : Solver or str, default=None
        A :class:`~toolkit.specs.Solver` or a method name: ``"direct"`` (one factorisation of the
        system of eq. 14) or ``"pcg"`` (Algorithm 1 with the squared loss). ``None``:
        ``Solver("direct", stop=None)``.
    """ + _FIT_PARAMETERS + r"""

    References
    ----------
    S. Melacci and M. Belkin. Laplacian Support Vector Machines Trained in the Primal. JMLR 12,
    2011 (eq. 14). M. Belkin, P. Niyogi, V. Sindhwani. Manifold Regularization. JMLR 7, 2006.

    Examples
    --------
    >>> import numpy as np
    >>> from toolkit import laprlsc
    >>> from toolkit.specs import Kernel
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(-2, 1, (50, 2)), rng.normal(2, 1, (50, 2))]
    >>> y = np.r_[-np.ones(50), np.ones(50)]
    >>> fit = laprlsc(X[[0, 50]], y[[0, 50]], X, kernel=Kernel("rbf", sigma=1.0), gamma_A=1e-2, gamma_I=1.0)
    >>> float(np.mean(fit.predict(X) == y)) > 0.9
    True
    """


def lapsvm_dual(X_labeled, y_labeled, X_unlabeled, *, kernel="rbf", graph=None, gamma_A=1e-6, gamma_I=0.1,
                tol=1e-3, max_iter=None, x0=None, callback=None, rng=None, **deprecated):
    r"""The original hinge-loss Laplacian SVM, solved through its dual (Belkin et al. 2006).

    Primal (Melacci & Belkin 2011, eq. 4 with the constraints of §2.1):

    .. math::

        \min_{α, b} \sum_{i=1}^{l} \max(1 - y_i (k_i^T α + b), 0) + γ_A α^T K α + γ_I α^T K L^p K α.

    Its dual (eq. 6) is a standard SVM dual in ``β ∈ [0, 1]^l`` with ``Σ β_i y_i = 0`` and the
    ``l × l`` kernel ``G = J_L K (2γ_A I + 2γ_I L^p K)⁻¹ J_Lᵀ`` (``Q = Y G Y``); it is solved by
    scikit-learn's :class:`~sklearn.svm.SVC` on the precomputed ``G`` with ``C = 1``, and
    ``α = (2γ_A I + 2γ_I L^p K)⁻¹ J_Lᵀ Y β`` (eq. 5), ``b`` = the SVC intercept.

    Parameters and their defaults are those of :func:`lapsvm` (``kernel``, ``graph``, ``gamma_A``,
    ``gamma_I``, ``rng``); ``tol`` and ``max_iter`` are passed to SVC; ``x0`` and ``callback`` are not
    supported by SVC and must be None. Requires ``gamma_A > 0``.
    SVC's warnings reach the caller; when libsvm stops at ``max_iter`` the result has status 2
    and a :class:`~toolkit.ConvergenceWarning` says so (SVC's own ``ConvergenceWarning`` is
    folded into it).

    Returns
    -------
    result : LapSVMResult
        ``method="dual"``, ``objective`` the hinge primal above; ``n_iter`` the SVC iterations
        (summed over one-vs-all problems); ``status`` 0 (libsvm reached ``tol``) or 2 (libsvm
        stopped at ``max_iter``); ``history``: ``objective`` at α = 0, b = 0 and at the solution,
        ``svc_iterations`` per one-vs-all problem.

    Notes
    -----
    O(n³) for the solve with the ``n × n`` matrix ``2γ_A I + 2γ_I L^p K`` (one LU factorisation,
    reused by all one-vs-all problems) and O(l³) for the SVM. As in Belkin et al. (2006), the
    intrinsic term does not include the bias (``αᵀK L K α``), unlike eq. (7) of the primal.
    """
    from sklearn.exceptions import ConvergenceWarning as SklearnConvergenceWarning
    from sklearn.svm import SVC

    func = "lapsvm_dual"
    if x0 is not None or callback is not None:
        raise ValueError(f"{func} solves the dual with scikit-learn's SVC, which supports neither "
                         "'x0' nor 'callback'; pass None.")
    tol = check_scalar(tol, "tol", func, low=0.0, low_closed=False)
    max_iter = check_scalar(max_iter, "max_iter", func, kind=numbers.Integral, low=1, allow_none=True)
    train, Y, classes, params, timings = _prepare(
        func, X_labeled, y_labeled, X_unlabeled, gamma_A=gamma_A, gamma_I=gamma_I, dtype="float64", rng=rng,
        **_arguments(func, deprecated, OLD_DUAL_KEYWORDS, kernel=kernel, graph=graph))
    X, K, L = train.X, train.K, train.L
    if params["gamma_A"] <= 0:
        raise ValueError(f"The 'gamma_A' parameter of {func} must be a float in (0, inf). Got 0.0 instead.")
    t0 = time.perf_counter()
    n, C = X.shape[0], Y.shape[1]
    l = Y.shape[0]
    gA, gI = params["gamma_A"], params["gamma_I"]
    G, Xsol = lapsvm_dual_kernel(K, L, l, gA, gI)      # Xsol = (2γ_A I + 2γ_I L K)⁻¹ J_Lᵀ
    alpha = np.zeros((n, C))
    b = np.zeros(C)
    svc_iterations = np.zeros(C, dtype=int)
    stopped_early = []                                     # one-vs-all problems where libsvm hit max_iter
    for c in range(C):
        svc = SVC(C=1.0, kernel="precomputed", tol=tol, max_iter=-1 if max_iter is None else max_iter)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            svc.fit(G, Y[:, c])
        svc_iterations[c] = int(np.sum(svc.n_iter_))
        hit = max_iter is not None and svc_iterations[c] >= max_iter
        for w in caught:                                   # SVC's warnings reach the caller
            if issubclass(w.category, SklearnConvergenceWarning):
                hit = True                                 # reported below as the toolkit's ConvergenceWarning
            else:
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)
        if hit:
            stopped_early.append(c)
        coef = np.zeros(l)
        coef[svc.support_] = svc.dual_coef_[0]             # y_i β_i, signed for classes_ = [-1, +1]
        alpha[:, c] = Xsol @ coef
        b[c] = svc.intercept_[0]
    n_iter = int(svc_iterations.sum())
    f = K @ alpha + b
    hinge = np.maximum(1.0 - Y * f[:l], 0.0).sum(axis=0)
    Ka = K @ alpha
    LKa = L @ Ka
    obj = hinge + gA * np.einsum("ij,ij->j", alpha, Ka) + gI * np.einsum("ij,ij->j", Ka, LKa)
    t_solve = time.perf_counter() - t0
    if stopped_early:
        which = f" in {len(stopped_early)} of {C} one-vs-all problems" if C > 1 else ""
        status, detail = MAX_ITER, (f"libsvm (scikit-learn's SVC) stopped at max_iter={max_iter} iterations"
                                    f"{which} before reaching tol={tol:g}")
    else:
        status, detail = CONVERGED, f"SVC solved the dual (eq. 6) to tol={tol:g} in {n_iter} libsvm iterations"
    # α = 0, b = 0: every hinge term is 1, the objective is l per problem
    raw = core.InnerResult(alpha=alpha, b=b, objective=obj, n_iter=n_iter, n_line_search=0, status=status,
                           detail=detail, stop_event=None, max_iter=max_iter,
                           history={"objective": np.asarray([float(l * C), float(obj.sum())]),
                                    "svc_iterations": svc_iterations})
    params.update(stop=None, tol=tol)
    return _finish(raw, func=func, method="dual", loss="hinge", classes=classes, params=params, X=X,
                   timings=timings, t_solve=t_solve, warn_fix=f", or loosen tol (now {tol:g})", stacklevel=3)

