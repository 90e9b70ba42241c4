"""Reproductions: experiments declared in TOML, executed as papermill notebooks, reported in HTML.

>>> from toolkit.reports import list_experiments, run_experiment    # doctest: +SKIP
>>> run_experiment("quick", output="reports")                       # doctest: +SKIP

Notebooks hand their metrics back through :func:`record`; :func:`read_records` reads them from an
executed notebook. The command line is ``ssl-toolkit reproduce NAME [--quick] [--jobs N]``
(``--verify [--sample K]``: :func:`verify_experiment` reruns a sample and compares it with the committed
``reports/NAME/splits.csv``);
:func:`write_scorecard` (``ssl-toolkit scorecard``) scores every published cell of the papers against
the committed per-split results (``reports/reproduction.csv`` and ``.md``).
"""
from ._kernels import reproducible_arithmetic
from ._experiments import (Configuration, Experiment, ExperimentError, list_experiments, load_experiment,
                           notebooks_dir)
from ._record import RECORD_MIME, read_records, record, show_figure
from ._runner import RunSummary, kernel_name, render_report, run_experiment
from ._scorecard import SCORECARD_COLUMNS, cell_holds, headline, scorecard, write_scorecard
from ._verify import Verification, compare_splits, sample_configurations, verify_experiment
from . import _tables as tables

__all__ = [
    "record", "read_records", "show_figure", "RECORD_MIME",
    "Experiment", "Configuration", "ExperimentError", "load_experiment", "list_experiments", "notebooks_dir",
    "run_experiment", "render_report", "RunSummary", "kernel_name", "reproducible_arithmetic", "tables",
    "scorecard", "write_scorecard", "SCORECARD_COLUMNS", "cell_holds", "headline",
    "verify_experiment", "compare_splits", "sample_configurations", "Verification",
]
