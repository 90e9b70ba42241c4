"""The transductive SVM's convex steps: compiled dual coordinate descent against L-BFGS-B on the same
box-constrained dual, on Gieseke et al.'s USPS(2,7) [17/843/861] with a linear kernel.

    TOOLKIT_DATA_MIRROR=../shared/datasets python benchmarks/bench_tsvm.py

For each (C, C* u) of the paper's grid corners, ``tsvm`` is fitted as shipped (coordinate descent,
``tol=1e-6``) and once more with every convex step solved by ``scipy.optimize.minimize(method=
"L-BFGS-B")`` (projected-gradient tolerance 1e-6), the solver the first version used. Printed: both
times, their ratio, and the relative difference of the final objectives J (the two follow the
same CCCP iterations, so they must end on the same J up to the steps' tolerance).
"""
import time
from unittest import mock

import numpy as np
from scipy.optimize import minimize

from toolkit import data, tsvm
from toolkit.transductive import _cccp


def lbfgsb_step(Kc, y_dup, point, upper, margin, beta, alpha0, tol, max_iter):
    n = Kc.shape[0]

    def negative_dual(alpha):
        v = np.bincount(point, weights=y_dup * (alpha - beta), minlength=n)
        g = Kc @ v
        return 0.5 * (v @ g) - margin @ alpha, y_dup * g[point] - margin

    res = minimize(negative_dual, np.clip(alpha0, 0.0, upper), jac=True, method="L-BFGS-B",
                   bounds=np.column_stack([np.zeros_like(upper), upper]),
                   options={"ftol": 0.0, "gtol": tol, "maxiter": 20000, "maxfun": 40000})
    alpha = np.clip(res.x, 0.0, upper)
    v = np.bincount(point, weights=y_dup * (alpha - beta), minlength=n)
    g = Kc @ v
    gap = float(v @ g + (upper * np.maximum(0.0, margin - y_dup * g[point])).sum()
                + (beta * y_dup * g[point]).sum() - margin @ alpha)
    return alpha, v, g, int(res.nit), gap, res.status == 0


def main():
    ds = data.load("usps", 2, 7)
    split = data.split(ds, l=17, u=843, t=861, rng=0)
    Xl, yl, Xu = ds.X[split.labeled], ds.y[split.labeled], ds.X[split.unlabeled]
    balance = float(np.mean(ds.y[split.labeled] > 0))
    tsvm(Xl, yl, Xu, C=1.0, C_star=1.0 / len(Xu))            # compile once, not timed
    print(f"USPS(2,7) l={len(Xl)} u={len(Xu)}, linear kernel, b_c={balance:.3f}")
    print(f"{'C':>8} {'C* u':>6} {'DCD [s]':>9} {'L-BFGS-B [s]':>13} {'ratio':>7} {'|dJ|/J':>9}")
    ratios = []
    for C in (2.0 ** -2, 1.0, 2.0 ** 10):
        for cu in (0.01, 1.0, 100.0):
            t0 = time.perf_counter()
            ours = tsvm(Xl, yl, Xu, C=C, C_star=cu / len(Xu), balance=balance)
            t1 = time.perf_counter()
            with mock.patch.object(_cccp, "_convex_step", lbfgsb_step):
                ref = tsvm(Xl, yl, Xu, C=C, C_star=cu / len(Xu), balance=balance)
            t2 = time.perf_counter()
            ratios.append((t2 - t1) / (t1 - t0))
            print(f"{C:8.4g} {cu:6.4g} {t1 - t0:9.3f} {t2 - t1:13.3f} {ratios[-1]:7.1f} "
                  f"{abs(ours.objective - ref.objective) / abs(ref.objective):9.1e}")
    print(f"L-BFGS-B / coordinate descent: median {np.median(ratios):.1f}x, min {min(ratios):.1f}x")


if __name__ == "__main__":
    main()
