"""MMC: maximum margin clustering as a scikit-learn clusterer."""
from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.utils.validation import check_is_fitted

from toolkit._compat import validate_data
from toolkit.estimators._base import (DEPRECATED, current_params, function_names, is_deprecated, renamed_in_use,
                                     warn_deprecated)
from toolkit.rls import mmc
from toolkit.specs import SEARCH_KEYWORDS, Kernel, LocalSearch, from_flat

__all__ = ["MMC"]


class MMC(ClusterMixin, BaseEstimator):
    """Maximum margin clustering by the least-squares relaxation (Gieseke et al. 2011; :func:`toolkit.mmc`).

    Minimises ``Σ_i (y_i − f(x_i))² + λ ‖f‖²_H`` over ``f`` and the labels ``y_i ∈ {−1, +1}`` of
    every row, with the share of +1 labels within ``eps`` of ``balance`` (the S²RLSC objective
    without labelled rows, eq. 3), by the randomised search with restarts of :func:`toolkit.mmc`.
    Every row is unlabelled: ``fit(X)`` takes no ``y``.

    Parameters
    ----------
    kernel, sigma, kernel_degree, coef0, offset, lam, balance, eps, search, order, mu, nu, restarts, n_basis,
    polish, tol, max_iter, patience, progress
        As in :func:`toolkit.mmc` (``kernel`` to ``coef0`` form its :class:`~toolkit.specs.Kernel`,
        ``search`` to ``patience`` its :class:`~toolkit.specs.LocalSearch`).
    random_state : None, int or numpy Generator, default=None
        The seed of the search (``rng`` of :func:`toolkit.mmc`).
    rng, callback
        Deprecated: ``random_state``; ``fit(X, callback=...)``.

    Attributes
    ----------
    labels_ : ndarray of int of shape (n_samples,)
        Cluster of each training row: 1 where the search found +1, else 0.
    result_ : :class:`~toolkit.rls.MMCResult`
    n_iter_ : int
        ``result_.n_iter``.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from toolkit.estimators import MMC
    >>> X = np.r_[np.random.default_rng(0).normal(-3, 1, (20, 2)), np.random.default_rng(1).normal(3, 1, (20, 2))]
    >>> labels = MMC(kernel="linear", random_state=0).fit_predict(X)
    >>> bool(len(set(labels[:20])) == 1 and len(set(labels[20:])) == 1 and labels[0] != labels[-1])
    True
    """

    def __init__(self, *, kernel="linear", sigma=None, kernel_degree=2, coef0=1.0, offset=False, lam=1.0,
                 balance=0.5, eps=0.1, search="1+1", order="round-robin", mu=5, nu=25, restarts=10, n_basis=None,
                 polish=True, tol=1e-12, max_iter=None, patience=None, random_state=None, progress=False,
                 rng=DEPRECATED, callback=DEPRECATED):
        self.kernel = kernel
        self.sigma = sigma
        self.kernel_degree = kernel_degree
        self.coef0 = coef0
        self.offset = offset
        self.lam = lam
        self.balance = balance
        self.eps = eps
        self.search = search
        self.order = order
        self.mu = mu
        self.nu = nu
        self.restarts = restarts
        self.n_basis = n_basis
        self.polish = polish
        self.tol = tol
        self.max_iter = max_iter
        self.patience = patience
        self.callback = callback
        self.random_state = random_state
        self.progress = progress
        self.rng = rng

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def fit(self, X, y=None, *, callback=None):
        """Cluster the rows of ``X`` into two clusters; ``y`` is ignored.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : None
            Ignored (scikit-learn's API).
        callback : callable, default=None
            Called during the search as :func:`toolkit.mmc`'s ``callback``.

        Returns
        -------
        self
        """
        old = [] if is_deprecated(self.callback) else [("callback", "fit(X, callback=...)")]
        warn_deprecated(self, renamed_in_use(self) + old)
        if callback is not None and old:
            raise ValueError("MMC: callback is given to fit and as the parameter of the previous release; give it to "
                             "fit alone.")
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, ensure_min_samples=2)
        params = function_names(current_params(self))
        params["callback"] = params.get("callback", callback)
        kernel = Kernel.of(params.pop("kernel"), "MMC", sigma=params.get("sigma"))
        specs, rest = from_flat(params, {"kernel": kernel, "search": LocalSearch()}, SEARCH_KEYWORDS)
        self.result_ = mmc(X, **specs, **rest)
        self.labels_ = (np.asarray(self.result_.labels) > 0).astype(np.intp)
        self.n_iter_ = int(self.result_.n_iter)
        return self

    def decision_function(self, X):
        """``f(x)`` of the fitted expansion: > 0 for cluster 1."""
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        return np.asarray(self.result_.decision_function(X))

    def predict(self, X):
        """Cluster of new rows: 1 where ``f(x) >= 0``, else 0."""
        return (self.decision_function(X) >= 0).astype(np.intp)
