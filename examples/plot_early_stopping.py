"""
Early stopping of the Laplacian SVM's PCG
=========================================

:func:`toolkit.manifold.lapsvm` with ``method="pcg"`` minimises the primal of eq. (7) of
Melacci & Belkin (2011),

.. math::

    \\tfrac12 \\Big( \\sum_{i=1}^{l} \\max(1 - y_i f(x_i), 0)^2
    + \\gamma_A \\alpha^T K \\alpha + \\gamma_I f^T L^p f \\Big),
    \\qquad f = K\\alpha + \\mathbf{1} b,

by preconditioned conjugate gradient. The classification of the unlabelled points settles long
before the objective reaches its minimum (§4.1), so the paper stops PCG by looking at the
*decisions* instead of the gradient:

* the **stability check** (Algorithm 2): every θ = √n / 2 iterations, stop when fewer than
  1.5 % of the unlabelled decisions sign f(x) changed since the previous check;
* the **validation check** (Algorithm 3): stop when the error on the labelled validation set V
  did not improve by at least one point;
* the **mixed check**: stop when both would.

This example runs the paper's PCG (Algorithm 1, ``preconditioner="kernel"``) for 500 iterations
on USPST(B) (digits 0-4 against 5-9) with the paper's protocol and Table 10's parameters, records
the error on U and on V after every iteration through the solver's ``callback``, and marks where
each rule of :mod:`toolkit.early_stopping` stops the same solver.
"""

import dataclasses
import warnings

import matplotlib.pyplot as plt
import numpy as np

from toolkit import ConvergenceWarning, lapsvm
from toolkit.specs import Graph, Kernel, Solver
from toolkit.data import cv_splits, load

# %%
# USPST(B), one split of the paper's protocol: 50 labelled, 50 validation, the test points kept
# apart, the rest unlabelled. RBF kernel and heat-weighted 10-NN graph with ``L^2`` (Table 9).
ds = load("uspst", [0, 1, 2, 3, 4], [5, 6, 7, 8, 9])
X, y = ds.X, ds.y
split = cv_splits(ds, l=50, v=50, rng=0)[0]
X_l, y_l, X_u, y_u = X[split.labeled], y[split.labeled], X[split.unlabeled], y[split.unlabeled]
validation = (X[split.validation], y[split.validation])
params = dict(kernel=Kernel("rbf", sigma=9.4), graph=Graph(n_neighbors=10, power=2), gamma_A=1e-6, gamma_I=1.0)
paper = Solver("pcg", preconditioner="kernel")         # the paper's P = diag(1, K), Algorithm 1
print(f"l = {len(y_l)}, u = {len(y_u)}, |V| = {len(validation[1])}")

# %%
# The trace: PCG without a stopping rule (``stop=None``), 500 iterations. The callback receives
# the toolkit's :class:`~toolkit.IntermediateResult` after every iteration: the unlabelled
# decisions, the validation error, the objective and the gradient norm.
trace = {"iteration": [], "error_U": [], "error_V": [], "objective": [], "grad_norm": []}


def record(state):
    trace["iteration"].append(state["n_iter"])
    trace["error_U"].append(np.mean(np.where(state["decisions"] > 0, 1, -1) != y_u))
    trace["error_V"].append(state["validation_error"])
    trace["objective"].append(state["objective"])
    trace["grad_norm"].append(state["grad_norm"])


with warnings.catch_warnings():
    warnings.simplefilter("ignore", ConvergenceWarning)       # 500 iterations stop short of tol
    full = lapsvm(X_l, y_l, X_u, solver=dataclasses.replace(paper, stop=None, max_iter=500), validation=validation,
                  callback=record, **params)
trace = {key: np.asarray(value, dtype=float) for key, value in trace.items()}
print(full.message)

# %%
# Each rule on the same problem: where it fires, and the error of the solution it returns. The
# classic gradient-based rules use the threshold ``tol = 1e-2``.
rules = {"stability": {}, "validation": {}, "mixed": {}, "gradient": {"tol": 1e-2},
         "relative_objective": {"tol": 1e-2}}
stops = {}
for rule, extra in rules.items():
    fit = lapsvm(X_l, y_l, X_u, solver=dataclasses.replace(paper, stop=rule, **extra), validation=validation,
                 **params)
    stops[rule] = fit.n_iter
    error_u = np.mean(fit.predict(X_u) != y_u)
    print(f"{rule:18s} stops at iteration {fit.n_iter:3d}: error on U {100 * error_u:.1f} % ({fit.stop_reason})")

# %%
# The errors on U and V settle within the first few dozen iterations; the objective and the
# gradient keep decreasing long after (log-scaled iteration axis). Dashed lines: where each rule
# stops.
fig, (ax_err, ax_obj) = plt.subplots(2, 1, figsize=(8, 6.5), sharex=True, layout="constrained")
ax_err.plot(trace["iteration"], 100 * trace["error_U"], label="error on U (unlabelled)")
ax_err.plot(trace["iteration"], 100 * trace["error_V"], label="error on V (validation)", alpha=0.8)
ax_err.set_ylabel("error (%)")
ax_err.set_ylim(0, 55)
ax_obj.semilogy(trace["iteration"], trace["objective"], label="objective (eq. 7)")
ax_obj.semilogy(trace["iteration"], trace["grad_norm"] / trace["grad_norm"][0], label="‖∇‖ / ‖∇₀‖")
ax_obj.set_xlabel("PCG iteration")
for k, iteration in enumerate(sorted(set(stops.values()))):
    names = ", ".join(rule for rule, at in stops.items() if at == iteration)   # rules firing together
    for ax in (ax_err, ax_obj):
        ax.axvline(iteration, color=f"C{k + 2}", ls="--", lw=1.2)
    ax_err.annotate(names, (iteration, 54), rotation=90, va="top", ha="right", color=f"C{k + 2}", fontsize=8)
ax_err.set_xscale("log")
ax_err.set_xlim(1, trace["iteration"][-1])
ax_err.legend(loc="center right")
ax_obj.legend(loc="lower left")
ax_err.set_title("USPST(B): LapSVM by PCG, and where each early-stopping rule fires")
plt.show()

# %%
# The toolkit's default PCG adds a coarse-space correction to the paper's preconditioner
# (``preconditioner="two-level"``): the same minimiser of eq. (7), reached in far fewer
# iterations, so the same rules fire earlier.
for rule in ("stability", "validation"):
    fit = lapsvm(X_l, y_l, X_u, solver=Solver("pcg", stop=rule, preconditioner="two-level"), validation=validation,
                 **params)
    error_u = np.mean(fit.predict(X_u) != y_u)
    print(f"two-level, {rule:10s} stops at iteration {fit.n_iter:3d}: error on U {100 * error_u:.1f} %")
