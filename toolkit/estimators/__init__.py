"""scikit-learn estimators over the functional API: ``fit(X, y)`` with unlabelled rows marked.

**The label convention first.** ``y`` holds the class labels (numbers or strings) of the labelled
rows and a *marker* on the unlabelled ones: ``unlabeled=-1`` by default, scikit-learn's convention
(``LabelSpreading``, ``SelfTrainingClassifier``). The marker is a parameter of every estimator and
of :class:`~toolkit.selection.SemiSupervisedKFold`; give the same value to both. It must not be one
of your classes: with a -1 / +1 coding (``Dataset.y`` of the toolkit's binary tasks) the default
marker would turn the whole class -1 into unlabelled rows. That mistake leaves one class, and
``fit`` and ``SemiSupervisedKFold.split`` refuse it with an error naming the marker;
:meth:`toolkit.data.Dataset.target` builds ``y`` from the original class labels with a marker that
cannot collide::

    rows = np.concatenate([split.labeled, split.unlabeled])
    y = ds.target(split)                      # class labels, -1 on rows outside split.labeled
    model = LapSVM(sigma=9.4).fit(ds.X[rows], y[rows])
    model.score(ds.X[split.test], ds.target()[split.test])

================  ==========================================  ===============================
estimator         objective (function)                        unlabelled rows
================  ==========================================  ===============================
:class:`RLSC`     regularised least squares (``rlsc``)        ignored (supervised baseline)
:class:`S2RLSC`   S²RLSC, Gieseke et al. 2012 (``s2rlsc``)     required
:class:`TSVM`     ramp-loss TSVM by CCCP (``tsvm``)           required
:class:`LapSVM`   Laplacian SVM in the primal (``lapsvm``)    used in the graph
:class:`LapRLSC`  Laplacian RLSC (``laprlsc``)                used in the graph
:class:`LapSVMPath`  LapSVM's λ path (``laplacian_svm_path``)  used in the graph
:class:`MMC`      maximum margin clustering (``mmc``)          every row (a clusterer)
================  ==========================================  ===============================

Every estimator is a thin shell: its parameters are those of the function, named alike; ``fit``
calls the function (once per class, one-vs-rest, for more than two classes) and keeps its result
as ``result_``; ``decision_function`` and ``predict`` evaluate that result;
``transduction_`` holds the labels found for the unlabelled training rows. They work in
``Pipeline``, ``GridSearchCV`` / ``cross_validate`` with
:class:`~toolkit.selection.SemiSupervisedKFold` (unlabelled rows stay in every training fold and
out of every test fold), ``clone`` and ``pickle``, and on a Dask cluster through joblib's dask
backend (README, "Scaling out").

Examples
--------
>>> import numpy as np
>>> from sklearn.datasets import make_moons
>>> from toolkit.estimators import LapSVM
>>> X, y_true = make_moons(200, noise=0.05, random_state=0)
>>> y = np.full(200, -1)
>>> y[:4] = y_true[:4]                       # four labels, the rest unlabelled
>>> model = LapSVM(sigma=0.3, gamma_I=1.0).fit(X, y)
>>> float(np.mean(model.transduction_ == y_true)) > 0.95
True
"""
from toolkit.estimators._base import SemiSupervisedClassifier
from toolkit.estimators._classifiers import RLSC, S2RLSC, TSVM, LapRLSC, LapSVM, LapSVMPath
from toolkit.estimators._clustering import MMC

__all__ = ["RLSC", "S2RLSC", "TSVM", "LapSVM", "LapRLSC", "LapSVMPath", "MMC", "SemiSupervisedClassifier"]
