"""Regularised least-squares classification: supervised, semi-supervised and unsupervised.

Gieseke, Kramer, Airola & Pahikkala (KI 2011; Evolutionary Intelligence 2012). The package holds
the public solvers (``_solvers``: :func:`rlsc`, :func:`s2rlsc`, :func:`mmc`), the operator
``M = λ D (D K D + λ I)⁻¹ D`` and its Nyström form (``_operator``), the compiled local search and
(μ+ν)-EA (``_search``), the result objects (``_results``) and the plain reference implementation the
tests compare against (``_reference``).
"""
from toolkit.rls._solvers import (ConvergenceWarning, MMCResult, RestartRecord, RLSCResult, S2RLSCResult, mmc,
                                  rlsc, s2rlsc)

__all__ = ["rlsc", "s2rlsc", "mmc", "RLSCResult", "S2RLSCResult", "MMCResult", "RestartRecord",
           "ConvergenceWarning"]

for _name in __all__:  # documented, pickled and shown under the public module, not the private one
    _obj = globals()[_name]
    if getattr(_obj, "__module__", "").startswith("toolkit.rls."):
        _obj.__module__ = "toolkit.rls"
del _name, _obj
