"""Validation at the public boundary, with one message template.

"The 'gamma_I' parameter of lapsvm must be a float in [0, inf). Got -1.0 instead."

Inner calls skip validation; only public functions call these helpers.
"""
from __future__ import annotations

import numbers
import warnings

import numpy as np
import scipy.sparse as sp


def _fmt(value):
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape} and dtype {value.dtype}"
    return repr(value)


def check_scalar(value, name, func, *, kind=numbers.Real, low=None, high=None,
                 low_closed=True, high_closed=True, allow_none=False):
    """Return ``value`` as float/int after checking its type and interval.

    Raises ``TypeError`` / ``ValueError`` with the project's message template.
    """
    if value is None and allow_none:
        return None
    kind_name = "an int" if kind is numbers.Integral else "a float"
    lo = "-inf" if low is None else repr(low)
    hi = "inf" if high is None else repr(high)
    interval = f"{'[' if low_closed and low is not None else '('}{lo}, {hi}{']' if high_closed and high is not None else ')'}"
    msg = f"The {name!r} parameter of {func} must be {kind_name} in {interval}. Got {_fmt(value)} instead."
    if isinstance(value, bool) or not isinstance(value, kind):
        raise TypeError(msg)
    if kind is not numbers.Integral and not np.isfinite(value):
        raise ValueError(msg)
    if low is not None and (value < low if low_closed else value <= low):
        raise ValueError(msg)
    if high is not None and (value > high if high_closed else value >= high):
        raise ValueError(msg)
    return int(value) if kind is numbers.Integral else float(value)


def check_option(value, name, func, options):
    """Check that ``value`` is one of ``options`` (strings)."""
    if value not in options:
        opts = ", ".join(repr(o) for o in options)
        raise ValueError(f"The {name!r} parameter of {func} must be one of {opts}. Got {_fmt(value)} instead.")
    return value


def _as_real_array(X, name, func, dtype=np.float64):
    """``np.asarray(X, dtype)`` after refusing complex and text input, which a cast would mangle.

    A complex array cast to float loses its imaginary part with only a ``ComplexWarning``, and a
    text array is parsed silently; both are refused with a ``TypeError`` naming the argument.
    """
    try:
        raw = X if isinstance(X, np.ndarray) else np.asarray(X)
    except (TypeError, ValueError) as exc:    # ragged nested sequences
        raise TypeError(f"The {name!r} parameter of {func} must be a numeric array. Got {_fmt(X)} instead.") from exc
    if raw.dtype.kind == "c":
        raise TypeError(f"The {name!r} parameter of {func} must be a real-valued array. Got {_fmt(raw)} instead; "
                        "pass its real part or its modulus explicitly.")
    if raw.dtype.kind not in "biufO":
        raise TypeError(f"The {name!r} parameter of {func} must be a numeric array. Got {_fmt(raw)} instead.")
    try:
        return np.asarray(raw, dtype=dtype)
    except (TypeError, ValueError) as exc:    # object arrays holding complex numbers, strings, None
        raise TypeError(f"The {name!r} parameter of {func} must be a numeric array. Got {_fmt(raw)} instead.") from exc


def check_matrix(X, name, func, *, accept_sparse=True, ndim=2, dtype=np.float64, allow_empty=False):
    """Return ``X`` as a finite real float array (or CSR matrix) of the requested dimension.

    Complex, text and non-finite input is refused with a message naming ``name`` and ``func``.
    """
    if sp.issparse(X):
        if not accept_sparse:
            raise TypeError(f"The {name!r} parameter of {func} must be a dense array. Got a sparse matrix instead.")
        if X.dtype.kind not in "biuf":
            raise TypeError(f"The {name!r} parameter of {func} must be a real-valued matrix. "
                            f"Got a sparse matrix of dtype {X.dtype} instead.")
        X = sp.csr_matrix(X, dtype=dtype)
        data = X.data
    else:
        X = _as_real_array(X, name, func, dtype)
        if X.ndim != ndim:
            raise ValueError(f"The {name!r} parameter of {func} must be a {ndim}-d array. Got {_fmt(X)} instead.")
        data = X
    if not allow_empty and X.shape[0] == 0:
        raise ValueError(f"The {name!r} parameter of {func} must have at least one row. Got {_fmt(X)} instead.")
    finite = np.isfinite(data)
    if not finite.all():
        raise ValueError(f"The {name!r} parameter of {func} must contain only finite values (no NaN or inf). "
                         f"Got {int(finite.size - np.count_nonzero(finite))} non-finite entries instead.")
    return X


def check_indices(idx, name, func, n, *, owner="split"):
    """Return ``idx`` as a 1-d int64 array of distinct row indices in ``[0, n)``.

    Float, boolean and negative indices are refused (NumPy would truncate the first, read the
    second as a mask and wrap the third around from the end); so are repeated indices.
    ``n=None`` checks everything but the upper bound.
    """
    where = f"The {name!r} indices of the {owner} given to {func}" if owner else f"The {name!r} parameter of {func}"
    try:
        arr = np.asarray(idx)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{where} must be a 1-d array of integer row indices. Got {_fmt(idx)} instead.") from exc
    if arr.ndim != 1:
        raise ValueError(f"{where} must be a 1-d array of integer row indices. Got {_fmt(arr)} instead.")
    if arr.size == 0:
        return np.empty(0, dtype=np.int64)
    if arr.dtype.kind not in "iu":
        hint = " (a boolean mask: use np.flatnonzero(mask))" if arr.dtype.kind == "b" else ""
        raise TypeError(f"{where} must be a 1-d array of integer row indices{hint}. Got {_fmt(arr)} instead.")
    arr = arr.astype(np.int64, copy=False)
    low, high = int(arr.min()), int(arr.max())
    if low < 0:
        raise ValueError(f"{where} must be non-negative row indices. Got {low} instead.")
    if n is not None and high >= n:
        raise ValueError(f"{where} must be row indices in [0, {n}) ({n} rows). Got {high} instead.")
    sorted_idx = np.sort(arr)
    repeated = sorted_idx[1:][sorted_idx[1:] == sorted_idx[:-1]]
    if repeated.size:
        raise ValueError(f"{where} must not repeat an index. Got {np.unique(repeated).size} repeated "
                         f"(e.g. {int(repeated[0])}) instead.")
    return arr


def check_disjoint(func, *, allow_equal=(), **index_sets):
    """Raise if two of the named index arrays share an index, naming both and a few shared indices.

    ``allow_equal`` lists pairs ``(a, b)`` that may be the very same set (a transductive split
    scores on its unlabelled points: ``test`` equal to ``unlabeled``) but not partly overlap.
    """
    names = list(index_sets)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            A, B = index_sets[a], index_sets[b]
            if A is None or B is None or len(A) == 0 or len(B) == 0:
                continue
            shared = np.intersect1d(A, B)
            if shared.size == 0:
                continue
            if ((a, b) in allow_equal or (b, a) in allow_equal) and shared.size == len(A) == len(B):
                continue
            sample = ", ".join(str(int(v)) for v in shared[:5])
            raise ValueError(f"{func}: the {a!r} and {b!r} indices must be disjoint. Got {shared.size} "
                             f"shared indices ({sample}{', ...' if shared.size > 5 else ''}) instead.")


# Tolerances of a precomputed kernel matrix, relative to its scale (the same rule for every solver
# that accepts one: rlsc, s2rlsc, mmc, rlsc_path, svm_path). Round-off of a float64 kernel computed
# block by block stays near 1e-16 relative; eigenvalue round-off of an n × n eigh near n · 1e-16,
# far below PSD_RTOL (the threshold s2rlsc's eigendecomposition also applies).
SYM_RTOL = 1e-10
PSD_RTOL = 1e-8
_SYM_BLOCK = 256


def check_laplacian_matrix(L, name, func, n):
    """Return a given graph Laplacian (or its power) of ``n`` points, checked without forming anything.

    A sparse matrix or array must be real, finite, ``(n, n)``, symmetric (within ``SYM_RTOL`` of its
    largest entry) and have a non-negative diagonal; it is returned as CSR (sparse) or a float64
    array. A :class:`~scipy.sparse.linalg.LinearOperator` (e.g. :func:`toolkit.graphs.laplacian_operator`)
    is checked for its shape only.
    """
    import scipy.sparse as sp
    from scipy.sparse.linalg import LinearOperator

    subject = f"The {name!r} parameter of {func}"
    if isinstance(L, LinearOperator):
        if L.shape != (n, n):
            raise ValueError(f"{subject} must have shape ({n}, {n}) (the training set has {n} points). "
                             f"Got shape {L.shape} instead.")
        return L
    if sp.issparse(L):
        if L.dtype.kind == "c":
            raise TypeError(f"{subject} must be real. Got dtype {L.dtype} instead.")
        L = sp.csr_matrix(L, dtype=np.float64)
        data = L.data
    else:
        L = check_matrix(L, name, func, accept_sparse=False)
        data = L
    if L.shape != (n, n):
        raise ValueError(f"{subject} must have shape ({n}, {n}) (the training set has {n} points). "
                         f"Got shape {L.shape} instead.")
    if not np.all(np.isfinite(data)):
        raise ValueError(f"{subject} contains NaN or inf.")
    largest = float(np.abs(data).max()) if np.size(data) else 0.0
    asymmetry = abs(L - L.T).max() if sp.issparse(L) else np.abs(L - L.T).max()
    if asymmetry > SYM_RTOL * max(largest, np.finfo(float).tiny):
        raise ValueError(f"{subject} must be symmetric (a graph Laplacian or its power). Got max |L - Lᵀ| = "
                         f"{asymmetry:.3g} for entries up to {largest:.3g} instead.")
    diagonal = L.diagonal()
    if np.any(diagonal < -SYM_RTOL * max(largest, np.finfo(float).tiny)):
        raise ValueError(f"{subject} must have a non-negative diagonal (a graph Laplacian or its power). "
                         f"Got min diagonal entry {diagonal.min():.3g} instead.")
    return L


def check_kernel_matrix(K, name, func, *, psd=True, symmetrize=False, label=None):
    """Return ``K`` as a finite, square, symmetric, positive semi-definite float64 array.

    * symmetric: ``max |K - Kᵀ| <= SYM_RTOL · max |K|`` (one blocked O(n²) pass);
    * positive semi-definite: every eigenvalue ``>= -PSD_RTOL · ||K||_inf`` (the largest absolute
      row sum, an upper bound of the spectral norm), tested with one Cholesky factorisation of
      ``K + PSD_RTOL ||K||_inf I`` (n³/3 flops); only when it fails is the smallest eigenvalue
      computed (``eigh`` with ``subset_by_index=[0, 0]``) for the message. ``psd=False`` checks only
      a non-negative diagonal (O(n)), for callers whose own factorisation checks the spectrum or
      that never form the whole matrix (Nyström);
    * ``symmetrize=True`` returns ``(K + Kᵀ) / 2`` when ``K`` is symmetric only within the
      tolerance (callers that read both triangles).

    ``label`` replaces the ``"The 'K' parameter of func"`` subject of the messages.
    """
    import scipy.linalg as sla

    subject = label or f"The {name!r} parameter of {func}"
    K = check_matrix(K, name, func, accept_sparse=False)
    if K.shape[0] != K.shape[1]:
        raise ValueError(f"{subject} must be a square (n, n) kernel matrix. Got {_fmt(K)} instead "
                         f"({K.shape[0]} rows and {K.shape[1]} columns).")
    n = K.shape[0]
    asymmetry, largest, norm_inf = 0.0, 0.0, 0.0
    for a in range(0, n, _SYM_BLOCK):
        rows = K[a:a + _SYM_BLOCK]
        abs_rows = np.abs(rows)
        largest = max(largest, float(abs_rows.max()))
        norm_inf = max(norm_inf, float(abs_rows.sum(axis=1).max()))
        asymmetry = max(asymmetry, float(np.abs(rows - K[:, a:a + _SYM_BLOCK].T).max()))
    if not np.isfinite(norm_inf):
        raise ValueError(f"{subject} must be a kernel matrix whose row sums fit in float64. Got max |K| = "
                         f"{largest:.3g} instead; scale the kernel (or the features it was computed from).")
    if asymmetry > SYM_RTOL * largest:
        raise ValueError(f"{subject} must be a symmetric kernel matrix (|K - Kᵀ| <= {SYM_RTOL:g} · max |K|). "
                         f"Got largest |K - Kᵀ| = {asymmetry:.3g} with max |K| = {largest:.3g} instead.")
    tolerance = PSD_RTOL * norm_inf
    diag_min = float(np.min(np.diag(K))) if n else 0.0
    if diag_min < -tolerance:
        raise ValueError(f"{subject} must be a positive semi-definite kernel matrix; its diagonal (k(x, x) >= 0) "
                         f"has the entry {diag_min:.3g}. Use a Mercer kernel.")
    if psd and norm_inf > 0:
        shifted = K + tolerance * np.eye(n)
        try:
            sla.cholesky(shifted, lower=True, overwrite_a=True, check_finite=False)
        except np.linalg.LinAlgError:
            smallest = float(sla.eigh(K, eigvals_only=True, subset_by_index=[0, 0], check_finite=False)[0])
            if smallest < -tolerance:
                raise ValueError(f"{subject} must be a positive semi-definite kernel matrix (eigenvalues >= "
                                 f"-{PSD_RTOL:g} · ||K||_inf = {-tolerance:.3g}). Got smallest eigenvalue "
                                 f"{smallest:.3g} instead; use a Mercer kernel.") from None
        del shifted
    if symmetrize and asymmetry > 0:
        K = 0.5 * (K + K.T)
    return K


def check_labels(y, name, func, *, n_rows=None, rows_name=None):
    """Return class labels ``y`` as a 1-d array: real (complex refused), finite, ``n_rows`` of them.

    Any coding of the classes is accepted (numbers, strings); complex labels, NaN and inf are not.
    """
    try:
        y = np.asarray(y)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"The {name!r} parameter of {func} must be a 1-d array of class labels. "
                        f"Got {_fmt(y)} instead.") from exc
    if y.ndim != 1:
        raise ValueError(f"The {name!r} parameter of {func} must be a 1-d array of class labels. "
                         f"Got shape {y.shape} instead.")
    if y.dtype.kind == "c":
        raise TypeError(f"The {name!r} parameter of {func} must hold real class labels. Got {_fmt(y)} instead.")
    if n_rows is not None and y.shape[0] != n_rows:
        raise ValueError(f"{func}: {rows_name!r} has {n_rows} rows but {name!r} has {y.shape[0]}; they must match.")
    if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
        raise ValueError(f"The {name!r} parameter of {func} must contain only finite values (no NaN or inf). "
                         f"Got {int(np.sum(~np.isfinite(y)))} non-finite labels instead.")
    return y


def label_classes(y, name, func):
    """The sorted classes ``np.unique(y)`` of labels checked by :func:`check_labels`.

    Missing labels (None, NaN in an object array) and a mix of kinds (numbers with strings) are
    refused naming ``name`` and ``func``, where NumPy would only fail to sort them.
    """
    missing = missing_labels(y)
    if missing.any():
        raise ValueError(f"The {name!r} parameter of {func} must contain only finite values (no NaN or inf). "
                         f"Got {int(missing.sum())} missing labels (None or NaN) instead.")
    try:
        return np.unique(y)
    except TypeError as exc:          # object arrays mixing kinds: 1 < "a" is undefined
        kinds = sorted({type(v).__name__ for v in y.tolist()})
        raise TypeError(f"The {name!r} parameter of {func} must hold labels of one kind (numbers or strings), "
                        f"which sort. Got a mix of {', '.join(kinds)} instead.") from exc


def encode_binary_labels(y, name, func, *, n_rows=None, rows_name=None):
    """The two classes of ``y`` and ``y`` coded -1 / +1: ``(classes, y_pm1)``; the toolkit's one coding.

    Every two-class solver (``rlsc``, ``s2rlsc``, ``tsvm``, the paths of :mod:`toolkit.paths`)
    calls this at its public boundary, so that all of them accept labels the same way: any two
    values (numbers, strings, booleans), ``classes = np.unique(y)`` sorted, and ``classes[1]``,
    the larger label, is the positive class (``+1``; ``f(x) > 0``). A ``y`` coded -1 / +1 is
    unchanged by the coding. Exactly two classes are required; NaN, inf, missing and complex
    labels are refused (:func:`check_labels`), each error naming ``name`` and ``func``.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
    name, func : str
        The argument and the public function, for the messages.
    n_rows : int, default=None
        The number of rows ``y`` must have (that of the matrix ``rows_name``).
    rows_name : str, default=None

    Returns
    -------
    classes : ndarray of shape (2,)
        The sorted labels, as given (their dtype kept).
    y_pm1 : ndarray of shape (n_samples,), float64
        ``+1.0`` where ``y == classes[1]``, ``-1.0`` elsewhere.
    """
    y = check_labels(y, name, func, n_rows=n_rows, rows_name=rows_name)
    classes = label_classes(y, name, func)
    if classes.shape[0] != 2:
        raise ValueError(f"The {name!r} parameter of {func} must contain exactly two classes. "
                         f"Got {classes.shape[0]} class(es) {classes.tolist()[:5]} instead.")
    return classes, np.where(y == classes[1], 1.0, -1.0)


def encode_labels_as(y, classes, name, func, *, n_rows=None, rows_name=None, source="the training labels"):
    """``y`` coded -1 / +1 with the two ``classes`` of a fit (``classes[1]`` ↦ +1), as :func:`encode_binary_labels`.

    For held-out labels (``y_val``): they are read in the coding of the training labels. One
    class alone is fine; a label that is not among ``classes`` is refused, naming ``name`` and
    ``source``, the labels that gave ``classes``.
    """
    y = check_labels(y, name, func, n_rows=n_rows, rows_name=rows_name)
    label_classes(y, name, func)
    with warnings.catch_warnings():   # NumPy < 2 warns comparing strings with numbers (never equal)
        warnings.simplefilter("ignore", (FutureWarning, DeprecationWarning))
        known = np.isin(y, classes)
    if not known.all():
        other = y[~known]
        raise ValueError(f"The {name!r} parameter of {func} must hold labels among the classes {classes.tolist()} "
                         f"of {source}. Got {other.size} other label(s) (e.g. {other.tolist()[0]!r}) instead.")
    return np.where(y == classes[1], 1.0, -1.0)


def one_vs_rest_targets(codes, n_classes):
    """The ±1 targets of the binary problems of ``n_classes`` classes, one column each.

    ``codes`` index the sorted classes (``np.unique(y, return_inverse=True)``). Two classes give one
    problem, ``+1`` for ``classes[1]`` (as :func:`encode_binary_labels`, scikit-learn's convention
    for ``decision_function``); more give one per class, ``+1`` for class ``k`` in column ``k``.

    Returns
    -------
    ndarray of shape (n_samples, 1) or (n_samples, n_classes), float64

    Examples
    --------
    >>> one_vs_rest_targets(np.array([0, 1, 1]), 2).ravel().tolist()
    [-1.0, 1.0, 1.0]
    >>> one_vs_rest_targets(np.array([0, 2, 1]), 3).tolist()
    [[1.0, -1.0, -1.0], [-1.0, -1.0, 1.0], [-1.0, 1.0, -1.0]]
    """
    codes = np.asarray(codes)
    positives = np.array([1]) if n_classes == 2 else np.arange(n_classes)
    return np.where(codes[:, None] == positives[None, :], 1.0, -1.0)


# scikit-learn's marker of unlabelled rows (LabelSpreading, SelfTrainingClassifier): the reading of
# ``unlabeled=None`` when ``y`` holds no missing label
SKLEARN_UNLABELED = -1


def _is_nan(value):
    return isinstance(value, (float, np.floating)) and value != value


def missing_labels(y):
    """Boolean mask of the missing labels of ``y``: NaN in a float array, NaN or None in an object array."""
    y = np.asarray(y)
    if y.dtype.kind == "f":
        return np.isnan(y)
    if y.dtype.kind == "O":
        return np.array([v is None or _is_nan(v) for v in y.ravel()], dtype=bool).reshape(y.shape)
    return np.zeros(y.shape, dtype=bool)


def resolve_unlabeled(y, unlabeled=None):
    """The marker of unlabelled rows in effect for the labels ``y``: the one rule of the toolkit.

    Every reader of a target with unlabelled rows -- the estimators of :mod:`toolkit.estimators`,
    :class:`toolkit.selection.SemiSupervisedKFold` and :meth:`toolkit.data.Dataset.target` -- calls
    this function; their ``unlabeled`` parameters all default to ``None`` and link here.

    * ``unlabeled=None`` (the default) means **missing labels**: the rows of ``y`` holding NaN (in
      a float array) or None / NaN (in an object array) are the unlabelled ones. When ``y`` holds
      no missing label, the rows equal to ``-1`` are (scikit-learn's convention, as in
      ``LabelSpreading`` and ``SelfTrainingClassifier``). So ``y`` may code its classes -1 / +1 --
      the toolkit's binary tasks, ``Dataset.y`` of G50C, Gaussian2C or the SSL-book sets -- as
      long as its unlabelled rows hold NaN, which is what :meth:`~toolkit.data.Dataset.target`
      writes.
    * Any other value is the marker itself, exactly: ``-1``, ``0``, ``"u"``, ``float("nan")``...
      A NaN marker matches NaN labels; a string marker matches only string labels, a number only
      numbers; object arrays compare element by element. A marker that only its twin of the other
      kind would match -- the text ``"-1"`` in ``y`` read with the number ``-1`` (the default), or
      ``unlabeled="-1"`` on numeric labels -- is refused with a ``ValueError`` naming both, since
      those rows would otherwise silently become a class of their own.

    A marker equal to one of the classes turns that class into unlabelled rows: ``fit`` and
    ``SemiSupervisedKFold.split`` refuse the one class that is then left, naming the marker
    (:func:`check_labeled_classes`). The estimators record the marker in effect as
    ``unlabeled_marker_`` and leave the rows that carry it out of their ``score``.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Class labels, with the unlabelled rows marked.
    unlabeled : object or None, default=None
        The ``unlabeled`` parameter as given.

    Returns
    -------
    marker : object
        ``unlabeled`` itself when it is not None. Otherwise ``nan`` when ``y`` holds NaN and no
        None, ``None`` when an object ``y`` holds None (its None and NaN rows are then the
        unlabelled ones), else ``-1``.

    Examples
    --------
    >>> import numpy as np
    >>> resolve_unlabeled(np.array([1.0, -1.0, np.nan]))        # a -1 / +1 coding with missing labels
    nan
    >>> resolve_unlabeled(np.array([0, 1, -1, -1]))            # scikit-learn's convention
    -1
    >>> unlabeled_mask(np.array([1.0, -1.0, np.nan]), None).tolist()
    [False, False, True]
    """
    y = np.asarray(y)
    if unlabeled is not None:
        _refuse_marker_of_the_other_kind(y, unlabeled, unlabeled)
        return unlabeled
    missing = missing_labels(y)
    if not missing.any():
        _refuse_marker_of_the_other_kind(y, SKLEARN_UNLABELED, unlabeled)
        return SKLEARN_UNLABELED
    if y.dtype.kind == "O" and any(v is None for v in y[missing]):
        return None
    return float("nan")


def _as_number(value):
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _refuse_marker_of_the_other_kind(y, marker, unlabeled):
    """A marker that only its twin of the other kind would match is a mistake, not a class.

    Text and numbers never match (:func:`resolve_unlabeled`), so the text ``"-1"`` on the rows
    meant to be unlabelled, read with the number -1 (the default), or the marker ``"-1"`` on
    numeric labels, would silently make those rows a class of their own; refused, naming both.
    """
    if marker is None or _is_nan(marker) or isinstance(marker, (bool, np.bool_)):
        return
    marker_is_text = isinstance(marker, (str, np.str_))
    target = _as_number(marker)
    if target is None:
        return
    values, counts = np.unique(y[~missing_labels(y)], return_counts=True) if y.dtype.kind != "O" else \
        (np.array([v for v in y if not _is_nan(v) and v is not None], dtype=object), None)
    twins = 0
    for i, v in enumerate(values):
        v_is_text = isinstance(v, (str, np.str_, bytes, np.bytes_))
        if v_is_text == marker_is_text or isinstance(v, (bool, np.bool_)):
            continue
        number = _as_number(v.decode() if isinstance(v, (bytes, np.bytes_)) else v)
        if number is not None and number == target:
            twins += 1 if counts is None else int(counts[i])
    if not twins:
        return
    if marker_is_text:
        found = f"numbers, {twins} of them equal to {target:g}"
        remedy = f"pass unlabeled={target:g} if those are the unlabelled rows"
    else:
        text = str(_twin_text(y, target))
        found = f"the text {text!r} on {twins} rows"
        remedy = f"pass unlabeled={text!r} if those are the unlabelled rows"
    given = ("" if unlabeled is not None else
             " (unlabeled=None reads -1 when y holds no missing label)")
    raise ValueError(f"The marker of unlabelled rows in effect is {marker!r}, {'text' if marker_is_text else 'a number'}"
                     f"{given}, but 'y' holds {found}: text and numbers never match, so those rows would be read as "
                     f"a class of their own. {remedy[0].upper() + remedy[1:]}, or put NaN (float labels) or None "
                     f"(object labels) on the unlabelled rows and keep unlabeled=None.")


def _twin_text(y, target):
    for v in (np.unique(y) if y.dtype.kind != "O" else y):
        if isinstance(v, (str, np.str_)) and _as_number(v) == target:
            return v
    return str(target)


def marker_mask(y, marker):
    """Boolean mask of the rows of ``y`` that carry the marker in effect ``marker`` (not resolved again).

    ``marker`` is a value returned by :func:`resolve_unlabeled`: None stands for the missing
    labels (None or NaN), any other value is compared as :func:`resolve_unlabeled` describes.
    """
    y = np.asarray(y)
    if marker is None:
        return missing_labels(y)
    if _is_nan(marker):
        if y.dtype.kind == "f":
            return np.isnan(y)
        if y.dtype.kind == "O":
            return np.array([_is_nan(v) for v in y], dtype=bool)
        return np.zeros(y.shape, dtype=bool)
    marker_is_text = isinstance(marker, (str, np.str_))
    if y.dtype.kind in "US" and not marker_is_text:
        return np.zeros(y.shape, dtype=bool)
    if y.dtype.kind in "biuf" and marker_is_text:
        return np.zeros(y.shape, dtype=bool)
    if y.dtype.kind == "O":
        return np.array([type(v) is not bool and _same_label(v, marker) for v in y], dtype=bool)
    return np.asarray(y == marker, dtype=bool)


def unlabeled_mask(y, unlabeled):
    """Boolean mask of the rows of ``y`` that are unlabelled under the parameter ``unlabeled``.

    The one reading of the marker, shared by :class:`toolkit.selection.SemiSupervisedKFold`, the
    estimators of :mod:`toolkit.estimators` and :meth:`toolkit.data.Dataset.target`: the marker in
    effect is :func:`resolve_unlabeled`'s (``unlabeled=None``: missing labels, else -1).
    """
    return marker_mask(y, resolve_unlabeled(y, unlabeled))


def _same_label(value, marker):
    text = isinstance(value, (str, np.str_))
    if text != isinstance(marker, (str, np.str_)):
        return False
    return bool(value == marker)


def describe_marker(unlabeled, marker):
    """The marker in effect, in words for messages: ``"unlabeled=-1"`` or how ``unlabeled=None`` was read."""
    if unlabeled is not None:
        return f"unlabeled={unlabeled!r}"
    if marker is None:
        return "None or NaN (unlabeled=None: missing labels)"
    if _is_nan(marker):
        return "NaN (unlabeled=None: missing labels)"
    return (f"{marker!r} (unlabeled=None reads {marker!r} as the marker, scikit-learn's convention, when 'y' holds "
            f"no NaN or None)")


_UNRESOLVED = object()


def check_labeled_classes(classes, n_unlabeled, unlabeled, func, *, marker=_UNRESOLVED):
    """Refuse labelled rows of fewer than two classes, naming the marker that may have caused it.

    The trap this catches: a binary task coded ``-1 / +1`` without missing labels, read with the
    default ``unlabeled=None`` (which then takes scikit-learn's ``-1``, :func:`resolve_unlabeled`),
    turns a whole class into unlabelled rows; what remains is one class. ``marker`` is the marker
    in effect (default: ``unlabeled`` itself).
    """
    if len(classes) >= 2:
        return
    if marker is _UNRESOLVED:
        marker = unlabeled
    if len(classes) == 0:
        found = "no labelled rows"
    else:
        only = classes[0].item() if isinstance(classes[0], np.generic) else classes[0]
        found = f"only one class ({only!r}) among the labelled rows"
    if unlabeled is None and not (marker is None or _is_nan(marker)):
        remedy = (f"If {marker!r} is a class of your data (as in a -1 / +1 coding), put NaN (float labels) or None "
                  f"(object labels) on the unlabelled rows and keep unlabeled=None, or pass a marker that is not a "
                  f"class, e.g. unlabeled=0")
    else:
        remedy = (f"If {marker!r} is a class of your data (as in a -1 / +1 coding), pass a marker that is not a "
                  f"class, e.g. unlabeled=None with NaN on the unlabelled rows")
    raise ValueError(
        f"{func} needs labelled rows of at least two classes. Got {found}, with {n_unlabeled} rows marked "
        f"unlabelled by {describe_marker(unlabeled, marker)} instead. {remedy}; or build the target with "
        f"toolkit.data.Dataset.target(split).")


# Largest squared row norm for which every entry of X Zᵀ and of ||x||² + ||z||² - 2 xᵀz is finite:
# |xᵀz| <= ||x|| ||z|| (Cauchy-Schwarz), so norms below max/4 keep the three terms and their sum
# below the largest float64 (kernels and Euclidean distances alike). Checked before any product,
# in O(nd), so overflow never reaches BLAS or a neighbour search.
MAX_SQ_NORM = np.finfo(np.float64).max / 4


def check_row_norms(X, name, func):
    """Squared row norms of ``X`` (dense or sparse); raise, naming ``X``, when they would overflow.

    Finite features can still overflow a kernel or a distance (``X * 1e200``: NaN kernels with
    only a ``RuntimeWarning``, a neighbour search that loses its neighbours); refused here with
    a message that suggests scaling, without any floating-point warning.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        if sp.issparse(X):
            sq = np.asarray(X.multiply(X).sum(axis=1)).ravel()
        else:
            sq = np.einsum("ij,ij->i", X, X)
    bad = ~(sq <= MAX_SQ_NORM)          # also NaN
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"The {name!r} parameter of {func} has rows too large for float64 kernels and distances: "
                         f"the squared norm of row {i} is {float(sq[i]):.3g} (at most {MAX_SQ_NORM:.3g} keeps every "
                         f"kernel entry and distance finite). Scale the features, e.g. standardise the columns.")
    return sq


def check_consistent_rows(func, **arrays):
    """Raise if the named arrays do not all have the same number of rows, naming both sizes."""
    items = [(k, v.shape[0]) for k, v in arrays.items()]
    first_name, first_n = items[0]
    for other_name, other_n in items[1:]:
        if other_n != first_n:
            raise ValueError(f"{func}: {first_name!r} has {first_n} rows but {other_name!r} has {other_n}; they must match.")


def check_features(func, name_a, A, name_b, B):
    """Raise if two matrices do not have the same number of columns, naming both sizes."""
    if A.shape[1] != B.shape[1]:
        raise ValueError(f"{func}: {name_a!r} has {A.shape[1]} features but {name_b!r} has {B.shape[1]}; they must match.")


def check_rng(rng):
    """Return ``(generator, seed)`` from ``rng`` (None, int seed or Generator); the seed is stored in results."""
    if isinstance(rng, np.random.Generator):
        return rng, None
    if rng is None:
        seed = int(np.random.SeedSequence().entropy % (2**32))
        return np.random.default_rng(seed), seed
    if isinstance(rng, numbers.Integral) and not isinstance(rng, bool) and rng >= 0:
        return np.random.default_rng(int(rng)), int(rng)
    raise TypeError(f"The 'rng' parameter must be None, a non-negative int seed or a numpy Generator. Got {_fmt(rng)} instead.")
