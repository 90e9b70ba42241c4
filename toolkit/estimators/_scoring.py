"""Accuracy on the labelled rows of a marked target: the estimators' ``score`` and a scorer for ``scoring=``.

A target ``y`` with unlabelled rows marked (NaN, None, -1 or the estimator's ``unlabeled``) is
scored on its labelled rows only: a marked row has no true label, so it is neither a hit nor an
error. This holds by construction wherever the score is computed -- a plain call, a test fold of
scikit-learn's ``GridSearchCV`` / ``cross_validate`` with any splitter, a ``Pipeline`` -- with no
reading of who called it. :meth:`SemiSupervisedClassifier.score
<toolkit.estimators.SemiSupervisedClassifier.score>` and :func:`labeled_accuracy` are one
computation, :func:`_accuracy_on_labeled_rows`.
"""
from __future__ import annotations

import numpy as np
from sklearn.metrics import accuracy_score
from sklearn.pipeline import Pipeline
from sklearn.utils import _safe_indexing
from sklearn.utils.validation import check_consistent_length

from toolkit._validation import (SKLEARN_UNLABELED, _is_nan, describe_marker, marker_mask, missing_labels,
                                 resolve_unlabeled)

__all__ = ["labeled_accuracy"]

_SPLITTER_ADVICE = ("in scikit-learn's cross-validation, toolkit.selection.SemiSupervisedKFold (with the same "
                    "'unlabeled' as the estimator) puts labelled rows in every test fold and keeps every unlabelled "
                    "row in training")


def _is_a_class(labels, classes):
    """Which entries of ``labels`` are one of ``classes`` (False for NaN and None, and across kinds)."""
    known = np.zeros(labels.shape, dtype=bool)
    for c in classes:
        known |= marker_mask(labels, c)
    return known


def _unscored_rows(labels, marker, missing, classes):
    """Mask of the rows of the 1-d ``labels`` left out of the accuracy.

    A row is left out when it carries ``marker`` (and, when ``missing``, when it is a missing label:
    NaN or None), unless it equals one of ``classes`` (a marker that is also a class, such as -1 in a
    -1 / +1 coding read with NaN as the marker, is a label there).
    """
    marked = marker_mask(labels, marker)
    if missing:
        marked |= missing_labels(labels)
    if marked.any() and classes is not None:
        marked &= ~_is_a_class(labels, np.asarray(classes))
    return marked


def _marker_of(estimator, y):
    """``(marker, missing, classes, how)``: the marker of unlabelled rows that ``estimator`` reads.

    ``estimator`` is the final step (not a Pipeline). Its ``unlabeled_marker_`` when fitted by the
    toolkit, else its ``unlabeled`` parameter resolved on ``y``
    (:func:`toolkit._validation.resolve_unlabeled`), else scikit-learn's convention: -1, and missing
    labels. ``missing``: whether missing labels (NaN, None) count as marked as well; ``classes``: the
    estimator's ``classes_`` or None; ``how``: the marker in words, for messages.
    """
    classes = getattr(estimator, "classes_", None)
    has_parameter = "unlabeled" in getattr(estimator, "get_params", dict)()
    unlabeled = getattr(estimator, "unlabeled", None) if has_parameter else None
    if hasattr(estimator, "unlabeled_marker_"):
        marker = estimator.unlabeled_marker_
    elif has_parameter:
        marker = resolve_unlabeled(y, unlabeled)
    else:
        return SKLEARN_UNLABELED, True, classes, (
            f"{SKLEARN_UNLABELED!r} or a missing label (NaN or None), scikit-learn's convention for an estimator "
            f"without an 'unlabeled' parameter")
    how = describe_marker(unlabeled, marker)
    if unlabeled is None and not (marker is None or _is_nan(marker)):
        how = f"{marker!r} (as the fit read unlabeled=None) or by a missing label (NaN or None)"
    return marker, unlabeled is None, classes, how


def _accuracy_on_labeled_rows(estimator, X, y, sample_weight, *, final, caller):
    """``mean(estimator.predict(X) == y)`` over the rows of ``y`` that ``final`` does not read as unlabelled.

    ``estimator`` predicts (a Pipeline, or ``final`` itself); ``final`` gives the marker
    (:func:`_marker_of`); ``caller`` names the computation in the error raised when no labelled row
    is left. A ``y`` that is not 1-d is scored on every row.
    """
    labels = np.asarray(y)
    if labels.ndim != 1:
        return float(accuracy_score(y, estimator.predict(X), sample_weight=sample_weight))
    if sample_weight is not None:
        sample_weight = np.asarray(sample_weight)
        check_consistent_length(labels, sample_weight)
    marker, missing, classes, how = _marker_of(final, labels)
    unscored = _unscored_rows(labels, marker, missing, classes)
    if unscored.all():
        raise ValueError(
            f"{caller}: no labelled row to score: all {labels.shape[0]} rows of 'y' are marked unlabelled by {how}. "
            f"Score on rows with labels; {_SPLITTER_ADVICE}.")
    if unscored.any():
        rows = np.flatnonzero(~unscored)
        X, labels = _safe_indexing(X, rows), labels[rows]
        sample_weight = None if sample_weight is None else sample_weight[rows]
    return float(accuracy_score(labels, estimator.predict(X), sample_weight=sample_weight))


def labeled_accuracy(estimator, X, y, sample_weight=None):
    """Accuracy on the labelled rows of ``y``: a scorer for scikit-learn's ``scoring=``.

    The fraction ``Σ_i w_i [f(x_i) = y_i] / Σ_i w_i`` over the rows ``i`` of ``y`` that are
    labelled, ``f`` being ``estimator.predict``. A row is unlabelled when it carries the marker
    that the estimator reads -- that of its last step for a ``Pipeline`` -- and is not one of that
    step's ``classes_``:

    * a fitted estimator of :mod:`toolkit.estimators`: its ``unlabeled_marker_`` (the marker in
      effect at fit time), and with the default ``unlabeled=None`` any missing label (NaN or None);
    * another estimator with an ``unlabeled`` parameter: that parameter, read on ``y`` by
      :func:`toolkit._validation.resolve_unlabeled`;
    * any other estimator, e.g. scikit-learn's ``SelfTrainingClassifier`` or ``LabelSpreading``:
      scikit-learn's convention, -1, and any missing label.

    So ``cross_validate(estimator, X, y, cv=KFold(5), scoring=labeled_accuracy)`` scores each test
    fold on its labelled rows, whatever the splitter; the estimators of :mod:`toolkit.estimators`
    do the same by default (their ``score``). :class:`~toolkit.selection.SemiSupervisedKFold`
    remains the splitter to prefer: it puts labelled rows in every test fold and keeps every
    unlabelled row in training.

    Parameters
    ----------
    estimator : fitted estimator or Pipeline
        Has ``predict``; its marker is read as above.
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Rows to predict; only the labelled ones are passed to ``predict``.
    y : array-like of shape (n_samples,)
        True class labels, with unlabelled rows marked. A ``y`` that is not 1-d is scored on every row.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the rows; those of unlabelled rows are left out with them.

    Returns
    -------
    float
        The accuracy on the labelled rows, in [0, 1].

    Raises
    ------
    ValueError
        When every row of ``y`` is unlabelled (the message names the estimator, the marker and the
        number of rows).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import make_moons
    >>> from sklearn.model_selection import KFold, cross_val_score
    >>> from toolkit.estimators import LapSVM, labeled_accuracy
    >>> X, y_true = make_moons(100, noise=0.05, random_state=0)
    >>> y = np.full(100, np.nan)
    >>> y[::5] = y_true[::5]                         # 20 labels, NaN on the other rows
    >>> scores = cross_val_score(LapSVM(sigma=0.3, gamma_I=1.0), X, y, scoring=labeled_accuracy,
    ...                          cv=KFold(4, shuffle=True, random_state=0))
    >>> bool(scores.min() > 0.8)
    True
    """
    final = estimator
    while isinstance(final, Pipeline):
        final = final.steps[-1][1]
    return _accuracy_on_labeled_rows(estimator, X, y, sample_weight, final=final,
                                     caller=f"labeled_accuracy({type(final).__name__})")
