"""Semi- and unsupervised regularised least-squares classification by fast local search.

Gieseke, Kramer, Airola, Pahikkala: *Speedy local search for semi-supervised regularized
least-squares* (KI 2011) and *Efficient recurrent local search strategies for semi- and
unsupervised regularized least-squares classification* (Evolutionary Intelligence 2012).

* :func:`rlsc`   supervised RLSC, eq. (4), one eigendecomposition for any number of λ;
* :func:`s2rlsc` semi-supervised RLSC, eq. (7) / (10), by (1+1) local search (Algorithm 1) or the
  (μ+ν)-EA (Algorithm 2), exact (Theorem 1) or Nyström (Theorem 2);
* :func:`mmc`    the unsupervised case, maximum margin clustering, eq. (16) / (17).

The search evaluates a flip of coordinate ``j`` in O(1) as ``Δ_j = −4 y_j m_j + 4 M_jj`` with
``m = M y``, ``M = λ D (D K D + λ I)⁻¹ D``; see :mod:`toolkit.rls._search`.
"""
from __future__ import annotations

import numbers
import time

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp

from toolkit.rls._operator import (diagonal_weights, nystrom_features, operator_from_features,
                                      operator_from_kernel)
from toolkit._contract import (CONVERGED, MAX_ITER, ConvergenceWarning, IntermediateResult, ReadOnlyDict, is_converged, lazy,
                               run_callback, status_message, warn_not_converged)
from toolkit.rls._results import (KernelExpansion, MMCResult, RestartRecord, RLSCResult,
                                     S2RLSCResult)
from toolkit.rls._search import evolutionary_search, local_search
from toolkit.rls._spectral import coefficients, weighted_eigh
from toolkit._validation import (check_features, check_kernel_matrix,
                                 check_matrix, check_option, check_rng, check_scalar, encode_binary_labels)
from toolkit.kernels import KERNELS, kernel_matrix
from toolkit.specs import SEARCH_KEYWORDS, Kernel, LocalSearch, translate

__all__ = ["rlsc", "s2rlsc", "mmc", "RLSCResult", "S2RLSCResult", "MMCResult", "RestartRecord",
           "ConvergenceWarning"]

SEARCHES = ("1+1", "mu+nu")
ORDERS = ("round-robin", "random")
INITS = ("rlsc", "random")
DEFAULT_MAX_SWEEPS = 1000          # (1+1): every sweep but the last accepts a flip; F strictly decreases
DEFAULT_MAX_GENERATIONS_PER_U = 100  # (mu+nu): max_iter = 100 u generations unless given
_SEED_BOUND = 2**31 - 1


# ----------------------------------------------------------------------------------------------
# validation helpers (public boundary only)

def _check_kernel(kernel, sigma, kernel_degree, coef0, func):
    if not callable(kernel):
        check_option(kernel, "kernel", func, KERNELS)
    if kernel == "rbf":
        if sigma is None:
            raise ValueError(f"The 'sigma' parameter of {func} is required for kernel='rbf'. Got None instead.")
        sigma = check_scalar(sigma, "sigma", func, low=0.0, low_closed=False)
    kernel_degree = check_scalar(kernel_degree, "kernel_degree", func, kind=numbers.Integral, low=1)
    coef0 = check_scalar(coef0, "coef0", func, low=0.0)
    return sigma, kernel_degree, coef0


def _valid_counts(n_free, balance, eps):
    k = np.arange(n_free + 1)
    return k[np.abs(k / n_free - balance) < eps]


def _check_search(func, search, order, init, mu, nu, restarts, tol, max_iter, patience, polish, offset, callback):
    """Validate the search options and the solver contract shared by s2rlsc and mmc."""
    if not isinstance(offset, (bool, np.bool_)):
        raise TypeError(f"The 'offset' parameter of {func} must be a bool. Got {offset!r} instead.")
    if callback is not None and not callable(callback):
        raise TypeError(f"The 'callback' parameter of {func} must be callable or None. Got {callback!r} instead.")
    check_option(search, "search", func, SEARCHES)
    check_option(order, "order", func, ORDERS)
    if init is not None:
        check_option(init, "init", func, INITS)
    mu = check_scalar(mu, "mu", func, kind=numbers.Integral, low=1)
    nu = check_scalar(nu, "nu", func, kind=numbers.Integral, low=1)
    restarts = check_scalar(restarts, "restarts", func, kind=numbers.Integral, low=1)
    tol = check_scalar(tol, "tol", func, low=0.0)
    max_iter = check_scalar(max_iter, "max_iter", func, kind=numbers.Integral, low=1, allow_none=True)
    patience = check_scalar(patience, "patience", func, kind=numbers.Integral, low=1, allow_none=True)
    if not isinstance(polish, (bool, np.bool_)):
        raise TypeError(f"The 'polish' parameter of {func} must be a bool. Got {polish!r} instead.")
    return mu, nu, restarts, tol, max_iter, patience


def _check_basis(n_basis, n, func):
    """``None`` → exact; an int r → r random distinct points; an index array → those points."""
    if n_basis is None:
        return None
    if isinstance(n_basis, numbers.Integral) and not isinstance(n_basis, bool):
        return check_scalar(n_basis, "n_basis", func, kind=numbers.Integral, low=1, high=n)
    idx = np.asarray(n_basis)
    if idx.ndim != 1 or idx.size == 0 or idx.dtype.kind not in "iu":
        raise TypeError(f"The 'n_basis' parameter of {func} must be None, an int in [1, {n}] or a 1-d array "
                        f"of training indices. Got {n_basis!r} instead.")
    if idx.min() < 0 or idx.max() >= n or np.unique(idx).size != idx.size:
        raise ValueError(f"The 'n_basis' parameter of {func} must hold distinct indices in [0, {n}). "
                         f"Got indices from {idx.min()} to {idx.max()} ({idx.size} given, "
                         f"{np.unique(idx).size} distinct) instead.")
    return idx.astype(np.int64)


# ----------------------------------------------------------------------------------------------
# kernels, operator and predictor

class _Problem:
    """Training inputs of one call: the stacked points (labelled first) or a precomputed kernel."""

    def __init__(self, X, kernel, sigma, kernel_degree, coef0, offset, precomputed_K=None):
        self.X = X
        self.kernel = kernel
        self.sigma = sigma
        self.kernel_degree = kernel_degree
        self.coef0 = coef0
        self.offset = offset
        self.K = precomputed_K
        self.n = X.shape[0] if X is not None else precomputed_K.shape[0]

    def columns(self, idx, offset=True):
        """Kernel columns ``K[:, idx]`` (n × len(idx)), plus 1 with an offset unless ``offset=False``."""
        if self.K is not None:
            C = self.K[:, idx]
        else:
            C = kernel_matrix(self.X, self.X[idx], kernel=self.kernel, sigma=self.sigma,
                              kernel_degree=self.kernel_degree, coef0=self.coef0)
        return C + 1.0 if (self.offset and offset) else C

    def full(self):
        if self.K is not None:
            K = self.K.copy()
        else:
            K = kernel_matrix(self.X, kernel=self.kernel, sigma=self.sigma, kernel_degree=self.kernel_degree,
                              coef0=self.coef0)
        if self.offset:
            K += 1.0
        return K

    def linear_features(self):
        """Features with ``K = Φ Φᵀ`` for a dense linear kernel with fewer features than points."""
        if (self.K is None and self.kernel == "linear" and not sp.issparse(self.X)
                and self.X.shape[1] + int(self.offset) < self.n):
            if self.offset:
                return np.hstack([self.X, np.ones((self.n, 1))])
            return self.X
        return None

    def expansion(self, c, basis=None, T=None, Phi=None):
        bias = float(c.sum()) if self.offset else 0.0
        precomputed = self.K is not None
        if basis is None:
            weights, points, columns = c, (None if precomputed else self.X), None
        else:
            weights = T @ (Phi.T @ c)
            points = None if precomputed else self.X[basis]
            columns = basis if precomputed else None
        primal = None
        if not precomputed and self.kernel == "linear":
            primal = np.asarray(points.T @ weights).ravel()
        return KernelExpansion("precomputed" if precomputed else self.kernel, self.sigma, self.kernel_degree,
                               self.coef0, weights, bias, points, columns, self.n, primal)


def _build_operator(problem, d, lam, basis, rng, form, func):
    """Factor ``M``: exact (Theorem 1) or Nyström (Theorem 2), stored dense or low rank.

    ``form`` None: dense for the exact problem, low rank for Nyström.  Returns
    (operator, basis, T, Phi, description).
    """
    n = problem.n
    if basis is None:
        Phi = problem.linear_features()
        if form == "low-rank" and Phi is None:
            raise ValueError(f"The 'operator' parameter of {func} can be 'low-rank' for the exact problem only "
                             "with a dense linear kernel that has fewer features than points; use n_basis "
                             "(Nystrom) otherwise.")
        if Phi is not None:
            low = form == "low-rank"
            op = operator_from_features(Phi, d, lam, dense=not low)
            kind = f"low rank r={op.rank}" if low else "dense M"
            return op, None, None, None, f"exact, {kind} via the {Phi.shape[1]} linear features"
        return operator_from_kernel(problem.full(), d, lam), None, None, None, "exact, dense M via eigh(DKD)"
    if isinstance(basis, int):
        basis = np.sort(rng.choice(n, size=basis, replace=False))
    C = problem.columns(basis, offset=False)
    Phi, T = nystrom_features(C, C[basis])
    # the offset is a constant feature of its own (k + 1); the basis expansion does not carry it
    Phi_search = np.hstack([Phi, np.ones((n, 1))]) if problem.offset else Phi
    op = operator_from_features(Phi_search, d, lam, dense=form == "dense")
    kind = "dense M" if form == "dense" else f"low rank (rank {op.rank})"
    return op, basis, T, Phi, f"Nystrom r={len(basis)}, {kind}"


def _rlsc_init_scores(problem, y_l, lam):
    """Real-valued supervised RLSC predictions (eq. 4) on the unlabelled points."""
    l = y_l.shape[0]
    C = problem.columns(np.arange(l))                      # (n, l)
    a = la.solve(C[:l] + lam * l * np.eye(l), y_l, assume_a="pos", check_finite=False)
    return C[l:] @ a


# ----------------------------------------------------------------------------------------------
# initial labellings

def _nearest_valid(count, valid):
    return int(valid[np.argmin(np.abs(valid - count))])


def _init_from_scores(scores, balance, valid):
    """Paper's rule: sign of the supervised predictions; when that violates the balance constraint,
    the largest predictions become positive, as many as the valid count closest to ``b_c u``."""
    y = np.where(scores >= 0, 1.0, -1.0)
    if np.any(valid == int((y > 0).sum())):
        return y
    k = _nearest_valid(balance * scores.shape[0], valid)
    y = -np.ones_like(scores)
    y[np.argsort(-scores, kind="stable")[:k]] = 1.0
    return y


def _init_random(n_free, balance, valid, gen):
    """``y_i = +1`` with probability ``b_c`` (note 3 of the 2012 article); when that is not valid,
    randomly chosen labels of the surplus class are flipped to the nearest valid count."""
    y = np.where(gen.random(n_free) < balance, 1.0, -1.0)
    k = int((y > 0).sum())
    target = _nearest_valid(k, valid)
    if target != k:
        side = 1.0 if target < k else -1.0
        idx = gen.choice(np.flatnonzero(y == side), size=abs(target - k), replace=False)
        y[idx] = -side
    return y


# ----------------------------------------------------------------------------------------------
# the search driver shared by s2rlsc and mmc

def _check_search_start(func, n_free, what, classes, balance, eps, n_basis, n, operator, x0):
    """Validate what the search starts from; return (valid positive counts, basis, warm start as ±1 or None).

    ``classes`` are the two label codes of ``x0`` (negative first); ``what`` names the free points.
    """
    valid = _valid_counts(n_free, balance, eps)
    if valid.size == 0:
        raise ValueError(f"{func}: no labelling of the {n_free} {what} satisfies the balance constraint "
                         f"|p - {balance:.4g}| < {eps:.4g}; increase 'eps'.")
    basis = _check_basis(n_basis, n, func)
    if operator is not None:
        check_option(operator, "operator", func, ("dense", "low-rank"))
    if x0 is None:
        return valid, basis, None
    x0 = np.asarray(x0)
    if x0.shape != (n_free,) or not np.all(np.isin(x0, classes)):
        raise ValueError(f"The 'x0' parameter of {func} must be an array of shape ({n_free},) with values in "
                         f"{classes.tolist()}. Got {x0!r} instead.")
    y0 = np.where(x0 == classes[1], 1.0, -1.0)
    if not np.any(valid == int((y0 > 0).sum())):
        raise ValueError(f"The 'x0' parameter of {func} violates the balance constraint: "
                         f"{(y0 > 0).mean():.4g} positive, want |p - {balance:.4g}| < {eps:.4g}.")
    return valid, basis, y0


def _search(op, y_fixed, first_inits, n_free, balance, eps, valid, *, search, order, mu, nu, restarts,
            tol, max_iter, patience, polish, callback, gen, engine=local_search, progress=False,
            description="restarts", func="s2rlsc", expansion_of=None):
    """Run the restarts; return (best y, records, history, status, message, stop event).

    ``engine`` runs one (1+1) search; the compiled :func:`local_search` unless a test or benchmark
    passes the plain reference of :mod:`toolkit.rls._reference` (same signature). ``callback`` is
    called after every restart with an :class:`~toolkit._contract.IntermediateResult`
    (:func:`_restart_report`); ``expansion_of(y)`` gives the decision function of a labelling.
    """
    n = op.n
    first = n - n_free
    tol_abs = tol * float(op.d2.sum())            # F ≤ yᵀ D² y = Σ d²  (= 1 + λ', or 1 for MMC)
    lowrank = op.lowrank
    if search == "1+1":
        max_iter = DEFAULT_MAX_SWEEPS if max_iter is None else max_iter
        patience = None
    else:
        max_iter = DEFAULT_MAX_GENERATIONS_PER_U * n_free if max_iter is None else max_iter
        patience = n_free if patience is None else patience
    history_buf = np.empty(max_iter + 1)
    polish_buf = np.empty(DEFAULT_MAX_SWEEPS + 1)
    records, best_y, best_hist, best_F = [], None, None, np.inf
    status, detail, stop_event = CONVERGED, "", None
    n_unconverged = 0

    def full_labelling(y_free):
        y = np.empty(n)
        y[:first] = y_fixed
        y[first:] = y_free
        return y

    from toolkit._progress import trange

    for r in trange(restarts, desc=description, unit="restart", disable=not progress, leave=False):
        t0 = time.perf_counter()
        seed = int(gen.integers(_SEED_BOUND))
        if search == "1+1":
            kind, y_free = first_inits(r, gen)
            y = full_labelling(y_free)
            state = op.state(y)
            F0 = op.objective_from_state(y, state)
            F, sweeps, n_eval, n_flip, conv, _ = engine(
                y, state, op.M, op.V, op.d2, op.diag, lowrank, first, int((y[first:] > 0).sum()), balance,
                eps, tol_abs, order == "random", seed, max_iter, F0, history_buf)
            hist = history_buf[:sweeps + 1].copy()
            n_iter = sweeps
        else:
            kinds, Y = [], np.empty((mu, n))
            for i in range(mu):
                kind_i, y_free = first_inits(r if i == 0 else -1, gen)
                kinds.append(kind_i)
                Y[i] = full_labelling(y_free)
            kind = kinds[0] if mu == 1 else "+".join(sorted(set(kinds)))
            S = np.ascontiguousarray(np.stack([op.state(Y[i]) for i in range(mu)]))
            Fp = np.array([op.objective_from_state(Y[i], S[i]) for i in range(mu)])
            P = (Y[:, first:] > 0).sum(axis=1).astype(np.int64)
            gens, n_eval, n_flip, conv = evolutionary_search(
                Y, S, Fp, P, op.M, op.V, op.d2, op.diag, lowrank, first, balance, eps, tol_abs, nu, seed,
                max_iter, patience, history_buf)
            hist = history_buf[:gens + 1].copy()
            n_iter = gens
            b = int(np.argmin(Fp))
            y = Y[b].copy()
            F = float(Fp[b])
            if polish:
                state = S[b].copy()
                F, sweeps, e2, f2, conv2, _ = local_search(
                    y, state, op.M, op.V, op.d2, op.diag, lowrank, first, int((y[first:] > 0).sum()),
                    balance, eps, tol_abs, False, seed, DEFAULT_MAX_SWEEPS, F, polish_buf)
                hist = np.concatenate([hist, polish_buf[1:sweeps + 1]])
                n_iter += sweeps
                n_eval += e2
                n_flip += f2
                conv = conv and conv2
        # F is tracked through the accepted deltas (drift ~1e-15 per flip); the returned objective of
        # the best labelling is recomputed from scratch in _assemble
        F = float(F)
        rec = RestartRecord(r, kind, F, int(n_iter), int(n_eval), int(n_flip), bool(conv),
                            time.perf_counter() - t0)
        records.append(rec)
        n_unconverged += not conv
        if F < best_F:
            best_F, best_y, best_hist = F, y.copy(), hist
        if callback is not None:
            report = _restart_report(r + 1, rec, best_y, best_F, first, op, expansion_of)
            stop = run_callback(callback, report, f"restart {r + 1} of {restarts}")
            if stop is not None:
                status, detail, stop_event = stop.status, stop.detail, stop.event
                break
    unit = "sweeps" if search == "1+1" else "generations"
    if status == CONVERGED and n_unconverged:
        status = MAX_ITER
        detail = (f"max_iter={max_iter} {unit} reached in {n_unconverged} of {len(records)} restarts "
                  f"(best F = {best_F:.6g}); the best labelling may not be a local optimum")
    elif status == CONVERGED:
        if search == "1+1":
            detail = (f"every restart ended with a full round of the {n_free} free coordinates without an "
                      f"accepted flip; the best labelling (F = {best_F:.6g}) is a local optimum: no valid "
                      "single flip lowers F")
        else:
            detail = (f"every restart ended after {patience} generations without change"
                      + ("; polishing sweeps made the best labelling a local optimum" if polish else "")
                      + f" (F = {best_F:.6g})")
    message = status_message(status, detail)
    if status == MAX_ITER:
        warn_not_converged(func, message, f"Increase max_iter (now {max_iter} {unit} per restart).", stacklevel=4)
    history = {
        "objective": best_hist,
        "restart_objective": np.array([rec.objective for rec in records]),
        "best_objective": np.minimum.accumulate([rec.objective for rec in records]),
        "restart_n_iter": np.array([rec.n_iter for rec in records], dtype=int),
        "restart_converged": np.array([rec.converged for rec in records], dtype=bool),
    }
    return best_y, records, ReadOnlyDict(history), status, message, stop_event


def _restart_report(n_done, record, best_y, best_F, first, op, expansion_of):
    """The :class:`~toolkit._contract.IntermediateResult` after restart ``n_done`` (1-based).

    ``x`` and ``decisions``: the best labelling so far of the free points (±1, +1 the positive
    class); ``objective``: its F; ``record``: the :class:`RestartRecord` of this restart;
    ``restart_objective``: F at its end; ``coefficients`` and ``decision_function(X)`` of the best
    labelling (computed on first use, O(n²) resp. the kernel rows of X).
    """
    y_best = best_y.copy()
    labels = y_best[first:].copy()
    coefficients = lazy(lambda: op.coefficients(y_best))

    def decision_function(X):
        if expansion_of is None:
            raise AttributeError("This search has no decision function.")
        return expansion_of(y_best)(X, "decision_function")

    return IntermediateResult(n_done, labels, float(best_F), decisions=labels, record=record,
                              restart_objective=record.objective, coefficients=coefficients,
                              decision_function=decision_function)


def _assemble(cls, labels_field, labels, problem, op, y, records, history, status, message, stop, basis, T, Phi,
              t_start, t_pre, seed, params, classes):
    c = op.coefficients(y)
    objs = np.array([rec.objective for rec in records])
    t_end = time.perf_counter()
    return cls(**{labels_field: labels}, coefficients=c, objective=op.objective(y), restart_objectives=objs,
               best_restart=int(np.argmin(objs)), history=history,
               n_evaluations=sum(r.n_evaluations for r in records), n_flips=sum(r.n_flips for r in records),
               n_iter=sum(r.n_iter for r in records), converged=is_converged(status), status=status,
               message=message, stop=stop,
               time_preprocessing=t_pre, time_search=t_end - t_start - t_pre, time_total=t_end - t_start,
               seed=seed, params=params, classes=classes, restarts=tuple(records),
               expansion=problem.expansion(c, basis, T, Phi))


# ----------------------------------------------------------------------------------------------
# public functions

def rlsc(X_labeled, y_labeled, *, kernel="linear", sigma=None, kernel_degree=2, coef0=1.0, offset=False, lam=1.0):
    r"""Supervised regularised least-squares classification (RLSC).

    Solves eq. (4) of Gieseke et al. (2011),

    .. math:: \min_{c \in \mathbb{R}^l} \frac1l (y - K c)^T (y - K c) + \lambda c^T K c,

    whose solution is ``c = (K + λ l I)⁻¹ y``, through one eigendecomposition ``K = U diag(s) Uᵀ``:
    ``c = U diag(1/(s + λ l)) Uᵀ y``, so any other λ costs O(l²) (:meth:`RLSCResult.coef`).

    Parameters
    ----------
    X_labeled : array-like or sparse matrix of shape (n_labeled, n_features)
        Labelled inputs; with ``kernel="precomputed"`` the (n_labeled, n_labeled) kernel matrix.
    y_labeled : array-like of shape (n_labeled,)
        Labels of exactly two classes (any coding); the larger class value is coded +1.
    kernel : {"linear", "rbf", "polynomial", "precomputed"} or callable, default="linear"
        A callable is called as ``kernel(X, Z)``.
    sigma : float, default=None
        RBF width (required for ``kernel="rbf"``).
    kernel_degree : int, default=2
        Polynomial degree.
    coef0 : float, default=1.0
        Polynomial constant.
    offset : bool, default=False
        Add a regularised offset by appending a constant feature (``k + 1``), note 2 of the 2012 article.
    lam : float, default=1.0
        Regularisation λ > 0.

    Returns
    -------
    RLSCResult

    Notes
    -----
    Cost O(l³) for the eigendecomposition, O(l²) per λ afterwards.

    Examples
    --------
    >>> import numpy as np
    >>> from toolkit import rlsc
    >>> X = np.array([[-2.0], [-1.0], [1.0], [2.0]]); y = np.array([0, 0, 1, 1])
    >>> fit = rlsc(X, y, lam=0.1)
    >>> fit.predict(np.array([[-3.0], [3.0]])).tolist()
    [0, 1]
    """
    func = "rlsc"
    t0 = time.perf_counter()
    sigma, kernel_degree, coef0 = _check_kernel(kernel, sigma, kernel_degree, coef0, func)
    lam = check_scalar(lam, "lam", func, low=0.0, low_closed=False)
    if not isinstance(offset, (bool, np.bool_)):
        raise TypeError(f"The 'offset' parameter of {func} must be a bool. Got {offset!r} instead.")
    X_l = check_matrix(X_labeled, "X_labeled", func, accept_sparse=kernel != "precomputed")
    classes, y = encode_binary_labels(y_labeled, "y_labeled", func, n_rows=X_l.shape[0], rows_name="X_labeled")
    l = y.shape[0]
    if kernel == "precomputed":
        if X_l.shape != (l, l):
            raise ValueError(f"{func}: with kernel='precomputed', 'X_labeled' must be the ({l}, {l}) kernel "
                             f"matrix of the labelled points. Got shape {X_l.shape} instead.")
        X_l = check_kernel_matrix(X_l, "X_labeled", func)
        problem = _Problem(None, kernel, sigma, kernel_degree, coef0, bool(offset), precomputed_K=X_l)
    else:
        problem = _Problem(X_l, kernel, sigma, kernel_degree, coef0, bool(offset))
    K = problem.full()
    s, U, _ = weighted_eigh(0.5 * (K + K.T), np.ones(l))      # unit weights: the (1/l) loss is the shift λ l
    c = coefficients(s, U, y, lam * l)
    z = U.T @ y
    shrink = lam * l / (s + lam * l)
    objective = float((shrink**2 * z**2).sum() / l + lam * (s * z**2 / (s + lam * l) ** 2).sum())
    return RLSCResult(coefficients=c, lam=lam, objective=objective, classes=classes,
                      kernel=kernel if isinstance(kernel, str) else getattr(kernel, "__name__", "callable"),
                      offset=bool(offset), time=time.perf_counter() - t0, eigenvalues=s, eigenvectors=U,
                      y_transformed=y, expansion=problem.expansion(c))


#: The old flat keywords of :func:`s2rlsc` and :func:`mmc`, understood for one release.
OLD_KEYWORDS = {k: v for k, v in SEARCH_KEYWORDS.items() if k != "search"}


def _search_arguments(func, kernel, search, old):
    """The body's flat keywords of the kernel and the search, with the old keywords translated."""
    translate(func, old, OLD_KEYWORDS, {"kernel": kernel if isinstance(kernel, Kernel) else None,
                                        "kernel_name": kernel,
                                        "search": search if isinstance(search, LocalSearch) else None})
    return {**Kernel.of(kernel, func, sigma=None).flat(), **LocalSearch.of(search, func).flat(), **old}


def s2rlsc(X_labeled, y_labeled, X_unlabeled, *, kernel="linear", offset=False, lam=1.0, lam_u=1.0, balance=None,
           eps=0.1, search="1+1", init="rlsc", n_basis=None, operator=None, x0=None, callback=None, rng=None,
           progress=False, **deprecated):
    r"""Semi-supervised regularised least-squares classification (S²RLSC) by local search.

    Solves eq. (7) of Gieseke et al. (2011) / eq. (10) of Gieseke et al. (2012),

    .. math::
        \min_{c \in \mathbb{R}^n,\; y_u \in \{-1,+1\}^u}
            (D y - D K c)^T (D y - D K c) + \lambda c^T K c
        \quad\text{s.t.}\quad \Big|\frac1u \sum_{i>l} \max(0, y_i) - b_c\Big| < \varepsilon,

    with ``D = diag(sqrt(1/l), ..., sqrt(λ'/u), ...)`` and the labelled ``y_i`` fixed.  For a fixed
    labelling the minimum over ``c`` is ``F(y) = yᵀ M y``, ``M = λ D (D K D + λ I)⁻¹ D`` (eq. 8 / 11,
    13); the labelling is searched by single valid flips whose change of F,
    ``Δ_j = −4 y_j m_j + 4 M_jj`` with ``m = M y``, costs O(1) (O(r) with a Nyström basis).

    Parameters
    ----------
    X_labeled : array-like or sparse matrix of shape (n_labeled, n_features)
        Labelled inputs.  With ``kernel="precomputed"``: the rows (n_labeled, n) of the training
        kernel matrix, columns ordered labelled then unlabelled (n = n_labeled + n_unlabeled).
    y_labeled : array-like of shape (n_labeled,)
        Labels of exactly two classes (any coding; the larger value is the positive class).
    X_unlabeled : array-like or sparse matrix of shape (n_unlabeled, n_features)
        Unlabelled inputs (at least one); with ``kernel="precomputed"`` the rows (n_unlabeled, n).
    kernel : Kernel, str or callable, default="linear"
        A :class:`~toolkit.specs.Kernel` (for ``"rbf"`` give the width σ of eq. 19:
        ``Kernel("rbf", sigma=...)``) or a kernel's name.
    offset : bool, default=False
        Regularised offset through a constant feature (``k + 1``), note 2 of the 2012 article.
    lam : float, default=1.0
        λ > 0, weight of ``‖f‖²``.
    lam_u : float, default=1.0
        λ' > 0, weight of the unlabelled loss.
    balance : float, default=None
        ``b_c`` in (0, 1), the wanted fraction of positive unlabelled labels; ``None`` uses the
        fraction of positive labelled points.
    eps : float, default=0.1
        ε in (0, 1] of the balance constraint.
    search : LocalSearch or {"1+1", "mu+nu"}, default="1+1"
        Algorithm 1 (local search) or Algorithm 2 (the (μ+ν)-EA), with its options (order,
        population sizes, restarts, tolerance, limits): a :class:`~toolkit.specs.LocalSearch`, or
        its kind. The papers use 10 restarts while selecting, 50 for final models.
    init : {"rlsc", "random"}, default="rlsc"
        Start of the first restart: the supervised RLSC predictions (same λ) with the paper's balance
        repair, or random.  Every other restart (and every other EA individual) starts at random with
        ``P(y_i = +1) = b_c``, repaired to the nearest valid count.
    n_basis : int or array of int, default=None
        ``None``: exact (Theorem 1).  An int r: Nyström approximation with r basis points drawn at
        random from the training points; an array: those training indices (labelled first) (Theorem 2).
    operator : {None, "dense", "low-rank"}, default=None
        How ``M`` is stored.  None: dense ``M`` for the exact problem (O(1) per flip evaluation, O(n)
        per accepted flip, O(n²) memory), low rank ``M = diag(d²) − V Vᵀ`` for Nyström (O(r) for
        both, O(n r) memory).  "low-rank" is also exact for a dense linear kernel with d < n
        features (r = d), and usually faster when d is much smaller than n.
    x0 : array-like of shape (n_unlabeled,), default=None
        Warm start for the first restart, coded like ``y_labeled``; must satisfy the balance constraint.
    callback : callable, default=None
        ``callback(intermediate_result)`` after every restart (:mod:`toolkit._contract`), with an
        :class:`~toolkit.IntermediateResult`: ``n_iter`` (restarts done), ``x`` and ``decisions``
        (the best labelling so far of the free points, ±1), ``objective`` (its F), ``record`` (the
        :class:`RestartRecord` of this restart), ``restart_objective``, ``coefficients`` and
        ``decision_function(X)`` of the best labelling (computed on use). Raising
        ``StopIteration`` stops the restarts (status 3); a rule of :mod:`toolkit.early_stopping`
        wrapped in :class:`~toolkit.early_stopping.EarlyStopping` stops them with status 1,
        recorded in ``stop``.
    rng : None, int or numpy.random.Generator, default=None
        Seeds the Nyström basis, the random initial labellings and the search; the seed is
        stored in the result.
    progress : bool, default=False
        Show a progress bar over the restarts (tqdm; works in JupyterLab and in a terminal).
    **deprecated
        The flat keywords of the previous release (``sigma``, ``kernel_degree``, ``coef0``, and the
        search's ``order``, ``mu``, ``nu``, ``restarts``, ``polish``, ``tol``, ``max_iter``,
        ``patience``), translated with a ``FutureWarning`` (:func:`toolkit.specs.translate`).

    Returns
    -------
    S2RLSCResult
        ``labels_unlabeled`` (coded like ``y_labeled``), ``objective`` F, ``coefficients``,
        ``restart_objectives``, ``history``, counts, timings, ``predict`` / ``decision_function``;
        ``converged``, ``status``, ``message`` (:data:`toolkit.SOLVER_STATUS`: 0 every restart
        reached a local optimum, 1 an early-stopping rule, 2 ``max_iter``, 3 the callback),
        ``stop``, ``fallbacks``.

    Raises
    ------
    ValueError
        Labels not of two classes, λ or λ' <= 0, ``b_c`` outside (0, 1), no unlabelled points,
        NaN / inf, mismatched shapes, a balance constraint no labelling satisfies.

    Notes
    -----
    Cost: exact O(n³) preprocessing (one ``eigh`` of ``D K D``; O(n d²) for a linear kernel with
    d < n features) and O(n²) memory, then O(1) per flip evaluation and O(n) per accepted flip.
    Nyström: O(n r²) preprocessing, O(n r) memory, O(r) per evaluation and per accepted flip.
    The search runs compiled (numba).  The stopping rule is the papers' "no change for n
    consecutive iterations": for (1+1), a full round of the u free coordinates without an accepted
    flip, so every returned labelling is a local optimum w.r.t. valid single flips.

    References
    ----------
    Gieseke et al. (2011) eq. 5-11, Algorithm 1, Theorems 1-2; Gieseke et al. (2012) eq. 10-15,
    Algorithm 2, Appendix 1.

    Examples
    --------
    >>> import numpy as np
    >>> from toolkit import s2rlsc
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 5)); X[:100, 0] -= 3; X[100:, 0] += 3
    >>> y = np.r_[np.zeros(100, int), np.ones(100, int)]
    >>> lab = np.r_[0, 1, 100, 101]
    >>> unl = np.setdiff1d(np.arange(200), lab)
    >>> from toolkit.specs import LocalSearch
    >>> fit = s2rlsc(X[lab], y[lab], X[unl], lam=1.0, lam_u=1.0, search=LocalSearch(restarts=5), rng=0)
    >>> bool(np.mean(fit.labels_unlabeled == y[unl]) > 0.95)
    True
    """
    return _s2rlsc(local_search, X_labeled, y_labeled, X_unlabeled, offset=offset, lam=lam, lam_u=lam_u,
                   balance=balance, eps=eps, init=init, n_basis=n_basis, operator=operator, x0=x0, callback=callback,
                   rng=rng, progress=progress, **_search_arguments("s2rlsc", kernel, search, deprecated))


def _s2rlsc(engine, X_labeled, y_labeled, X_unlabeled, *, kernel="linear", sigma=None, kernel_degree=2, coef0=1.0,
           offset=False, lam=1.0, lam_u=1.0, balance=None, eps=0.1, search="1+1", order="round-robin",
           mu=5, nu=25, init="rlsc", restarts=10, n_basis=None, operator=None, polish=True, tol=1e-12,
           max_iter=None, patience=None, x0=None, callback=None, rng=None, progress=False):
    """Body of :func:`s2rlsc` with the (1+1) search engine as a parameter."""
    func = "s2rlsc"
    t_start = time.perf_counter()
    sigma, kernel_degree, coef0 = _check_kernel(kernel, sigma, kernel_degree, coef0, func)
    lam = check_scalar(lam, "lam", func, low=0.0, low_closed=False)
    lam_u = check_scalar(lam_u, "lam_u", func, low=0.0, low_closed=False)
    eps = check_scalar(eps, "eps", func, low=0.0, low_closed=False, high=1.0)
    balance = check_scalar(balance, "balance", func, low=0.0, high=1.0, low_closed=False, high_closed=False,
                           allow_none=True)
    mu, nu, restarts, tol, max_iter, patience = _check_search(func, search, order, init, mu, nu, restarts, tol,
                                                              max_iter, patience, polish, offset, callback)
    precomputed = kernel == "precomputed"
    X_l = check_matrix(X_labeled, "X_labeled", func, accept_sparse=not precomputed)
    X_u = check_matrix(X_unlabeled, "X_unlabeled", func, accept_sparse=not precomputed)
    classes, y_l = encode_binary_labels(y_labeled, "y_labeled", func, n_rows=X_l.shape[0], rows_name="X_labeled")
    l, u = X_l.shape[0], X_u.shape[0]
    n = l + u
    if precomputed:
        if X_l.shape[1] != n or X_u.shape[1] != n:
            raise ValueError(f"{func}: with kernel='precomputed', 'X_labeled' and 'X_unlabeled' must be rows of "
                             f"the ({n}, {n}) training kernel matrix (n = l + u = {l} + {u}). Got shapes "
                             f"{X_l.shape} and {X_u.shape} instead.")
        # the whole spectrum is checked here unless Nyström (n_basis) never forms the n × n operator
        K = check_kernel_matrix(np.vstack([X_l, X_u]), "X_labeled", func, psd=n_basis is None,
                                label=f"The precomputed training kernel matrix [X_labeled; X_unlabeled] of {func}")
        problem = _Problem(None, kernel, sigma, kernel_degree, coef0, bool(offset), precomputed_K=K)
    else:
        check_features(func, "X_labeled", X_l, "X_unlabeled", X_u)
        X = sp.vstack([X_l, X_u], format="csr") if (sp.issparse(X_l) or sp.issparse(X_u)) else np.vstack([X_l, X_u])
        problem = _Problem(X, kernel, sigma, kernel_degree, coef0, bool(offset))
    if balance is None:
        balance = float(np.mean(y_l > 0))
    valid, basis, y0 = _check_search_start(func, u, "unlabelled points", classes, balance, eps, n_basis, n,
                                           operator, x0)
    gen, seed = check_rng(rng)

    # preprocessing: the operator M (Theorem 1 or 2) and the supervised initial guess
    d = diagonal_weights(l, u, lam_u)
    op, basis, T, Phi, op_label = _build_operator(problem, d, lam, basis, gen, operator, func)
    scores = _rlsc_init_scores(problem, y_l, lam) if (init == "rlsc" and y0 is None) else None
    t_pre = time.perf_counter() - t_start

    def first_inits(r, g):
        if r == 0 and y0 is not None:
            return "x0", y0.copy()
        if r == 0 and init == "rlsc":
            return "rlsc", _init_from_scores(scores, balance, valid)
        return "random", _init_random(u, balance, valid, g)

    y, records, history, status, message, stop = _search(
        op, y_l, first_inits, u, balance, eps, valid, search=search, order=order, mu=mu, nu=nu,
        restarts=restarts, tol=tol, max_iter=max_iter, patience=patience, polish=polish, callback=callback, progress=bool(progress),
        gen=gen, engine=engine, func=func,
        expansion_of=lambda y_full: problem.expansion(op.coefficients(y_full), basis, T, Phi))
    params = dict(kernel=kernel if isinstance(kernel, str) else getattr(kernel, "__name__", "callable"),
                  sigma=sigma, lam=lam, lam_u=lam_u, balance=balance, eps=eps, search=search, order=order,
                  mu=mu, nu=nu, init=init, restarts=restarts, n_basis=None if basis is None else len(basis),
                  basis=basis, offset=bool(offset), tol=tol, max_iter=max_iter, patience=patience,
                  polish=polish, n_labeled=l, n_unlabeled=u, operator=op_label)
    labels = classes[(y[l:] > 0).astype(int)]
    return _assemble(S2RLSCResult, "labels_unlabeled", labels, problem, op, y, records, history, status, message,
                     stop, basis, T, Phi, t_start, t_pre, seed, params, classes)


def mmc(X, *, kernel="linear", offset=False, lam=1.0, balance=0.5, eps=0.1, search="1+1", n_basis=None, operator=None,
        x0=None, callback=None, rng=None, progress=False, **deprecated):
    r"""Maximum margin clustering with the RLSC loss by local search (unsupervised S²RLSC).

    Solves eq. (16) of Gieseke et al. (2012) with the square loss,

    .. math::
        \min_{c \in \mathbb{R}^u,\; y \in \{-1,+1\}^u} \frac1u (y - K c)^T (y - K c) + \lambda c^T K c
        \quad\text{s.t.}\quad \Big|\frac1u \sum_i \max(0, y_i) - b_c\Big| < \varepsilon,

    i.e. the semi-supervised task with no labelled points and ``D = sqrt(1/u) I``; then
    ``F(y) = 1 − yᵀ D V Λ Λ̃ Vᵀ D y`` (eq. 17).  Same search machinery as :func:`s2rlsc`; every
    restart starts at random (``P(y_i = +1) = b_c``).  ``F(y) = F(−y)``: the two clusters are
    interchangeable.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_samples, n_features)
        Points to cluster; with ``kernel="precomputed"`` the (n_samples, n_samples) kernel matrix.
    kernel, offset, lam, search, n_basis, operator, callback, rng, progress, **deprecated
        As in :func:`s2rlsc`.
    balance : float, default=0.5
        ``b_c`` in (0, 1).
    eps : float, default=0.1
        ε in (0, 1].
    x0 : array-like of shape (n_samples,), default=None
        Warm start (values -1 / +1) for the first restart.

    Returns
    -------
    MMCResult
        ``labels`` in {-1, +1}, ``objective`` (eq. 16), and the fields of :class:`S2RLSCResult`.

    Examples
    --------
    >>> import numpy as np
    >>> from toolkit import mmc
    >>> rng = np.random.default_rng(1)
    >>> X = rng.normal(size=(100, 3)); X[:50, 0] -= 4; X[50:, 0] += 4
    >>> from toolkit.specs import LocalSearch
    >>> fit = mmc(X, lam=0.1, search=LocalSearch(restarts=5), rng=0)
    >>> truth = np.r_[-np.ones(50), np.ones(50)]
    >>> bool(abs(np.mean(fit.labels == truth) - 0.5) > 0.45)
    True
    """
    return _mmc(local_search, X, offset=offset, lam=lam, balance=balance, eps=eps, n_basis=n_basis, operator=operator,
                x0=x0, callback=callback, rng=rng, progress=progress,
                **_search_arguments("mmc", kernel, search, deprecated))


def _mmc(engine, X, *, kernel="linear", sigma=None, kernel_degree=2, coef0=1.0, offset=False, lam=1.0, balance=0.5, eps=0.1,
        search="1+1", order="round-robin", mu=5, nu=25, restarts=10, n_basis=None, operator=None, polish=True,
        tol=1e-12, max_iter=None, patience=None, x0=None, callback=None, rng=None, progress=False):
    """Body of :func:`mmc` with the (1+1) search engine as a parameter."""
    func = "mmc"
    t_start = time.perf_counter()
    sigma, kernel_degree, coef0 = _check_kernel(kernel, sigma, kernel_degree, coef0, func)
    lam = check_scalar(lam, "lam", func, low=0.0, low_closed=False)
    eps = check_scalar(eps, "eps", func, low=0.0, low_closed=False, high=1.0)
    balance = check_scalar(balance, "balance", func, low=0.0, high=1.0, low_closed=False, high_closed=False)
    mu, nu, restarts, tol, max_iter, patience = _check_search(func, search, order, None, mu, nu, restarts, tol,
                                                              max_iter, patience, polish, offset, callback)
    precomputed = kernel == "precomputed"
    X = check_matrix(X, "X", func, accept_sparse=not precomputed)
    n = X.shape[0]
    if n < 2:
        raise ValueError(f"The 'X' parameter of {func} must have at least 2 rows. Got {n} instead.")
    if precomputed:
        if X.shape != (n, n):
            raise ValueError(f"{func}: with kernel='precomputed', 'X' must be a symmetric (n, n) kernel matrix. "
                             f"Got shape {X.shape} instead.")
        X = check_kernel_matrix(X, "X", func, psd=n_basis is None)
        problem = _Problem(None, kernel, sigma, kernel_degree, coef0, bool(offset), precomputed_K=X)
    else:
        problem = _Problem(X, kernel, sigma, kernel_degree, coef0, bool(offset))
    valid, basis, y0 = _check_search_start(func, n, "points", np.array([-1, 1]), balance, eps, n_basis, n,
                                           operator, x0)
    gen, seed = check_rng(rng)
    d = diagonal_weights(0, n, 1.0)
    op, basis, T, Phi, op_label = _build_operator(problem, d, lam, basis, gen, operator, func)
    t_pre = time.perf_counter() - t_start

    def first_inits(r, g):
        if r == 0 and y0 is not None:
            return "x0", y0.copy()
        return "random", _init_random(n, balance, valid, g)

    y, records, history, status, message, stop = _search(
        op, np.empty(0), first_inits, n, balance, eps, valid, search=search, order=order, mu=mu, nu=nu,
        restarts=restarts, tol=tol, max_iter=max_iter, patience=patience, polish=polish, callback=callback, progress=bool(progress),
        gen=gen, engine=engine, func=func,
        expansion_of=lambda y_full: problem.expansion(op.coefficients(y_full), basis, T, Phi))
    params = dict(kernel=kernel if isinstance(kernel, str) else getattr(kernel, "__name__", "callable"),
                  sigma=sigma, lam=lam, balance=balance, eps=eps, search=search, order=order, mu=mu, nu=nu,
                  restarts=restarts, n_basis=None if basis is None else len(basis), basis=basis,
                  offset=bool(offset), tol=tol, max_iter=max_iter, patience=patience, polish=polish,
                  n_samples=n, operator=op_label)
    classes = np.array([-1, 1])
    labels = classes[(y > 0).astype(int)]
    return _assemble(MMCResult, "labels", labels, problem, op, y, records, history, status, message,
                     stop, basis, T, Phi, t_start, t_pre, seed, params, classes)
