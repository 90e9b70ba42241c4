"""
Two moons: what the unlabelled points change
============================================

Two interleaving half circles, 400 points, **one label per class**. A supervised model sees the
two labelled points only, so its decision boundary is a straight cut between them; the
semi-supervised models also see the 398 unlabelled points and follow the gap between the moons.

* RLSC (:func:`toolkit.rls.rlsc`) and scikit-learn's SVM on the labelled points: supervised.
* LapSVM (:func:`toolkit.manifold.lapsvm`): the intrinsic norm :math:`f^T L f` of a kNN graph
  on all points makes :math:`f` smooth along the moons (Melacci & Belkin 2011, eq. 7).
* S²RLSC (:func:`toolkit.rls.s2rlsc`): the unlabelled points get labels too, chosen by local
  search so that the least-squares fit of all points is best, under a balance constraint
  (Gieseke et al. 2012, eq. 10).
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.svm import SVC

from toolkit import data, lapsvm, rlsc, s2rlsc
from toolkit.specs import Graph, Kernel, LocalSearch

# %%
# The data: :func:`toolkit.data.load` draws the moons (``y`` is +1 / -1); one labelled point per
# class, the rest unlabelled.
ds = data.load("moons", n=400, noise=0.08, rng=0)
X, y = ds.X, ds.y
rng = np.random.default_rng(3)
labeled = np.array([rng.choice(np.flatnonzero(y == c)) for c in (-1, 1)])
unlabeled = np.setdiff1d(np.arange(len(y)), labeled)
sigma = 0.2                                            # RBF width, k(x, z) = exp(-|x - z|² / 2σ²)

# %%
# Four fits, each a function returning a frozen result with ``predict`` and
# ``decision_function``. The parameters were picked by eye on this draw (the
# :doc:`model selection guide <../user_guide/selection>` does it properly); S²RLSC uses a narrower
# kernel, with which its local search finds the better labelling.
fits = {
    "RLSC (supervised)": rlsc(X[labeled], y[labeled], kernel="rbf", sigma=sigma, lam=1e-3),
    "SVM (supervised)": SVC(kernel="rbf", gamma=1 / (2 * sigma**2), C=10.0).fit(X[labeled], y[labeled]),
    "LapSVM": lapsvm(X[labeled], y[labeled], X[unlabeled], kernel=Kernel("rbf", sigma=sigma), gamma_A=1e-4,
                     gamma_I=1.0, graph=Graph(n_neighbors=10), solver="newton"),
    "S²RLSC": s2rlsc(X[labeled], y[labeled], X[unlabeled], kernel=Kernel("rbf", sigma=0.15), lam=0.1, lam_u=0.1,
                     balance=0.5, search=LocalSearch(restarts=10), rng=0),
}
for name, fit in fits.items():
    error = np.mean(fit.predict(X[unlabeled]) != y[unlabeled])
    print(f"{name:18s} error on the unlabelled points: {100 * error:5.1f} %")

# %%
# The decision boundaries :math:`f(x) = 0`, the labelled points as large markers.
grid_x, grid_y = np.meshgrid(np.linspace(-1.5, 2.5, 200), np.linspace(-1.0, 1.5, 150))
grid = np.c_[grid_x.ravel(), grid_y.ravel()]
fig, axes = plt.subplots(2, 2, figsize=(9, 6.5), sharex=True, sharey=True, layout="constrained")
for ax, (name, fit) in zip(axes.ravel(), fits.items()):
    f = fit.decision_function(grid).reshape(grid_x.shape)
    ax.contourf(grid_x, grid_y, f, levels=[-np.inf, 0, np.inf], colors=["#f4c7c3", "#c6dbef"], alpha=0.8)
    ax.contour(grid_x, grid_y, f, levels=[0], colors="k", linewidths=1.5)
    ax.scatter(*X[unlabeled].T, c=np.where(y[unlabeled] > 0, "#3182bd", "#de2d26"), s=6, alpha=0.6)
    ax.scatter(*X[labeled].T, c=np.where(y[labeled] > 0, "#3182bd", "#de2d26"), s=160,
               edgecolors="k", linewidths=1.5, marker="*")
    error = np.mean(fit.predict(X[unlabeled]) != y[unlabeled])
    ax.set_title(f"{name}: {100 * error:.1f} % error on U")
fig.suptitle("Two moons, one label per class")
plt.show()
