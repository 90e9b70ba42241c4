"""scikit-learn estimators over the functional API: ``fit(X, y)`` with unlabelled rows marked.

**The label convention first.** ``y`` holds the class labels (numbers or strings) of the labelled
rows and a *marker* on the unlabelled ones. The marker is the parameter ``unlabeled`` of every
estimator and of :class:`~toolkit.selection.SemiSupervisedKFold` (give the same value to both),
read by one rule, :func:`toolkit._validation.resolve_unlabeled`: the default ``unlabeled=None``
means *missing labels* -- the rows holding NaN (or None in an object array) are unlabelled; if
``y`` holds no missing label, the rows equal to ``-1`` are (scikit-learn's convention,
``LabelSpreading``, ``SelfTrainingClassifier``). Any other value is the marker itself. A -1 / +1
coding (``Dataset.y`` of the toolkit's binary tasks) therefore needs NaN on its unlabelled rows:
read with -1 as the marker, the whole class -1 would become unlabelled rows. That mistake leaves
one class, and ``fit`` and ``SemiSupervisedKFold.split`` refuse it with an error naming the marker;
:meth:`toolkit.data.Dataset.target` builds ``y`` from the original class labels with NaN on the
rows outside the split's labelled ones, which works on every data set::

    rows = np.concatenate([split.labeled, split.unlabeled])
    y = ds.target(split)                      # class labels, NaN on rows outside split.labeled
    model = LapSVM(sigma=9.4).fit(ds.X[rows], y[rows])
    model.score(ds.X[split.test], ds.target()[split.test])

**Marked rows are never scored.** A marked row has no true label, so ``score(X, y)`` counts the
labelled rows only: the rows that carry the marker in effect at fit time (``unlabeled_marker_``;
with the default rule also any NaN / None) and are not a class are left out of the accuracy and of
``sample_weight``; it raises only when no labelled row is left, naming the marker. scikit-learn's
cross-validation therefore scores each test fold on its labelled rows with any splitter
(``GridSearchCV(LapSVM(), grid, cv=KFold(5))``), and :func:`labeled_accuracy` does the same as a
``scoring=`` for any estimator: a ``Pipeline`` ending in one of these, or scikit-learn's
``SelfTrainingClassifier`` and ``LabelSpreading`` (marker -1). The splitter to prefer remains
:class:`~toolkit.selection.SemiSupervisedKFold`: a plain splitter puts unlabelled rows in test
folds, where they are out of the training fold and add nothing to the score, and ``cv=5`` means
scikit-learn's StratifiedKFold, which refuses NaN in ``y`` ("Input y contains NaN").

**A semi-supervised fit needs unlabelled rows.**

A semi-supervised estimator (every one but the supervised :class:`RLSC`) given no unlabelled row
raises a ``ValueError``: one rule and one message for all of them, which names the marker in
effect and suggests RLSC for labelled rows alone and, when ``y`` holds NaN or -1 that the marker
does not read, the marker to pass.

================  ==========================================  ===============================
estimator         objective (function)                        unlabelled rows
================  ==========================================  ===============================
:class:`RLSC`     regularised least squares (``rlsc``)        ignored (supervised baseline)
:class:`S2RLSC`   S²RLSC, Gieseke et al. 2012 (``s2rlsc``)     required
:class:`TSVM`     ramp-loss TSVM by CCCP (``tsvm``)           required
:class:`LapSVM`   Laplacian SVM in the primal (``lapsvm``)    required (in the graph)
:class:`LapRLSC`  Laplacian RLSC (``laprlsc``)                required (in the graph)
:class:`LapSVMPath`  LapSVM's λ path (``laplacian_svm_path``)  required (in the graph)
:class:`MMC`      maximum margin clustering (``mmc``)          every row (a clusterer)
================  ==========================================  ===============================

Every estimator is a thin shell: its parameters are those of the function, named alike; ``fit``
calls the function and keeps its result as ``result_``: :class:`LapSVM` and :class:`LapRLSC` call
it once with every class (their functions train the one-vs-all problems on one kernel and one
graph), the others once per class, one-vs-rest, for more than two classes (a tuple of results);
``decision_function`` and ``predict`` evaluate that result;
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
>>> y = np.full(200, np.nan)
>>> y[:4] = y_true[:4]                       # four labels, the rest unlabelled (NaN)
>>> model = LapSVM(sigma=0.3, gamma_I=1.0).fit(X, y)
>>> float(np.mean(model.transduction_ == y_true)) > 0.95
True
"""
from toolkit.estimators._base import SemiSupervisedClassifier
from toolkit.estimators._classifiers import RLSC, S2RLSC, TSVM, LapRLSC, LapSVM, LapSVMPath
from toolkit.estimators._clustering import MMC
from toolkit.estimators._cv import SUPERVISED_WEIGHTS, LapRLSCCV, LapSVMCV, S2RLSCCV, UnlabeledComparison
from toolkit.estimators._scoring import labeled_accuracy

__all__ = ["LapSVMCV", "LapRLSCCV", "S2RLSCCV", "RLSC", "S2RLSC", "TSVM", "LapSVM", "LapRLSC", "LapSVMPath", "MMC",
           "SemiSupervisedClassifier", "labeled_accuracy", "UnlabeledComparison", "SUPERVISED_WEIGHTS"]
