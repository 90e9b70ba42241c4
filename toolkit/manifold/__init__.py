"""Manifold regularisation: Laplacian SVM and Laplacian RLSC in the primal (Melacci & Belkin 2011).

The package holds the public solvers (``_solvers``: :func:`lapsvm`, :func:`laprlsc`,
:func:`lapsvm_dual`) and the primal machinery they share (``_core``: the objective of eq. (7),
Newton's method, preconditioned CG with the exact line search and its compiled loops), and the
plain reference implementations the tests compare against (``_reference``).
"""
from toolkit.manifold._solvers import ConvergenceWarning, LapSVMResult, lapsvm, lapsvm_dual, laprlsc

__all__ = ["lapsvm", "laprlsc", "lapsvm_dual", "LapSVMResult", "ConvergenceWarning"]

for _name in __all__:  # documented, pickled and shown under the public module, not the private one
    _obj = globals()[_name]
    if getattr(_obj, "__module__", "").startswith("toolkit.manifold."):
        _obj.__module__ = "toolkit.manifold"
del _name, _obj
