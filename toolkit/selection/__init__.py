"""Model selection for semi-supervised classifiers: the papers' scenarios, honestly labelled.

Three ways to choose the parameters of a solver on one split (labelled ``L``, unlabelled ``U``,
test ``T``, optionally validation ``V`` points):

``"labeled-cv"``
    k-fold cross-validation over the labelled points only (stratified); every unlabelled point
    is in every training fold and in no test fold, and the balance ``b_c`` of S²RLSC is estimated
    from the labelled points of the training fold. This is the papers' *realistic* scenario
    (Gieseke et al. 2012, §4.1.2, Table 3).
``"test-set"``
    the parameters minimising the test error (Chapelle et al. 2006; Gieseke et al. 2012, Table 2).
    It judges a model's *potential* and is **not realistic**; every output says so.
``"validation"``
    the parameters minimising the error on a held-out validation set, Melacci & Belkin (2011) §6.

The chosen parameters are then refitted on the whole training set (``L`` and ``U``) and the refit
is scored on ``T`` (and transductively on ``U``). Everything is returned as one tidy table
(dataset, task, split, method, params, scenario, fold, metric, value, seconds, seed), with
``lambda_min`` / ``lambda_1se`` summaries in the style of glmnet's ``cv.glmnet``.

Expensive pieces are shared across the grid: every job is one (kernel parameters, fold) pair and
computes its kernel matrices once for all other parameter values (:class:`CachedKernel`); a
method that has a solution path is fitted once per job and evaluated at every grid value. The jobs
run in this process, in ``n_jobs`` local processes, or on a Dask cluster (``scheduler=``, through
joblib's dask backend: a job's kernel stays on the worker that runs it, ``X`` is sent once).

The splitter :class:`SemiSupervisedKFold` works with scikit-learn's ``GridSearchCV`` and
``cross_validate`` (``y = -1`` marks unlabelled rows, scikit-learn's convention).

The package by concern: :mod:`~toolkit.selection._splitter` (scenarios, :class:`SemiSupervisedKFold`),
:mod:`~toolkit.selection._cache` (:class:`CachedKernel`, :class:`GraphCache`),
:mod:`~toolkit.selection._select` (:func:`select`, :class:`Selection`, :class:`Indices`),
:mod:`toolkit._dask` (the ``scheduler`` argument: the client and joblib's dask backend); the method
registry (:class:`Method`, :data:`METHODS`) lives in :mod:`toolkit._methods`, shared with
:mod:`toolkit.stats`.
"""
from toolkit._methods import METHODS, KERNEL_PARAMS, Method, available_methods, get_method, register_method
from toolkit.selection._cache import CachedKernel, GraphCache
from toolkit.selection._select import TIDY_COLUMNS, Indices, Selection, select
from toolkit.selection._splitter import SCENARIOS, SemiSupervisedKFold, scenario_label

__all__ = [
    "SemiSupervisedKFold", "select", "Selection", "Indices", "Method", "METHODS", "register_method",
    "available_methods", "get_method", "CachedKernel", "GraphCache", "SCENARIOS", "scenario_label",
]
