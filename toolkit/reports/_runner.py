"""The reproduce runner: papermill over every configuration, then the HTML report.

Layout of ``OUTPUT/NAME/``::

    runs/<key>/model_selection.ipynb   executed notebook of one configuration
    runs/<key>/results.csv             its tidy results (present = finished; a rerun skips it)
    runs/<key>/error.txt               the error of a failed configuration (retried on rerun)
    results.csv                        all tidy results
    failures.csv                       failed configurations with their errors
    published.csv                      the papers' numbers declared in the experiment file
    report.ipynb, report.html          the executed comparison report and its HTML rendering

Every file is written to a temporary name in the same folder and renamed into place
(``os.replace``), so an interrupted run never leaves a half-written result.
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
import time
import traceback
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from ._experiments import Configuration, Experiment, load_experiment, notebooks_dir
from ._record import RECORD_MIME, read_records

__all__ = ["run_experiment", "render_report", "RunSummary", "kernel_name"]

KERNEL_NAME = "ssl-toolkit-python"


def _atomic_write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _atomic_write_csv(path: Path, frame) -> None:
    _atomic_write_text(path, frame.to_csv(index=False))


def kernel_name(threads: int | None = None) -> str:
    """Register (in a private Jupyter data folder) a kernel that runs *this* interpreter, and name it.

    papermill then starts exactly the Python that runs the command, whatever kernels the user's
    Jupyter knows; ``threads`` caps the BLAS / numba threads of each kernel when several run at once.
    """
    folder = Path(tempfile.gettempdir()) / f"ssl-toolkit-jupyter-{os.getuid() if hasattr(os, 'getuid') else 0}"
    spec_dir = folder / "kernels" / KERNEL_NAME
    env = {}
    if threads:
        for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
            env[var] = str(threads)
    spec = {"argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}",
                     "--IPKernelApp.log_level=ERROR"],
            "display_name": "Python (ssl-toolkit)", "language": "python", "env": env,
            "metadata": {"debugger": False}}
    text = json.dumps(spec, indent=1)
    path = spec_dir / "kernel.json"
    if not path.is_file() or path.read_text() != text:
        _atomic_write_text(path, text)
    paths = os.environ.get("JUPYTER_PATH", "")
    if str(folder) not in paths.split(os.pathsep):
        os.environ["JUPYTER_PATH"] = os.pathsep.join([str(folder)] + ([paths] if paths else []))
    return KERNEL_NAME


def _execute(input_path: Path, output_path: Path, parameters: dict, *, kernel: str, cwd: Path, timeout=None):
    """Run one notebook with papermill into ``output_path`` (atomically)."""
    import papermill

    tmp = output_path.with_name(f".{output_path.stem}.partial{output_path.suffix}")
    try:
        papermill.execute_notebook(str(input_path), str(tmp), parameters=parameters, kernel_name=kernel,
                                   progress_bar=False, cwd=str(cwd), execution_timeout=timeout)
    except BaseException:
        if tmp.exists():  # keep the failed notebook for inspection, under its own name
            os.replace(tmp, output_path.with_name(output_path.stem + ".failed.ipynb"))
        raise
    os.replace(tmp, output_path)


def _error_text(exc: BaseException) -> str:
    ename = getattr(exc, "ename", type(exc).__name__)
    evalue = getattr(exc, "evalue", str(exc))
    return f"{ename}: {evalue}".strip()


@dataclass(frozen=True)
class RunSummary:
    """What a run did: folders, counts and the failures (``(key, task, method, scenario, error)``)."""

    experiment: str
    folder: Path
    report: Path | None
    results: Path | None
    n_configurations: int
    n_run: int
    n_skipped: int
    failures: tuple
    seconds: float

    @property
    def ok(self) -> bool:
        return not self.failures and self.report is not None


def _run_configuration(config: Configuration, run_dir: Path, notebook: Path, kernel: str):
    import pandas as pd

    run_dir.mkdir(parents=True, exist_ok=True)
    _atomic_write_text(run_dir / "parameters.json", json.dumps(config.parameters, indent=1, sort_keys=True))
    start = time.perf_counter()
    _execute(notebook, run_dir / "model_selection.ipynb", config.parameters, kernel=kernel, cwd=run_dir)
    records = read_records(run_dir / "model_selection.ipynb")
    if "results" not in records:
        raise RuntimeError("the notebook recorded no 'results' table")
    results = records["results"]
    results["config"] = config.key
    if "sizes" in records:
        _atomic_write_text(run_dir / "sizes.json", json.dumps(records["sizes"]))
    _atomic_write_csv(run_dir / "results.csv", results)
    (run_dir / "error.txt").unlink(missing_ok=True)
    return time.perf_counter() - start


def run_experiment(experiment, *, output="reports", quick=False, jobs=1, log=print, report=True) -> RunSummary:
    """Run every configuration of an experiment (skipping finished ones) and render its report.

    Parameters
    ----------
    experiment : str, Path or Experiment
        Name in ``notebooks/experiments/``, a TOML path, or a loaded :class:`Experiment`.
    output : str or Path, default="reports"
        The report goes to ``output/NAME/report.html``.
    quick : bool, default=False
        Apply the experiment's ``[quick]`` overrides.
    jobs : int, default=1
        Configurations executed at the same time (one Jupyter kernel each).
    log : callable, default=print
        Progress messages.
    report : bool, default=True
        Render the comparison report after the configurations.
    """
    import pandas as pd

    start = time.perf_counter()
    exp = experiment if isinstance(experiment, Experiment) else load_experiment(experiment, quick=quick)
    folder = Path(output) / exp.name
    folder.mkdir(parents=True, exist_ok=True)
    notebook = notebooks_dir() / "model_selection.ipynb"
    jobs = max(1, int(jobs))
    kernel = kernel_name(threads=max(1, (os.cpu_count() or 1) // jobs) if jobs > 1 else None)
    todo, done = [], []
    for config in exp.configurations:
        run_dir = folder / "runs" / config.key
        (done if (run_dir / "results.csv").is_file() else todo).append(config)
    log(f"{exp.name}: {len(exp.configurations)} configurations, {len(done)} finished before, {len(todo)} to run"
        + (f"; skipped methods: {', '.join(exp.skipped)}" if exp.skipped else ""))
    failures = []

    def work(config):
        return _run_configuration(config, folder / "runs" / config.key, notebook, kernel)

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(work, config): config for config in todo}
        for i, future in enumerate(as_completed(futures), 1):
            config = futures[future]
            label = f"{config.task} / {config.method} / {config.scenario}"
            try:
                seconds = future.result()
                log(f"[{i}/{len(todo)}] ok     {label} ({seconds:.1f} s)")
            except Exception as exc:  # a failing configuration must not stop the others
                error = _error_text(exc)
                detail = json.dumps(config.parameters, sort_keys=True)
                _atomic_write_text(folder / "runs" / config.key / "error.txt",
                                   f"{error}\n\nconfiguration {config.key}: {detail}\n\n"
                                   + "".join(traceback.format_exception(exc))[-4000:])
                failures.append((config.key, config.task, config.method, config.scenario, error))
                log(f"[{i}/{len(todo)}] FAILED {label}: {error} (configuration {config.key}: {detail})")
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
    results = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    if frames:
        _atomic_write_csv(results_path, results)
    params_of = {c.key: c.parameters for c in exp.configurations}
    failures_frame = pd.DataFrame(
        [(*f, json.dumps(params_of[f[0]]["grid"]), json.dumps(params_of[f[0]]["fixed"])) for f in failures],
        columns=["config", "task", "method", "scenario", "error", "grid", "fixed"])
    _atomic_write_csv(folder / "failures.csv", failures_frame)
    published = pd.DataFrame(list(exp.published),
                             columns=["task", "method", "scenario", "metric", "mean", "sd", "source"])
    _atomic_write_csv(folder / "published.csv", published)
    report_path = None
    if report and frames:
        report_path = render_report(exp, folder, log=log)
    elif report:
        log("no configuration finished: no report")
    return RunSummary(exp.name, folder, report_path, results_path if frames else None, len(exp.configurations),
                      len(todo), len(done), tuple(failures), time.perf_counter() - start)


def render_report(experiment: Experiment, folder: Path, *, alpha: float = 0.05, log=print) -> Path:
    """Execute ``comparison_report.ipynb`` on ``folder/results.csv`` and write ``folder/report.html``."""
    from nbconvert import HTMLExporter
    import nbformat

    folder = Path(folder).resolve()
    parameters = {
        "results_csv": str(folder / "results.csv"), "published_csv": str(folder / "published.csv"),
        "failures_csv": str(folder / "failures.csv"), "sizes_csv": str(folder / "sizes.csv"),
        "experiment": experiment.name, "title": experiment.title,
        "description": experiment.description, "references": list(experiment.references),
        "skipped": list(experiment.skipped), "alpha": alpha,
    }
    notebook = folder / "report.ipynb"
    _execute(notebooks_dir() / "comparison_report.ipynb", notebook, parameters, kernel=kernel_name(), cwd=folder)
    exporter = HTMLExporter(template_name="lab")
    exporter.exclude_input = True
    exporter.exclude_input_prompt = True
    exporter.exclude_output_prompt = True
    node = nbformat.read(str(notebook), as_version=4)
    for cell in node.cells:  # recorded values are for machines (tests, the runner), not for the reader
        if "outputs" in cell:
            cell.outputs = [o for o in cell.outputs if RECORD_MIME not in o.get("data", {})]
    body, _ = exporter.from_notebook_node(node)
    html_path = folder / "report.html"
    _atomic_write_text(html_path, body)
    log(f"report: {html_path}")
    return html_path
