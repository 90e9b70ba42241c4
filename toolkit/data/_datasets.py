"""``load``: the benchmark data sets as frozen :class:`Dataset` objects."""
from __future__ import annotations

import numbers
import sys
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from .._validation import check_indices, check_option, check_rng, check_scalar, unlabeled_mask
from . import _parsers
from ._registry import catalogue, fetch_file

__all__ = ["Dataset", "load", "available"]


@dataclass(frozen=True, eq=False, repr=False)
class Dataset:
    """A data set (or a binary task drawn from one), with its provenance.

    Attributes
    ----------
    X : ndarray of shape (n_samples, n_features) or scipy.sparse.csr_matrix
        The patterns, rows in the order of the source files.
    y : ndarray of shape (n_samples,)
        For a binary task ``load(name, a, b)``: +1 for class (group) ``a``, -1 for ``b``.
        Without class arguments: the original labels.
    classes : tuple
        Binary task: ``(a, b)`` as given (a group is a tuple). Otherwise the sorted original labels.
    name : str
        The catalogue name (``"usps"``, ``"ssl-book"``, ...).
    description : str
        Title, selected classes, options and preprocessing, in words.
    citation, licence : str
        What to cite, and the licence the source states.
    files : tuple of str
        The registry files the data were read from (empty for synthetic sets).
    sha256 : tuple of str
        The verified hash of each file, ``"sha256:<hex>"`` (``"md5:<hex>"`` for the one MNIST
        file known only by its MD5).
    urls : tuple of str
        The address each file was fetched from (mirror or canonical).
    labels : ndarray of shape (n_samples,)
        The original labels of the rows (equal to ``y`` without class arguments).
    rows : ndarray of shape (n_samples,)
        Indices of the rows in the full source set (0-based), e.g. for the fixed splits.
    n_source : int
        Number of rows of the full source set (after the ``split`` / ``n`` options).
    options : dict
        The load options in effect (including the seed of synthetic sets).
    binary : bool
        Whether two class arguments were given (``y`` is then coded +1 / -1).
    """

    X: object
    y: np.ndarray
    classes: tuple
    name: str
    description: str
    citation: str
    licence: str
    files: tuple = ()
    sha256: tuple = ()
    urls: tuple = ()
    labels: np.ndarray = field(default=None)
    rows: np.ndarray = field(default=None)
    n_source: int = 0
    options: dict = field(default_factory=dict)
    binary: bool = False

    @property
    def shape(self) -> tuple[int, int]:
        """``X.shape``."""
        return tuple(self.X.shape)

    def __repr__(self) -> str:
        kind = "sparse" if sp.issparse(self.X) else "dense"
        opts = "".join(f", {k}={v!r}" for k, v in self.options.items())
        cls = "".join(f", {c!r}" for c in self.classes) if self.binary else ""
        return f"<Dataset {self.name}{cls}{opts}: {self.shape[0]} x {self.shape[1]} {kind}>"

    def target(self, split=None, *, unlabeled=None) -> np.ndarray:
        """The target a scikit-learn style estimator expects: class labels, missing labels elsewhere.

        Every row gets its class label -- for a binary task ``load(name, a, b)`` the class
        arguments ``a`` / ``b`` themselves (a group is named by its ``str``), otherwise the
        original labels -- and, when ``split`` is given, every row that is not in
        ``split.labeled`` gets a missing label instead: NaN (a float array) when the classes are
        numbers, None (an object array) when they are not. That is what the default
        ``unlabeled=None`` of the estimators and of :class:`~toolkit.selection.SemiSupervisedKFold`
        reads as unlabelled (:func:`toolkit._validation.resolve_unlabeled`), on every data set:
        unlike scikit-learn's marker -1, a missing label never collides with a class, so the
        -1 / +1 classes of G50C, Gaussian2C or the SSL-book sets stay classes.

        Parameters
        ----------
        split : Split or None, default=None
            The experiment whose labelled rows keep their labels; None labels every row (for
            scoring, e.g. ``ds.target()[split.test]``).
        unlabeled : int, str, float or None, default=None
            The marker written on the rows not labelled: None writes missing labels (NaN or
            None, as above); any other value is written as given and must not be a class (a
            marker equal to a class is refused). Give the estimators and the splitter the same
            value.

        Returns
        -------
        ndarray of shape (n_samples,)
            Without ``split``: the class labels. With it: float labels and NaN where the classes
            are numbers and ``unlabeled=None``; integer labels where classes and an explicit
            marker are integers; otherwise an object array.

        Examples
        --------
        >>> from toolkit import data
        >>> from toolkit.estimators import LapSVM
        >>> ds = data.load("usps", 2, 5)                                # doctest: +SKIP
        >>> sp = data.split(ds, l=20, rng=0)                             # doctest: +SKIP
        >>> rows = np.concatenate([sp.labeled, sp.unlabeled])            # doctest: +SKIP
        >>> model = LapSVM(sigma=9.4).fit(ds.X[rows], ds.target(sp)[rows])  # doctest: +SKIP
        >>> model.score(ds.X[sp.test], ds.target()[sp.test])             # doctest: +SKIP
        """
        func = "Dataset.target"
        if self.binary:
            names = [a if np.ndim(a) == 0 else str(a) for a in self.classes]
            integral = all(isinstance(a, numbers.Integral) for a in names)
            labels = np.array(names, dtype=np.int64 if integral else object)[np.where(self.y == 1, 0, 1)]
            classes = names
        else:
            labels = np.asarray(self.labels)
            classes = np.unique(labels).tolist()
        if unlabeled is not None and any(unlabeled_mask(np.asarray([c], dtype=object), unlabeled)[0] for c in classes):
            raise ValueError(
                f"The 'unlabeled' parameter of {func} must not be a class of {self!r} (classes "
                f"{tuple(classes)}). Got unlabeled={unlabeled!r} instead; keep the default unlabeled=None (NaN on "
                f"the rows outside split.labeled) or pass a marker that is not a class, e.g. "
                f"unlabeled={_free_marker(classes)!r}, and the same value to the estimator's 'unlabeled'.")
        if split is None:
            return labels.copy()
        if not hasattr(split, "labeled"):
            raise TypeError(f"The 'split' parameter of {func} must be a toolkit.data.Split or None. "
                            f"Got {type(split).__name__} instead.")
        labeled = check_indices(split.labeled, "split.labeled", func, labels.shape[0])
        if unlabeled is None:
            numeric = all(isinstance(c, numbers.Real) and not isinstance(c, bool) for c in classes)
            target = np.full(labels.shape[0], np.nan if numeric else None, dtype=np.float64 if numeric else object)
        else:
            integral = labels.dtype.kind in "iu" and isinstance(unlabeled, numbers.Integral) \
                and not isinstance(unlabeled, bool)
            target = np.full(labels.shape[0], unlabeled, dtype=labels.dtype if integral else object)
        target[labeled] = labels[labeled]
        return target

    def summary(self) -> str:
        """A few lines: shape, class counts, provenance."""
        values, counts = np.unique(self.y, return_counts=True)
        lines = [repr(self), self.description,
                 "classes: " + ", ".join(f"{v}: {c}" for v, c in zip(values, counts))]
        lines += [f"file {f} {h} from {u}" for f, h, u in zip(self.files, self.sha256, self.urls)]
        lines += [f"cite: {self.citation}", f"licence: {self.licence}"]
        return "\n".join(lines)


def _free_marker(classes):
    """A marker for unlabelled rows that is not one of ``classes``: -1, else 0, else the smallest free negative."""
    taken = {c for c in classes if isinstance(c, numbers.Integral)}
    for candidate in (-1, 0):
        if candidate not in taken:
            return candidate
    return min(taken) - 1


# --------------------------------------------------------------------------------------------
# raw loaders: options -> (X, labels, records, options in effect, extra description)


def _records(names):
    # a progress bar when someone is watching a terminal (downloads only; copies are quick)
    progressbar = bool(getattr(sys.stderr, "isatty", lambda: False)())
    return [fetch_file(name, progressbar=progressbar) for name in names]


def _load_usps(opts):
    train, test = _records(["zip.train.gz", "zip.test.gz"])
    a = _parsers.parsed(train, _parsers.parse_esl_text)
    b = _parsers.parsed(test, _parsers.parse_esl_text)
    X = np.concatenate([a["X"], b["X"]])
    X += 1.0
    X *= 0.5
    return X, np.concatenate([a["y"], b["y"]]), [train, test], {}


def _load_mat_set(file):
    def loader(opts):
        (record,) = _records([file])
        arrays = _parsers.parsed(record, _parsers.parse_mat)
        return arrays["X"], arrays["y"], [record], {}
    return loader


_MNIST = {"train": ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"),
          "test": ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz")}


def _load_mnist(opts):
    split = check_option(opts.pop("split", "train"), "split", "load('mnist')", ("train", "test", "all"))
    parts = ("train", "test") if split == "all" else (split,)
    images, labels, records = [], [], []
    for part in parts:
        image_record, label_record = _records(_MNIST[part])
        images.append(_parsers.parsed(image_record, _parsers.parse_idx)["data"].reshape(-1, 784))
        labels.append(_parsers.parsed(label_record, _parsers.parse_idx)["data"].astype(np.int64))
        records += [image_record, label_record]
    return np.concatenate(images), np.concatenate(labels), records, {"split": split}


def _area_matrix(n_in: int, n_out: int) -> np.ndarray:
    """(n_out, n_in) box-filter resampling: row i averages input cells over [i, i+1) * n_in / n_out."""
    edges = np.arange(n_out + 1) * (n_in / n_out)
    lo, hi = edges[:-1, None], edges[1:, None]
    cells = np.arange(n_in)[None, :]
    overlap = np.clip(np.minimum(hi, cells + 1) - np.maximum(lo, cells), 0, None)
    return overlap / overlap.sum(axis=1, keepdims=True)


def _load_coil20(opts):
    size = check_scalar(opts.pop("size", 32), "size", "load('coil20')", kind=numbers.Integral, low=1, high=32)
    (record,) = _records(["COIL20.mat"])
    arrays = _parsers.parsed(record, _parsers.parse_mat)
    X = arrays["fea"]
    if size != 32:
        # column-major as stored: image[r, c] = row[c * 32 + r]
        images = X.reshape(-1, 32, 32).transpose(0, 2, 1)
        R = _area_matrix(32, size)
        small = np.einsum("ir,nrc,jc->nij", R, images, R, optimize=True)
        X = np.ascontiguousarray(small.transpose(0, 2, 1)).reshape(len(X), size * size)
    return X, arrays["gnd"], [record], {"size": size}


def _ssl_book_set(value):
    sets = catalogue()["ssl-book"]["sets"]
    for key, table in sets.items():
        names = [table["name"].lower()] + [a.lower() for a in table.get("aliases", [])]
        if (isinstance(value, numbers.Integral) and not isinstance(value, bool) and int(key) == value) or (
                isinstance(value, str) and (value.lower() in names or value == key)):
            return int(key), table
    listing = ", ".join(f"{k} = {t['name']}" for k, t in sets.items())
    raise ValueError(f"The set of load('ssl-book', set, ...) must be one of {listing} (number or name). "
                     f"Got {value!r} instead.")


def _secstr_features(T: np.ndarray) -> sp.csr_matrix:
    """Expand (n, 15) amino-acid codes 0..20 into the book's 315 binary features (21 per position)."""
    n, positions = T.shape
    columns = (np.arange(positions) * 21)[None, :] + T.astype(np.int64)
    indptr = np.arange(0, n * positions + 1, positions)
    data = np.ones(n * positions)
    return sp.csr_matrix((data, columns.ravel(), indptr), shape=(n, 21 * positions))


def _load_ssl_book(opts):
    number, table = _ssl_book_set(opts.pop("set"))
    (record,) = _records([table["files"][0]])
    arrays = _parsers.parsed(record, _parsers.parse_mat)
    X = _secstr_features(arrays["T"]) if "T" in arrays else arrays["X"]
    return X, arrays["y"], [record], {"set": number, "set_name": table["name"]}


# --------------------------------------------------------------------------------------------
# synthetic data sets (no download)


def _gaussians(means, n, d, generator):
    """n points split evenly over ``means`` (remainder to the last); unit covariance; shuffled."""
    k = len(means)
    counts = [n // k] * (k - 1) + [n - (k - 1) * (n // k)]
    X = generator.normal(size=(n, d))
    start = 0
    for mean, count in zip(means, counts):
        X[start:start + count, :len(mean)] += mean
        start += count
    return X, counts


def _synthetic_sizes(opts, func, default_n, default_d=None):
    n = check_scalar(opts.pop("n", default_n), "n", func, kind=numbers.Integral, low=4)
    d = None
    if default_d is not None:
        d = check_scalar(opts.pop("d", default_d), "d", func, kind=numbers.Integral, low=2)
    generator, seed = check_rng(opts.pop("rng", None))
    return n, d, generator, seed


def _load_gaussian2c(opts):
    n, d, generator, seed = _synthetic_sizes(opts, "load('gaussian2c')", 500, 500)
    # the same draws as shared/acceptance/reference.py: normal(n, d), shift feature 0, permute
    X, counts = _gaussians([(-2.5,), (2.5,)], n, d, generator)
    y = np.r_[np.ones(counts[0], dtype=np.int64), -np.ones(counts[1], dtype=np.int64)]
    perm = generator.permutation(n)
    return X[perm], y[perm], [], {"n": n, "d": d, "rng": seed}


def _load_gaussian4c(opts):
    n, d, generator, seed = _synthetic_sizes(opts, "load('gaussian4c')", 500, 500)
    X, counts = _gaussians([(-2.5, -5.0), (-2.5, 5.0), (2.5, -5.0), (2.5, 5.0)], n, d, generator)
    y = np.r_[np.ones(counts[0] + counts[1], dtype=np.int64), -np.ones(counts[2] + counts[3], dtype=np.int64)]
    perm = generator.permutation(n)
    return X[perm], y[perm], [], {"n": n, "d": d, "rng": seed}


def _load_moons(opts):
    n, _, generator, seed = _synthetic_sizes(opts, "load('moons')", 200)
    noise = check_scalar(opts.pop("noise", 0.1), "noise", "load('moons')", low=0.0)
    upper = n // 2
    t_up = np.linspace(0.0, np.pi, upper)
    t_low = np.linspace(0.0, np.pi, n - upper)
    X = np.r_[np.c_[np.cos(t_up), np.sin(t_up)], np.c_[1.0 - np.cos(t_low), 0.5 - np.sin(t_low)]]
    X += noise * generator.normal(size=X.shape)
    y = np.r_[np.ones(upper, dtype=np.int64), -np.ones(n - upper, dtype=np.int64)]
    perm = generator.permutation(n)
    return X[perm], y[perm], [], {"n": n, "noise": noise, "rng": seed}


_LOADERS = {
    "usps": _load_usps,
    "uspst": _load_mat_set("uspst.mat"),
    "mnist": _load_mnist,
    "coil20": _load_coil20,
    "g50c": _load_mat_set("g50c.mat"),
    "pcmac": _load_mat_set("text1.mat"),
    "ssl-book": _load_ssl_book,
    "gaussian2c": _load_gaussian2c,
    "gaussian4c": _load_gaussian4c,
    "moons": _load_moons,
}


def available() -> tuple[str, ...]:
    """Names accepted by :func:`load`.

    Examples
    --------
    >>> from toolkit.data import available
    >>> "usps" in available() and "ssl-book" in available()
    True
    """
    return tuple(_LOADERS)


# --------------------------------------------------------------------------------------------
# classes, post-processing


def _as_group(value, name):
    if isinstance(value, (list, tuple, range, np.ndarray)):
        group = tuple(int(v) if isinstance(v, numbers.Integral) else v for v in value)
        if not group:
            raise ValueError(f"An empty class group was given to load({name!r}).")
        return group
    return (int(value) if isinstance(value, numbers.Integral) else value,)


def _select(labels, classes, name):
    known = np.unique(labels)
    if len(classes) == 0:
        return np.arange(len(labels)), labels.copy(), tuple(known.tolist())
    if len(classes) != 2:
        raise ValueError(f"load({name!r}, ...) takes no class arguments (all classes, original labels) or two "
                         f"(a binary task, +1 / -1). Got {len(classes)}: {classes!r}.")
    groups = [_as_group(c, name) for c in classes]
    listing = ", ".join(str(k) for k in known.tolist())
    for group in groups:
        for c in group:
            if not (isinstance(c, numbers.Number) and c in known):
                raise ValueError(f"Class {c!r} is not a class of {name!r}; its classes are {listing}.")
    both = set(groups[0]) & set(groups[1])
    if both:
        raise ValueError(f"Class {sorted(both)[0]!r} is on both sides of the binary task {name}{tuple(classes)!r}; "
                         "the two class arguments must not share classes.")
    first = np.isin(labels, groups[0])
    rows = np.flatnonzero(first | np.isin(labels, groups[1]))
    y = np.where(first[rows], 1, -1).astype(np.int64)
    shown = tuple(g[0] if len(g) == 1 and not isinstance(c, (list, tuple, range, np.ndarray)) else g
                  for g, c in zip(groups, classes))
    return rows, y, shown


def _unit_rows(X):
    if sp.issparse(X):
        norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
        norms[norms == 0] = 1.0
        return sp.csr_matrix(sp.diags(1.0 / norms) @ X)
    norms = np.linalg.norm(X, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return X / norms


def _global_scale(X):
    """X divided by one factor, the mean row norm (the rows' relative lengths and angles kept)."""
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel()) if sp.issparse(X) else np.linalg.norm(X, axis=1)
    scale = float(norms.mean())
    return X / scale if scale > 0 else X


def load(name, *classes, **options):
    """Load a benchmark data set, or a binary task drawn from it.

    Parameters
    ----------
    name : str
        One of ``"usps"``, ``"uspst"``, ``"mnist"``, ``"coil20"``, ``"g50c"``, ``"pcmac"``,
        ``"ssl-book"``, ``"gaussian2c"``, ``"gaussian4c"``, ``"moons"`` (see :func:`available`).
        For ``"ssl-book"`` the first positional argument after the name is the set, by number
        (1..9) or name (``"g241n"``).
    *classes : label or sequence of labels
        None: all classes with their original labels. Two: a binary task with ``y = +1`` for the
        first and ``y = -1`` for the second; each may be a group, e.g. ``[0, 1, 2, 3, 4]``.
    **options
        Per data set (defaults in brackets):

        - ``mnist``: ``split`` ("train" | "test" | "all" = train then test) ["train"], ``n``
          (keep the first n rows of the chosen classes) [None], ``normalize``
          ("pixels" = x / 255 | "unit" = rows of x / 255 scaled to unit norm | "global" = x / 255
          divided by its mean row norm | "raw") ["pixels"];
          with ``split="all"``, ``options["n_train"]`` counts the leading rows from the training file;
        - ``coil20``: ``size`` (images resampled to size x size by area averaging) [32];
        - every real data set: ``normalize`` (None | "unit" = each row scaled to unit norm |
          "global" = every row divided by one factor, the mean row norm, which keeps the rows'
          relative lengths) [None], ``n`` [None];
        - ``gaussian2c`` / ``gaussian4c``: ``n`` [500], ``d`` [500], ``rng`` [None];
        - ``moons``: ``n`` [200], ``noise`` [0.1], ``rng`` [None].

    Returns
    -------
    Dataset
        Frozen: ``X`` (n_samples, n_features), ``y``, ``classes``, ``name``, ``description``,
        ``citation``, ``licence``, and provenance (``files``, ``sha256``, ``urls``, ``rows``).

    Raises
    ------
    ValueError
        Unknown name (the message lists the available ones), unknown class, a class on both
        sides, unknown option.
    toolkit.data.DataError
        A file cannot be fetched or fails its hash check (see ``TOOLKIT_DATA_MIRROR``).

    Warns
    -----
    toolkit.data.DataCacheWarning
        A damaged parsed-array cache file was removed and rebuilt from the verified raw file, or
        the cache folder could not be written (the arrays are then parsed at every load).

    Notes
    -----
    Data sets, shapes and class coding (``data_registry/catalogue.toml`` has the full record):

    - ``usps``: ESL ``zip.train`` then ``zip.test``, 9298 x 256, grey values mapped from
      [-1, 1] to [0, 1] (Gieseke et al.). USPS(2,5) has 1645 rows (929 / 716). Cite Hastie,
      Tibshirani, Friedman, *The Elements of Statistical Learning* (2009) and Le Cun et al.
      (1990); no explicit licence.
    - ``uspst``: ``uspst.mat`` of Chapelle & Zien (AISTATS 2005), 2007 x 256, values as stored;
      USPST(B) = ``load("uspst", [0, 1, 2, 3, 4], [5, 6, 7, 8, 9])``. No explicit licence.
    - ``mnist``: LeCun et al. (Proc. IEEE 1998), 28 x 28 images flattened row-major;
      CC BY-SA 3.0. MNIST3VS8 (Melacci & Belkin) = ``load("mnist", 3, 8, split="all",
      normalize="unit")``.
    - ``coil20``: Nene, Nayar, Murase (1996), Deng Cai's 32 x 32 version, 1440 x 1024, objects
      1..20, pixels flattened column-major as MATLAB stores them. ``size=20`` resamples each
      image with a box filter (each output pixel is the area-weighted mean of the input pixels
      it covers) to give Gieseke et al.'s 400 features. No explicit licence.
    - ``g50c`` (550 x 50) and ``pcmac`` (``text1.mat``, sparse CSR 1946 x 7511): Chapelle &
      Zien (2005), Sindhwani et al. (ICML 2005). No explicit licence.
    - ``ssl-book``: Chapelle, Schoelkopf, Zien, *Semi-Supervised Learning* (MIT Press 2006),
      ch. 21; sets 1 Digit1, 2 USPS, 3 COIL2, 4 BCI, 5 g241c, 6 COIL, 7 g241n, 8 SecStr
      (15 amino-acid codes expanded to 315 sparse binary features), 9 Text.
    - ``gaussian2c``, ``gaussian4c``, ``moons``: Gieseke et al. (Evolutionary Intelligence 2012),
      Table 1; generated locally from ``rng``.

    Files are fetched once into ``TOOLKIT_DATA_DIR`` and hash-checked on every load; parsed
    arrays are cached beside them, so a warm load costs a hash check and a binary read. A
    relative ``TOOLKIT_DATA_DIR`` or ``TOOLKIT_DATA_MIRROR`` is resolved against the directory the
    command was run from (``$PWD``, else the working directory; see
    :func:`toolkit.data.resolve_setting_path`).

    Examples
    --------
    >>> from toolkit import data
    >>> ds = data.load("usps", 2, 5)                               # doctest: +SKIP
    >>> ds.X.shape, int((ds.y == 1).sum()), int((ds.y == -1).sum())  # doctest: +SKIP
    ((1645, 256), 929, 716)
    >>> data.load("gaussian2c", n=100, d=5, rng=0).X.shape
    (100, 5)
    >>> data.load("ssl-book", "g241n").X.shape                     # doctest: +SKIP
    (1500, 241)
    """
    if name not in _LOADERS:
        raise ValueError(f"Unknown data set {name!r}. Available data sets: {', '.join(_LOADERS)}.")
    opts = dict(options)
    if name == "ssl-book":
        if not classes:
            _ssl_book_set(None)  # raises, listing the sets
        opts["set"], classes = classes[0], classes[1:]
    func = f"load({name!r})"
    real = name not in ("gaussian2c", "gaussian4c", "moons")
    n_keep = opts.pop("n", None) if real else None
    normalize_options = ("pixels", "unit", "raw", "global") if name == "mnist" else (None, "unit", "global")
    normalize = check_option(opts.pop("normalize", normalize_options[0]), "normalize", func, normalize_options) \
        if real else None
    X, labels, records, used = _LOADERS[name](opts)
    if opts:
        raise TypeError(f"{func} got unexpected option(s) {', '.join(map(repr, opts))}; see help(toolkit.data.load).")

    rows, y, shown = _select(labels, classes, name)
    if n_keep is not None:
        n_keep = check_scalar(n_keep, "n", func, kind=numbers.Integral, low=1, high=len(rows))
        rows, y = rows[:n_keep], y[:n_keep]
    X = X[rows]
    if name == "mnist":
        X = X.astype(np.float64)
        if normalize != "raw":
            X /= 255.0
    if normalize == "unit":
        X = _unit_rows(X)
    elif normalize == "global":
        X = _global_scale(X)
    if sp.issparse(X):
        X = sp.csr_matrix(X)
    if normalize is not None and normalize != normalize_options[0] or name == "mnist":
        used["normalize"] = normalize
    if n_keep is not None:
        used["n"] = n_keep
    if name == "mnist" and used["split"] == "all":
        # MNIST3VS8 (Melacci & Belkin) keeps the original division: rows before n_train are training rows
        used["n_train"] = int(np.sum(rows < 60000))

    table = catalogue()[name]
    title = table["title"]
    if name == "ssl-book":
        title = f"{title}: set {used['set']} ({used['set_name']})"
    task = f"binary task {shown[0]!r} (+1) vs {shown[1]!r} (-1)" if len(classes) == 2 else "all classes, original labels"
    description = f"{title}; {task}; preprocessing: {table['preprocessing']}"
    return Dataset(
        X=X, y=y, classes=shown, name=name, description=description,
        citation=table["citation"], licence=table["licence"],
        files=tuple(r.name for r in records), sha256=tuple(r.hash for r in records),
        urls=tuple(r.url for r in records), labels=labels[rows], rows=rows,
        n_source=len(labels), options=used, binary=len(classes) == 2,
    )
