"""Scale-out: one grid selection on a Dask LocalCluster with 1 and with 2 workers (printed, not asserted);
with ``--low-rank``, one low-rank LapSVM fit whose row blocks the workers hold.

    python benchmarks/bench_dask.py [--n 4000] [--folds 4]
    python benchmarks/bench_dask.py --low-rank [--n 200000] [--basis 500]

``select("laprlsc", ...)`` on two moons (n points, 40 labelled, half of the points for training):
4 kernel widths (``sigma_scale``) × ``--folds`` folds = 16 jobs of about a second each, each computing
its kernel, graph and factorisations once for its 2 × 2 (γ_A, γ_I) grid. The same selection runs
on a ``LocalCluster`` of 1 worker and of 2 workers (1 thread each, OMP / OpenBLAS / MKL / numba
threads set to 1 in the workers), after an untimed warm-up on each (numba's cache, imports). Printed:
both wall times and their ratio (target ≤ 0.6), the data moved per task (the pickled task
specification the scheduler sends, the size of the result sent back, and X and y scattered once
per worker) and whether the tidy tables of both runs and of a serial run in this process are
identical (the ``seconds`` column and the refit's ``solve_seconds`` aside).

Measured on the development machine (2 cores, nothing else running), n = 4000, 4 folds, two runs:
1 worker 17.3 s, 2 workers 10.0 s / 9.8 s, ratio 0.58 / 0.57 (serial in the calling process 16.9 s;
a job takes about a second, the refit, 0.6 s, runs in the calling process either way); per task
2.3 KB of specification and 7.5 KB of results (Dask's size estimate of the tidy rows), 16 tasks;
X and y (4000 × 2 float64 and the labels, 96 KB) scattered once per worker; the three tables
identical. While another session's processes kept the cores busy, the same run gave ratios of
0.9-1.2: the two workers then share two cores with them.

``--low-rank``: ``lapsvm(..., n_basis=r, scheduler=...)`` on two moons (l = 10, σ = 0.3, 20 neighbours
with heat weights, γ_A = 1e-6, γ_I = 1, the stability rule), in this process and on 1 and 2 local
workers: the wall times, the time of the distributed part (features, Gram and the solve: the
kernel and solve timings; the graph is built here either way), the row blocks, the largest block a
worker holds and whether the objectives agree. Measured (2 cores, another job running, n = 200 000,
r = 500): this process 10.9 s (features, Gram and solve: 7.3 s); 1 worker 12.3 s (7.6 s), 2 workers
8.5 s (4.4 s: ratio 0.58 of the distributed part), 4 row blocks of about 190 MiB; objectives equal.
Before the rows were put in reverse Cuthill-McKee order every block's Gram share reached all
other blocks and 2 workers took 19.2 s.
"""
from __future__ import annotations

import argparse
import os
import pickle
import time

ONE_THREAD = {name: "1" for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                                     "NUMBA_NUM_THREADS")}
os.environ.update(ONE_THREAD)        # before numpy is imported: the serial reference here has one thread too

import pandas as pd  # noqa: E402
from distributed import LocalCluster  # noqa: E402
from distributed.diagnostics.plugin import SchedulerPlugin  # noqa: E402

import toolkit  # noqa: E402
from toolkit.specs import Graph, Kernel, LowRank  # noqa: E402


class TaskTraffic(SchedulerPlugin):
    """A scheduler plugin (the LocalCluster's scheduler lives in this process): per task, the pickled
    size of its specification (what a worker receives) and the size of its result (what comes back)."""

    def __init__(self):
        self.spec, self.result = {}, {}

    def update_graph(self, scheduler, *, tasks, **kwargs):
        for key in tasks:
            task = scheduler.tasks.get(key)
            if task is not None and task.run_spec is not None:
                self.spec[key] = len(pickle.dumps(task.run_spec))

    def transition(self, key, start, finish, *args, **kwargs):
        if finish == "memory" and key in self.spec:
            self.result[key] = kwargs.get("nbytes") or 0


def scored(selection):
    table = selection.results
    return table[table["metric"] != "solve_seconds"].drop(columns="seconds").reset_index(drop=True)


def on_cluster(n_workers, run):
    """``run(address)`` on a fresh LocalCluster: the warm-up, then the timed call with its task traffic."""
    with LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None, env=ONE_THREAD) as cluster:
        run(cluster.scheduler_address, warm_up=True)
        traffic = TaskTraffic()
        cluster.scheduler.add_plugin(traffic, name="task-traffic")
        start = time.perf_counter()
        selection = run(cluster.scheduler_address)
        seconds = time.perf_counter() - start
    return selection, seconds, traffic


def low_rank(n, r):
    """One low-rank LapSVM fit here, then on 1 and 2 workers (see the module docstring)."""
    import numpy as np

    ds = toolkit.data.load("moons", n=n + 2000, rng=0)
    X, y = np.asarray(ds.X), np.where(np.asarray(ds.y) > 0, 1, -1)
    rng = np.random.default_rng(100)
    perm = rng.permutation(len(y))
    train, test = perm[:n], perm[n:]
    lab = np.r_[rng.choice(train[y[train] > 0], 5, replace=False), rng.choice(train[y[train] < 0], 5, replace=False)]
    unl = np.setdiff1d(train, lab)
    kw = dict(kernel=Kernel("rbf", sigma=0.3), gamma_A=1e-6, gamma_I=1.0, graph=Graph(n_neighbors=20, weight="heat"),
              low_rank=LowRank(n_basis=r), rng=0)

    def fit(scheduler=None):
        start = time.perf_counter()
        result = toolkit.lapsvm(X[lab], y[lab], X[unl], scheduler=scheduler, **kw)
        return result, time.perf_counter() - start

    toolkit.lapsvm(X[lab], y[lab], X[unl][:2000], **{**kw, "low_rank": LowRank(n_basis=50)})      # warm-up
    here, t_here = fit()
    print(f"low-rank LapSVM, moons n = {n}, r = {r}: this process {t_here:.1f} s (distributed part "
          f"{here.timings['kernel'] + here.timings['solve']:.1f} s), test error "
          f"{100 * np.mean(here.predict(X[test]) != y[test]):.2f} %")
    for workers in (1, 2):
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                          dashboard_address=None, env=ONE_THREAD) as cluster:
            fit(cluster.scheduler_address)                                      # warm-up: imports on the workers
            remote, seconds = fit(cluster.scheduler_address)
        blocks = remote.params["n_row_blocks"]
        block_bytes = 8 * (-(-n // blocks)) * (r + 1 + X.shape[1])
        print(f"{workers} worker(s): {seconds:.1f} s (distributed part {remote.timings['kernel'] + remote.timings['solve']:.1f} s),"
              f" {blocks} row blocks of about {block_bytes / 2**20:.0f} MiB (X and Φ rows), objective "
              f"{'equal' if np.allclose(remote.objective, here.objective, rtol=1e-8) else 'DIFFERENT'}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=None)
    parser.add_argument("--folds", type=int, default=4)
    parser.add_argument("--low-rank", action="store_true")
    parser.add_argument("--basis", type=int, default=500)
    args = parser.parse_args()
    if args.low_rank:
        return low_rank(args.n or 200_000, args.basis)
    args.n = args.n or 4000
    ds = toolkit.data.load("moons", n=args.n, noise=0.1, rng=0)
    split = toolkit.data.split(ds, l=40, rng=0)
    grid = {"sigma_scale": [0.05, 0.1, 0.2, 0.4], "gamma_A": [1e-4, 1e-2], "gamma_I": [0.1, 1.0]}
    fixed = {"kernel": "rbf", "n_neighbors": 6, "method": "direct"}

    def run(scheduler=None, warm_up=False):
        warm = {"grid": {"sigma_scale": [0.1], "gamma_A": [1e-2], "gamma_I": [1.0]}, "n_folds": 2} if warm_up else {}
        return toolkit.selection.select("laprlsc", ds.X, ds.y, split, **{"grid": grid, "n_folds": args.folds, **warm},
                                        fixed=fixed, rng=0, progress=False, scheduler=scheduler)

    n_jobs = len(grid["sigma_scale"]) * args.folds
    print(f"laprlsc on moons n = {args.n} (l = 40, u = {len(split.unlabeled)}), {n_jobs} jobs "
          f"({len(grid['sigma_scale'])} sigma_scale x {args.folds} folds, 2 x 2 (gamma_A, gamma_I) each)")
    one, t_one, traffic_one = on_cluster(1, run)
    two, t_two, traffic_two = on_cluster(2, run)
    start = time.perf_counter()
    here = run()
    t_here = time.perf_counter() - start
    spec = sorted(traffic_two.spec.values())
    result = sorted(traffic_two.result.values())
    scattered = ds.X.nbytes + ds.y.nbytes
    same = scored(one).equals(scored(two)) and scored(one).equals(scored(here)) and one.test_error == two.test_error
    pd.testing.assert_frame_equal(scored(one), scored(two))
    print(f"1 worker  : {t_one:6.1f} s")
    print(f"2 workers : {t_two:6.1f} s   ratio 2 / 1 workers {t_two / t_one:.2f} (target <= 0.6)")
    print(f"serial in this process: {t_here:6.1f} s (refit included in all three)")
    print(f"per task ({len(spec)} tasks): specification {spec[len(spec) // 2] / 1e3:.1f} KB median "
          f"({spec[0] / 1e3:.1f}-{spec[-1] / 1e3:.1f} KB), result {result[len(result) // 2] / 1e3:.1f} KB median; "
          f"X and y scattered once per worker: {scattered / 1e3:.0f} KB each (X is {ds.X.shape[0]} x {ds.X.shape[1]})")
    print(f"results identical (1 worker, 2 workers, serial): {same}; test error {one.test_error:.2f} %")


if __name__ == "__main__":
    main()
