"""The one place where the toolkit bridges the versions of its dependencies that ``pyproject.toml`` admits.

The lower bounds (numpy 1.26, scipy 1.11, pandas 2.1, scikit-learn 1.4, numba 0.59, ...) are
tested by running the whole suite with every required dependency pinned to its bound, as
scikit-learn's "min-dependencies" job. Where a newer release renamed or replaced an API, the
toolkit calls the name defined here, which picks the newer API when it exists and the older one
otherwise, by feature (never by comparing version strings). Nothing outside this module looks at
a dependency's version.

scikit-learn
    * :func:`validate_data` -- ``sklearn.utils.validation.validate_data`` (1.6), before that the
      method ``BaseEstimator._validate_data`` (same checks: ``n_features_in_``, feature names).
    * :data:`SKLEARN_TAGS` -- whether scikit-learn reads an estimator's tags through
      ``__sklearn_tags__`` (1.6). Before 1.6, ``is_classifier`` reads the class attribute
      ``_estimator_type`` instead (``ClassifierMixin``'s ``"classifier"``).

joblib
    * :func:`unordered_parallel` -- ``Parallel(return_as="generator_unordered")`` (joblib 1.4),
      results as they finish; joblib 1.3 knows only ``"generator"`` (``"list"`` under its Dask
      backend), results in submission order.

matplotlib needs no shim: its lower bound, 3.9, is the first release whose pyplot runs in a Jupyter kernel
beside IPython >= 9.16 (3.8 imports ``IPython.core.pylabtools.backend2gui``, which IPython removed).
"""
from __future__ import annotations

from sklearn.base import BaseEstimator

__all__ = ["SKLEARN_TAGS", "unordered_parallel", "validate_data"]

#: scikit-learn >= 1.6: tags are a dataclass returned by ``__sklearn_tags__`` and read by
#: ``sklearn.utils.get_tags`` (``is_classifier`` included); before, ``_estimator_type`` / ``_more_tags``.
SKLEARN_TAGS = hasattr(BaseEstimator, "__sklearn_tags__")

try:                                        # scikit-learn >= 1.6: scikit-learn's own function, as it is
    from sklearn.utils.validation import validate_data
except ImportError:                         # scikit-learn 1.4, 1.5: a method of BaseEstimator
    def validate_data(estimator, X, *, reset=True, **check_params):
        """``check_array(X, **check_params)`` and ``estimator``'s ``n_features_in_`` / ``feature_names_in_``:
        set when ``reset``, else checked against the fit's. scikit-learn's ``validate_data`` on X alone."""
        return estimator._validate_data(X, reset=reset, **check_params)


def unordered_parallel(n_jobs):
    """A ``joblib.Parallel`` whose call yields each result as soon as it is done (joblib >= 1.4); with
    joblib 1.3, in submission order, as a generator, or as a list where the active backend cannot
    return a generator (1.3's Dask backend). Callers that need the order number their jobs."""
    from joblib import Parallel

    # joblib 1.3 refuses 'generator_unordered' ("Expected `return_as` ... "list" or "generator"") and,
    # under its Dask backend, 'generator' ("does not support return_as=generator"), in __init__
    for return_as in ("generator_unordered", "generator"):
        try:
            return Parallel(n_jobs=n_jobs, return_as=return_as)
        except ValueError:
            pass
    return Parallel(n_jobs=n_jobs, return_as="list")
