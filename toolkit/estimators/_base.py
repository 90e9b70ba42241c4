"""What every estimator shares: reading the marker of unlabelled rows, classes, one-vs-rest.

The estimators are thin shells over the functional API (``STYLE`` 1): ``fit`` validates ``X`` and
``y`` the scikit-learn way, splits the rows into labelled and unlabelled by the ``unlabeled``
marker, codes each binary problem +1 / -1 (``+1`` for ``classes_[1]``, scikit-learn's convention
for ``decision_function``) and calls the family's function once per binary problem. Every number
-- decision values, labels found for the unlabelled rows, iteration counts -- comes from the
function's result, kept whole as ``result_``.
"""
from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_consistent_length, check_is_fitted, column_or_1d, validate_data

from toolkit._validation import check_labeled_classes, unlabeled_mask

__all__ = ["SemiSupervisedClassifier"]


class SemiSupervisedClassifier(ClassifierMixin, BaseEstimator):
    """Base class: ``fit(X, y)`` with unlabelled rows marked by ``unlabeled``; one-vs-rest.

    Subclasses set ``_function`` (the functional solver, called as
    ``_function(X_labeled, y_labeled, X_unlabeled, **params)`` with ``y_labeled`` in {-1, +1},
    +1 for the positive class of the binary problem: ``classes_[1]``, or each class in turn),
    ``_needs_unlabeled`` (the method is undefined without unlabelled rows) and ``_sparse``
    (the function accepts scipy.sparse ``X``).
    """

    _function = None
    _needs_unlabeled = True
    _sparse = True
    _supervised = False           # fitted on the labelled rows only (the baseline RLSC)

    # ---- the pieces a subclass may override -------------------------------------------------
    def _solver_params(self) -> dict:
        """Keyword arguments of the functional solver: every parameter but the marker."""
        return {name: value for name, value in self.get_params(deep=False).items() if name != "unlabeled"}

    def _solve(self, X_labeled, y_labeled, X_unlabeled, positive):
        """One binary fit, ``y_labeled`` in {-1, +1} with +1 for the class ``positive``."""
        function = type(self)._function
        if self._supervised:
            return function(X_labeled, y_labeled, **self._solver_params())
        return function(X_labeled, y_labeled, X_unlabeled, **self._solver_params())

    def _decision(self, result, X):
        return np.asarray(result.decision_function(X))

    def _found(self, result, X_unlabeled):
        """Labels in {-1, +1} the binary fit found for the unlabelled rows (the method's own, where it has them)."""
        found = getattr(result, "labels_unlabeled", None)
        if found is not None:
            return np.asarray(found)
        return np.where(self._decision(result, X_unlabeled) >= 0, 1, -1)

    def _input_dtype(self):
        return np.float64

    # ---- scikit-learn's interface --------------------------------------------------------------
    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self._sparse
        tags.classifier_tags.multi_class = True
        return tags

    def fit(self, X, y):
        """Fit on labelled and unlabelled rows; rows with ``y == unlabeled`` are the unlabelled ones.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Every training row, labelled or not.
        y : array-like of shape (n_samples,)
            Class labels (numbers or strings), with the marker ``unlabeled`` (default ``-1``) on
            the unlabelled rows. Two or more classes; more than two are fitted one-vs-rest.

        Returns
        -------
        self
        """
        name = type(self).__name__
        if y is None:
            raise ValueError(f"{name} requires y to be passed, but the target y is None (mark the unlabelled "
                             f"rows with unlabeled={self.unlabeled!r}).")
        X = validate_data(self, X, accept_sparse="csr" if self._sparse else False, dtype=self._input_dtype())
        # y apart from X: the marker may be NaN, which scikit-learn's joint check would refuse
        y = column_or_1d(y, warn=True)
        check_consistent_length(X, y)
        is_unlabeled = unlabeled_mask(y, self.unlabeled)
        y_labeled = y[~is_unlabeled]
        check_classification_targets(y_labeled)
        classes = np.unique(y_labeled)
        check_labeled_classes(classes, int(is_unlabeled.sum()), self.unlabeled, f"{name}.fit")
        X_labeled, X_unlabeled = X[~is_unlabeled], X[is_unlabeled]
        if self._needs_unlabeled and X_unlabeled.shape[0] == 0:
            raise ValueError(
                f"{name}.fit needs unlabelled rows: {name} is undefined without them. Got no row of 'y' equal to "
                f"unlabeled={self.unlabeled!r} among {y.shape[0]} rows instead. Mark the unlabelled rows with that "
                f"value, or use RLSC for labelled rows alone.")
        problems = [classes[1]] if classes.shape[0] == 2 else list(classes)
        results = [self._solve(X_labeled, np.where(y_labeled == c, 1.0, -1.0), X_unlabeled, c) for c in problems]
        self.classes_ = classes
        self.result_ = results[0] if len(results) == 1 else tuple(results)
        n_iter = [getattr(r, "n_iter", None) for r in results]
        if all(k is not None for k in n_iter):
            self.n_iter_ = int(n_iter[0]) if len(n_iter) == 1 else np.asarray(n_iter, dtype=int)
        transduction = np.array(y, dtype=object if y.dtype.kind in "US" else y.dtype, copy=True)
        if X_unlabeled.shape[0]:
            if len(results) == 1:
                found = classes[np.where(self._found(results[0], X_unlabeled) > 0, 1, 0)]
            else:
                found = classes[np.argmax(self._decision_all(results, X_unlabeled), axis=1)]
            transduction = transduction.astype(np.result_type(transduction.dtype, classes.dtype), copy=False)
            transduction[is_unlabeled] = found
        self.transduction_ = transduction
        return self

    def _decision_all(self, results, X):
        return np.column_stack([self._decision(r, X) for r in results])

    def decision_function(self, X):
        """Decision values ``f(x)``: shape (n_samples,) for two classes (> 0 means ``classes_[1]``), else
        (n_samples, n_classes), one column per one-vs-rest problem."""
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr" if self._sparse else False, dtype=self._input_dtype(),
                          reset=False)
        if isinstance(self.result_, tuple):
            return self._decision_all(self.result_, X)
        return self._decision(self.result_, X)

    def predict(self, X):
        """Class labels: ``classes_[1]`` where ``f(x) >= 0`` (two classes), else the largest column."""
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores >= 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]
