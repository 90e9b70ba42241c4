"""Cross-validated estimators: the recommended entry point, in the spirit of glmnet's ``cv.glmnet``.

:class:`LapSVMCV`, :class:`LapRLSCCV` and :class:`S2RLSCCV` choose their regularisation weights
and, by default, the RBF width and the graph's neighbours from a small grid read off the data,
by stratified k-fold cross-validation over the *labelled* rows with every unlabelled row in every
training fold (the papers' realistic scenario, Gieseke et al. 2012 §4.1.2; the folds of
:class:`~toolkit.selection.SemiSupervisedKFold`), then refit the chosen model on every row.

They are built on the toolkit's one selection engine, :func:`toolkit.selection.select`: one job
per (kernel width, fold), whose kernel matrix is computed once for every other grid value, one
graph Laplacian per (fold, graph setting) shared across the (γ_A, γ_I) grid, and PCG warm-started
from the neighbouring grid point's solution. The fitted search is kept whole (``selection_``);
``cv_results_`` holds it in scikit-learn's layout, ``plot`` draws the CV curve with ``lambda_min``
and glmnet's 1-SE choice marked.
"""
from __future__ import annotations

import dataclasses
import json
import numbers
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.utils.validation import check_consistent_length, check_is_fitted, column_or_1d

from toolkit._compat import validate_data
from toolkit._display import Result
from toolkit._validation import check_labeled_classes, check_option, check_scalar, marker_mask, resolve_unlabeled
from toolkit.estimators._base import (DEPRECATED, SemiSupervisedClassifier, _marker_hint, current_params,
                                     renamed_in_use, warn_deprecated)
from toolkit.estimators._classifiers import RLSC, S2RLSC, LapRLSC, LapSVM
from toolkit.stats import corrected_ttest, helped_verdict

__all__ = ["LapSVMCV", "LapRLSCCV", "S2RLSCCV", "UnlabeledComparison", "SIGMA_FACTORS", "SUPERVISED_RULES",
           "SUPERVISED_WEIGHTS"]

#: ``sigma="scale"`` of the cross-validated estimators searches these multiples of the width
#: ``sigma="scale"`` of the plain estimators (:func:`toolkit.kernels.scale_width`, half the median
#: distance between rows); chosen with ``python benchmarks/bench_defaults.py`` (the benchmarks page).
SIGMA_FACTORS = (1.0, 2.0)

#: The rules between the best semi-supervised and the best supervised candidate (``supervised=``).
SUPERVISED_RULES = ("min", "1se", "off")
#: The supervised limit's regularisation weight and its candidates: γ_A of the Laplacian family without
#: the graph (γ_I = 0; ``1 / γ_A`` plays SVC's C), λ of S²RLSC's RLSC (the estimator's own ``lam``
#: candidates). Chosen with ``python benchmarks/bench_supervised_candidates.py``.
SUPERVISED_WEIGHTS = {"gamma_A": (1e-4, 1e-2, 1.0, 10.0), "lam": None}

#: ``n_folds=None``: this many folds, or the largest class's labelled rows when fewer. Three folds
#: hold out as many labelled rows in all as five (every labelled row once) for 40 % fewer fits.
DEFAULT_FOLDS = 3


def _candidates(value, name, func, *, low=0.0, integral=False):
    """A tuple of candidate values from a scalar or a sequence, each checked."""
    values = (value,) if np.ndim(value) == 0 else tuple(np.asarray(value).ravel().tolist())
    if not values:
        raise ValueError(f"The '{name}' parameter of {func} must hold at least one candidate value. Got {value!r} "
                         "instead.")
    kind = numbers.Integral if integral else numbers.Real
    return tuple(check_scalar(v, name, func, kind=kind, low=low) for v in values)


@dataclass(frozen=True, repr=False)
class UnlabeledComparison(Result):
    """Did the unlabelled data help? The chosen semi-supervised candidate of a CV estimator's search
    against the best supervised one (the same model without the graph), over the same folds.

    Attributes
    ----------
    semi_supervised_params, supervised_params : dict
    semi_supervised_error, semi_supervised_se, supervised_error, supervised_se : float
        Mean CV error over the folds, in percent, and its standard error.
    test : toolkit.stats.TestResult
        Nadeau & Bengio's corrected resampled t-test of the paired fold errors
        (:func:`toolkit.stats.corrected_ttest`, ``n_test / n_train = 1 / (k - 1)``).
    verdict : str
        :func:`toolkit.stats.helped_verdict`: "helped", "hurt" or "no significant difference".
    refitted : str
        "semi-supervised" or "supervised": which candidate the rule refitted.
    rule : str
        "min" (the semi-supervised candidate only when its CV error is below the supervised one's) or
        "1se" (only when it is below by more than its standard error).
    """

    semi_supervised_params: dict
    supervised_params: dict
    semi_supervised_error: float
    semi_supervised_se: float
    supervised_error: float
    supervised_se: float
    test: Any
    verdict: str
    refitted: str
    rule: str

    _title = "Did the unlabelled data help? (CV over the labelled rows)"

    def _rows(self):
        return [("semi-supervised", f"{self.semi_supervised_error:.2f} ± {self.semi_supervised_se:.2f} %  "
                                    f"{self.semi_supervised_params}"),
                ("supervised", f"{self.supervised_error:.2f} ± {self.supervised_se:.2f} %  {self.supervised_params}"),
                ("paired test", f"{self.test.test} over {self.test.n} folds: p = {self.test.pvalue:.4g}"),
                ("verdict", self.verdict), ("refitted", f"{self.refitted} (rule {self.rule!r})")]

    def _brief(self):
        return f"verdict={self.verdict!r}, refitted={self.refitted!r}"


def _row(selection, params, names):
    """The summary of the candidate ``params`` (its ``names``) in ``selection``: mean and se of the CV error
    (percent) and the error of each fold, in fold order."""
    table = selection.summary_table
    keys = [json.loads(k) for k in table["params"]]
    i = next(j for j, p in enumerate(keys) if {name: p[name] for name in names} == params)
    rows = selection.results[(selection.results["metric"] == "cv_error")
                             & (selection.results["params"] == table["params"].iloc[i])]
    folds = rows.assign(k=rows["fold"].astype(int)).sort_values("k")["value"].to_numpy(dtype=float)
    return {"mean": float(table["mean"].iloc[i]), "se": float(table["se"].iloc[i]), "folds": folds,
            "params": {name: keys[i][name] for name in names}}


def _best_params(selection, names):
    return {name: selection.lambda_min[name] for name in names}


class _SelectionCV(SemiSupervisedClassifier):
    """Shared by the CV estimators: the search by :func:`toolkit.selection.select` and the refit."""

    _method = None          # the registry name select fits
    _estimator = None       # the estimator refitted with the chosen parameters
    _grid_names = ()        # parameters holding candidate values
    _simplest = None        # the weight whose largest candidate is the simplest model (refit="1se")
    _supervised_method = None      # the registry name of the supervised limit (None: the same, gamma_I = 0)
    _supervised_estimator = None   # its estimator (None: the same)
    _supervised_weight = "gamma_A"  # its regularisation weight (SUPERVISED_WEIGHTS)
    _supervised_solver = {}         # how it is solved: exactly (it is a supervised problem on the labelled rows)

    # ---- the search space ------------------------------------------------------------------------
    def _fixed(self) -> dict:
        """Parameters passed unchanged to every fit (everything but the candidates and the CV's own)."""
        own = set(self._grid_names) | {"sigma", "n_folds", "refit", "n_jobs", "progress", "unlabeled", "random_state",
                                       "supervised"}
        return {k: v for k, v in current_params(self).items() if k not in own}

    def _widths(self, X, func):
        if self.kernel != "rbf":
            return None
        if isinstance(self.sigma, str):
            check_option(self.sigma, "sigma", func, ("scale",))
            from toolkit.kernels import scale_width

            width = scale_width(X)
            return tuple(float(f * width) for f in SIGMA_FACTORS)
        return _candidates(self.sigma, "sigma", func)

    def _search_space(self, X, func):
        grid = {}
        widths = self._widths(X, func)
        if widths is not None:
            grid["sigma"] = widths
        values = current_params(self)
        for name in self._grid_names:
            grid[name] = _candidates(values[name], name, func, integral=(name in ("n_neighbors", "laplacian_power")))
        return grid, self._fixed()

    # ---- scikit-learn's interface ------------------------------------------------------------------
    def fit(self, X, y):
        """Choose the parameters by cross-validation over the labelled rows, then refit on every row.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Every training row, labelled or not.
        y : array-like of shape (n_samples,)
            Class labels with the marker ``unlabeled`` on the unlabelled rows (see
            :mod:`toolkit.estimators`).

        Returns
        -------
        self
        """
        from toolkit.selection import Indices, get_method, select

        warn_deprecated(self, renamed_in_use(self))
        name = type(self).__name__
        func = f"{name}.fit"
        if y is None:
            raise ValueError(f"{name} requires y to be passed, but the target y is None (mark the unlabelled "
                             f"rows with the marker 'unlabeled').")
        X = validate_data(self, X, accept_sparse="csr" if self._sparse else False, dtype=np.float64)
        y = column_or_1d(y, warn=True)
        check_consistent_length(X, y)
        marker = resolve_unlabeled(y, self.unlabeled)
        is_unlabeled = marker_mask(y, marker)
        labeled, unlabeled = np.flatnonzero(~is_unlabeled), np.flatnonzero(is_unlabeled)
        classes, codes = np.unique(y[labeled], return_inverse=True)
        check_labeled_classes(classes, unlabeled.size, self.unlabeled, func, marker=marker)
        if unlabeled.size == 0:
            self._refuse_without_unlabeled(y, marker, _marker_hint(y, marker))
        counts = np.bincount(codes)
        if counts.max() < 2:        # every class a single labelled row: no fold can hold one out
            n_folds = 0
        elif self.n_folds is None:
            n_folds = int(min(DEFAULT_FOLDS, counts.max()))
        else:
            n_folds = check_scalar(self.n_folds, "n_folds", name, kind=numbers.Integral, low=2,
                                   high=int(counts.max()))
        if self.refit not in ("min", "1se"):
            raise ValueError(f"The 'refit' parameter of {name} must be 'min' or '1se'. Got {self.refit!r} instead.")
        if len(classes) > 2 and not self._multiclass:
            raise ValueError(f"{func}: {self._method} is a two-class method and its selection needs exactly two "
                             f"classes. Got {len(classes)} classes ({classes.tolist()[:5]}) instead; use "
                             f"{self._estimator.__name__} (one-vs-rest) with fixed parameters.")
        grid, fixed = self._search_space(X, func)
        if n_folds == 0:
            best = {name: values[0] for name, values in grid.items()}
            warnings.warn(f"{func}: every class has a single labelled row ({dict(zip(classes.tolist(), counts.tolist()))}"
                          "), so no fold can hold one out and no cross-validation is possible; fitted "
                          f"{self._estimator.__name__} with the first candidate of each parameter, {best}, instead.",
                          UserWarning, stacklevel=2)
            return self._refit(X, y, best, fixed, None, current_params(self)["random_state"])
        target = np.full(y.shape[0], np.nan)
        target[labeled] = codes
        split = Indices(labeled, unlabeled, np.empty(0, dtype=np.int64))
        check_option(self.supervised, "supervised", name, SUPERVISED_RULES)
        # the 1-SE rule's "simplest model": the largest candidate of the weight named here
        method = dataclasses.replace(get_method(self._method), regularization=(self._simplest, "larger"))
        selection = select(method, X, target, split, grid=grid, fixed=fixed,
                           scenario="labeled-cv", n_folds=n_folds, refit=False, n_jobs=self.n_jobs,
                           rng=current_params(self)["random_state"], progress=self.progress)
        chosen = selection.lambda_min if self.refit == "min" else selection.lambda_1se
        candidates = [(selection, tuple(grid), {}, self._estimator, fixed)]
        best = (0, {name: chosen[name] for name in grid})
        self.comparison_ = None
        if self.supervised != "off":
            # at gamma_I = 0 the model's expansion is over the labelled rows only (representer theorem):
            # the supervised candidates are cross-validated on them, exactly (Newton, or the direct solve)
            labelled_only = Indices(labeled, np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64))
            for sup_grid, sup_fixed in self._supervised_space(grid, fixed):
                sup = select(self._supervised_method or self._method, X, target, labelled_only, grid=sup_grid,
                             fixed=sup_fixed, scenario="labeled-cv", n_folds=n_folds, refit=False, n_jobs=self.n_jobs,
                             rng=selection.seed, progress=self.progress)       # the same folds
                shown = {k: sup_fixed[k] for k in ("kernel", "gamma_I") if k in sup_fixed}
                candidates.append((sup, tuple(sup_grid), shown, self._supervised_estimator or self._estimator,
                                   self._supervised_fixed(fixed, sup_fixed)))
            best, self.comparison_ = self._compare(candidates, best[1], n_folds, labeled.size)
        _, _, shown, estimator, refit_fixed = candidates[best[0]]
        return self._refit(X, y, best[1], refit_fixed, selection, selection.seed, n_folds, candidates,
                           estimator=estimator, shown=shown)

    # ---- the supervised limit ----------------------------------------------------------------------
    def _supervised_space(self, grid, fixed):
        """``[(grid, fixed)]`` of the supervised candidates: the family's model without the graph, with
        the RBF widths searched and with the linear kernel, over :data:`SUPERVISED_WEIGHTS`."""
        from toolkit.selection import get_method

        weight = self._supervised_weight
        values = grid[weight] if SUPERVISED_WEIGHTS[weight] is None else SUPERVISED_WEIGHTS[weight]
        base = {k: v for k, v in fixed.items() if k in get_method(self._supervised_method or self._method).valid_params
                and k != "kernel"}
        if self._supervised_method is None:      # the graph of the labelled rows, unused at gamma_I = 0
            base.update(gamma_I=0.0, n_neighbors=1, laplacian_power=1, **self._supervised_solver)
        spaces = []
        if "sigma" in grid:
            spaces.append(({weight: values, "sigma": grid["sigma"]}, {**base, "kernel": "rbf"}))
        spaces.append(({weight: values}, {**base, "kernel": "linear"}))
        return spaces

    def _supervised_fixed(self, fixed, sup_fixed):
        """The refitted supervised estimator's fixed parameters (those it takes)."""
        estimator = self._supervised_estimator or self._estimator
        taken = set(estimator().get_params()) - {"n_neighbors", "laplacian_power"}    # no graph at gamma_I = 0
        return {k: v for k, v in {**fixed, **sup_fixed}.items() if k in taken}

    def _compare(self, candidates, chosen, n_folds, n_labeled):
        """``((index, params), UnlabeledComparison)``: the refitted candidate by the rule ``supervised``
        between the chosen semi-supervised candidate and the best supervised one, over the same folds."""
        ssl_sel = candidates[0][0]
        ssl = _row(ssl_sel, chosen, candidates[0][1])
        sup_rows = [(_row(sel, _best_params(sel, names), names), i) for i, (sel, names, _, _, _) in
                    enumerate(candidates) if i > 0]
        (sup, i_sup) = min(sup_rows, key=lambda r: (r[0]["mean"], r[1]))
        sup_params = {**sup["params"], **candidates[i_sup][2]}
        margin = ssl["se"] if self.supervised == "1se" else 0.0
        use_ssl = ssl["mean"] + margin < sup["mean"]
        n_test = n_labeled / n_folds
        test = corrected_ttest(ssl["folds"], sup["folds"], n_train=n_labeled - n_test, n_test=n_test)
        comparison = UnlabeledComparison(
            semi_supervised_params=chosen, supervised_params=sup_params, semi_supervised_error=ssl["mean"],
            semi_supervised_se=ssl["se"], supervised_error=sup["mean"], supervised_se=sup["se"], test=test,
            verdict=helped_verdict(test), refitted="semi-supervised" if use_ssl else "supervised", rule=self.supervised)
        return ((0, chosen) if use_ssl else (i_sup, sup["params"])), comparison

    def _refit(self, X, y, best, fixed, selection, seed, n_folds=0, candidates=None, estimator=None, shown=None):
        """The estimator refitted on every row with ``best``, and the search's attributes (``selection``
        None: no cross-validation ran, and ``cv_results_``, ``best_index_``, ``selection_`` are None)."""
        estimator = estimator or self._estimator
        refit_params = {**fixed, **best, "unlabeled": self.unlabeled}
        if "random_state" in estimator().get_params():
            refit_params["random_state"] = seed
        self.best_estimator_ = estimator(**refit_params).fit(X, y)
        self.selection_ = selection
        if selection is None:
            self.comparison_ = None
        self.best_params_ = {**best, **(shown or {})}
        self.n_folds_ = n_folds
        self.cv_results_ = None if selection is None else self._cv_results(candidates)
        self.best_index_ = None if selection is None else self._index_of(self.best_params_)
        self.best_score_ = (float("nan") if selection is None
                            else float(self.cv_results_["mean_test_score"][self.best_index_]))
        for attribute in ("classes_", "result_", "transduction_", "n_iter_", "unlabeled_marker_"):
            if hasattr(self.best_estimator_, attribute):
                setattr(self, attribute, getattr(self.best_estimator_, attribute))
        return self

    def _index_of(self, params):
        return next(i for i, p in enumerate(self.cv_results_["params"]) if p == params)

    @staticmethod
    def _cv_results(candidates):
        """scikit-learn's ``cv_results_`` layout from the selections' summaries (the semi-supervised one
        first, then the supervised ones): the errors in percent as the selection has them
        (``*_test_error``), the accuracies as fractions (``*_test_score``), ``semi_supervised`` True
        for the candidates of the semi-supervised search."""
        params, tables, semi = [], [], []
        for i, (selection, names, shown, _, _) in enumerate(candidates):
            table = selection.summary_table
            params += [{**{name: p[name] for name in names}, **shown} for p in map(json.loads, table["params"])]
            tables.append(table)
            semi += [i == 0] * len(table)
        mean_error = np.concatenate([t["mean"].to_numpy(dtype=float) for t in tables])          # percent
        std_error = np.concatenate([t["sd"].fillna(0.0).to_numpy(dtype=float) for t in tables])
        se_error = np.concatenate([t["se"].to_numpy(dtype=float) for t in tables])
        results = {"params": params,
                   "mean_test_score": 1.0 - mean_error / 100.0,
                   "std_test_score": std_error / 100.0,
                   "se_test_score": se_error / 100.0,
                   "mean_test_error": mean_error,
                   "std_test_error": std_error,
                   "se_test_error": se_error,
                   "semi_supervised": np.asarray(semi, dtype=bool)}
        order = np.lexsort((np.arange(len(params)), mean_error))       # ties: the first in grid order
        rank = np.empty(len(params), dtype=np.int32)
        rank[order] = np.arange(1, len(params) + 1)
        # equal errors share the best rank among them, as scikit-learn's rankdata(method="min")
        for i in range(1, len(order)):
            if mean_error[order[i]] == mean_error[order[i - 1]]:
                rank[order[i]] = rank[order[i - 1]]
        results["rank_test_score"] = rank
        for name in dict.fromkeys(name for p in params for name in p):
            results[f"param_{name}"] = np.array([p.get(name) for p in params], dtype=object)
        return results

    def summary(self):
        """The search in a few lines: the refitted candidate and whether the unlabelled data helped."""
        check_is_fitted(self)
        lines = [f"{type(self).__name__}: refitted {self.best_params_} ({self.n_folds_} folds)"]
        if self.comparison_ is not None:
            lines += ["", self.comparison_.summary()]
        return "\n".join(lines)

    def decision_function(self, X):
        """Decision values of the refitted model (``best_estimator_``)."""
        check_is_fitted(self)
        return self.best_estimator_.decision_function(X)

    def predict(self, X):
        """Class labels predicted by the refitted model (``best_estimator_``)."""
        check_is_fitted(self)
        return self.best_estimator_.predict(X)

    def plot(self, param=None, ax=None):
        """The CV curve: mean error ± one standard error over the folds along ``param`` (default: the
        first searched parameter with several candidates, in the order of the parameters), the
        other parameters at the minimum; ``lambda_min`` and the 1-SE
        choice marked, as glmnet's ``plot.cv.glmnet``. Returns the matplotlib figure."""
        check_is_fitted(self)
        if self.selection_ is None:
            raise ValueError(f"{type(self).__name__}.plot: this fit ran no cross-validation (every class had a single "
                             "labelled row), so there is no CV curve to draw.")
        if param is None:
            varied = [name for name in self.best_params_ if len(set(self.cv_results_[f"param_{name}"])) > 1]
            preferred = [name for name in (*self._grid_names, "sigma") if name in varied]
            param = preferred[0] if preferred else next(iter(self.best_params_))
        return self.selection_.plot(param=param, ax=ax)


_CV_PARAMS = """
    n_folds : int or None, default=None
        Folds of the labelled rows, stratified by class (:class:`~toolkit.selection.SemiSupervisedKFold`'s
        folds); ``None``: :data:`DEFAULT_FOLDS` (3), or the number of labelled rows of the largest
        class when that is smaller. A class with a single labelled row stays in every training fold
        (the CV error is over the other classes' held-out rows); when every class has a single
        labelled row no cross-validation is possible, and the first candidate of each parameter is
        fitted with a ``UserWarning`` that says so (``selection_``, ``cv_results_`` and
        ``best_index_`` are then None, ``n_folds_`` 0).
    refit : {"min", "1se"}, default="min"
        Refit the parameters of the smallest CV error, or glmnet's 1-SE choice: the most regularised
        candidate within one standard error of the minimum (the largest γ_I for the Laplacian
        estimators, the largest λ for S²RLSC).
    supervised : {"min", "1se", "off"}, default="min"
        The supervised limit is a candidate too: the same model without the graph (γ_I = 0; for
        S2RLSCCV the RLSC it starts from), over :data:`SUPERVISED_WEIGHTS` with the RBF widths and
        with the linear kernel, cross-validated on the same folds. ``"min"``: the semi-supervised
        candidate is refitted only when its CV error is strictly below the best supervised one's (a
        tie goes to the supervised model); ``"1se"``: only when it is below by more than its
        standard error (the one-standard-error rule toward the supervised model); ``"off"``:
        semi-supervised candidates only. ``comparison_`` says which, with the paired test. ``python
        benchmarks/bench_supervised_candidates.py`` measured the rules on the benchmark sets: "1se"
        was never better than "min" there, and worse on one set, so "min" is the default.
    n_jobs : int, default=None
        Local processes over the (width, fold) jobs (``None``: this process).
    random_state : None, int or numpy Generator, default=0
        Seed of the folds (and of the refit's random draws); the same seed gives the same choice. The
        default is a fixed seed, so that a fit with no argument gives the same model every time (as
        scikit-learn's CV estimators, whose default folds are not shuffled); ``None`` draws fresh
        folds.
    progress : bool, default=False
        A tqdm progress bar over the jobs.
    unlabeled : default=None
        The marker of unlabelled rows in ``y`` (see :mod:`toolkit.estimators`).
    rng, neighbors, degree
        Deprecated: ``random_state``, ``n_neighbors`` and ``laplacian_power`` (the last two of the
        Laplacian estimators).

    Attributes
    ----------
    best_params_ : dict
        The refitted candidate's parameters (width, weights, neighbours; a supervised one also
        names its ``kernel`` and ``gamma_I = 0``).
    best_estimator_ : estimator
        The model refitted on every row with ``best_params_``; ``predict``, ``decision_function``
        and ``score`` use it.
    cv_results_ : dict of arrays
        One entry per candidate, scikit-learn's layout: ``params``, ``mean_test_score`` (accuracy on
        the held-out labelled rows, a fraction as scikit-learn's ``score``), ``std_test_score``,
        ``se_test_score``, ``mean_test_error``, ``std_test_error``, ``se_test_error`` (the same in
        percent, as every error of the toolkit: ``mean_test_error = 100 (1 - mean_test_score)``),
        ``rank_test_score``, ``param_<name>`` (None where a candidate has no such parameter),
        ``semi_supervised`` (True for the semi-supervised candidates, first; the supervised ones
        follow); ``pandas.DataFrame(cv_results_)`` tabulates it.
    best_index_ : int
        Index of the refitted candidate in ``cv_results_``.
    best_score_ : float
        Its mean cross-validated accuracy, ``cv_results_["mean_test_score"][best_index_]`` (a fraction,
        as scikit-learn's ``score``; its error in percent is ``cv_results_["mean_test_error"][best_index_]``).
    selection_ : toolkit.selection.Selection
        The semi-supervised search: the tidy per-fold table, ``lambda_min``, ``lambda_1se``.
    comparison_ : UnlabeledComparison or None
        Did the unlabelled data help: the chosen semi-supervised and the best supervised candidate's
        CV errors, their paired test over the folds, the verdict ("helped", "no significant
        difference", "hurt") and which was refitted (None with ``supervised="off"`` or without
        cross-validation). ``summary()`` prints it.
    n_folds_ : int
        The folds used.
    classes_, transduction_, result_, n_iter_, unlabeled_marker_
        Those of ``best_estimator_``.
"""


class LapSVMCV(_SelectionCV):
    __doc__ = """Laplacian SVM whose width, weights and neighbours are chosen by cross-validation.

    Fits :class:`LapSVM` (Melacci & Belkin 2011, eq. 7, trained by early-stopped PCG) for every
    combination of the candidates below on stratified folds of the labelled rows, every
    unlabelled row in every training fold, and refits the combination of the smallest CV error
    (:func:`toolkit.selection.select`, scenario ``"labeled-cv"``). The recommended entry point:
    with no arguments it searches a small grid read off the data.

    With no arguments the grid is 2 widths × 2 γ_I × 2 neighbourhoods × 2 Laplacian powers (16
    candidates, γ_A = 1e-6) over 3 folds: the dimensions along which the best setting moved between
    the benchmark sets of ``benchmarks/bench_defaults.py --defaults`` (a 6-NN graph with ``L`` on the
    SSL book's sets 3 and 6, a 10-NN graph with ``L²`` on G50C, USPS and ``load_digits``, twice the
    width on the text-like set 7); γ_A mattered least, and γ_I = 0.01, never better than 0.1 by more
    than noise in that sweep, took half of the search's time on ``load_digits`` (PCG's early stop
    comes later on a weakly smoothed problem).

    Parameters
    ----------
    sigma : "scale", float or sequence of float, default="scale"
        RBF widths to try; ``"scale"``: :data:`SIGMA_FACTORS` (1, 2) × the width of
        ``sigma="scale"`` (:func:`toolkit.kernels.scale_width`, half the median distance between rows).
    gamma_A : float or sequence of float, default=1e-6
        Candidates of the ambient weight γ_A.
    gamma_I : float or sequence of float, default=(0.1, 1.0)
        Candidates of the intrinsic weight γ_I.
    n_neighbors : int or sequence of int, default=(10, 6)
        Candidates of the graph's neighbours k.
    laplacian_power : int or sequence of int, default=(2, 1)
        Candidates of the Laplacian power p of ``L^p``. The measured defaults of :class:`LapSVM`
        come first in each list: a tie in the CV error (common with few labels) goes to the first
        candidate in grid order, so to them (``python benchmarks/bench_defaults.py`` compares the
        two orders).
    kernel, normalized, weight, graph_sigma, metric, method, stop, intercept, one_vs_all
        Fixed, as in :class:`LapSVM`.
    """ + _CV_PARAMS

    _method = "lapsvm"
    _estimator = LapSVM
    _supervised_solver = {"method": "newton", "stop": None}
    _grid_names = ("gamma_A", "gamma_I", "n_neighbors", "laplacian_power")
    _simplest = "gamma_I"
    _multiclass = True

    def __init__(self, *, sigma="scale", gamma_A=1e-6, gamma_I=(0.1, 1.0), n_neighbors=(10, 6),
                 laplacian_power=(2, 1),
                 kernel="rbf", normalized=True, weight="heat", graph_sigma=None, metric="euclidean",
                 method="pcg", stop="stability", intercept=True, one_vs_all="joint", n_folds=None, refit="min", supervised="min",
                 n_jobs=None, random_state=0, progress=False, unlabeled=None, neighbors=DEPRECATED,
                 degree=DEPRECATED, rng=DEPRECATED):
        self.sigma = sigma
        self.gamma_A = gamma_A
        self.gamma_I = gamma_I
        self.n_neighbors = n_neighbors
        self.kernel = kernel
        self.laplacian_power = laplacian_power
        self.normalized = normalized
        self.weight = weight
        self.graph_sigma = graph_sigma
        self.metric = metric
        self.method = method
        self.stop = stop
        self.intercept = intercept
        self.one_vs_all = one_vs_all
        self.n_folds = n_folds
        self.refit = refit
        self.supervised = supervised
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.progress = progress
        self.unlabeled = unlabeled
        self.neighbors = neighbors
        self.degree = degree
        self.rng = rng


class LapRLSCCV(_SelectionCV):
    __doc__ = """Laplacian RLSC whose width, weights and neighbours are chosen by cross-validation.

    As :class:`LapSVMCV`, for :class:`LapRLSC` (squared loss, Belkin, Niyogi & Sindhwani 2006;
    Melacci & Belkin 2011 eq. 14).

    Parameters
    ----------
    sigma : "scale", float or sequence of float, default="scale"
        RBF widths to try; ``"scale"``: :data:`SIGMA_FACTORS` × the width of ``sigma="scale"``.
    gamma_A : float or sequence of float, default=1e-6
    gamma_I : float or sequence of float, default=(0.1, 0.01, 1.0)
    n_neighbors : int or sequence of int, default=(10, 6)
    laplacian_power : int or sequence of int, default=(2, 1)
        Candidates, as in :class:`LapSVMCV`; γ_I = 0.01 as well, which costs a direct solve no more
        than another (24 candidates).
    kernel, normalized, weight, graph_sigma, metric, method, stop, intercept, one_vs_all
        Fixed, as in :class:`LapRLSC` (``method="direct"``: one dense solve per candidate and fold).
    """ + _CV_PARAMS

    _method = "laprlsc"
    _estimator = LapRLSC
    _supervised_solver = {"method": "direct", "stop": None}
    _grid_names = ("gamma_A", "gamma_I", "n_neighbors", "laplacian_power")
    _simplest = "gamma_I"
    _multiclass = True

    def __init__(self, *, sigma="scale", gamma_A=1e-6, gamma_I=(0.1, 0.01, 1.0), n_neighbors=(10, 6),
                 laplacian_power=(2, 1),
                 kernel="rbf", normalized=True, weight="heat", graph_sigma=None, metric="euclidean",
                 method="direct", stop=None, intercept=True, one_vs_all="joint", n_folds=None, refit="min", supervised="min",
                 n_jobs=None, random_state=0, progress=False, unlabeled=None, neighbors=DEPRECATED,
                 degree=DEPRECATED, rng=DEPRECATED):
        self.sigma = sigma
        self.gamma_A = gamma_A
        self.gamma_I = gamma_I
        self.n_neighbors = n_neighbors
        self.kernel = kernel
        self.laplacian_power = laplacian_power
        self.normalized = normalized
        self.weight = weight
        self.graph_sigma = graph_sigma
        self.metric = metric
        self.method = method
        self.stop = stop
        self.intercept = intercept
        self.one_vs_all = one_vs_all
        self.n_folds = n_folds
        self.refit = refit
        self.supervised = supervised
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.progress = progress
        self.unlabeled = unlabeled
        self.neighbors = neighbors
        self.degree = degree
        self.rng = rng


class S2RLSCCV(_SelectionCV):
    __doc__ = """S²RLSC whose width and weights λ, λ' are chosen by cross-validation (two classes).

    As :class:`LapSVMCV`, for :class:`S2RLSC` (Gieseke et al. 2012, eq. 3; the balance ``b_c`` of
    each training fold estimated from its labelled rows, the paper's realistic scenario).

    Parameters
    ----------
    sigma : "scale", float or sequence of float, default="scale"
        RBF widths to try; ``"scale"``: :data:`SIGMA_FACTORS` × the width of ``sigma="scale"``.
    lam : float or sequence of float, default=(1e-3, 1e-1, 10.0)
        Candidates of λ.
    lam_u : float or sequence of float, default=(0.1, 1.0)
        Candidates of λ'.
    kernel, eps
        Fixed, as in :class:`S2RLSC`.
    restarts : int, default=3
        Restarts of the local search per fit, as in :class:`S2RLSC` (whose default is 10); fewer here
        keep the whole search within a few times one fit's cost (``python benchmarks/bench_defaults.py``).
    """ + _CV_PARAMS

    _method = "s2rlsc"
    _estimator = S2RLSC
    _supervised_method = "rlsc"
    _supervised_estimator = RLSC
    _supervised_weight = "lam"
    _grid_names = ("lam", "lam_u")
    _simplest = "lam"
    _multiclass = False

    def __init__(self, *, sigma="scale", lam=(1e-3, 1e-1, 10.0), lam_u=(0.1, 1.0), kernel="rbf", eps=0.1,
                 restarts=3, n_folds=None, refit="min", supervised="min", n_jobs=None, random_state=0, progress=False, unlabeled=None,
                 rng=DEPRECATED):
        self.sigma = sigma
        self.lam = lam
        self.lam_u = lam_u
        self.kernel = kernel
        self.eps = eps
        self.restarts = restarts
        self.n_folds = n_folds
        self.refit = refit
        self.supervised = supervised
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.progress = progress
        self.unlabeled = unlabeled
        self.rng = rng
