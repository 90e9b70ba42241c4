"""What every estimator shares: reading the marker of unlabelled rows, classes, one-vs-rest.

The estimators are thin shells over the functional API (``STYLE`` 1): ``fit`` validates ``X`` and
``y`` the scikit-learn way, splits the rows into labelled and unlabelled by the marker in effect
(:func:`toolkit._validation.resolve_unlabeled`, the one rule) and calls the family's function:
once with every class for the manifold estimators (whose functions train the one-vs-all problems
themselves), else once per binary problem coded +1 / -1 (``+1`` for ``classes_[1]``,
scikit-learn's convention for ``decision_function``). Every number -- decision values, labels
found for the unlabelled rows, iteration counts -- comes from the function's result, kept whole
as ``result_``.

A marked target is handled by construction, wherever the call comes from: ``fit`` reads the
marked rows as the unlabelled ones, ``score`` counts the labelled rows only (a marked row has no
true label; :func:`toolkit.estimators.labeled_accuracy` is the same computation as a scorer), so
scikit-learn's cross-validation scores each test fold on its labelled rows with any splitter. A
semi-supervised fit without unlabelled rows is refused with a message that names the marker
(:attr:`SemiSupervisedClassifier._needs_unlabeled`).
"""
from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_consistent_length, check_is_fitted, column_or_1d

from toolkit._compat import validate_data
from toolkit._validation import (SKLEARN_UNLABELED, _is_nan, check_labeled_classes, describe_marker, marker_mask,
                                 missing_labels, one_vs_rest_targets, resolve_unlabeled)
from toolkit.estimators._scoring import _accuracy_on_labeled_rows
from toolkit.specs import FLAT_KEYWORDS, Kernel, from_flat

__all__ = ["SemiSupervisedClassifier"]


def _marker_hint(y, marker):
    """A sentence naming the marker to pass when ``y`` holds missing labels or -1 that ``marker`` does not read."""
    missing = int(np.count_nonzero(missing_labels(y)))
    if missing and not (marker is None or _is_nan(marker)):
        return f" 'y' holds {missing} missing labels (NaN or None): pass unlabeled=None to read them as unlabelled."
    minus_one = int(np.count_nonzero(marker_mask(y, SKLEARN_UNLABELED)))
    if minus_one:
        return f" 'y' holds {minus_one} labels -1: pass unlabeled=-1 if they mark the unlabelled rows."
    return ""


#: The estimators' parameters of the previous release and their names now (scikit-learn's): the
#: graph's neighbours, the Laplacian's power ``p`` (scikit-learn's ``degree`` is a polynomial
#: kernel's) and the seed. The old names are understood for one release.
RENAMED = {"neighbors": "n_neighbors", "degree": "laplacian_power", "rng": "random_state"}
#: The functions' and the registry's names of the estimators' hyper-parameters where they differ: the
#: seed is the functions' ``rng`` (the graph's names are the same everywhere, :data:`toolkit.specs.FLAT_KEYWORDS`).
FUNCTION_NAMES = {"random_state": "rng"}
#: The default of a parameter of the previous release: not set.
DEPRECATED = "deprecated"


def is_deprecated(value):
    """Whether ``value`` is the default of a parameter of the previous release (not set)."""
    return isinstance(value, str) and value == DEPRECATED


def current_params(estimator):
    """``estimator``'s hyper-parameters under their current names: a renamed one set under its old name
    (:data:`RENAMED`) takes that value; the other parameters of the previous release are dropped
    when not set."""
    params = estimator.get_params(deep=False)
    for old, new in RENAMED.items():
        if old in params:
            value = params.pop(old)
            if not is_deprecated(value):
                params[new] = value
    return {k: v for k, v in params.items() if not is_deprecated(v)}


def function_names(params):
    """``params`` under the functions' and the registry's names (``random_state`` -> ``rng``)."""
    return {FUNCTION_NAMES.get(k, k): v for k, v in params.items()}


def warn_deprecated(estimator, moved, stacklevel=3):
    """One ``FutureWarning`` naming the parameters of the previous release that ``estimator`` was given.

    ``moved``: (old name, new spelling) of each, e.g. ``("neighbors", "n_neighbors=6")``.
    """
    if moved:
        names = [old for old, _ in moved]
        warnings.warn(f"{type(estimator).__name__}: the parameter{'s' if len(names) > 1 else ''} {', '.join(names)} "
                      f"{'are' if len(names) > 1 else 'is'} deprecated and will be removed in the next release; pass "
                      f"{'; '.join(dict.fromkeys(new for _, new in moved))} instead.", FutureWarning,
                      stacklevel=stacklevel + 1)


def renamed_in_use(estimator):
    """(old name, new spelling) of each renamed parameter (:data:`RENAMED`) set under its old name."""
    params = estimator.get_params(deep=False)
    return [(old, f"{new}={params[old]!r}") for old, new in RENAMED.items()
            if old in params and not is_deprecated(params[old])]


class SemiSupervisedClassifier(ClassifierMixin, BaseEstimator):
    """Base class: ``fit(X, y)`` with unlabelled rows marked by ``unlabeled``; one-vs-rest.

    Subclasses set ``_function`` (the functional solver, called as
    ``_function(X_labeled, y_labeled, X_unlabeled, **params)`` with ``y_labeled`` in {-1, +1},
    +1 for the positive class of the binary problem: ``classes_[1]``, or each class in turn;
    a subclass whose function trains every class at once overrides :meth:`_fit_classes`),
    ``_needs_unlabeled`` (the method is semi-supervised: undefined or meaningless without
    unlabelled rows; one rule, one message for all of them) and ``_sparse`` (the function accepts
    scipy.sparse ``X``). The marker of unlabelled rows is read by
    :func:`toolkit._validation.resolve_unlabeled`.
    """

    _function = None
    _needs_unlabeled = True
    _sparse = True
    _supervised = False           # fitted on the labelled rows only (the baseline RLSC)

    #: The function's spec parameters, built from the flat hyper-parameters by
    #: :func:`toolkit.specs.from_flat`: parameter -> default spec (``"kernel"``: built from the
    #: ``kernel`` name and ``sigma``). None: the function takes the flat keywords themselves.
    _specs = None
    #: How the flat hyper-parameters map to the specs' fields (:data:`toolkit.specs.FLAT_KEYWORDS`).
    _keywords = FLAT_KEYWORDS

    # ---- the pieces a subclass may override -------------------------------------------------
    def _flat(self) -> dict:
        """The function's flat keywords: every hyper-parameter but the marker, under the function's names."""
        return function_names({k: v for k, v in current_params(self).items() if k != "unlabeled"})

    def _solver_params(self) -> dict:
        """Keyword arguments of the functional solver: :meth:`_flat` gathered into the function's specs."""
        return self._as_specs(self._flat())

    def _deprecated_in_use(self):
        """(old name, new spelling) of each parameter of the previous release that was set."""
        return renamed_in_use(self)

    def _as_specs(self, params):
        """``params`` with the flat keywords of :attr:`_specs` gathered into their specs."""
        if self._specs is None:
            return params
        defaults = dict(self._specs)
        if "kernel" in defaults:
            defaults["kernel"] = Kernel.of(params.pop("kernel"), type(self).__name__, sigma=params.get("sigma"))
        specs, rest = from_flat(params, defaults, self._keywords)
        return {**rest, **specs}

    def _solve(self, X_labeled, y_labeled, X_unlabeled, positive):
        """One binary fit, ``y_labeled`` in {-1, +1} with +1 for the class ``positive``."""
        function = type(self)._function
        if self._supervised:
            return function(X_labeled, y_labeled, **self._solver_params())
        return function(X_labeled, y_labeled, X_unlabeled, **self._solver_params())

    def _fit_classes(self, X_labeled, codes, X_unlabeled, classes):
        """The function's result(s) for every class; ``codes`` index ``classes`` (one per labelled row).

        One-vs-rest: one binary fit for two classes, else one per class (a tuple of results).
        """
        targets = one_vs_rest_targets(codes, classes.shape[0])
        positives = [classes[1]] if classes.shape[0] == 2 else list(classes)
        results = [self._solve(X_labeled, targets[:, k], X_unlabeled, positive) for k, positive in enumerate(positives)]
        return results[0] if len(results) == 1 else tuple(results)

    def _iterations(self, result, n_classes):
        """``n_iter_``: an int for one binary fit, one count per class otherwise (None: not reported)."""
        results = result if isinstance(result, tuple) else (result,)
        n_iter = [getattr(r, "n_iter", None) for r in results]
        if any(k is None for k in n_iter):
            return None
        return int(n_iter[0]) if len(n_iter) == 1 else np.asarray(n_iter, dtype=int)

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
        """Fit on labelled and unlabelled rows; the rows carrying the marker are the unlabelled ones.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Every training row, labelled or not.
        y : array-like of shape (n_samples,)
            Class labels (numbers or strings), with the unlabelled rows marked as the parameter
            ``unlabeled`` says: by default (``None``) NaN or None, or -1 when ``y`` holds
            neither (:func:`toolkit._validation.resolve_unlabeled`). Two or more classes.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            When the labelled rows hold fewer than two classes; when a semi-supervised method
            finds no unlabelled row.
        """
        warn_deprecated(self, self._deprecated_in_use())
        return self._fit_rows(X, y)

    def _fit_rows(self, X, y):
        """The body of :meth:`fit` (after the deprecation warnings, which name the caller's line)."""
        name = type(self).__name__
        if y is None:
            raise ValueError(f"{name} requires y to be passed, but the target y is None (class labels, with the "
                             f"unlabelled rows marked as unlabeled={self.unlabeled!r} reads them).")
        X = validate_data(self, X, accept_sparse="csr" if self._sparse else False, dtype=self._input_dtype())
        # y apart from X: the marker may be NaN, which scikit-learn's joint check would refuse
        y = column_or_1d(y, warn=True)
        check_consistent_length(X, y)
        marker = resolve_unlabeled(y, self.unlabeled)
        is_unlabeled = marker_mask(y, marker)
        n_unlabeled = int(is_unlabeled.sum())
        hint = _marker_hint(y, marker) if self._needs_unlabeled and not n_unlabeled else ""
        if hint:                    # before scikit-learn's check, which would only say "y contains NaN"
            self._refuse_without_unlabeled(y, marker, hint)
        y_labeled = y[~is_unlabeled]
        check_classification_targets(y_labeled)
        classes, codes = np.unique(y_labeled, return_inverse=True)
        check_labeled_classes(classes, n_unlabeled, self.unlabeled, f"{name}.fit", marker=marker)
        if self._needs_unlabeled and not n_unlabeled:
            self._refuse_without_unlabeled(y, marker, "")
        X_labeled, X_unlabeled = X[~is_unlabeled], X[is_unlabeled]
        result = self._fit_classes(X_labeled, codes.reshape(-1), X_unlabeled, classes)
        self.classes_ = classes
        self.unlabeled_marker_ = marker
        self.result_ = result
        n_iter = self._iterations(result, classes.shape[0])
        if n_iter is not None:
            self.n_iter_ = n_iter
        transduction = np.array(y, dtype=object if y.dtype.kind in "US" else y.dtype, copy=True)
        if n_unlabeled:
            if classes.shape[0] == 2:
                binary = result[0] if isinstance(result, tuple) else result
                found = classes[np.where(self._found(binary, X_unlabeled) > 0, 1, 0)]
            else:
                found = classes[np.argmax(self._decisions(result, X_unlabeled), axis=1)]
            transduction = transduction.astype(np.result_type(transduction.dtype, classes.dtype), copy=False)
            transduction[is_unlabeled] = found
        self.transduction_ = transduction
        return self

    def _refuse_without_unlabeled(self, y, marker, hint):
        name = type(self).__name__
        raise ValueError(
            f"{name}.fit needs unlabelled rows: {name} is a semi-supervised method, undefined without them. Got no "
            f"row of 'y' marked unlabelled by {describe_marker(self.unlabeled, marker)} among {y.shape[0]} rows "
            f"instead. Mark the unlabelled rows, or use RLSC for labelled rows alone.{hint}")

    def _decisions(self, result, X):
        if isinstance(result, tuple):
            return np.column_stack([self._decision(r, X) for r in result])
        return self._decision(result, X)

    def decision_function(self, X):
        """Decision values ``f(x)``: shape (n_samples,) for two classes (> 0 means ``classes_[1]``), else
        (n_samples, n_classes), one column per one-vs-rest problem."""
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr" if self._sparse else False, dtype=self._input_dtype(),
                          reset=False)
        return self._decisions(self.result_, X)

    def predict(self, X):
        """Class labels: ``classes_[1]`` where ``f(x) >= 0`` (two classes), else the largest column."""
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores >= 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]

    def score(self, X, y, sample_weight=None):
        """Accuracy on the labelled rows of ``y``: the rows that carry the marker are left out.

        The fraction ``Σ_i w_i [predict(x_i) = y_i] / Σ_i w_i`` over the labelled rows ``i`` of
        ``y``: every row but those that carry the marker in effect at fit time
        (``unlabeled_marker_``; with the default ``unlabeled=None`` also any missing label, NaN or
        None) and are not one of ``classes_``. A
        marked row has no true label, so it is neither a hit nor an error: scikit-learn's default
        scoring in ``GridSearchCV`` or ``cross_validate`` scores each test fold on its labelled rows,
        whatever the splitter (:class:`~toolkit.selection.SemiSupervisedKFold` remains the one to
        prefer: it keeps every unlabelled row in training). The same computation for any estimator
        or Pipeline is :func:`toolkit.estimators.labeled_accuracy`.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows to score; only the labelled ones are predicted.
        y : array-like of shape (n_samples,)
            True class labels, with unlabelled rows marked as at fit time.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the rows; those of marked rows are left out with them.

        Returns
        -------
        float
            The accuracy on the labelled rows, in [0, 1].

        Raises
        ------
        ValueError
            When every row of ``y`` carries the marker (the message names the estimator, the
            marker and the number of rows).
        """
        check_is_fitted(self)
        return _accuracy_on_labeled_rows(self, X, y, sample_weight, final=self, caller=f"{type(self).__name__}.score")
