"""ssl-toolkit: semi-supervised kernel classification.

Functions first, results as frozen data (see ``STYLE``):

>>> import toolkit
>>> ds = toolkit.data.load("usps", 2, 5)          # doctest: +SKIP
>>> fit = toolkit.rls(Xl, yl, Xu, lam=1.0)     # doctest: +SKIP

Public functions are importable from this namespace and from their modules. The
namespace is loaded lazily (PEP 562), so ``import toolkit`` stays fast for the
command line and a solver module is only imported when it is first used.
"""
from __future__ import annotations

import importlib

__version__ = "0.2.0"

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    # kernels
    "kernel_matrix": "toolkit.kernels",
    "linear_kernel": "toolkit.kernels",
    "rbf_kernel": "toolkit.kernels",
    "polynomial_kernel": "toolkit.kernels",
    "width_heuristic": "toolkit.kernels",
    # regularised least squares: RLSC, S2RLSC, maximum margin clustering (Gieseke et al. 2011, 2012)
    "rlsc": "toolkit.rls",
    "s2rlsc": "toolkit.rls",
    "mmc": "toolkit.rls",
    # manifold regularisation: Laplacian SVM / RLSC in the primal (Melacci & Belkin 2011)
    "lapsvm": "toolkit.manifold",
    "laprlsc": "toolkit.manifold",
    "lapsvm_dual": "toolkit.manifold",
    # solution paths (Wang et al.; Hastie et al. 2004)
    "svm_path": "toolkit.paths",
    "laplacian_svm_path": "toolkit.paths",
    "rlsc_path": "toolkit.paths",
    "validation_curve": "toolkit.paths",
    "cv_svm_path": "toolkit.paths",
    "cv_laplacian_svm_path": "toolkit.paths",
    # transductive SVM
    "tsvm": "toolkit.transductive",
    # model selection
    "select": "toolkit.selection",
    "SemiSupervisedKFold": "toolkit.selection",
    # the solver contract: one warning, one status table, the callback's argument
    "ConvergenceWarning": "toolkit._contract",
    "DegenerateFitWarning": "toolkit._contract",
    "SOLVER_STATUS": "toolkit._contract",
    "IntermediateResult": "toolkit._contract",
}

# Solver families live in modules named after the family, never after a function: a submodule
# import binds the package attribute of the same name, which would shadow a function export.
_SUBMODULES = {
    "data", "kernels", "graphs", "rls", "transductive", "manifold", "paths", "early_stopping",
    "selection", "estimators", "stats", "reports", "cli",
}

__all__ = sorted(_EXPORTS) + sorted(_SUBMODULES) + ["__version__"]


def __getattr__(name: str):
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
        globals()[name] = value
        return value
    if name in _SUBMODULES:
        module = importlib.import_module(f"toolkit.{name}")
        globals()[name] = module
        return module
    raise AttributeError(f"module 'toolkit' has no attribute {name!r}")


def __dir__():
    return __all__
