"""Cross-validation pieces shared by every selection in the toolkit: stratified folds, the 1-SE rule.

* :func:`stratified_folds` -- the one k-fold assignment of labelled points, stratified by class
  (used by :func:`toolkit.data.cv_splits`, :func:`toolkit.cv_svm_path`,
  :func:`toolkit.cv_laplacian_svm_path`);
* :func:`one_standard_error` -- glmnet's rule (Friedman, Hastie & Tibshirani 2010,
  ``cv.glmnet``): ``index_min`` minimises the estimated error, ``index_1se`` is the most
  regularised candidate whose error is within one standard error of that minimum (used by
  :func:`toolkit.select_lambda`, :func:`toolkit.rlsc_path` and the path selections).

Inner functions: the callers validate their arguments once at their public boundary.
"""
from __future__ import annotations

import numpy as np

__all__ = ["stratified_folds", "one_standard_error"]


def stratified_folds(y, n_folds, rng, *, shuffle=True):
    """Fold number of each point: every class shuffled, then all classes dealt round-robin.

    The classes (in sorted order) are shuffled one after the other and dealt into the folds as
    one continued round-robin, so that every point is in exactly one test fold, the folds'
    sizes differ by at most one, each class's counts per fold differ by at most one, and no fold
    is empty while ``n_folds <= y.size``.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Class labels (any sortable values).
    n_folds : int
        Number of folds, at least 2.
    rng : numpy.random.Generator, int or None
        The shuffle; a generator is advanced (one ``permutation`` per class), a seed gives the
        same folds every time.
    shuffle : bool, default=True
        ``False`` deals every class in row order (``rng`` unused).

    Returns
    -------
    fold : ndarray of shape (n_samples,), dtype int64
        ``fold[i]`` in ``0 .. n_folds - 1``; test fold ``k`` is ``np.flatnonzero(fold == k)``.

    Notes
    -----
    Cost ``O(n)`` plus one permutation per class. Melacci & Belkin (JMLR 12, 2011, §6.2) deal
    their four folds this way; the k-fold standard error ``std / sqrt(k)`` assumes folds of
    (nearly) equal size.

    Examples
    --------
    >>> import numpy as np
    >>> fold = stratified_folds(np.array([-1, -1, -1, 1, 1]), 2, 0)
    >>> np.bincount(fold).tolist()
    [3, 2]
    """
    generator = np.random.default_rng(rng)
    y = np.asarray(y)
    fold = np.empty(y.shape[0], dtype=np.int64)
    offset = 0
    for label in np.unique(y):
        members = np.flatnonzero(y == label)
        if shuffle:
            members = generator.permutation(members)
        fold[members] = (np.arange(members.size) + offset) % n_folds
        offset += members.size
    return fold


def one_standard_error(error, error_se, *, strength=None, tol=0.0):
    """glmnet's 1-SE rule: ``(index_min, index_1se)`` among candidate models.

    .. math::

        i_{\\min} = \\operatorname{argmin}_i e_i, \\qquad
        i_{1se} = \\operatorname{argmax} \\{ s_i : e_i \\le e_{i_{\\min}} + \\mathrm{se}_{i_{\\min}} + \\mathrm{tol} \\}

    Parameters
    ----------
    error : array-like of shape (n_candidates,)
        Estimated error of each candidate (mean CV error, validation or LOO error); NaN for a
        candidate without an estimate.
    error_se : array-like of shape (n_candidates,)
        Its standard error.
    strength : array-like of shape (n_candidates,), default=None
        How regularised each candidate is (larger: simpler model), e.g. λ. ``None``: the
        candidates are given from the most to the least regularised (a decreasing λ grid), so
        the first qualifying candidate is chosen.
    tol : float, default=0.0
        Round-off allowance added to the threshold (``select`` uses ``1e-12`` for means over folds).

    Returns
    -------
    index_min : int
        The first candidate (in the given order) attaining the smallest error, as
        scikit-learn's ``GridSearchCV``; on a decreasing grid, the largest such λ.
    index_1se : int
        Among candidates within one standard error of ``error[index_min]``: the largest
        ``strength``, ties to the smaller error, then to the first in order.

    References
    ----------
    Friedman, Hastie & Tibshirani (2010), "Regularization paths for generalized linear models
    via coordinate descent", J. Stat. Softw. 33(1), §2.4 (``cv.glmnet``'s ``lambda.1se``);
    Hastie, Tibshirani & Friedman, The Elements of Statistical Learning, 2nd ed., §7.10.

    Examples
    --------
    >>> one_standard_error([0.40, 0.22, 0.20, 0.18, 0.25], [0.05] * 5)
    (3, 1)
    """
    error = np.asarray(error, dtype=float)
    error_se = np.asarray(error_se, dtype=float)
    index_min = int(np.nanargmin(error))
    candidates = np.flatnonzero(error <= error[index_min] + error_se[index_min] + tol)
    if strength is None:
        return index_min, int(candidates[0])
    strength = np.asarray(strength, dtype=float)[candidates]
    best = np.lexsort((error[candidates], -strength))[0]      # largest strength, then smallest error
    return index_min, int(candidates[best])
