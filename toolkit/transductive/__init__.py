"""Transductive support vector machines.

Collobert, Sinz, Weston & Bottou (JMLR 2006): the ramp-loss TSVM trained by the concave-convex
procedure, the algorithm of UniverSVM (the semi-supervised SVM column of Gieseke et al. 2012,
Tables 2-3). The package holds the solver :func:`tsvm` and its result :class:`TSVMResult`
(``_cccp``).
"""
from toolkit.transductive._cccp import TSVMResult, tsvm

__all__ = ["tsvm", "TSVMResult"]

for _name in __all__:  # documented, pickled and shown under the public module, not the private one
    globals()[_name].__module__ = "toolkit.transductive"
del _name
