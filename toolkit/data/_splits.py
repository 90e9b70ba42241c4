"""Labelled / unlabelled / validation / test splits as index arrays (never copies of ``X``)."""
from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from .._cv import stratified_folds
from .._validation import check_disjoint, check_indices, check_rng, check_scalar
from . import _parsers
from ._registry import catalogue, fetch_file

__all__ = ["Split", "split", "cv_splits", "fixed_splits"]


@dataclass(frozen=True, eq=False)
class Split:
    """Row indices of one semi-supervised experiment.

    Attributes
    ----------
    labeled, unlabeled, validation, test : ndarray of int
        Row indices into the data set (``validation`` is empty where the protocol has none).
    protocol : str
        ``"gieseke"``, ``"melacci-belkin"`` or ``"fixed"``.
    seed : int or None
        The seed the split was drawn with (None for a Generator or a fixed split).
    fold, repeat : int or None
        Position in a cross-validation scheme (``cv_splits``) or the number of a fixed split.
    """

    labeled: np.ndarray
    unlabeled: np.ndarray
    validation: np.ndarray
    test: np.ndarray
    protocol: str
    seed: int | None = None
    fold: int | None = None
    repeat: int | None = None

    def __post_init__(self):
        """Refuse index sets that no protocol produces: non-integer, negative, repeated or overlapping.

        The four sets are disjoint, except that ``test`` may be the very set ``unlabeled`` (a
        transductive split scores on its unlabelled points, as :func:`fixed_splits` does).
        Whether the indices fit the data is checked where the data is known (``select``).
        """
        arrays = {}
        for name in ("labeled", "unlabeled", "validation", "test"):
            arrays[name] = check_indices(getattr(self, name), name, "Split", None, owner="")
            object.__setattr__(self, name, arrays[name])
        check_disjoint("Split", allow_equal=(("test", "unlabeled"),), **arrays)

    def __repr__(self) -> str:
        where = "" if self.fold is None else f", fold={self.fold}, repeat={self.repeat}"
        return (f"Split({self.protocol}: l={len(self.labeled)}, u={len(self.unlabeled)}, "
                f"v={len(self.validation)}, t={len(self.test)}, seed={self.seed}{where})")


def _labels(dataset, func):
    y = getattr(dataset, "y", dataset)
    y = np.asarray(y)
    if y.ndim != 1 or len(y) == 0:
        raise ValueError(f"The 'dataset' parameter of {func} must be a Dataset or a 1-d label array. "
                         f"Got an array of shape {y.shape} instead.")
    if y.dtype.kind == "c":
        raise TypeError(f"The 'dataset' parameter of {func} must have real class labels. "
                        f"Got labels of dtype {y.dtype} instead.")
    if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
        raise ValueError(f"The 'dataset' parameter of {func} must have a finite label on every row. "
                         f"Got {int(np.sum(~np.isfinite(y)))} NaN or inf labels instead.")
    return y


def _take_covering(order, y, k, classes, what, func):
    """First ``k`` entries of ``order`` after forcing one of each class in (the first of each, in order)."""
    firsts = []
    for c in classes:
        hits = order[y[order] == c]
        if len(hits) == 0:
            raise ValueError(f"{func}: class {c!r} has no point left to put in the {what} set "
                             f"({len(order)} candidates); use a larger data set or fewer classes.")
        firsts.append(hits[0])
    forced = np.zeros(len(y), dtype=bool)
    forced[firsts] = True
    rest = order[~forced[order]]
    chosen = np.r_[np.asarray(firsts, dtype=np.int64), rest[: k - len(firsts)]]
    taken = np.zeros(len(y), dtype=bool)
    taken[chosen] = True
    return chosen, order[~taken[order]]


def _take_per_class(order, y, k, classes, func):
    """``k`` entries of ``order``, each class in its share of ``order`` (largest remainders, at least
    one each), the first of each class in that order; returns (chosen, the rest in order)."""
    counts = np.array([np.count_nonzero(y[order] == c) for c in classes])
    share = k * counts / counts.sum()
    take = np.maximum(np.floor(share).astype(np.int64), 1)
    while take.sum() > k:                       # the forced ones overshot: trim the largest
        take[np.argmax(take - share)] -= 1
    for j in np.argsort(-(share - take), kind="stable")[: k - take.sum()]:
        take[j] += 1
    chosen = []
    for c, m in zip(classes, take):
        hits = order[y[order] == c]
        if m > len(hits):
            raise ValueError(f"{func}: class {c!r} has {len(hits)} training points, fewer than its {m} of the "
                             "labelled set; use a larger data set or a smaller l.")
        chosen.append(hits[:m])
    chosen = np.concatenate(chosen).astype(np.int64)
    taken = np.zeros(len(y), dtype=bool)
    taken[chosen] = True
    return order[taken[order]], order[~taken[order]]


def split(dataset, *, l, u=None, t=None, n_train=None, stratify=False, rng=None):
    """Gieseke et al.'s protocol: shuffle, first half training, second half test.

    The rows are permuted with ``rng``; the first ``n_train`` (by default ``n // 2``) form the
    training part and the rest the test part. The labelled set holds ``l`` training points, at
    least one per class (the first point of each class in the shuffled order, then the next
    points in that order); the unlabelled set the next ``u`` training points; the test set the
    first ``t`` points of the test part.

    Parameters
    ----------
    dataset : Dataset or array-like of shape (n_samples,)
        The data set (only its labels ``y`` are used).
    l : int
        Number of labelled points, at least the number of classes and at most the training part
        ``n // 2``.
    u : int, default=None
        Number of unlabelled points; None takes the rest of the training part.
    t : int, default=None
        Number of test points; None takes the whole test part.
    n_train : int, default=None
        Size of the training part, between 1 and ``n - 1``; None takes the first half,
        ``n // 2``. Gieseke et al.'s COIL(i, j) [l=14, u=101, t=29] splits its 144 points
        into 115 training and 29 test points (``n_train=115``).
    stratify : bool, default=False
        False: the labelled points are the first ``l`` of the shuffled training part (after one of
        each class), so the classes' counts among them vary from split to split, as in the paper's
        random partitions. True: each class gets its share of the ``l`` labelled points (its share of
        the training part, rounded by largest remainders, at least one), the first of that class in
        the shuffled order, and the unlabelled set the next ``u`` of the other training points; the
        training and test parts are those of ``stratify=False`` with the same seed.
    rng : None, int or numpy.random.Generator, default=None
        Seed of the shuffle (stored in the result).

    Returns
    -------
    Split
        ``labeled``, ``unlabeled``, ``test`` index arrays (``validation`` empty), ``seed``.

    Notes
    -----
    F. Gieseke, O. Kramer, A. Airola, T. Pahikkala, Evolutionary Intelligence 5(3), 2012, §4.1:
    "the first half of each data set is used as training and the second half as test set", e.g.
    Gaussian2C [l=25, u=225, t=250] with n = 500; "if not noted otherwise": the COIL tasks
    [l + u = 115, t = 29] of their Tables 2-3 take ``n_train = 115`` of 144.

    Examples
    --------
    >>> import numpy as np
    >>> from toolkit.data import split
    >>> s = split(np.r_[np.ones(250), -np.ones(250)], l=25, u=225, t=250, rng=0)
    >>> len(s.labeled), len(s.unlabeled), len(s.test)
    (25, 225, 250)
    """
    func = "split"
    y = _labels(dataset, func)
    classes = np.unique(y)
    if len(classes) < 2:
        raise ValueError(f"The 'dataset' parameter of {func} must hold at least two classes (a split draws labelled "
                         f"points of every class). Got one class, {classes[0].item()!r}, on {len(y)} rows instead.")
    n = len(y)
    n_train = n // 2 if n_train is None else check_scalar(n_train, "n_train", func, kind=numbers.Integral,
                                                          low=1, high=max(n - 1, 1))
    l = check_scalar(l, "l", func, kind=numbers.Integral, low=1)
    if l < len(classes):
        raise ValueError(f"The 'l' parameter of split must be at least the number of classes ({len(classes)}). "
                         f"Got {l} instead.")
    if l > n_train:
        raise ValueError(f"The 'l' parameter of split must be at most the training part ({n_train} of {n} points). "
                         f"Got {l} instead.")
    u = n_train - l if u is None else check_scalar(u, "u", func, kind=numbers.Integral, low=0)
    t = n - n_train if t is None else check_scalar(t, "t", func, kind=numbers.Integral, low=0)
    if l + u > n_train:
        raise ValueError(f"The 'l' and 'u' parameters of split must add up to at most the training part "
                         f"({n_train} of {n} points). Got l={l} + u={u} = {l + u} instead.")
    if t > n - n_train:
        raise ValueError(f"The 't' parameter of split must be at most the test part ({n - n_train} of {n} points). "
                         f"Got {t} instead.")
    generator, seed = check_rng(rng)
    order = generator.permutation(n)
    train, test = order[:n_train], order[n_train:]
    if not isinstance(stratify, (bool, np.bool_)):
        raise TypeError(f"The 'stratify' parameter of {func} must be a bool. Got {stratify!r} instead.")
    if stratify:
        labeled, rest = _take_per_class(train, y, l, classes, func)
    else:
        labeled, rest = _take_covering(train, y, l, classes, "labelled", func)
    empty = np.empty(0, dtype=np.int64)
    return Split(labeled=labeled, unlabeled=rest[:u].astype(np.int64), validation=empty,
                 test=test[:t].astype(np.int64), protocol="gieseke", seed=seed)


def cv_splits(dataset, *, folds=4, repeats=3, l, v, rng=None):
    """Melacci & Belkin's protocol: repeated stratified k-fold, training folds split into L, U, V.

    For each repeat the classes are dealt into ``folds`` stratified folds; each fold in turn is
    the test set and the other folds are split (after a shuffle) into ``l`` labelled and ``v``
    validation points, each with at least one point of every class, and the unlabelled rest.

    Parameters
    ----------
    dataset : Dataset or array-like of shape (n_samples,)
        The data set (only its labels ``y`` are used).
    folds : int, default=4
        Number of folds (at least 2).
    repeats : int, default=3
        Number of random fold assignments.
    l : int
        Labelled points per split (at least the number of classes).
    v : int
        Validation points per split (at least the number of classes).
    rng : None, int or numpy.random.Generator, default=None
        Seed (stored in every split).

    Returns
    -------
    tuple of Split
        ``folds * repeats`` splits, repeat-major (``splits[r * folds + k]``).

    Notes
    -----
    S. Melacci, M. Belkin, JMLR 12, 2011, §6.2 and Table 2 (e.g. G50C: l = 50, v = 50,
    u = 314, t = 136).

    Examples
    --------
    >>> import numpy as np
    >>> from toolkit.data import cv_splits
    >>> splits = cv_splits(np.r_[np.ones(275), -np.ones(275)], l=50, v=50, rng=0)
    >>> len(splits), len(splits[0].labeled), len(splits[0].validation)
    (12, 50, 50)
    """
    func = "cv_splits"
    y = _labels(dataset, func)
    classes = np.unique(y)
    folds = check_scalar(folds, "folds", func, kind=numbers.Integral, low=2, high=len(y))
    repeats = check_scalar(repeats, "repeats", func, kind=numbers.Integral, low=1)
    l = check_scalar(l, "l", func, kind=numbers.Integral, low=1)
    v = check_scalar(v, "v", func, kind=numbers.Integral, low=1)
    for value, name in ((l, "l"), (v, "v")):
        if value < len(classes):
            raise ValueError(f"The {name!r} parameter of cv_splits must be at least the number of classes "
                             f"({len(classes)}). Got {value} instead.")
    smallest_train = len(y) - int(np.ceil(len(y) / folds))
    if l + v > smallest_train:
        raise ValueError(f"The 'l' and 'v' parameters of cv_splits must add up to at most the smallest training "
                         f"part ({smallest_train} of {len(y)} points with {folds} folds). Got l={l} + v={v} = {l + v} instead.")
    generator, seed = check_rng(rng)
    out = []
    for r in range(repeats):
        fold_of = stratified_folds(y, folds, generator)
        for k in range(folds):
            test = np.flatnonzero(fold_of == k)
            train = generator.permutation(np.flatnonzero(fold_of != k))
            labeled, rest = _take_covering(train, y, l, classes, "labelled", func)
            validation, unlabeled = _take_covering(rest, y, v, classes, "validation", func)
            out.append(Split(labeled=labeled, unlabeled=unlabeled, validation=validation, test=test,
                             protocol="melacci-belkin", seed=seed, fold=k, repeat=r))
    return tuple(out)


def fixed_splits(dataset, *, labeled=None):
    """The published splits of a data set: the SSL book's, and the 10 in g50c / uspst / text1.

    Parameters
    ----------
    dataset : Dataset
        ``load("ssl-book", ...)``, ``load("g50c")``, ``load("uspst")`` or ``load("pcmac")``,
        with all rows kept (a class selection that keeps every row, such as USPST(B), is fine).
    labeled : int, default=None
        Number of labelled points: 10 or 100 for the SSL book (set 8: 100, 1000 or 10000); 50 for
        the .mat files of Chapelle & Zien (None means 50 there and is an error for the book).

    Returns
    -------
    tuple of Split
        One per published split (``repeat`` = its number). The files give labelled and unlabelled
        indices (1-based; converted to 0-based); the protocol is transductive, so ``test`` is the
        unlabelled set itself and ``validation`` is empty.

    Examples
    --------
    >>> from toolkit import data
    >>> splits = data.fixed_splits(data.load("g50c"))              # doctest: +SKIP
    >>> len(splits), len(splits[0].labeled), len(splits[0].unlabeled)  # doctest: +SKIP
    (10, 50, 500)
    """
    func = "fixed_splits"
    name = getattr(dataset, "name", None)
    mat_files = {"g50c": "g50c.mat", "uspst": "uspst.mat", "pcmac": "text1.mat"}
    if name == "ssl-book":
        table = catalogue()["ssl-book"]["sets"][str(dataset.options["set"])]
        choices = {int(f.rsplit("=", 1)[1][:-4]): f for f in table["files"][1:]}
        if labeled not in choices:
            raise ValueError(f"The 'labeled' parameter of fixed_splits must be one of "
                             f"{', '.join(map(str, choices))} for set {dataset.options['set']} "
                             f"({table['name']}). Got {labeled!r} instead.")
        file = choices[labeled]
    elif name in mat_files:
        if labeled not in (None, 50):
            raise ValueError(f"The 'labeled' parameter of fixed_splits must be 50 (or None) for {name!r}. "
                             f"Got {labeled!r} instead.")
        file = mat_files[name]
    else:
        raise ValueError(f"The 'dataset' parameter of fixed_splits must be a data set with published splits "
                         f"(ssl-book, g50c, uspst, pcmac). Got {name!r} instead.")
    if len(dataset.rows) != dataset.n_source:
        raise ValueError(f"{func}: the published splits index all {dataset.n_source} rows of {name!r}, but this "
                         f"data set keeps {len(dataset.rows)} of them; load it without dropping classes.")
    arrays = _parsers.parsed(fetch_file(file), _parsers.parse_mat)
    empty = np.empty(0, dtype=np.int64)
    out = []
    for i, (labs, unls) in enumerate(zip(arrays["idxLabs"], arrays["idxUnls"])):
        unlabeled = unls.astype(np.int64) - 1
        out.append(Split(labeled=labs.astype(np.int64) - 1, unlabeled=unlabeled, validation=empty,
                         test=unlabeled, protocol="fixed", repeat=i))
    return tuple(out)
