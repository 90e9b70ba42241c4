"""Solution paths: every λ at once (Hastie et al. 2004; Wang, Qin & Huang; RLScore).

* :func:`svm_path` -- the exact piecewise-linear path of the hinge-loss SVM with bias;
"""
from __future__ import annotations

from toolkit._paths_svm import SvmPath, svm_path

__all__ = ["SvmPath", "svm_path"]
