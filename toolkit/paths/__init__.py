"""Solution paths: every λ at once (Hastie et al. 2004; Wang, Qin & Huang; RLScore).

* :func:`svm_path` -- the exact piecewise-linear path of the hinge-loss SVM with bias on any
  precomputed kernel (Lemmas 1-2, events, eq. 23);
* :func:`laplacian_svm_path` -- the semi-supervised hinge-loss model, an SVM path on the
  effective kernel ``J K (I + r L K)⁻¹ Jᵀ``;
* :func:`rlsc_path` -- (weighted) RLS / RLSC for a λ grid from one eigendecomposition, with
  closed-form leave-one-out errors and GCV;
* :func:`validation_curve`, :func:`cv_svm_path`, :func:`cv_laplacian_svm_path` -- error along the
  whole path on validation points or by k-fold CV, with ``lambda_min`` and ``lambda_1se``.

Path objects follow glmnet: ``breakpoints`` (or ``lambdas``), ``coef(s)``,
``decision_function(X, s)`` / ``predict(X, s)`` at any λ, ``plot()``, ``summary()``.

Labels: any two values; ``classes[1]`` is the positive class. The paths read them as every
two-class solver does (:func:`toolkit._validation.encode_binary_labels`: sorted, ``classes[1]``
coded +1), record ``classes``, and ``predict`` returns these labels while ``decision_function``
stays signed (positive for ``classes[1]``); validation labels (``y_val``) are read in the same
classes.
The plain NumPy reference implementations that the tests compare the compiled loops against are
in ``_reference``.
"""
from __future__ import annotations

from toolkit.paths._laplacian import LaplacianSvmPath, effective_kernel, laplacian_svm_path
from toolkit.paths._rls import RlscPath, rlsc_path
from toolkit.paths._selection import (PathSelection, cv_laplacian_svm_path, cv_svm_path, select_lambda,
                                      validation_curve)
from toolkit.paths._svm import SvmPath, svm_path

__all__ = ["SvmPath", "svm_path", "LaplacianSvmPath", "laplacian_svm_path", "effective_kernel",
           "RlscPath", "rlsc_path", "PathSelection", "validation_curve", "cv_svm_path",
           "cv_laplacian_svm_path", "select_lambda"]

for _name in __all__:  # documented, pickled and shown under the public module, not the private one
    _obj = globals()[_name]
    if getattr(_obj, "__module__", "").startswith("toolkit.paths."):
        _obj.__module__ = "toolkit.paths"
del _name, _obj
