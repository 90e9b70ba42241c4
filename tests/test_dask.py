"""Scale-out on Dask: select's jobs on a LocalCluster of 2 worker processes on 127.0.0.1 give the local
results, bad ``scheduler`` values are refused with clear messages, and ``ssl-toolkit reproduce
--scheduler`` hands the address to every configuration's notebook."""
from __future__ import annotations

import sys
import textwrap

import pandas as pd
import pytest

distributed = pytest.importorskip("distributed")

from toolkit import data  # noqa: E402
from toolkit.cli import main  # noqa: E402
from toolkit.selection import select  # noqa: E402

RLSC = dict(grid={"lam": [0.01, 1.0]}, fixed={"kernel": "linear"}, n_folds=3, rng=0, progress=False)
LAPSVM = dict(grid={"gamma_A": [1e-4, 1e-2], "gamma_I": [0.1, 1.0], "sigma_scale": [0.5, 1.0]},
              fixed={"kernel": "rbf", "n_neighbors": 6}, n_folds=3, rng=0, progress=False)


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as local_cluster:
        yield local_cluster


@pytest.fixture(scope="module")
def client(cluster):
    with distributed.Client(cluster, set_as_default=False) as cluster_client:
        yield cluster_client


@pytest.fixture(scope="module")
def gaussian():
    ds = data.load("gaussian2c", rng=0)      # synthetic: no download
    return ds, data.split(ds, l=25, rng=0)


def scored(selection):
    """The tidy table without what is timed (the ``seconds`` column, the refit's ``solve_seconds`` row)."""
    table = selection.results
    return table[table["metric"] != "solve_seconds"].drop(columns="seconds").reset_index(drop=True)


def assert_same_selection(remote, local):
    pd.testing.assert_frame_equal(scored(remote), scored(local))          # same rows, same order, same values
    pd.testing.assert_frame_equal(remote.summary_table, local.summary_table)
    assert remote.lambda_min == local.lambda_min and remote.lambda_1se == local.lambda_1se
    assert remote.test_error == local.test_error and remote.unlabeled_error == local.unlabeled_error


@pytest.mark.parametrize("method, kwargs", [("rlsc", RLSC), ("lapsvm", LAPSVM)])
def test_select_on_a_cluster_gives_the_local_results(cluster, client, gaussian, method, kwargs):
    ds, sp = gaussian
    local = select(method, ds.X, ds.y, sp, **kwargs)
    with distributed.get_task_stream(client=client) as stream:
        by_address = select(method, ds.X, ds.y, sp, scheduler=cluster.scheduler_address, **kwargs)
    by_client = select(method, ds.X, ds.y, sp, scheduler=client, **kwargs)
    assert_same_selection(by_address, local)
    assert_same_selection(by_client, local)
    assert client.status == "running"                          # a client given is left open
    names = {task["key"] for task in stream.data}
    assert names and all("_run_numbered_job" in name for name in names)   # the jobs ran on the workers
    assert {task["worker"] for task in stream.data} <= set(client.scheduler_info()["workers"])


def test_local_processes_give_the_serial_rows_in_the_serial_order(gaussian):
    ds, sp = gaussian
    kwargs = {**RLSC, "grid": {"lam": [0.01, 1.0], "sigma": [5.0, 20.0]}, "fixed": {"kernel": "rbf"}}
    serial = select("rlsc", ds.X, ds.y, sp, **kwargs)
    parallel = select("rlsc", ds.X, ds.y, sp, n_jobs=2, **kwargs)
    assert_same_selection(parallel, serial)


class TaskSizes(distributed.diagnostics.plugin.SchedulerPlugin):
    """A scheduler plugin: the pickled size of every task's specification (what a worker receives)."""

    def __init__(self):
        self.spec = {}

    def update_graph(self, scheduler, *, tasks, **kwargs):
        import pickle

        for key in tasks:
            task = scheduler.tasks.get(key)
            if task is not None and task.run_spec is not None:
                self.spec[key] = len(pickle.dumps(task.run_spec))


def test_tasks_carry_only_references_and_a_repeated_selection_works(cluster, client, gaussian):
    from joblib import Parallel, delayed

    from toolkit._dask import dask_backend

    ds, sp = gaussian
    sizes = TaskSizes()
    cluster.scheduler.add_plugin(sizes, name="task-sizes")
    try:
        select("lapsvm", ds.X, ds.y, sp, scheduler=client, **LAPSVM)
    finally:
        cluster.scheduler.remove_plugin(name="task-sizes")
    assert len(sizes.spec) >= 3 and max(sizes.spec.values()) < ds.X.nbytes / 100   # X (2 MB) is in no task
    # the same data selected again right away on the same client: joblib scatters it under a fresh
    # key (with a key hashed from the data the second run raced the scheduler releasing the first
    # run's copy and failed with "lost dependencies" in a fresh-clone CI run)
    again = select("lapsvm", ds.X, ds.y, sp, scheduler=client, **LAPSVM)
    with dask_backend(client):
        shapes = Parallel(n_jobs=-1)(delayed(_shape)(ds.X, ds.y) for _ in range(4))
    assert shapes == [(ds.X.shape, ds.y.shape)] * 4
    assert scored(again).equals(scored(select("lapsvm", ds.X, ds.y, sp, **LAPSVM)))


def _shape(X, y):
    return X.shape, y.shape


def test_bad_scheduler_values_are_refused_with_clear_messages(cluster, gaussian, monkeypatch):
    ds, sp = gaussian
    with pytest.raises(TypeError, match=r"The 'scheduler' parameter of select must be None, a Dask scheduler address "
                                        r"such as 'tcp://127.0.0.1:8786' or a distributed.Client. Got int \(8786\)"):
        select("rlsc", ds.X, ds.y, sp, scheduler=8786, **RLSC)
    with pytest.raises(ValueError, match=r"The 'scheduler' parameter of select must be None.*Got an empty string"):
        select("rlsc", ds.X, ds.y, sp, scheduler="", **RLSC)
    with pytest.raises(ValueError, match=r"must be a Dask scheduler address such as 'tcp://127.0.0.1:8786'. "
                                         r"Got 'localhost' instead \(missing port number"):
        select("rlsc", ds.X, ds.y, sp, scheduler="localhost", **RLSC)
    with pytest.raises(OSError, match=r"The Dask scheduler at 'tcp://127.0.0.1:9' \(the 'scheduler' parameter of "
                                      r"select\) could not be reached within 10 s"):
        select("rlsc", ds.X, ds.y, sp, scheduler="tcp://127.0.0.1:9", **RLSC)
    closed = distributed.Client(cluster, set_as_default=False)
    closed.close()
    with pytest.raises(ValueError, match=r"must be a running distributed.Client. Got a client with status 'closed'"):
        select("rlsc", ds.X, ds.y, sp, scheduler=closed, **RLSC)
    monkeypatch.setitem(sys.modules, "distributed", None)        # as if dask.distributed were not installed
    with pytest.raises(ImportError, match=r"The 'scheduler' parameter of select needs dask.distributed \(the "
                                          r"'dask' extra\).*Install it with: pip install \"ssl-toolkit\[dask\]\""):
        select("rlsc", ds.X, ds.y, sp, scheduler="tcp://127.0.0.1:8786", **RLSC)
    with pytest.raises(TypeError, match="The 'scheduler' parameter of select must be None"):
        select("rlsc", ds.X, ds.y, sp, scheduler=object(), **RLSC)


@pytest.mark.parametrize("greeting", [b"", b"SSH-2.0-OpenSSH_9.6\r\n", b"\x01\x02"])
def test_an_address_that_accepts_but_never_speaks_dask_gives_up_within_the_timeout(greeting):
    """Issue 26: a port that accepts TCP connections and never speaks Dask (a stuck process, another
    service) blocked distributed.Client for good; the probe reads the scheduler's greeting with a deadline."""
    import socket
    import threading
    import time

    from toolkit._dask import dask_client

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    kept = []

    def serve():
        while True:
            try:
                conn = listener.accept()[0]
            except OSError:
                return
            kept.append(conn)
            if greeting:
                conn.sendall(greeting)

    threading.Thread(target=serve, daemon=True).start()
    address = f"tcp://127.0.0.1:{listener.getsockname()[1]}"
    start = time.monotonic()
    try:
        with pytest.raises(TimeoutError, match=rf"The address '{address}' \(the 'scheduler' parameter of select\) "
                                               r"accepts connections but did not greet in the Dask protocol within 1 s"):
            with dask_client(address, "select", timeout=1.0):
                pass
    finally:
        listener.close()
        for conn in kept:
            conn.close()
    assert time.monotonic() - start < 5


def test_a_real_scheduler_passes_the_greeting_probe(cluster):
    from toolkit._dask import _probe

    _probe(cluster.scheduler_address, "select", 5.0)          # a Dask scheduler greets: no error


# ------------------------------------------------------------------- ssl-toolkit reproduce --scheduler
TINY = """
title = "tiny"
splits = 1
n_folds = 2

[[tasks]]
name = "Moons"
dataset = "moons"
options = { n = 120, rng = 0 }
l = 10
u = 40
t = 60
fixed = { kernel = "rbf", sigma = 0.5 }

[[methods]]
name = "rlsc"
grid = { lam = [0.01, 1.0] }
"""


def test_reproduce_passes_the_scheduler_to_the_runner(cluster, tmp_path, monkeypatch):
    from toolkit.reports import ExperimentError, _runner

    seen = {}

    def fake_run(name, **kwargs):
        seen.update(kwargs, name=name)
        raise ExperimentError("stopped here: only the arguments matter")
    monkeypatch.setattr(_runner, "run_experiment", fake_run)
    assert main(["reproduce", "quick", "--output", str(tmp_path), "--scheduler", cluster.scheduler_address]) == 2
    assert seen["name"] == "quick" and seen["scheduler"] == cluster.scheduler_address
    seen.clear()
    assert main(["reproduce", "quick", "--output", str(tmp_path)]) == 2
    assert seen["scheduler"] is None


def test_reproduce_refuses_an_unreachable_scheduler_before_starting_kernels(tmp_path, capsys, monkeypatch):
    from toolkit.reports import _runner

    monkeypatch.setattr(_runner, "run_experiment", lambda *a, **k: pytest.fail("the runner must not start"))
    assert main(["reproduce", "quick", "--output", str(tmp_path), "--scheduler", "tcp://127.0.0.1:9"]) == 2
    err = capsys.readouterr().err
    assert "ssl-toolkit reproduce --scheduler: The Dask scheduler at 'tcp://127.0.0.1:9'" in err


def test_the_scheduler_reaches_the_notebooks_parameters_but_not_the_configuration_key(tmp_path):
    from toolkit.reports import load_experiment
    from toolkit.reports._experiments import notebook_parameters, notebooks_dir
    from toolkit.reports._runner import _papermill_parameters, _run_configuration

    notebook = notebooks_dir() / "model_selection.ipynb"
    assert notebook_parameters(notebook)["scheduler"] == "str"
    assert "scheduler=scheduler or None" in notebook.read_text()
    (tmp_path / "tiny.toml").write_text(textwrap.dedent(TINY))
    config = load_experiment(tmp_path / "tiny.toml").configurations[0]
    key = config.key
    assert _papermill_parameters(config, "tcp://h:8786") == {**config.parameters, "scheduler": "tcp://h:8786"}
    assert "scheduler" not in _papermill_parameters(config, None)

    class Session:                      # records what papermill would receive, executes nothing
        def run_notebook(self, source, target, parameters):
            self.parameters = parameters
            raise RuntimeError("not executed")
    session = Session()
    with pytest.raises(RuntimeError, match="not executed"):
        _run_configuration(session, config, tmp_path / "run", notebook, "tcp://h:8786")
    assert session.parameters["scheduler"] == "tcp://h:8786" and config.key == key


def test_reproduce_runs_select_on_the_cluster(cluster, client, tmp_path):
    pytest.importorskip("papermill")
    from toolkit.reports import run_experiment

    (tmp_path / "tiny.toml").write_text(textwrap.dedent(TINY))
    with distributed.get_task_stream(client=client) as stream:
        summary = run_experiment(tmp_path / "tiny.toml", output=tmp_path / "out", jobs=1, report=False,
                                 log=lambda message: None, scheduler=cluster.scheduler_address)
    assert summary.n_run == 1 and not summary.failures
    assert any("_run_numbered_job" in task["key"] for task in stream.data)
    results = pd.read_csv(summary.folder / "results.csv")
    assert set(results["metric"]) >= {"cv_error", "test_error"}


# ------------------------------------------------------------------------ the low-rank model in row blocks
@pytest.fixture(scope="module")
def moons_3000():
    import numpy as np

    ds = data.load("moons", n=3300, rng=1)
    X, y = np.asarray(ds.X), np.where(np.asarray(ds.y) > 0, 1.0, -1.0)
    lab = np.r_[np.flatnonzero(y > 0)[:5], np.flatnonzero(y < 0)[:5]]
    rest = np.setdiff1d(np.arange(len(y)), lab)
    return X[lab], y[lab], X[rest[:3000]], y[rest[:3000]], X[rest[3000:]]


@pytest.mark.parametrize("solver, method", [("lapsvm", "pcg"), ("lapsvm", "newton"), ("laprlsc", "pcg")])
def test_low_rank_model_in_row_blocks_on_workers_gives_the_local_model(cluster, client, moons_3000, solver, method):
    """Φ's row blocks are computed and multiplied by the two workers (the task stream shows them on
    both), and the model is the local one: the same objective, decisions and early stop."""
    import numpy as np
    import toolkit

    X_l, y_l, X_u, y_u, X_test = moons_3000
    fit = getattr(toolkit, solver)
    from toolkit.specs import Graph, Kernel, LowRank, Solver

    kw = dict(kernel=Kernel("rbf", sigma=0.3), gamma_A=1e-6, gamma_I=1.0, graph=Graph(n_neighbors=10, weight="heat"),
              low_rank=LowRank(200, basis="uniform"), rng=3, y_unlabeled=y_u,
              solver=Solver("pcg", stop="stability", tol=1e-10) if method == "pcg" else Solver(method))
    local = fit(X_l, y_l, X_u, **kw)
    with distributed.get_task_stream(client=client) as stream:
        remote = fit(X_l, y_l, X_u, scheduler=client, **kw)
    assert remote.params["n_row_blocks"] == 3 and remote.params["n_workers"] == 2    # 3010 rows: 1024 per block
    assert remote.objective == pytest.approx(local.objective, rel=1e-9)
    assert remote.n_iter == local.n_iter and remote.status == local.status
    np.testing.assert_allclose(remote.decision_function(X_test), local.decision_function(X_test),
                               rtol=1e-6, atol=1e-8)
    for key in ("error_U", "objective"):
        if key in local.history:
            np.testing.assert_allclose(remote.history[key], local.history[key], rtol=1e-9)
    tasks = pd.DataFrame(stream.data)
    names = tasks["key"].astype(str).str.extract(r"^(_\w+_block)")[0]
    assert {"_features_block", "_graph_block"} <= set(names.dropna())
    assert tasks.loc[names == "_features_block", "worker"].nunique() == 2
    # by address: a client of its own, closed again
    by_address = fit(X_l, y_l, X_u, scheduler=cluster.scheduler_address, **kw)
    assert by_address.objective == pytest.approx(local.objective, rel=1e-9)


def test_low_rank_scheduler_is_refused_where_it_cannot_apply(cluster, moons_3000):
    import numpy as np
    from toolkit import lapsvm
    from toolkit.graphs import laplacian, laplacian_operator

    X_l, y_l, X_u, _, _ = moons_3000
    with pytest.raises(ValueError, match=r"'scheduler' parameter of lapsvm .*needs n_basis"):
        lapsvm(X_l, y_l, X_u[:100], scheduler=cluster.scheduler_address)
    with pytest.raises(TypeError, match=r"'scheduler' parameter of lapsvm must be None, a Dask scheduler address"):
        lapsvm(X_l, y_l, X_u[:100], low_rank=20, scheduler=2)
    L = laplacian_operator(laplacian(np.r_[X_l, X_u[:100]], n_neighbors=5), power=2)
    with pytest.raises(ValueError, match=r"With a 'scheduler', the graph Laplacian must be a sparse matrix"):
        lapsvm(X_l, y_l, X_u[:100], graph=L, low_rank=20, scheduler=cluster.scheduler_address)


def test_low_rank_estimator_takes_the_scheduler_address(cluster, moons_3000):
    import numpy as np
    from sklearn.base import clone
    from toolkit.estimators import LapSVM

    X_l, y_l, X_u, _, X_test = moons_3000
    X = np.r_[X_l, X_u[:1500]]
    y = np.r_[y_l, np.full(1500, -1)].astype(int)
    y[:len(y_l)] = np.where(y_l > 0, 1, 0)                     # classes 0 / 1; -1 marks unlabelled rows
    local = LapSVM(sigma=0.3, gamma_I=1.0, n_neighbors=10, weight="heat", n_basis=150).fit(X, y)
    remote = clone(local).fit(X, y, scheduler=cluster.scheduler_address)
    np.testing.assert_allclose(remote.decision_function(X_test), local.decision_function(X_test), rtol=1e-6,
                               atol=1e-8)
    assert remote.result_.params["n_workers"] == 2
