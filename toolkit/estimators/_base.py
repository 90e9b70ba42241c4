"""What every estimator shares: reading the marker of unlabelled rows, classes, one-vs-rest.

The estimators are thin shells over the functional API (``STYLE`` 1): ``fit`` validates ``X`` and
``y`` the scikit-learn way, splits the rows into labelled and unlabelled by the marker in effect
(:func:`toolkit._validation.resolve_unlabeled`, the one rule) and calls the family's function:
once with every class for the manifold estimators (whose functions train the one-vs-all problems
themselves), else once per binary problem coded +1 / -1 (``+1`` for ``classes_[1]``,
scikit-learn's convention for ``decision_function``). Every number -- decision values, labels
found for the unlabelled rows, iteration counts -- comes from the function's result, kept whole
as ``result_``.

The traps of a marked target are refused here, with messages that name the marker: fitting
without unlabelled rows (:attr:`SemiSupervisedClassifier._needs_unlabeled`), scoring on rows that
carry the marker (:meth:`SemiSupervisedClassifier.score`), and scikit-learn's cross-validation
with a splitter that puts marked rows in a test fold (:func:`_refuse_marked_test_rows`).
"""
from __future__ import annotations

import numbers
import sys

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_consistent_length, check_is_fitted, column_or_1d

from toolkit._compat import SKLEARN_TAGS, validate_data
from toolkit._validation import (SKLEARN_UNLABELED, _is_nan, check_labeled_classes, describe_marker, marker_mask,
                                 missing_labels, resolve_unlabeled)

__all__ = ["SemiSupervisedClassifier"]

# how far up the stack ``fit`` looks for scikit-learn's ``_fit_and_score``: GridSearchCV and
# cross_validate call ``estimator.fit`` from it directly, a Pipeline adds two frames
_CV_FRAMES = 8
_CV_FUNCTION = ("_fit_and_score", "sklearn.model_selection._validation")     # (name, module)
_SPLITTER_ADVICE = ("use toolkit.selection.SemiSupervisedKFold as 'cv', with the same 'unlabeled' as the estimator "
                    "(it keeps every unlabelled row out of the test folds)")


# scikit-learn's callers that choose the splitter with check_cv(cv, y, classifier=is_classifier(estimator)):
# is_classifier reads the estimator's tags (scikit-learn >= 1.6; its _estimator_type before) before
# check_cv reads y, so __sklearn_tags__ (or _estimator_type) can refuse a plain splitter first, with the
# marker named (StratifiedKFold would otherwise fail on NaN markers with scikit-learn's own "Input y
# contains NaN", or deal -1 rows into test folds as a class)
_SPLITTER_CALLERS = {("fit", "sklearn.model_selection._search")} | {
    (name, "sklearn.model_selection._validation")
    for name in ("cross_validate", "cross_val_predict", "permutation_test_score", "learning_curve",
                 "validation_curve")}
_TAGS_FRAMES = 12       # get_tags / is_classifier, and a Pipeline's tags of its last step, in between


def _caller_locals(callers, depth):
    """``(function name, locals)`` of the nearest of ``callers`` ((name, module) pairs) within ``depth``
    frames above the function that calls this one, else ``(None, None)``."""
    try:
        frame = sys._getframe(2)
    except (AttributeError, ValueError):
        return None, None
    for _ in range(depth):
        if frame is None:
            break
        if (frame.f_code.co_name, frame.f_globals.get("__name__")) in callers:
            return frame.f_code.co_name, frame.f_locals
        frame = frame.f_back
    return None, None


def _marked_rows(estimator, y, rows=None):
    """``(marker, number of marked rows of y[rows])`` with the estimator's marker resolved on the whole
    ``y``; ``(None, 0)`` for a ``y`` that is not a 1-d array of labels."""
    y = np.asarray(y)
    if y.ndim != 1:
        return None, 0
    marker = resolve_unlabeled(y, estimator.unlabeled)
    mask = marker_mask(y, marker)
    return marker, int(np.count_nonzero(mask if rows is None else mask[np.asarray(rows)]))


def _refuse_plain_splitter(estimator):
    """Raise when scikit-learn is about to cross-validate ``estimator`` with a splitter that ignores the marker.

    Called from ``__sklearn_tags__`` (from ``_estimator_type`` with scikit-learn < 1.6, whose
    ``is_classifier`` reads that attribute instead of the tags): when a caller in
    :data:`_SPLITTER_CALLERS` is a few frames up, its ``y`` and its ``cv`` (``self.cv`` of a search) are read; a splitter other than
    :class:`~toolkit.selection.SemiSupervisedKFold` (an int, None, a KFold, ...) on a ``y`` with
    rows carrying the estimator's marker is refused. Folds given as ``(train, test)`` pairs are
    left to :func:`_refuse_marked_test_rows`, which checks each test fold in ``fit``. Anything
    missing or unreadable: no check.
    """
    caller, found = _caller_locals(_SPLITTER_CALLERS, _TAGS_FRAMES)
    if found is None:
        return
    from toolkit.selection import SemiSupervisedKFold

    try:
        y = found.get("y")
        cv = getattr(found.get("self"), "cv", None) if caller == "fit" else found.get("cv")
        plain = cv is None or isinstance(cv, numbers.Integral) or hasattr(cv, "split")
        if y is None or isinstance(cv, SemiSupervisedKFold) or not plain:
            return          # folds given as (train, test) pairs: fit checks each test fold
        marker, marked = _marked_rows(estimator, y)
    except Exception:       # noqa: BLE001 - scikit-learn's internals changed: skip the check
        return
    if marked:
        raise ValueError(
            f"{type(estimator).__name__} is cross-validated by scikit-learn with cv={cv!r}, a splitter that does not "
            f"know the {marked} rows marked unlabelled by {describe_marker(estimator.unlabeled, marker)}: it would "
            f"put them in test folds and score them as a class; {_SPLITTER_ADVICE}.")


def _refuse_marked_test_rows(estimator, name):
    """Raise when scikit-learn's cross-validation fits ``estimator`` for a test fold holding marked rows.

    scikit-learn 1.9 turns an error raised while *scoring* into a NaN score and a warning
    (``_fit_and_score``'s ``error_score=np.nan``), but a fit that fails in every fold makes
    ``GridSearchCV`` / ``cross_validate`` raise with the fit's message. So ``fit`` looks a few
    frames up for ``sklearn.model_selection._validation._fit_and_score``, reads its ``y`` (the
    whole target) and ``test`` (the fold's test rows), resolves the estimator's marker on that
    whole ``y`` and refuses a test fold with marked rows. Anything missing or unreadable: no check.
    """
    _, found = _caller_locals({_CV_FUNCTION}, _CV_FRAMES)
    if found is None:
        return
    try:
        y, test = found.get("y"), found.get("test")
        if y is None or test is None:
            return
        marker, marked = _marked_rows(estimator, y, test)
        n_test = len(test)
    except Exception:       # noqa: BLE001 - scikit-learn's internals changed: skip the check
        return
    if marked:
        raise ValueError(
            f"{name}.fit was called by scikit-learn's cross-validation with a test fold holding {marked} of its "
            f"{n_test} rows marked unlabelled by {describe_marker(estimator.unlabeled, marker)}: they would be "
            f"scored as labels. The splitter (e.g. cv=5, a plain KFold, or SemiSupervisedKFold with "
            f"another marker) read them as labelled; {_SPLITTER_ADVICE}.")


def _marker_hint(y, marker):
    """A sentence naming the marker to pass when ``y`` holds missing labels or -1 that ``marker`` does not read."""
    missing = int(np.count_nonzero(missing_labels(y)))
    if missing and not (marker is None or _is_nan(marker)):
        return f" 'y' holds {missing} missing labels (NaN or None): pass unlabeled=None to read them as unlabelled."
    minus_one = int(np.count_nonzero(marker_mask(y, SKLEARN_UNLABELED)))
    if minus_one:
        return f" 'y' holds {minus_one} labels -1: pass unlabeled=-1 if they mark the unlabelled rows."
    return ""


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

    def _fit_classes(self, X_labeled, codes, X_unlabeled, classes):
        """The function's result(s) for every class; ``codes`` index ``classes`` (one per labelled row).

        One-vs-rest: one binary fit for two classes, else one per class (a tuple of results).
        """
        problems = [1] if classes.shape[0] == 2 else range(classes.shape[0])
        results = [self._solve(X_labeled, np.where(codes == k, 1.0, -1.0), X_unlabeled, classes[k]) for k in problems]
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
        _refuse_plain_splitter(self)
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self._sparse
        tags.classifier_tags.multi_class = True
        return tags

    if not SKLEARN_TAGS:
        # scikit-learn < 1.6 never calls __sklearn_tags__: its is_classifier reads _estimator_type
        # (ClassifierMixin's class attribute "classifier"), the hook before check_cv (toolkit._compat)
        @property
        def _estimator_type(self):
            _refuse_plain_splitter(self)
            return "classifier"

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
            finds no unlabelled row; when scikit-learn's cross-validation fits it for a test fold
            that holds marked rows (use :class:`~toolkit.selection.SemiSupervisedKFold`).
        """
        name = type(self).__name__
        if y is None:
            raise ValueError(f"{name} requires y to be passed, but the target y is None (class labels, with the "
                             f"unlabelled rows marked as unlabeled={self.unlabeled!r} reads them).")
        X = validate_data(self, X, accept_sparse="csr" if self._sparse else False, dtype=self._input_dtype())
        # y apart from X: the marker may be NaN, which scikit-learn's joint check would refuse
        y = column_or_1d(y, warn=True)
        check_consistent_length(X, y)
        _refuse_marked_test_rows(self, name)
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
        """Accuracy on labelled rows; rows that carry the marker of unlabelled rows are refused.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            True class labels. A row carrying the marker in effect at fit time
            (``unlabeled_marker_``) that is not a class -- and, with the default ``unlabeled=None``,
            any missing label (NaN or None) -- raises: it would be counted as an error.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        float
            ``mean(predict(X) == y)``.
        """
        check_is_fitted(self)
        labels = np.asarray(y)
        if labels.ndim == 1:
            marked = marker_mask(labels, self.unlabeled_marker_)
            if self.unlabeled is None:
                marked |= missing_labels(labels)
            if marked.any():
                marked &= ~_is_a_class(labels, self.classes_)
            if marked.any():
                name, marker = type(self).__name__, self.unlabeled_marker_
                how = describe_marker(self.unlabeled, marker)
                if self.unlabeled is None and not (marker is None or _is_nan(marker)):
                    how = f"{marker!r} (as the fit read unlabeled=None) or by a missing label (NaN or None)"
                raise ValueError(
                    f"{name}.score: 'y' holds {int(marked.sum())} of {labels.shape[0]} rows marked unlabelled by "
                    f"{how}; they are not among the classes "
                    f"{self.classes_.tolist()} and cannot be scored. Score on labelled rows only; in scikit-learn's "
                    f"cross-validation {_SPLITTER_ADVICE}.")
        return super().score(X, y, sample_weight=sample_weight)


def _is_a_class(labels, classes):
    """Which entries of ``labels`` are one of ``classes`` (False for NaN and None, and across kinds)."""
    known = np.zeros(labels.shape, dtype=bool)
    for c in classes:
        known |= marker_mask(labels, c)
    return known
