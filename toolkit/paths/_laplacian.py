"""The λ-path of the Laplacian hinge-loss model (Wang, Qin & Huang eq. 3, 10-18).

Model, over the expansion ``f(x) = Σ_{j=1}^{n} β_j K(x_j, x) + β₀`` on all ``n = l + u`` points::

    min_{β, β₀}  Σ_{i≤l} (1 - y_i f(x_i))_+ + (λ/2) (βᵀ K β + r βᵀ K L K β),     r = gamma_ratio.

Derivation of the effective kernel (the README's starting point, redone). With multipliers
``α ∈ [0, 1]^l`` for the margin constraints, stationarity in β reads
``λ K (I + r L K) β = K Jᵀ Y α``; one solution is ``β = (1/λ) (I + r L K)⁻¹ Jᵀ Y α`` (every
solution gives the same f on the data). Substituting, using ``(I + r K L)⁻¹ K = K (I + r L K)⁻¹``::

    max_α  Σ α_i - (1/2λ) αᵀ Y G Y α    s.t.  Σ y_i α_i = 0,  0 <= α_i <= 1,
    G = J K (I + r L K)⁻¹ Jᵀ        (l × l, symmetric PSD),
    f(x) = (1/λ) Σ_i α_i y_i G(x, x_i) + β₀,   G(x, ·) = k(x)ᵀ (I + r L K)⁻¹ Jᵀ.

This is Melacci & Belkin's LapSVM dual (eq. 5-6) with ``γ_A = λ/2`` and ``γ_I = λ r/2``, and it
is exactly the SVM of :func:`svm_path` on the kernel G with the same λ. Wang et al.'s ``Q = Y J
L⁻¹ Jᵀ Y`` (eq. 16, no ambient term) is the limit ``r → ∞`` after rescaling λ by ``r``: their
path (eq. 10-23) penalises ``(λ_Wang / 2) βᵀ K L K β``, ours ``(λ r / 2) βᵀ K L K β``, i.e.
``λ_Wang = λ r`` (eq. 3 writes the same term as ``(λ / 2) Σ w_ij (f_i - f_j)² = λ fᵀ L f``, half
eq. 10's λ; the path and its λ⁰, eq. 21, are eq. 10's). With ``r = 0`` (or an empty graph) G is
the labelled block of K and the path is the supervised one.
"""
from __future__ import annotations

import dataclasses
import numbers
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp

from toolkit.paths._svm import SvmPath, _labels_of, _svm_path
from toolkit._contract import SolverResult
from toolkit._validation import (check_features, check_matrix, check_option, check_scalar,
                                 encode_binary_labels)
from toolkit.specs import BASES, Graph, Kernel, LowRank, translate
from toolkit.training import lapsvm_dual_kernel, reduced_system, training_set

__all__ = ["LaplacianSvmPath", "laplacian_svm_path", "effective_kernel", "low_rank_effective_kernel"]


def effective_kernel(K, L, n_labeled, gamma_ratio):
    """The LapSVM effective kernel ``G = J K (I + r L K)⁻¹ Jᵀ`` and the map ``B = (I + r L K)⁻¹ Jᵀ``.

    Parameters
    ----------
    K : ndarray of shape (n_samples, n_samples)
        Kernel of all points, the ``n_labeled`` labelled ones first.
    L : sparse matrix or ndarray of shape (n_samples, n_samples)
        Graph Laplacian (any power) of the same points.
    n_labeled : int
    gamma_ratio : float
        ``r = γ_I / γ_A >= 0``.

    Returns
    -------
    G : ndarray of shape (n_labeled, n_labeled)
        Symmetric; the kernel of the l-dimensional SVM dual.
    B : ndarray of shape (n_samples, n_labeled)
        ``G(x, x_i) = k(x)ᵀ B[:, i]`` for any point x.

    Notes
    -----
    One LU factorisation of the n × n matrix ``I + r L K``, ``O(n³)``, then ``O(n² l)``: the
    LapSVM dual's kernel :func:`toolkit.training.lapsvm_dual_kernel` at ``γ_A = 1/2``, ``γ_I = r/2``.
    """
    return lapsvm_dual_kernel(K, L, n_labeled, 0.5, 0.5 * gamma_ratio)


def low_rank_effective_kernel(X, Z, L, n_labeled, gamma_ratio, *, kernel, sigma, kernel_degree, coef0):
    """:func:`effective_kernel` of the reduced expansion over the basis ``Z``, with no n × n matrix.

    ``G = Φ_L M⁻¹ Φ_Lᵀ`` and ``B = T M⁻¹ Φ_Lᵀ`` (r × l: the expansion over ``Z`` is ``B (y α) / λ``),
    ``Φ = K(X, Z) T`` the Nyström features (:func:`toolkit.training.nystrom_map`),
    ``M = I + r Φᵀ L Φ`` (formed by row blocks, :func:`toolkit.training.reduced_system`).
    """
    import scipy.linalg as sla

    if L is None:
        L = sp.csr_matrix((X.shape[0], X.shape[0]))
    Phi, gram, T = reduced_system(X, Z, L, 0.0, 1.0, kernel=kernel, sigma=sigma,
                                          kernel_degree=kernel_degree, coef0=coef0, dtype=np.float64)
    Phi_L = Phi[:n_labeled, 1:]                         # the bias column is not in the path's penalty
    M = np.eye(T.shape[1]) + gamma_ratio * gram[1:, 1:]
    solved = sla.cho_solve(sla.cho_factor(M, lower=True), Phi_L.T)        # M⁻¹ Φ_Lᵀ, M SPD
    G = Phi_L @ solved
    return 0.5 * (G + G.T), T @ solved


@dataclasses.dataclass(frozen=True, repr=False)
class LaplacianSvmPath(SolverResult):
    """λ-path of the Laplacian hinge-loss model returned by :func:`laplacian_svm_path` (frozen).

    Attributes
    ----------
    svm : SvmPath
        The path of the l-dimensional dual on the effective kernel (breakpoints, α, events, and
        ``svm.y``, the labels coded -1 / +1).
    classes : ndarray of shape (2,) (property)
        The two labels given, sorted; ``classes[1]`` is the positive class (``f(x) > 0``) and
        :meth:`predict` returns these labels.
    X_train : ndarray of shape (n_samples, n_features)
        Labelled points first, then unlabelled ones.
    B : ndarray of shape (n_samples, n_labeled)
        ``(I + r L K)⁻¹ Jᵀ``: the expansion is ``β = B (y α) / λ``.
    effective_kernel : ndarray of shape (n_labeled, n_labeled)
    gamma_ratio : float
    kernel, sigma, kernel_degree, coef0 : the kernel's parameters.
    graph : dict
        The graph's parameters (``neighbors``, ``weight``, ``graph_sigma``, ``normalized``,
        ``degree``, ``metric``) or ``{"laplacian_matrix": "given"}``.
    laplacian_matrix : sparse matrix, ndarray, LinearOperator or None
        The ``L^p`` used (``None`` when ``gamma_ratio = 0``).
    gamma_A, gamma_I : ndarray (properties)
        The breakpoints in :func:`toolkit.lapsvm_dual`'s weights, ``λ / 2`` and ``r λ / 2``.
    converged, status, message, n_iter, history, stop, fallbacks
        Those of ``svm`` (see :class:`SvmPath`; the one status table :data:`toolkit.SOLVER_STATUS`),
        read from it when the path is made.
    """

    svm: SvmPath
    X_train: np.ndarray
    B: np.ndarray
    effective_kernel: np.ndarray
    gamma_ratio: float
    kernel: str
    sigma: float | None
    kernel_degree: int
    coef0: float
    graph: dict
    laplacian_matrix: Any = None
    # the solver contract, from the SVM path on the effective kernel
    converged: bool = dataclasses.field(init=False)
    status: int = dataclasses.field(init=False)
    message: str = dataclasses.field(init=False)
    n_iter: int = dataclasses.field(init=False)
    history: dict = dataclasses.field(init=False)
    stop: object = dataclasses.field(init=False)
    fallbacks: tuple = dataclasses.field(init=False)

    _title: ClassVar[str] = ("Laplacian hinge-loss path (Wang, Qin & Huang eq. 10-23; effective kernel "
                             "J K (I + r L K)⁻¹ Jᵀ)")

    def __post_init__(self):
        for name in ("converged", "status", "message", "n_iter", "history", "stop", "fallbacks"):
            object.__setattr__(self, name, getattr(self.svm, name))

    @property
    def breakpoints(self):
        return self.svm.breakpoints

    @property
    def alphas(self):
        return self.svm.alphas

    @property
    def alpha0s(self):
        return self.svm.alpha0s

    @property
    def n_labeled(self):
        return self.B.shape[1]

    @property
    def classes(self):
        """The two labels given, sorted; ``classes[1]`` is the positive class."""
        return self.svm.classes

    @property
    def gamma_A(self):
        """The breakpoints as :func:`toolkit.lapsvm_dual`'s ambient weight, ``γ_A = λ / 2``."""
        return self.svm.breakpoints / 2.0

    @property
    def gamma_I(self):
        """The breakpoints as :func:`toolkit.lapsvm_dual`'s intrinsic weight, ``γ_I = r λ / 2``."""
        return self.gamma_ratio * self.svm.breakpoints / 2.0

    def coef(self, s):
        """``(α, α₀)`` at λ = ``s`` (see :meth:`SvmPath.coef`)."""
        return self.svm.coef(s)

    def expansion(self, s):
        """Expansion coefficients ``(β, β₀)`` over all training points at λ = ``s`` (eq. 12).

        Returns
        -------
        beta : ndarray of shape (n_samples,) or (n_lambdas, n_samples)
        beta0 : float or ndarray of shape (n_lambdas,)
        """
        alpha, alpha0 = self.svm.coef(s)
        y = self.svm.y
        lam = np.asarray(s, dtype=float)
        if np.ndim(s) == 0:
            return self.B @ (y * alpha) / lam, alpha0 / lam
        return (self.B @ (y[None, :] * alpha).T / lam[None, :]).T, alpha0 / lam

    def cross_kernel(self, X_new):
        """``G(X_new, X_labeled) = K(X_new, X_train) B`` of shape (n_new, n_labeled)."""
        from toolkit.kernels import kernel_matrix
        X_new = check_matrix(X_new, "X_new", "LaplacianSvmPath.decision_function")
        check_features("LaplacianSvmPath.decision_function", "X_new", X_new, "X_train", self.X_train)
        Kx = kernel_matrix(X_new, self.X_train, kernel=self.kernel, sigma=self.sigma,
                           kernel_degree=self.kernel_degree, coef0=self.coef0)
        return Kx @ self.B

    def decision_function(self, X_new, s):
        """``f(x)`` at raw points ``X_new`` (n_new, n_features) and λ = ``s``; shapes as :meth:`SvmPath.decision_function`.

        Signed: positive for ``classes[1]``.
        """
        return self.svm._decision(self.cross_kernel(X_new), s)

    def predict(self, X_new, s):
        """Class labels at λ = ``s``: ``classes[1]`` where ``f(x) >= 0``, else ``classes[0]`` (the labels given)."""
        return _labels_of(self.classes, self.decision_function(X_new, s))

    def plot(self, kind="coef", *, ax=None, max_lines=None):
        """Plot α or the labelled margins against log λ (see :meth:`SvmPath.plot`)."""
        return self.svm.plot(kind, K=self.effective_kernel, ax=ax, max_lines=max_lines)

    def _rows(self):
        """The semi-supervised parameters, then the SVM path's rows."""
        n, l = self.graph.get("n_samples", self.B.shape[0]), self.B.shape[1]
        return [
            ("labelled / unlabelled", f"{l} / {n - l}"),
            ("gamma_ratio r", f"{self.gamma_ratio:g}"),
            ("kernel", f"{self.kernel}" + (f" (sigma={self.sigma:g})" if self.sigma else "")),
            ("graph", f"{self.graph}"),
            *self.svm._rows(),
        ]

    def _brief(self):
        n, l = self.B.shape
        return (f"n_labeled={l}, n_unlabeled={n - l}, gamma_ratio={self.gamma_ratio:g}, "
                f"n_breakpoints={self.breakpoints.size}")


def graph_arguments(**given):
    """``name: (value, default)`` of the path functions' graph-building arguments, whose defaults are
    those of :func:`toolkit.graphs.laplacian` (refused next to a given ``laplacian_matrix`` when set)."""
    import inspect

    from toolkit.graphs import laplacian

    defaults = inspect.signature(laplacian).parameters
    names = {"neighbors": "n_neighbors", "degree": "power"}       # the body's names of laplacian's parameters
    return {k: (v, defaults[names.get(k, k)].default) for k, v in given.items()}


#: The graph of :func:`laplacian_svm_path` when ``graph=None``: :func:`toolkit.graphs.laplacian`'s plain one.
PATH_GRAPH = Graph(n_neighbors=6, weight="binary", power=1)
#: The flat keywords that the specs replace, understood for one release (:func:`toolkit.specs.translate`).
OLD_KEYWORDS = ("sigma", "kernel_degree", "coef0", "neighbors", "weight", "graph_sigma", "normalized", "degree", "metric",
                "laplacian_matrix", "neighbor_search", "n_basis", "basis")


def laplacian_svm_path(X_labeled, y_labeled, X_unlabeled, *, kernel="rbf", graph=None, gamma_ratio=1.0,
                       lambda_min=None, max_iter=None, ridge=0.0, callback=None, low_rank=None, rng=None,
                       **deprecated):
    r"""Entire λ-path of the semi-supervised hinge-loss model (Wang, Qin & Huang; LapSVM dual).

    .. math::

        \min_{\beta, \beta_0} \sum_{i=1}^{l} (1 - y_i f(x_i))_+
        + \frac{\lambda}{2}\left(\beta^T K \beta + r\, \beta^T K L K \beta\right),
        \qquad f(x) = \sum_{j=1}^{n} \beta_j K(x_j, x) + \beta_0 .

    Its dual is the l-dimensional SVM on the effective kernel ``G = J K (I + r L K)⁻¹ Jᵀ`` (see
    the module docstring for the derivation), so the path is :func:`svm_path` on G.

    Parameters
    ----------
    X_labeled : array-like of shape (n_labeled, n_features)
        Labelled points; with ``kernel="precomputed"`` their rows ``(n_labeled, n)`` of the training
        kernel matrix (columns: labelled points first), as in :func:`toolkit.lapsvm`.
    y_labeled : array-like of shape (n_labeled,)
        Labels: any two values, both present, coded as in :func:`svm_path` (``classes[1]`` is +1).
    X_unlabeled : array-like of shape (n_unlabeled, n_features)
        May have zero rows (the supervised SVM path); kernel rows ``(n_unlabeled, n)`` with
        ``kernel="precomputed"``.
    kernel : Kernel, str or callable, default="rbf"
        A :class:`~toolkit.specs.Kernel` or its name (the RBF width read off the training points,
        ``sigma="scale"``, recorded as ``path.sigma``).
    graph : Graph, sparse matrix or ndarray, default=None
        A :class:`~toolkit.specs.Graph` built on the stacked points (with ``kernel="precomputed"``
        read off the kernel), or a precomputed ``L^p`` of shape ``(n, n)`` (labelled first) used as
        given. ``None``: :data:`PATH_GRAPH` (6 neighbours, binary weights, ``p = 1``).
    gamma_ratio : float, default=1.0
        ``r = γ_I / γ_A >= 0``, the weight of the intrinsic (graph) term relative to the ambient
        one, fixed along the path; 0 gives the supervised SVM path on the labelled points. The
        model at λ is :func:`toolkit.lapsvm_dual`'s with ``gamma_A = λ / 2`` and
        ``gamma_I = r λ / 2`` (the path's :attr:`~LaplacianSvmPath.gamma_A` and
        :attr:`~LaplacianSvmPath.gamma_I`).
    lambda_min, max_iter, ridge :
        As in :func:`svm_path`.
    callback : callable, default=None
        ``callback(intermediate_result)`` at λ⁰ and after every event, as in :func:`svm_path`,
        except that ``decision_function(X_new)`` takes raw points (n_new, n_features), and
        ``beta`` / ``beta0`` give the expansion over all n training points at that λ.
        ``StopIteration`` ends the path (status 3); an
        :class:`~toolkit.early_stopping.EarlyStopping` rule ends it with status 1.
    low_rank : LowRank or int, default=None
        The low-rank model (:class:`~toolkit.specs.LowRank`): the expansion over ``n_basis`` basis
        points ``Z`` (every labelled point first, then unlabelled ones), ``f(x) = φ(x)ᵀθ + β₀``
        with the Nyström features ``φ(x) = Tᵀ k(Z, x)`` (``T = U Λ^{-1/2}`` of ``K_ZZ``; the
        ambient norm is ``‖θ‖²``). Its dual is the same l-dimensional SVM on
        ``G = Φ_L (I + r Φᵀ L Φ)⁻¹ Φ_Lᵀ``: O(n r d + nnz(L) r + n r²) and no n × n matrix. With
        every point a basis point it is the exact path (``K (I + r L K)⁻¹ = Φ (I + r Φᵀ L Φ)⁻¹ Φᵀ``
        for ``K = Φ Φᵀ``). Needs points (not ``kernel="precomputed"``).
    rng : None, int or Generator, default=None
        Draw the basis points (``None``: evenly spaced rows) and seed an approximate neighbour
        search.
    **deprecated
        The flat keywords of the previous release (``sigma``, ``neighbors``, ``degree``,
        ``laplacian_matrix``, ``n_basis``, ...), translated with a ``FutureWarning``.

    Returns
    -------
    path : LaplacianSvmPath
        ``decision_function(X_new, s)`` takes raw points (signed: positive for ``classes[1]``);
        ``predict(X_new, s)`` returns the labels given, ``classes`` the two of them. With
        ``low_rank``, ``X_train`` holds the basis points and ``B`` maps to the expansion over them.

    Notes
    -----
    Cost (exact model): one ``O(n³)`` factorisation of ``I + r L K`` (n = l + u) and ``O(n² l)`` to form G;
    then the path costs what :func:`svm_path` costs on an l × l kernel, quadratic in l per
    event, independent of u.

    References
    ----------
    Wang, Qin & Huang, "Efficient computation and model selection in semi-supervised learning",
    §2-3. M. Belkin, P. Niyogi, V. Sindhwani. Manifold Regularization. JMLR 7, 2006.

    Examples
    --------
    >>> import numpy as np
    >>> from toolkit import laplacian_svm_path
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 2)); y = np.where(X[:, 0] > 0, 1.0, -1.0)
    >>> from toolkit.specs import Graph, Kernel
    >>> path = laplacian_svm_path(X[:6], y[:6], X[6:], kernel=Kernel("rbf", sigma=1.0),
    ...                           graph=Graph(n_neighbors=5, weight="binary", power=1), gamma_ratio=1.0)
    >>> f = path.decision_function(X[:3], path.breakpoints[-1])
    """
    func = "laplacian_svm_path"
    translate(func, deprecated, OLD_KEYWORDS, {"kernel": kernel if isinstance(kernel, Kernel) else None,
                                               "kernel_name": kernel, "graph": graph, "low_rank": low_rank},
              defaults={"graph": PATH_GRAPH}, stacklevel=3)
    if graph is None or isinstance(graph, Graph):
        graph_flat = {**(PATH_GRAPH if graph is None else graph).flat(), "laplacian_matrix": None}
    else:
        graph_flat = {**PATH_GRAPH.flat(), "laplacian_matrix": graph}
    return _path(X_labeled, y_labeled, X_unlabeled, gamma_ratio=gamma_ratio, lambda_min=lambda_min, max_iter=max_iter,
                 ridge=ridge, callback=callback, rng=rng, **{**Kernel.of(kernel, func).flat(), **graph_flat,
                                                              **LowRank.flat_of(LowRank.of(low_rank, func)),
                                                              **deprecated})


def _path(X_labeled, y_labeled, X_unlabeled, *, kernel, sigma, kernel_degree, coef0, neighbors, weight, graph_sigma,
          normalized, degree, metric, laplacian_matrix, gamma_ratio, lambda_min, max_iter, ridge, callback, n_basis,
          basis, rng, neighbor_search):
    """Body of :func:`laplacian_svm_path` on the flat keywords."""
    from toolkit.kernels import KERNELS, kernel_matrix
    func = "laplacian_svm_path"
    if not callable(kernel):
        check_option(kernel, "kernel", func, KERNELS)
    X_labeled = check_matrix(X_labeled, "X_labeled", func, accept_sparse=False)
    X_unlabeled = check_matrix(X_unlabeled, "X_unlabeled", func, accept_sparse=False, allow_empty=True)
    if X_unlabeled.ndim == 2 and X_unlabeled.shape[0] > 0:
        check_features(func, "X_labeled", X_labeled, "X_unlabeled", X_unlabeled)
    else:
        X_unlabeled = np.zeros((0, X_labeled.shape[1]))
    classes, y = encode_binary_labels(y_labeled, "y_labeled", func, n_rows=X_labeled.shape[0],
                                      rows_name="X_labeled")           # any two labels, classes[1] ↦ +1
    gamma_ratio = check_scalar(gamma_ratio, "gamma_ratio", func, low=0.0)
    lambda_min = check_scalar(lambda_min, "lambda_min", func, low=0.0, low_closed=False, allow_none=True)
    ridge = check_scalar(ridge, "ridge", func, low=0.0)
    l = y.shape[0]
    max_iter = 50 * l + 100 if max_iter is None else check_scalar(max_iter, "max_iter", func,
                                                                  kind=numbers.Integral, low=1)
    n_basis = check_scalar(n_basis, "n_basis", func, kind=numbers.Integral, low=1, allow_none=True)
    low_rank = None
    if n_basis is not None:
        check_option(basis, "basis", func, BASES)
        low_rank = LowRank(n_basis, basis)
    graph_spec, graph_args = None, None
    if laplacian_matrix is not None:     # the graph is given: what would build one must not be set
        graph_spec, graph_args = laplacian_matrix, graph_arguments(
            neighbors=neighbors, weight=weight, graph_sigma=graph_sigma, normalized=normalized, metric=metric,
            neighbor_search=neighbor_search)
        graph = {"laplacian_matrix": "given", "degree": degree}
    elif gamma_ratio == 0.0:
        graph = {"laplacian_matrix": "unused (gamma_ratio=0)"}
    else:
        graph = {"neighbors": neighbors, "weight": weight, "graph_sigma": graph_sigma, "normalized": normalized,
                 "degree": degree, "metric": metric}
        check_scalar(degree, "degree", func, kind=numbers.Integral, low=1)
        graph_spec = Graph(n_neighbors=neighbors, weight=weight, sigma=graph_sigma, metric=metric,
                           normalized=normalized, power=degree, neighbor_search=neighbor_search)
    train = training_set(func, X_labeled, X_unlabeled, kernel=kernel, sigma=sigma, kernel_degree=kernel_degree,
                         coef0=coef0, graph=graph_spec, laplacian_power=degree, graph_args=graph_args,
                         low_rank=low_rank, rng=rng)
    X, L, sigma, n = train.X, train.L, train.sigma, train.n_samples
    if callback is not None and not callable(callback):
        raise TypeError(f"The 'callback' parameter of {func} must be callable or None. Got {callback!r} instead.")
    if n_basis is None:
        G, B = effective_kernel(train.K, L, l, gamma_ratio)
    else:                     # the reduced expansion: X_train becomes the basis, B maps onto it
        X = train.Z
        G, B = low_rank_effective_kernel(train.X, X, L, l, gamma_ratio, kernel=kernel, sigma=sigma,
                                         kernel_degree=kernel_degree, coef0=coef0)
        graph = {**graph, "n_basis": int(X.shape[0]), "basis": basis, "n_samples": n}

    def extend(alpha, alpha0, lam):
        """Fields of the callback's intermediate result on the original points (β = B (y α) / λ)."""
        beta = B @ (y * alpha) / lam

        def decision_function(X_new):
            X_new = check_matrix(X_new, "X_new", func)
            Kx = kernel_matrix(X_new, X, kernel=kernel, sigma=sigma, kernel_degree=kernel_degree, coef0=coef0)
            return Kx @ beta + alpha0 / lam

        return {"beta": beta, "beta0": alpha0 / lam, "decision_function": decision_function}

    svm = _svm_path(G, y, lambda_min, max_iter, ridge, 250, callback=callback, func=func, extend=extend)
    classes.setflags(write=False)
    svm = dataclasses.replace(svm, classes=classes)
    for arr in (X, B, G):
        arr.setflags(write=False)
    return LaplacianSvmPath(svm=svm, X_train=X, B=B, effective_kernel=G, gamma_ratio=gamma_ratio,
                            kernel=kernel, sigma=sigma, kernel_degree=kernel_degree, coef0=coef0, graph=graph,
                            laplacian_matrix=L)
