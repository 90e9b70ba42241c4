"""LapSVM in the primal: PCG with early stopping vs Newton vs the dual, and PCG's per-iteration cost.

    TOOLKIT_DATA_MIRROR=../shared/datasets python benchmarks/bench_lapsvm.py [--tasks G50C PCMAC "USPST(B)"]
        [--splits 2] [--iteration-n 1000 2000 5000] [--scale 20000]

The tasks, their Table 9 / 10 settings and the paper's times are those of the experiment
``notebooks/experiments/melacci2011.toml`` (read with :func:`toolkit.reports.load_experiment`);
a task is named by the start of its label there. Five parts, all printing ratios:

1. **Solvers** (Melacci & Belkin 2011, Table 6): on the same splits (Table 2 sizes, kernel and
   Laplacian precomputed as in the paper), the solve time of Newton, the dual (SVC) and LapRLSC
   divided by that of PCG with the stability check, with the PCG iteration count and the
   agreement of PCG's decisions with Newton's on U. Every solver uses its own published
   (γ_A, γ_I); the dual, which the experiment selects on V, uses Newton's.
2. **One PCG iteration vs one product by K** of the same size (the memory-bandwidth floor), float64
   and float32: ``(PCG solve time / iterations) / (time of K v)``, with the paper's preconditioner
   (an iteration of the two-level one adds its coarse solve); target <= 1.3. The iteration's product
   reads one triangle of K (BLAS symv), so the floor is the symmetric product; the general ``K @ v``
   (gemv, which reads all of K) is printed beside it.
3. ``--scale N``: a binary task with ``N`` points (SSL-book set 8, SecStr) trained by PCG with the
   stability check, kernel (float32) and graph construction included; prints the time and the
   peak resident memory relative to one ``N × N`` float64 matrix. Off by default (needs ~2.5 GB
   for N = 20 000).
4. ``--multiclass``: one-vs-all USPST trained jointly (one ``K @ (n × 10)`` per iteration) vs
   ten separate binary runs.
5. ``--float32``: PCG errors with a float32 vs a float64 kernel on USPST(B).
"""
import argparse
import resource
import time
import warnings

import numpy as np

from toolkit import lapsvm, laprlsc, lapsvm_dual
from toolkit.graphs import POWER_MAX_DENSITY, graph_laplacian, iterated_laplacian, knn_graph
from toolkit.kernels import kernel_matrix
from toolkit.reports import load_experiment
from toolkit.specs import Graph, Kernel, Solver

EXPERIMENT = "melacci2011"
GRAPH_KEYS = ("kernel", "sigma", "kernel_degree", "neighbors", "degree", "weight", "graph_sigma")
# the experiment's method label -> the solver compared here
SOLVERS = {"lapsvm": "newton", "lapsvm (PCG)": "pcg", "laprlsc": "laprlsc"}


def melacci_task(prefix):
    """A task of the melacci2011 experiment: data, |L|, |V|, graph settings and (γ_A, γ_I) per solver."""
    from toolkit.data import load

    exp = load_experiment(EXPERIMENT)
    configs = [c for c in exp.configurations if c.task.split(" [")[0] == prefix]
    if not configs:
        names = sorted({c.task.split(" [")[0] for c in exp.configurations})
        raise SystemExit(f"no task {prefix!r} in {exp.path}; valid: {', '.join(names)}")
    p = configs[0].parameters
    ds = load(p["dataset"], *p["classes"], **p["options"])
    gammas = {SOLVERS[c.method]: (c.parameters["fixed"]["gamma_A"], c.parameters["fixed"]["gamma_I"])
              for c in configs if c.method in SOLVERS}
    gammas["dual"] = gammas["newton"]
    graph = {k: v for c in configs for k, v in c.parameters["fixed"].items() if k in GRAPH_KEYS}
    times = {p["method"]: p["mean"] for p in exp.published
             if p.get("metric") == "seconds" and p["task"] == configs[0].task}
    return {"X": ds.X, "y": np.asarray(ds.y), "l": p["l"], "v": p["v"], "graph": graph, "gammas": gammas,
            "paper_seconds": times}


def precompute(X_train, graph):
    """Kernel matrix and ``L^p`` of the training points (timed separately, as in the paper's Table 6).

    Returns ``(K, L, seconds_kernel, seconds_graph)``; ``L^p`` is sparse when it stays sparse,
    otherwise a LinearOperator applying ``L`` ``p`` times.
    """
    t0 = time.perf_counter()
    K = kernel_matrix(X_train, kernel=graph["kernel"], sigma=graph.get("sigma"),
                      kernel_degree=graph.get("kernel_degree", 2), coef0=1.0)
    t_kernel = time.perf_counter() - t0
    t0 = time.perf_counter()
    W = knn_graph(X_train, n_neighbors=graph["neighbors"], weight=graph.get("weight", "heat"),
                  graph_sigma=graph.get("graph_sigma"))
    L = iterated_laplacian(graph_laplacian(W, normalized=True), power=graph.get("degree", 1),
                           max_density=POWER_MAX_DENSITY)                             # what lapsvm builds
    t_graph = time.perf_counter() - t0
    return K, L, t_kernel, t_graph


def solver_kwargs(task, solver):
    """Keyword arguments of lapsvm / laprlsc / lapsvm_dual for a task and a solver key."""
    kw = dict(task["graph"], normalized=True)
    kw["gamma_A"], kw["gamma_I"] = task["gammas"][solver]
    return kw


def split_indices(y, l, u, seed):
    """Random L / U indices with every class among the labelled points."""
    rng = np.random.default_rng(seed)
    while True:
        p = rng.permutation(len(y))
        if len(np.unique(y[p[:l]])) == len(np.unique(y)):
            return p[:l], p[l:l + u]


def solver_comparison(tasks, n_splits):
    print("1. Solve time ratios on the same splits (kernel and L^p precomputed, as in Table 6)")
    print(f"{'task':<9}{'n':>6}{'PCG[s]':>9}{'iters':>7}{'Newton/PCG':>12}{'dual/PCG':>10}"
          f"{'LapRLSC/PCG':>13}{'agree':>8}{'paper N/PCG':>13}")
    for name in tasks:
        task = melacci_task(name)
        X, y, l, v = task["X"], task["y"], task["l"], task["v"]
        n_train = int(round(0.75 * len(y))) - v
        rows = []
        for s in range(n_splits):
            lab, unl = split_indices(y, l, n_train - l, seed=100 + s)
            idx = np.r_[lab, unl]
            Xtr = X[idx]
            K, L, _, _ = precompute(Xtr, task["graph"])
            common = dict(kernel="precomputed", laplacian_matrix=L)
            times = {}
            fits = {}
            for solver, fn, extra in [("pcg", lapsvm, dict(method="pcg", stop="stability")),
                                      ("newton", lapsvm, dict(method="newton")),
                                      ("dual", lapsvm_dual, {}),
                                      ("laprlsc", laprlsc, dict(method="direct"))]:
                kw = {**solver_kwargs(task, solver), **common, **extra}
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    r = fn(K[:l], y[lab], K[l:], **kw)            # kernel rows, labelled points first
                times[solver] = r.timings["solve"]
                fits[solver] = r
            agree = np.mean(np.sign(K[l:] @ fits["pcg"].alpha + fits["pcg"].b)
                            == np.sign(K[l:] @ fits["newton"].alpha + fits["newton"].b))
            rows.append((times["pcg"], fits["pcg"].n_iter, times["newton"] / times["pcg"],
                         times["dual"] / times["pcg"], times["laprlsc"] / times["pcg"], agree))
        m = np.mean(np.array(rows, dtype=float), axis=0)
        seconds = task["paper_seconds"]
        paper = seconds["lapsvm"] / seconds["lapsvm (PCG)"] if {"lapsvm", "lapsvm (PCG)"} <= set(seconds) else np.nan
        print(f"{name:<9}{n_train:>6}{m[0]:>9.3f}{m[1]:>7.0f}{m[2]:>12.1f}{m[3]:>10.1f}{m[4]:>13.1f}"
              f"{m[5]:>8.3f}{paper:>13.1f}")


def best_of(fn, repeats):
    best = np.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def iteration_cost(n, iters=40, repeats=5):
    print(f"\n2. One PCG iteration vs one product K v, n = {n} (target ratio <= 1.3)")
    print("   interleaved runs, median of the per-run ratios; both under the same BLAS thread limit;")
    print("   K v: the symmetric product (symv, one triangle) the iteration uses; K @ v (gemv) for reference")
    from toolkit.manifold._core import symmetric_product
    from threadpoolctl import threadpool_limits
    from toolkit.graphs import laplacian
    from toolkit.kernels import rbf_kernel
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 20))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    l = 50
    K64 = rbf_kernel(X, sigma=3.0)
    L = laplacian(X, n_neighbors=10)
    print(f"{'dtype':<9}{'threads':>8}{'K@v [ms]':>10}{'K v [ms]':>10}{'PCG iter [ms]':>15}{'ratio':>8}")
    for dtype in ("float64", "float32"):
        K = K64 if dtype == "float64" else K64.astype(np.float32)
        v = rng.normal(size=n).astype(K.dtype)
        for threads in (1, 2):
            t_gemv, t_mv, t_it, ratios = [], [], [], []
            product = symmetric_product(K)
            V, out = v[:, None], np.empty((n, 1), dtype=K.dtype)
            for _ in range(repeats):
                with threadpool_limits(limits=threads, user_api="blas"):
                    t0 = time.perf_counter()
                    for _ in range(iters):
                        K @ v
                    gemv = (time.perf_counter() - t0) / iters
                    t0 = time.perf_counter()
                    for _ in range(iters):
                        product(V, out)
                    mv = (time.perf_counter() - t0) / iters
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    r = lapsvm(K[:l], y[:l], K[l:], kernel="precomputed", gamma_A=1e-6, gamma_I=1e-2, graph=L,
                               solver=Solver(stop=None, tol=0.0, max_iter=iters, preconditioner="kernel", dtype=dtype, blas_threads=threads))
                # the solve also makes the initial, final and refresh products: all counted as iterations
                it = r.timings["solve"] / (r.n_iter + 2 + r.n_iter // 50)
                t_gemv.append(gemv), t_mv.append(mv), t_it.append(it), ratios.append(it / mv)
            print(f"{dtype:<9}{threads:>8}{1e3 * np.median(t_gemv):>10.2f}{1e3 * np.median(t_mv):>10.2f}"
                  f"{1e3 * np.median(t_it):>15.2f}{np.median(ratios):>8.2f}")
    del K64


def multiclass(repeats=3):
    print("\n4. One-vs-all on USPST (10 classes, l = 50, u = 1409): all problems in one PCG (K @ (n x 10)) "
          "vs 10 separate binary PCG runs, same iterations")
    from toolkit.kernels import rbf_kernel
    from toolkit.graphs import laplacian
    task = melacci_task("USPST")
    X, y = task["X"], task["y"]
    lab, unl = split_indices(y, 50, 1409, seed=0)
    idx = np.r_[lab, unl]
    K = rbf_kernel(X[idx], sigma=9.4)
    L = laplacian(X[idx], n_neighbors=10, power=2)
    kw = dict(kernel="precomputed", gamma_A=1e-6, gamma_I=1e-2, laplacian_matrix=L, stop=None, tol=0.0, max_iter=60)
    ratios = []
    for _ in range(repeats):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            joint = lapsvm(K[:50], y[lab], K[50:], **kw).timings["solve"]
            sep = sum(lapsvm(K[:50], np.where(y[lab] == c, 1, -1), K[50:], **kw).timings["solve"]
                      for c in range(10))
        ratios.append(sep / joint)
    print(f"separate / joint solve time: {np.median(ratios):.2f} (median of {repeats})")


def float32_check(name="USPST(B)", n_splits=3):
    print(f"\n5. float32 vs float64 kernel, PCG + stability on {name} (Table 2 sizes): error on U")
    task = melacci_task(name)
    X, y, l, v = task["X"], task["y"], task["l"], task["v"]
    n_train = int(round(0.75 * len(y))) - v
    print(f"{'split':<7}{'err64':>8}{'err32':>8}{'agree':>8}{'t64 [s]':>9}{'t32 [s]':>9}")
    for s in range(n_splits):
        lab, unl = split_indices(y, l, n_train - l, seed=200 + s)
        kw = solver_kwargs(task, "pcg")
        r64 = lapsvm(X[lab], y[lab], X[unl], **kw)
        r32 = lapsvm(X[lab], y[lab], X[unl], solver=Solver(dtype="float32"), **kw)
        p64, p32 = r64.predict(X[unl]), r32.predict(X[unl])
        print(f"{s:<7}{np.mean(p64 != y[unl]):>8.3f}{np.mean(p32 != y[unl]):>8.3f}{np.mean(p64 == p32):>8.3f}"
              f"{r64.timings['solve']:>9.3f}{r32.timings['solve']:>9.3f}")


def scale(n):
    from toolkit.data import load
    print(f"\n3. Scale: SSL-book set 8 (SecStr), first {n} points (1000 labelled), PCG + stability check, "
          "float32 kernel")
    ds = load("ssl-book", 8)
    X, y = ds.X[:n].toarray(), np.asarray(ds.y)[:n]     # 315 binary features: dense is faster for K
    lab, unl = split_indices(y, 1000, n - 1000, seed=0)
    t0 = time.perf_counter()
    t_kernel = 0.0
    # sigma, gamma_A, gamma_I chosen on 250 held-out labelled points of a 5000-point subset (V error 33 %)
    r = lapsvm(X[lab], y[lab], X[unl], kernel=Kernel("rbf", sigma=6.0),
               graph=Graph(n_neighbors=10, power=1, neighbor_search="kernel"), solver=Solver(dtype="float32"),
               gamma_A=1.0, gamma_I=1.0)   # kNN graph read off K
    total = time.perf_counter() - t0
    err = np.mean(r.predict(X[unl]) != y[unl]) if n <= 20000 else float("nan")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(f"total {total:.1f} s (kernel {t_kernel + r.timings['kernel']:.1f}, graph {r.timings['graph']:.1f}, "
          f"solve {r.timings['solve']:.1f}); {r.n_iter} iterations ({r.message}); error on U {err:.3f} "
          f"(majority class: {1 - np.mean(y[unl] == np.bincount(y[unl]).argmax()):.3f}); "
          f"peak RSS {peak / 2**30:.2f} GiB = {peak / (8 * n * n):.2f} x one n x n float64 matrix")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", nargs="*", default=["G50C", "PCMAC", "USPST(B)"],
                        help="tasks of notebooks/experiments/melacci2011.toml (their labels without the sizes)")
    parser.add_argument("--splits", type=int, default=2)
    parser.add_argument("--iteration-n", type=int, nargs="*", default=[1000, 2000, 5000])
    parser.add_argument("--scale", type=int, default=0)
    parser.add_argument("--multiclass", action="store_true", help="part 4: joint one-vs-all vs separate")
    parser.add_argument("--float32", action="store_true", help="part 5: float32 vs float64 kernel error")
    args = parser.parse_args(argv)
    if args.tasks:
        solver_comparison(args.tasks, args.splits)
    for n in args.iteration_n:
        iteration_cost(n)
    if args.multiclass:
        multiclass()
    if args.float32:
        float32_check()
    if args.scale:
        scale(args.scale)


if __name__ == "__main__":
    main()
