"""The reproduce runner: papermill over every configuration, then the HTML report.

Layout of ``OUTPUT/NAME/``::

    runs/<key>/model_selection.ipynb   executed notebook of one configuration
    runs/<key>/results.csv             its tidy results (present = finished; a rerun skips it)
    runs/<key>/error.txt               the error of a failed configuration (retried on rerun)
    results.csv                        all tidy results
    failures.csv                       failed configurations with their errors
    published.csv                      the papers' numbers declared in the experiment file
    report.ipynb, report.html          the executed comparison report and its HTML rendering
    summary.md                         the small committed summary: mean ± sd per task and method
                                       beside the published numbers, and the report's verdicts
    kernels.log                        what the Jupyter kernels wrote to their own stdout / stderr

An experiment of the notebook kind (``notebook = "NAME.ipynb"`` in its file) is one run of that
notebook: ``runs/<key>/NAME.ipynb``, every recorded table as ``<record>.csv``, the executed
notebook as ``report.html`` and its small tables in ``summary.md``.

Every file is written to a temporary name in the same folder and renamed into place
(``os.replace``), so an interrupted run never leaves a half-written result; a rerun resumes.

Start-up is paid rarely: ``jobs`` kernels are started once and execute configuration after
configuration (:class:`~toolkit.reports._kernels.KernelPool`); the report is rendered in one of
them. Relative paths (``output``, ``TOOLKIT_DATA_MIRROR``, ``TOOLKIT_DATA_DIR``) are resolved once,
against the directory the command was started from, before any kernel starts; nothing changes the
working directory of the process. Ctrl-C cancels the queued configurations, kills the running
kernels within a second or two and keeps every finished result.
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
import time
import traceback
from concurrent.futures import CancelledError, as_completed
from dataclasses import dataclass
from pathlib import Path

from ._experiments import Configuration, Experiment, load_experiment, notebooks_dir
from ._io import _atomic_write_csv, _atomic_write_text, _markdown_table
from ._kernels import KERNEL_NAME, KernelPool, KernelSession, kernel_spec
from ._record import RECORD_MIME, read_records
from ._scorecard import split_timings, split_values, write_scorecard

__all__ = ["run_experiment", "render_report", "RunSummary", "kernel_name", "published_table"]

PUBLISHED_COLUMNS = ["task", "method", "scenario", "metric", "mean", "sd", "source"]
#: recorded tables with at most this many rows are shown in ``summary.md`` (all are written as CSV)
SUMMARY_ROWS = 60


def _environment_identity() -> str:
    import hashlib

    return hashlib.sha256(os.path.realpath(sys.executable).encode()).hexdigest()[:12]


def kernel_name(threads: int | None = None) -> str:
    """Register a kernel that runs *this* interpreter for papermill / nbclient calls, and name it.

    For running notebooks by hand (``papermill.execute_notebook(..., kernel_name=kernel_name())``).
    The specification goes into a private Jupyter data folder of *this environment* (keyed by the
    interpreter's path) that is put first on ``JUPYTER_PATH``, so two environments never run each
    other's Python. The reproduce runner needs no file at all (its kernels are specified in memory).
    """
    folder = (Path(tempfile.gettempdir())
              / f"ssl-toolkit-jupyter-{os.getuid() if hasattr(os, 'getuid') else 0}-{_environment_identity()}")
    spec_dir = folder / "kernels" / KERNEL_NAME
    text = json.dumps(kernel_spec(threads), indent=1)
    path = spec_dir / "kernel.json"
    if not path.is_file() or path.read_text() != text:
        _atomic_write_text(path, text)
    paths = os.environ.get("JUPYTER_PATH", "")
    if str(folder) not in paths.split(os.pathsep):
        os.environ["JUPYTER_PATH"] = os.pathsep.join([str(folder)] + ([paths] if paths else []))
    return KERNEL_NAME


def published_table(experiment: Experiment):
    """The papers' numbers of an experiment, as the runner writes them to ``published.csv``."""
    import pandas as pd

    return pd.DataFrame(list(experiment.published), columns=PUBLISHED_COLUMNS)


def _command(experiment: Experiment) -> str:
    return f"ssl-toolkit reproduce {experiment.name}" + (" --quick" if experiment.settings.get("quick") else "")


def _summary_markdown(experiment: Experiment, results, published, failures, sizes) -> str:
    """``summary.md`` of a table experiment: test error mean ± sd per scenario, task and method with
    the published number beside it, then the report's opening verdicts."""
    import pandas as pd

    from . import _tables as tables

    per_split = tables.split_errors(results)
    lines = [f"# {experiment.title}", "",
             f"Written by `{_command(experiment)}` (rerun it to regenerate this file; the full report is "
             f"`report.html` beside it). Test error in % of the refitted models, mean ± sd over the splits; "
             f"`paper`: the published number. {len(failures)} configuration(s) failed.", ""]
    pub = {}
    if published is not None and len(published):
        for row in published.itertuples(index=False):
            metric = row.metric if isinstance(row.metric, str) and row.metric else "test_error"
            if metric == "test_error":
                pub[(row.task, row.method, row.scenario if isinstance(row.scenario, str) else "")] = row
    for scenario, part in per_split.groupby("scenario", sort=False):
        stats = part.groupby(["task", "method"], sort=False)["value"].agg(["mean", "std", "count"]).reset_index()
        rows = []
        for r in stats.itertuples(index=False):
            p = pub.get((r.task, r.method, scenario.split(" ")[0])) or pub.get((r.task, r.method, ""))
            rows.append({"task": r.task, "method": r.method, "splits": int(r.count),
                         "ours": tables.format_mean_sd(r.mean, r.std),
                         "paper": tables.format_mean_sd(p.mean, p.sd) if p else "",
                         "source": p.source if p else ""})
        lines += [f"## Scenario {scenario}", "", _markdown_table(pd.DataFrame(rows)), ""]
    lines += ["## Summary", "", tables.summary_markdown(results, sizes=sizes), ""]
    return "\n".join(lines)


def _error_text(exc: BaseException) -> str:
    ename = getattr(exc, "ename", type(exc).__name__)
    evalue = getattr(exc, "evalue", str(exc))
    return f"{ename}: {evalue}".strip()


@dataclass(frozen=True)
class RunSummary:
    """What a run did: folders, counts, the failures (``(key, task, method, scenario, error)``), timing.

    ``fit_seconds`` is the time the configurations run now spent fitting models (as recorded in
    their results), ``busy_seconds`` the time the kernels were busy with them (notebook execution,
    kernel start-up and imports included); ``interrupted`` is true after Ctrl-C.
    """

    experiment: str
    folder: Path
    report: Path | None
    results: Path | None
    n_configurations: int
    n_run: int
    n_skipped: int
    failures: tuple
    seconds: float
    fit_seconds: float = 0.0
    busy_seconds: float = 0.0
    kernel_starts: int = 0
    interrupted: bool = False
    n_finished: int = 0  # configurations with results on disk, finished now or before

    @property
    def ok(self) -> bool:
        return not self.failures and self.report is not None and not self.interrupted


    def timing(self) -> str:
        """One line: wall time, and the share of the kernels' time spent outside fitting."""
        if self.busy_seconds <= 0:
            return f"{self.seconds:.0f} s"
        outside = 1.0 - min(1.0, self.fit_seconds / self.busy_seconds)
        return (f"{self.seconds:.0f} s wall; fitting {self.fit_seconds:.1f} s of {self.busy_seconds:.0f} s kernel "
                f"time ({100 * outside:.0f} % outside fitting: {self.kernel_starts} kernel start(s), imports, data, "
                f"notebook I/O)")


def _fit_seconds(results) -> float:
    """Time spent fitting, from tidy results (one row per metric of a fit: count each fit once)."""
    if results is None or len(results) == 0 or "seconds" not in results:
        return 0.0
    keys = [c for c in ("task", "method", "scenario", "split", "params", "fold") if c in results]
    return float(results.groupby(keys, dropna=False)["seconds"].max().sum())


def _papermill_parameters(config: Configuration, scheduler: str | None = None) -> dict:
    """The papermill parameters of one configuration: its own, and the Dask scheduler address that
    runs the jobs of its ``select`` calls when one is given (not part of the configuration's key:
    where a result was computed does not change it)."""
    return {**config.parameters, "scheduler": scheduler} if scheduler else dict(config.parameters)


def _run_configuration(session: KernelSession, config: Configuration, run_dir: Path, notebook: Path,
                       scheduler: str | None = None):
    """Execute one configuration in ``session``; return (wall seconds, fit seconds)."""
    run_dir.mkdir(parents=True, exist_ok=True)
    parameters = _papermill_parameters(config, scheduler)
    _atomic_write_text(run_dir / "parameters.json", json.dumps(parameters, indent=1, sort_keys=True))
    start = time.perf_counter()
    session.run_notebook(notebook, run_dir / "model_selection.ipynb", parameters)
    records = read_records(run_dir / "model_selection.ipynb")
    if "results" not in records:
        raise RuntimeError("the notebook recorded no 'results' table")
    results = records["results"]
    results["config"] = config.key
    if "sizes" in records:
        _atomic_write_text(run_dir / "sizes.json", json.dumps(records["sizes"]))
    _atomic_write_csv(run_dir / "results.csv", results)
    (run_dir / "error.txt").unlink(missing_ok=True)
    (run_dir / "model_selection.failed.ipynb").unlink(missing_ok=True)
    return time.perf_counter() - start, _fit_seconds(results)


def _kernel_environment() -> dict:
    """The data settings made absolute (resolved here, once) for the kernels' environment."""
    from toolkit import data

    return dict(data.resolved_settings())


def _progress_bar(total, name, progress):
    from toolkit._progress import tqdm

    if progress is None:
        progress = sys.stderr.isatty()
    return tqdm(total=total, desc=name, unit="config", disable=not progress or total == 0, leave=True,
                bar_format="{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}{postfix}]")


def run_experiment(experiment, *, output="reports", quick=False, jobs=1, log=print, report=True,
                   progress=None, scheduler=None) -> RunSummary:
    """Run every configuration of an experiment (skipping finished ones) and render its report.

    Parameters
    ----------
    experiment : str, Path or Experiment
        Name in ``notebooks/experiments/``, a TOML path, or a loaded :class:`Experiment`.
    output : str or Path, default="reports"
        The report goes to ``output/NAME/report.html``; a relative path is resolved against the
        current working directory when the run starts.
    quick : bool, default=False
        Apply the experiment's ``[quick]`` overrides.
    jobs : int, default=1
        Kernels executing configurations at the same time (each started once and reused).
    log : callable, default=print
        Messages: the plan, each failure, each finished configuration when no progress bar is shown.
    report : bool, default=True
        Render the comparison report after the configurations.
    progress : bool or None, default=None
        Show a progress bar over the configurations (elapsed time, ETA, failures so far); None shows
        it when standard error is a terminal.
    scheduler : str or None, default=None
        A Dask scheduler address (``"tcp://HOST:8786"``) passed to every configuration's notebook
        (its ``scheduler`` parameter): the local kernels execute the notebooks and each ``select``
        sends its (kernel setting, fold) jobs to that cluster. None: the jobs run in the kernels.
        Finished configurations are skipped whichever ran them (the key ignores the scheduler).
        Not used by an experiment of the notebook kind (its notebook calls no ``select``).

    Returns
    -------
    RunSummary
        With ``interrupted=True`` after Ctrl-C (finished configurations are kept; run again to resume).
    """
    import pandas as pd

    start = time.perf_counter()
    if scheduler is not None and not isinstance(scheduler, str):
        raise TypeError("The 'scheduler' parameter of run_experiment must be None or a Dask scheduler address such "
                        f"as 'tcp://127.0.0.1:8786' (the notebooks receive it as text). Got {type(scheduler).__name__} "
                        "instead.")
    if scheduler is not None:
        from toolkit._dask import check_scheduler

        check_scheduler(scheduler, "run_experiment")
    exp = experiment if isinstance(experiment, Experiment) else load_experiment(experiment, quick=quick)
    folder = Path(output).expanduser().resolve() / exp.name
    folder.mkdir(parents=True, exist_ok=True)
    if exp.notebook:
        if scheduler:
            log(f"{exp.name}: a notebook experiment calls no select; the scheduler {scheduler} is not used")
        return _run_notebook_experiment(exp, folder, log=log, start=start)
    notebook = notebooks_dir() / "model_selection.ipynb"
    jobs = max(1, int(jobs))
    todo, done = [], []
    for config in exp.configurations:
        run_dir = folder / "runs" / config.key
        (done if (run_dir / "results.csv").is_file() else todo).append(config)
    log(f"{exp.name}: {len(exp.configurations)} configurations, {len(done)} finished before, {len(todo)} to run"
        + (f" on {min(jobs, len(todo))} kernels" if todo else "")
        + (f", select's jobs on the Dask scheduler {scheduler}" if todo and scheduler else "")
        + (f"; skipped methods: {', '.join(exp.skipped)}" if exp.skipped else ""))
    if todo:                         # what only the functions can judge, judged by them before any kernel starts
        from ._preflight import check_configurations

        check_configurations(exp, todo)
    if todo and scheduler:           # an unreachable scheduler fails here, once, not in every configuration
        from toolkit._dask import dask_client

        with dask_client(scheduler, "run_experiment"):
            pass
    failures, busy, fit = [], 0.0, 0.0
    interrupted = False
    threads = max(1, (os.cpu_count() or 1) // jobs) if jobs > 1 else None
    pool = KernelPool(min(jobs, max(1, len(todo))) if todo else 1, folder, threads=threads,
                      env=_kernel_environment(), log_path=folder / "kernels.log")
    bar = _progress_bar(len(todo), exp.name, progress)
    report_path = None
    try:
        futures = {pool.submit(lambda session, c=config: _run_configuration(
            session, c, folder / "runs" / c.key, notebook, scheduler)): config for config in todo}
        for i, future in enumerate(as_completed(futures), 1):
            config = futures[future]
            label = f"{config.task} / {config.method} / {config.scenario}"
            try:
                seconds, fitting = future.result()
                busy += seconds
                fit += fitting
                if bar.disable:
                    log(f"[{i}/{len(todo)}] ok     {label} ({seconds:.1f} s)")
            except CancelledError:
                continue
            except Exception as exc:  # a failing configuration must not stop the others
                error = _error_text(exc)
                detail = json.dumps(config.parameters, sort_keys=True)
                _atomic_write_text(folder / "runs" / config.key / "error.txt",
                                   f"{error}\n\nconfiguration {config.key}: {detail}\n\n"
                                   + "".join(traceback.format_exception(exc))[-4000:])
                failures.append((config.key, config.task, config.method, config.scenario, error))
                message = f"[{i}/{len(todo)}] FAILED {label}: {error} (configuration {config.key}: {detail})"
                bar.write(message, file=sys.stderr) if not bar.disable else log(message)
            bar.update(1)
            if failures:
                bar.set_postfix_str(f"{len(failures)} failed", refresh=True)
        bar.close()
        frames, sizes = [], {}
        for config in exp.configurations:
            path = folder / "runs" / config.key / "results.csv"
            if path.is_file():
                frames.append(pd.read_csv(path, dtype={"fold": str}))
                size_path = path.with_name("sizes.json")
                if size_path.is_file():
                    sizes[config.task] = json.loads(size_path.read_text())
        _atomic_write_csv(folder / "sizes.csv", pd.DataFrame(
            [{"task": task, **value} for task, value in sizes.items()], columns=["task", "n_train", "n_test"]))
        results_path = folder / "results.csv"
        results = pd.concat(frames, ignore_index=True) if frames else None
        if frames:
            _atomic_write_csv(results_path, results)
            # the per-split values of the refits: small, committed, the scorecard's input; their training
            # times apart (timings.csv, not committed), so that a rerun leaves the committed files unchanged
            _atomic_write_csv(folder / "splits.csv", split_values(exp.name, results))
            _atomic_write_csv(folder / "timings.csv", split_timings(exp.name, results))
        params_of = {c.key: c.parameters for c in exp.configurations}
        failures_frame = pd.DataFrame(
            [(*f, json.dumps(params_of[f[0]]["grid"]), json.dumps(params_of[f[0]]["fixed"])) for f in failures],
            columns=["config", "task", "method", "scenario", "error", "grid", "fixed"])
        _atomic_write_csv(folder / "failures.csv", failures_frame)
        published = published_table(exp)
        _atomic_write_csv(folder / "published.csv", published)
        if frames:
            _atomic_write_text(folder / "summary.md", _summary_markdown(
                exp, results, published, failures,
                {task: (v["n_train"], v["n_test"]) for task, v in sizes.items()}))
        if frames and exp.published:
            try:
                write_scorecard(folder.parent)
            except Exception as exc:      # the scorecard of the other experiments must not stop this run
                log(f"scorecard not updated: {_error_text(exc)}")
        if report and frames:
            report_start = time.perf_counter()
            report_path = pool.submit(lambda session: render_report(exp, folder, session=session)).result()
            busy += time.perf_counter() - report_start
        elif report:
            log("no configuration finished: no report")
        pool.close()
    except KeyboardInterrupt:
        interrupted = True
        bar.close()
        pool.kill()
    starts = sum(s.starts for s in pool.sessions)
    finished = sum((folder / "runs" / c.key / "results.csv").is_file() for c in exp.configurations)
    return RunSummary(exp.name, folder, report_path, (folder / "results.csv") if report_path or
                      (folder / "results.csv").is_file() else None, len(exp.configurations),
                      len(todo), len(done), tuple(failures), time.perf_counter() - start, fit, busy, starts,
                      interrupted, finished)


def _run_notebook_experiment(exp: Experiment, folder: Path, *, log, start: float) -> RunSummary:
    """Run an experiment of the notebook kind once (skipped when that run finished before) and
    write its recorded tables, ``report.html`` and ``summary.md``."""
    import hashlib

    import pandas as pd

    from toolkit import __version__

    text = json.dumps({"notebook": exp.notebook, "parameters": exp.parameters, "toolkit": __version__},
                      sort_keys=True)
    key = hashlib.sha256(text.encode()).hexdigest()[:16]
    run_dir = folder / "runs" / key
    executed = run_dir / exp.notebook
    done = executed.is_file()
    log(f"{exp.name}: one run of {exp.notebook}" + (", finished before" if done else ""))
    failures, busy, starts, interrupted = [], 0.0, 0, False
    if not done:
        run_dir.mkdir(parents=True, exist_ok=True)
        _atomic_write_text(run_dir / "parameters.json", json.dumps(exp.parameters, indent=1, sort_keys=True))
        session = KernelSession(folder, env=_kernel_environment(), log_path=folder / "kernels.log")
        run_start = time.perf_counter()
        try:
            session.run_notebook(notebooks_dir() / exp.notebook, executed, exp.parameters)
            (run_dir / "error.txt").unlink(missing_ok=True)
        except KeyboardInterrupt:
            interrupted = True
            session.kill()
        except Exception as exc:  # reported like a failed configuration
            error = _error_text(exc)
            _atomic_write_text(run_dir / "error.txt", f"{error}\n\n" + "".join(traceback.format_exception(exc))[-4000:])
            failures.append((key, exp.notebook, "", "", error))
            log(f"FAILED {exp.notebook}: {error}")
        finally:
            starts = session.starts
            session.shutdown()
        busy = time.perf_counter() - run_start
    report_path = results_path = None
    if executed.is_file():
        records = read_records(executed)
        tables_ = {name: value for name, value in records.items() if isinstance(value, pd.DataFrame)}
        if "splits" in tables_:   # the per-draw values the scorecard reads (committed, like a table experiment's)
            from ._scorecard import SPLIT_COLUMNS

            tables_["splits"] = tables_["splits"].assign(experiment=exp.name)[SPLIT_COLUMNS]
        for name, frame in tables_.items():
            _atomic_write_csv(folder / f"{name}.csv", frame)
        results_path = folder / f"{next(iter(tables_))}.csv" if tables_ else None
        shown = [f"## {name}\n\n{_markdown_table(frame)}\n" for name, frame in tables_.items()
                 if len(frame) <= SUMMARY_ROWS]
        parameters = ", ".join(f"{k} = {v!r}" for k, v in exp.parameters.items())
        _atomic_write_text(folder / "summary.md", "\n".join(
            [f"# {exp.title}", "", f"Written by `{_command(exp)}` (rerun it to regenerate this file; the figures are "
             f"in `report.html` beside it). One run of `notebooks/{exp.notebook}` with {parameters}.", "", *shown]))
        report_path = folder / "report.html"
        _atomic_write_text(report_path, _notebook_html(executed))
        if "splits" in tables_ and exp.published:
            try:
                write_scorecard(folder.parent)
            except Exception as exc:      # the scorecard of the other experiments must not stop this run
                log(f"scorecard not updated: {_error_text(exc)}")
    return RunSummary(exp.name, folder, report_path, results_path, 1, 0 if done else 1, 1 if done else 0,
                      tuple(failures), time.perf_counter() - start, 0.0, busy, starts, interrupted,
                      int(executed.is_file()))


def _notebook_html(notebook: Path) -> str:
    """An executed notebook as HTML without code, prompts or recorded values (those are for machines)."""
    from nbconvert import HTMLExporter
    import nbformat

    exporter = HTMLExporter(template_name="lab")
    exporter.exclude_input = True
    exporter.exclude_input_prompt = True
    exporter.exclude_output_prompt = True
    node = nbformat.read(str(notebook), as_version=4)
    for cell in node.cells:
        if "outputs" in cell:
            cell.outputs = [o for o in cell.outputs if RECORD_MIME not in o.get("data", {})]
    body, _ = exporter.from_notebook_node(node)
    return body


def render_report(experiment: Experiment, folder: Path, *, alpha: float = 0.05,
                  session: KernelSession | None = None) -> Path:
    """Execute ``comparison_report.ipynb`` on ``folder/results.csv`` and write ``folder/report.html``.

    ``session`` is a running :class:`~toolkit.reports._kernels.KernelSession` to reuse (one is
    started and stopped here when None).
    """
    folder = Path(folder).resolve()
    parameters = {
        "results_csv": str(folder / "results.csv"), "published_csv": str(folder / "published.csv"),
        "failures_csv": str(folder / "failures.csv"), "sizes_csv": str(folder / "sizes.csv"),
        "experiment": experiment.name, "title": experiment.title,
        "description": experiment.description, "references": list(experiment.references),
        "skipped": list(experiment.skipped), "alpha": alpha,
    }
    notebook = folder / "report.ipynb"
    own = session is None
    if own:
        session = KernelSession(folder, log_path=folder / "kernels.log")
    try:
        session.run_notebook(notebooks_dir() / "comparison_report.ipynb", notebook, parameters)
    finally:
        if own:
            session.shutdown()
    html_path = folder / "report.html"
    _atomic_write_text(html_path, _notebook_html(notebook))
    return html_path
