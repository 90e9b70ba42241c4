"""The scenarios of model selection and the semi-supervised k-fold splitter.

* :data:`SCENARIOS` and :func:`scenario_label` -- the papers' scenarios under the labels every
  output uses (``"test-set"`` always marked non-realistic);
* :class:`SemiSupervisedKFold` -- stratified folds of the labelled rows, every unlabelled row in
  every training fold, for scikit-learn's ``GridSearchCV`` and ``cross_validate``.
"""
from __future__ import annotations

import numbers

import numpy as np

from toolkit._cv import stratified_folds
from toolkit._validation import check_labeled_classes, check_labels, check_scalar, marker_mask, resolve_unlabeled

__all__ = ["SCENARIOS", "scenario_label", "SemiSupervisedKFold"]

SCENARIOS = ("labeled-cv", "test-set", "validation")
_SCENARIO_LABELS = {
    "labeled-cv": "labeled-cv",
    "test-set": "test-set (non-realistic)",
    "validation": "validation",
}


def scenario_label(scenario: str) -> str:
    """The label used in every output: ``"test-set"`` is always marked ``(non-realistic)``."""
    return _SCENARIO_LABELS.get(scenario, scenario)


class SemiSupervisedKFold:
    """Stratified k-fold over the labelled rows; unlabelled rows are always in the training fold.

    A scikit-learn cross-validation splitter (``split``, ``get_n_splits``) for semi-supervised
    estimators, usable by ``GridSearchCV`` and ``cross_validate``: the labelled rows (those not
    marked as ``unlabeled`` says) are dealt into stratified folds by the toolkit's one fold assignment
    (:func:`toolkit._cv.stratified_folds`, the folds of :func:`select` and of the path
    selections); every unlabelled row is appended to every training fold and never appears in a
    test fold. The test folds partition the labelled rows.

    Parameters
    ----------
    n_splits : int, default=5
        Number of folds, at least 2.
    shuffle : bool, default=True
        Shuffle each class before dealing it into the folds (``False``: in row order).
    random_state : int, numpy Generator, RandomState instance or None, default=None
        Seed of the shuffle (only used when ``shuffle=True``); a ``RandomState`` (scikit-learn's
        convention) is advanced by one draw per ``split``.
    unlabeled : int, str, float or None, default=None
        The marker of unlabelled rows, read as by the estimators of :mod:`toolkit.estimators`
        (:func:`toolkit._validation.resolve_unlabeled`): None means missing labels (NaN or
        None), or scikit-learn's ``-1`` when ``y`` holds none; any other value is the marker.
        Give the estimator the same value: rows that only the estimator reads as unlabelled
        would land in test folds, out of its training, and be left out of its score. With a
        -1 / +1 coding (``Dataset.y`` of the toolkit's binary tasks) put NaN on the unlabelled
        rows, as :meth:`toolkit.data.Dataset.target` does. Labelled rows of fewer than two
        classes are refused with an error that names the marker (the symptom of a class read as
        the marker).

    Examples
    --------
    >>> import numpy as np
    >>> y = np.array([0, 1, -1, -1, 0, 1, -1, 0, 1, 1])
    >>> cv = SemiSupervisedKFold(n_splits=2, random_state=0)
    >>> [sorted(set(test) & {2, 3, 6}) for _, test in cv.split(np.zeros((10, 1)), y)]
    [[], []]
    """

    def __init__(self, n_splits=5, *, shuffle=True, random_state=None, unlabeled=None):
        self.n_splits = check_scalar(n_splits, "n_splits", "SemiSupervisedKFold", kind=numbers.Integral, low=2)
        self.shuffle = bool(shuffle)
        self.random_state = random_state
        self.unlabeled = unlabeled

    def __repr__(self):
        return (f"SemiSupervisedKFold(n_splits={self.n_splits}, shuffle={self.shuffle}, "
                f"random_state={self.random_state!r}, unlabeled={self.unlabeled!r})")

    def get_n_splits(self, X=None, y=None, groups=None):
        """Number of splitting iterations (``n_splits``)."""
        return self.n_splits

    def split(self, X, y, groups=None):
        """Yield ``(train, test)`` index arrays.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Labels, with the unlabelled rows marked as ``unlabeled`` says (default: NaN or None,
            else -1).
        groups : ignored

        Yields
        ------
        train : ndarray of int
            The training labelled rows followed by every unlabelled row.
        test : ndarray of int
            Labelled rows only.
        """
        func = "SemiSupervisedKFold.split"
        if y is None:
            raise ValueError(f"SemiSupervisedKFold.split needs 'y' (class labels, with the unlabelled rows marked as "
                             f"unlabeled={self.unlabeled!r} reads them). Got None instead.")
        y = np.asarray(y)
        if y.ndim != 1 or y.dtype.kind == "c":
            check_labels(y, "y", func)           # raises: 1-d real labels only
        n = y.shape[0] if X is None else len(X) if not hasattr(X, "shape") else X.shape[0]
        if y.shape[0] != n:
            raise ValueError(f"SemiSupervisedKFold.split: 'X' has {n} rows but 'y' has {y.shape[0]}; they must match.")
        marker = resolve_unlabeled(y, self.unlabeled)
        is_unlabeled = marker_mask(y, marker)
        labeled = np.flatnonzero(~is_unlabeled)
        unlabeled = np.flatnonzero(is_unlabeled)
        check_labels(y[labeled], "y", func)       # the labelled rows: finite labels
        check_labeled_classes(np.unique(y[labeled]), unlabeled.size, self.unlabeled, func, marker=marker)
        if labeled.size < self.n_splits:
            raise ValueError(f"SemiSupervisedKFold.split: {labeled.size} labelled rows cannot be split into "
                             f"{self.n_splits} folds; use n_splits <= {labeled.size}.")
        classes, counts = np.unique(y[labeled], return_counts=True)
        if counts.max() < self.n_splits:
            per_class = ", ".join(f"{c!r}: {k}" for c, k in zip(classes.tolist(), counts.tolist()))
            raise ValueError(f"The 'n_splits' parameter of SemiSupervisedKFold must be at most the number of labelled "
                             f"rows of the largest class (stratified folds). Got n_splits={self.n_splits} with "
                             f"{{{per_class}}} labelled rows per class instead.")
        rng = self.random_state
        if isinstance(rng, np.random.RandomState):
            rng = int(rng.randint(2**31 - 1))
        fold = stratified_folds(y[labeled], self.n_splits, rng, shuffle=self.shuffle)
        for k in range(self.n_splits):
            yield np.concatenate([labeled[fold != k], unlabeled]), labeled[fold == k]
