"""
The entire regularisation path
==============================

An SVM's dual coefficients are piecewise linear in the regularisation parameter λ
(Hastie et al. 2004), so one run computes the solution at **every** λ, breakpoint after breakpoint,
for about the price of one fit. :func:`toolkit.paths.svm_path` follows the path of the supervised
hinge-loss SVM,

.. math::

    \\min_{w, \\beta_0} \\sum_{i=1}^{l} (1 - y_i f(x_i))_+ + \\frac{\\lambda}{2}\\|w\\|^2,

on a kernel matrix, and :func:`toolkit.paths.laplacian_svm_path` the semi-supervised model of
Wang, Qin & Huang, whose penalty adds the graph term :math:`r\\,\\beta^T K L K \\beta` built on the
labelled **and** unlabelled points; its dual is the same SVM path on an l × l effective kernel.
Here both run on two moons with five labels per class, and the error on held-out points is read
off the paths at every λ (:func:`toolkit.paths.validation_curve`), as in Wang et al.'s Fig. 2-3.
"""

import matplotlib.pyplot as plt
import numpy as np

from toolkit import data, kernel_matrix, laplacian_svm_path, svm_path, validation_curve
from toolkit.specs import Graph, Kernel

# %%
# Two moons: 5 labelled points per class, 300 unlabelled, 190 held out to measure the error.
ds = data.load("moons", n=500, noise=0.1, rng=1)
X, y = ds.X, ds.y.astype(float)
rng = np.random.default_rng(2)
order = rng.permutation(len(y))
labeled = np.r_[order[y[order] > 0][:5], order[y[order] < 0][:5]]
rest = rng.permutation(np.setdiff1d(order, labeled))
unlabeled, held_out = rest[:300], rest[300:]
sigma = 0.5

# %%
# The supervised path on the labelled points' kernel matrix, and the Laplacian path on all
# points (kNN graph with 8 neighbours, γ_I / γ_A = ``gamma_ratio``).
K = kernel_matrix(X[labeled], kernel="rbf", sigma=sigma)
path = svm_path(K, y[labeled])
lap_path = laplacian_svm_path(X[labeled], y[labeled], X[unlabeled], kernel=Kernel("rbf", sigma=sigma),
                              graph=Graph(n_neighbors=8, weight="binary", power=1), gamma_ratio=100.0)
print(path.summary())
print(lap_path)

# %%
# The coefficient paths: every α_i against log λ, breakpoints as thin vertical lines. Reading
# right to left, λ decreases, points leave the margin's "right" set, and the model fits harder.
fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True, layout="constrained")
path.plot(ax=axes[0])
axes[0].set_title(f"supervised SVM: {path.breakpoints.size} breakpoints")
lap_path.plot(ax=axes[1])
axes[1].set_title(f"Laplacian SVM: {lap_path.breakpoints.size} breakpoints")
plt.show()

# %%
# The error on held-out points along both paths: the paths give the decision function at any λ
# (``path.decision_function(K_new, s)``), so the whole curve costs a few matrix products. The two
# models scale λ differently (the Laplacian path's kernel is the effective kernel), so each is
# drawn against λ / λ_max, with λ_max its first breakpoint; below the last breakpoint the
# solution moves linearly down to λ = 0.
K_held_out = kernel_matrix(X[held_out], X[labeled], kernel="rbf", sigma=sigma)
ratios = np.geomspace(1.0, 1e-2, 80)
curve = validation_curve(path, K_held_out, y[held_out], lambdas=path.breakpoints[0] * ratios)
lap_curve = validation_curve(lap_path, X[held_out], y[held_out], lambdas=lap_path.breakpoints[0] * ratios)
fig, ax = plt.subplots(figsize=(6.5, 4), layout="constrained")
ax.plot(ratios, curve.error, label="supervised SVM path")
ax.plot(ratios, lap_curve.error, label="Laplacian SVM path")
ax.set_xscale("log")
ax.set_xlabel("λ / λ_max (log scale)")
ax.set_ylabel("error on held-out points (%)")
ax.legend()
ax.set_title("Error along the path")
plt.show()
print(f"best held-out error: supervised {curve.error.min():.1f} %, Laplacian {lap_curve.error.min():.1f} %")
