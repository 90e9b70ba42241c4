"""``ssl-toolkit reproduce NAME --verify``: rerun a sample of an experiment and compare with the committed values.

The committed ``reports/NAME/splits.csv`` holds only what the code computes (errors and iteration
counts per split, no times), so a rerun on any machine must give the same numbers. :func:`verify_experiment`
reruns a deterministic sample of the experiment's configurations into a temporary folder and
compares every value of theirs with the committed file (:func:`compare_splits`).
"""
from __future__ import annotations

import dataclasses
import tempfile
import time
from pathlib import Path

import numpy as np

from ._experiments import Experiment, load_experiment

__all__ = ["verify_experiment", "compare_splits", "sample_configurations", "Verification", "VERIFY_SAMPLE",
           "VERIFY_RTOL"]

#: Configurations :func:`verify_experiment` reruns by default (``--sample``).
VERIFY_SAMPLE = 5
#: Relative tolerance of :func:`compare_splits`: the values are written with ten decimals, so two runs that
#: computed the same number agree far below it, and any change of a prediction moves an error by
#: more than 0.01 points.
VERIFY_RTOL = 1e-9
_KEY = ["task", "method", "scenario", "split", "metric"]
_TABLE_COLUMNS = [*_KEY, "committed", "rerun", "difference"]


def sample_configurations(configurations, sample=VERIFY_SAMPLE, *, seed=0):
    """A deterministic sample of ``sample`` configurations, one per method first.

    The rule: with ``rng = numpy.random.default_rng(seed)``, if there are more methods (labels) than
    ``sample``, ``sample`` of them are drawn without replacement; one configuration (task × scenario)
    of each drawn method is drawn; the remaining places, if any, are drawn from the other
    configurations. The result keeps the experiment's order.

    Parameters
    ----------
    configurations : sequence of Configuration
        An experiment's configurations (:attr:`Experiment.configurations`).
    sample : int or None, default=VERIFY_SAMPLE
        How many; ``None`` or at least ``len(configurations)``: all of them.
    seed : int, default=0
        Seed of the draw.

    Returns
    -------
    tuple of Configuration
    """
    configurations = tuple(configurations)
    if sample is None or sample >= len(configurations):
        return configurations
    if isinstance(sample, bool) or not isinstance(sample, (int, np.integer)) or sample < 1:
        raise ValueError(f"The 'sample' parameter of sample_configurations must be a positive int or None. "
                         f"Got {sample!r} instead.")
    rng = np.random.default_rng(seed)
    by_method = {}
    for i, config in enumerate(configurations):
        by_method.setdefault(config.method, []).append(i)
    methods = list(by_method)
    if sample < len(methods):
        methods = [methods[j] for j in sorted(rng.choice(len(methods), size=sample, replace=False))]
    picked = [by_method[m][int(rng.integers(len(by_method[m])))] for m in methods]
    rest = [i for i in range(len(configurations)) if i not in set(picked)]
    if sample > len(picked):
        picked += [int(i) for i in rng.choice(rest, size=sample - len(picked), replace=False)]
    return tuple(configurations[i] for i in sorted(picked))


def compare_splits(committed, rerun, *, rtol=VERIFY_RTOL):
    """The values of two ``splits.csv`` tables that differ, as a table.

    Rows are matched on (task, method, scenario, split, metric); a value differs when
    ``|rerun - committed| > rtol · |committed|`` (two NaN agree), or when the row is in one table only.

    Parameters
    ----------
    committed, rerun : pandas.DataFrame
        Tables in the layout of ``splits.csv`` (``experiment`` column optional).
    rtol : float, default=VERIFY_RTOL

    Returns
    -------
    pandas.DataFrame
        Columns task, method, scenario, split, metric, committed, rerun, difference (``rerun -
        committed``; NaN where a row is missing on one side); empty when everything agrees.
    """
    import pandas as pd

    def values(frame, name):
        frame = frame[_KEY + ["value"]].copy()
        frame["split"] = frame["split"].astype(int)
        duplicated = frame.duplicated(_KEY)
        if duplicated.any():
            raise ValueError(f"The {name!r} table of compare_splits has {int(duplicated.sum())} repeated "
                             f"(task, method, scenario, split, metric) rows, e.g. {frame[duplicated].iloc[0].tolist()}.")
        return frame.rename(columns={"value": name})

    merged = values(committed, "committed").merge(values(rerun, "rerun"), on=_KEY, how="outer", indicator=True)
    a, b = merged["committed"].to_numpy(float), merged["rerun"].to_numpy(float)
    with np.errstate(invalid="ignore"):
        same = (np.abs(b - a) <= rtol * np.abs(a)) | (np.isnan(a) & np.isnan(b))
    differ = merged[~same | (merged["_merge"] != "both").to_numpy()]
    differ = differ.assign(difference=differ["rerun"] - differ["committed"])
    return differ[_TABLE_COLUMNS].sort_values(_KEY, kind="stable").reset_index(drop=True)


@dataclasses.dataclass(frozen=True)
class Verification:
    """Result of :func:`verify_experiment`.

    Attributes
    ----------
    experiment : str
    sample : tuple of Configuration
        The configurations rerun (all of them for an experiment of the notebook kind).
    n_configurations : int
        Configurations of the experiment.
    n_compared : int
        Values compared (rows of the committed file for the sample, and of the rerun).
    differences : pandas.DataFrame
        :func:`compare_splits` of the committed values against the rerun's: empty when they agree.
    failures : tuple
        ``(key, task, method, scenario, error)`` of the configurations that failed in the rerun.
    committed : Path
        The committed ``splits.csv`` compared with.
    seconds : float
        Wall time.
    """

    experiment: str
    sample: tuple
    n_configurations: int
    n_compared: int
    differences: object
    failures: tuple
    committed: Path
    seconds: float

    @property
    def ok(self) -> bool:
        """Every value agrees and no configuration failed."""
        return len(self.differences) == 0 and not self.failures

    def table(self) -> str:
        """The differing values as aligned text (empty string when none)."""
        if len(self.differences) == 0:
            return ""
        return self.differences.to_string(index=False, float_format=lambda v: f"{v:.10g}")


def verify_experiment(experiment, *, output="reports", sample=VERIFY_SAMPLE, seed=0, quick=False, jobs=1,
                      log=print, progress=None, scheduler=None) -> Verification:
    """Rerun a sample of an experiment's configurations and compare them with its committed ``splits.csv``.

    The sample (:func:`sample_configurations`) runs as :func:`~toolkit.reports.run_experiment` would
    run it, into a temporary folder that is removed afterwards (no report, no scorecard); its
    per-split values are compared with ``OUTPUT/NAME/splits.csv`` by :func:`compare_splits`, restricted
    to the sampled (task, method, scenario) rows. An experiment of the notebook kind is run whole.

    Parameters
    ----------
    experiment : str, Path or Experiment
        Name in ``notebooks/experiments/``, a TOML path, or a loaded :class:`Experiment`.
    output : str or Path, default="reports"
        The folder holding ``NAME/splits.csv``, the values to compare with.
    sample : int or None, default=VERIFY_SAMPLE
        Configurations to rerun; ``None``: all of them.
    seed : int, default=0
        Seed of the sample.
    quick : bool, default=False
        Apply the experiment's ``[quick]`` overrides (compare with a file written by ``--quick``).
    jobs : int, default=1
        Kernels running configurations at once, as in :func:`~toolkit.reports.run_experiment`.
    log : callable, default=print
        Messages: the sample, the progress of the rerun.
    progress : bool or None, default=None
        Progress bar over the sample (None: when standard error is a terminal).
    scheduler : str or None, default=None
        Dask scheduler address for the sample's ``select`` jobs, as in :func:`~toolkit.reports.run_experiment`.

    Returns
    -------
    Verification
        ``ok`` when every value agrees; ``differences`` lists the others.

    Raises
    ------
    FileNotFoundError
        When ``OUTPUT/NAME/splits.csv`` does not exist.
    """
    import pandas as pd

    from ._runner import run_experiment
    from ._scorecard import SPLIT_COLUMNS
    from toolkit.selection._splitter import scenario_label

    start = time.perf_counter()
    exp = experiment if isinstance(experiment, Experiment) else load_experiment(experiment, quick=quick)
    committed_path = Path(output).expanduser().resolve() / exp.name / "splits.csv"
    if not committed_path.is_file():
        raise FileNotFoundError(f"verify_experiment: no committed values to compare with: {committed_path} does not "
                                f"exist (write it with `ssl-toolkit reproduce {exp.name}`, or pass the folder holding "
                                f"{exp.name}/splits.csv as 'output').")
    committed = pd.read_csv(committed_path)
    if exp.notebook:
        chosen = ()
        log(f"verify {exp.name}: one run of {exp.notebook} (a notebook experiment has no configurations to sample)")
        sub = dataclasses.replace(exp, published=())
    else:
        chosen = sample_configurations(exp.configurations, sample, seed=seed)
        log(f"verify {exp.name}: {len(chosen)} of {len(exp.configurations)} configurations (seed {seed}, "
            f"one per method first):")
        for config in chosen:
            log(f"  {config.task} / {config.method} / {config.scenario}  ({config.key})")
        sub = dataclasses.replace(exp, configurations=chosen, published=())
        rows = pd.MultiIndex.from_tuples([(c.task, c.method, scenario_label(c.scenario)) for c in chosen])
        committed = committed[committed.set_index(["task", "method", "scenario"]).index.isin(rows)]
    with tempfile.TemporaryDirectory(prefix=f"ssl-toolkit-verify-{exp.name}-") as folder:
        summary = run_experiment(sub, output=folder, jobs=jobs, log=log, report=False, progress=progress,
                                 scheduler=scheduler)
        rerun_path = Path(folder) / exp.name / "splits.csv"
        rerun = pd.read_csv(rerun_path) if rerun_path.is_file() else pd.DataFrame(columns=SPLIT_COLUMNS)
    differences = compare_splits(committed, rerun)
    return Verification(exp.name, chosen, len(exp.configurations), len(committed) + len(rerun), differences,
                        tuple(summary.failures), committed_path, time.perf_counter() - start)
