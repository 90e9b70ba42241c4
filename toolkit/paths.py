"""Solution paths: every λ at once (Hastie et al. 2004; Wang, Qin & Huang; RLScore).

* :func:`svm_path` -- the exact piecewise-linear path of the hinge-loss SVM with bias on any
  precomputed kernel (Lemmas 1-2, events, eq. 23);
* :func:`laplacian_svm_path` -- the semi-supervised hinge-loss model, an SVM path on the
  effective kernel ``J K (I + r L K)⁻¹ Jᵀ``;
"""
from __future__ import annotations

from toolkit._paths_laplacian import LaplacianSvmPath, effective_kernel, laplacian_svm_path
from toolkit._paths_svm import SvmPath, svm_path

__all__ = ["SvmPath", "svm_path", "LaplacianSvmPath", "laplacian_svm_path", "effective_kernel"]
