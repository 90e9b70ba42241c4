"""``ssl-toolkit reproduce NAME [--quick] [--jobs N] [--output DIR] [--scheduler tcp://HOST:PORT]``,
``reproduce NAME --verify [--sample K] [--seed S]``, ``reproduce --list`` and ``ssl-toolkit scorecard [--output DIR]``."""
from __future__ import annotations

import os
import sys


def register(subparsers) -> None:
    """Add the ``reproduce`` sub-command."""
    parser = subparsers.add_parser(
        "reproduce", help="run an experiment's notebooks with papermill and render its HTML report",
        description="Run every configuration of an experiment (notebooks/experiments/NAME.toml) through "
                    "notebooks/model_selection.ipynb with papermill, then render DIR/NAME/report.html and "
                    "DIR/NAME/summary.md (an experiment with a 'notebook' key runs that notebook once). "
                    "Finished configurations are skipped on a rerun.")
    parser.add_argument("name", nargs="?", metavar="NAME", help="experiment name (see --list)")
    parser.add_argument("--list", action="store_true", help="print the experiment names and exit")
    parser.add_argument("--quick", action="store_true", help="apply the experiment's [quick] overrides")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), metavar="N",
                        help="Jupyter kernels executing configurations at the same time, each started once "
                             "(default: %(default)s)")
    parser.add_argument("--output", default="reports", metavar="DIR",
                        help="output folder, relative to the current directory (default: reports)")
    parser.add_argument("--scheduler", default=None, metavar="tcp://HOST:PORT",
                        help="Dask scheduler address: the notebooks run in the local kernels and every select sends "
                             "its (kernel setting, fold) jobs to that cluster (default: local, inside the kernels)")
    parser.add_argument("--strict", action="store_true",
                        help="exit with status 1 when a configuration failed (default: report it and exit 0)")
    parser.add_argument("--verify", action="store_true",
                        help="rerun a sample of the configurations in a temporary folder and compare every value with "
                             "the committed DIR/NAME/splits.csv (rtol 1e-9); print the differences and exit with "
                             "status 1 when any value differs")
    parser.add_argument("--sample", type=_sample_size, default=None, metavar="K",
                        help="with --verify: configurations to rerun, one per method first, drawn by --seed "
                             "('all' for every one; default: 5)")
    parser.add_argument("--seed", type=int, default=0, metavar="S",
                        help="with --verify: seed of the sample (default: %(default)s)")
    parser.set_defaults(func=_reproduce)
    card = subparsers.add_parser(
        "scorecard", help="rebuild reports/reproduction.csv and .md from the committed per-split results",
        description="Score every published cell of the papers (the experiments' declared numbers) against "
                    "DIR/NAME/splits.csv, written by `ssl-toolkit reproduce NAME`: DIR/reproduction.csv (tidy, one "
                    "row per cell) and DIR/reproduction.md (counts within one and two published sd per paper and "
                    "table, time ratios, cells not attempted).")
    card.add_argument("--output", default="reports", metavar="DIR",
                      help="the reports folder, relative to the current directory (default: reports)")
    card.add_argument("--experiment", action="append", default=None, metavar="NAME",
                      help="score only this experiment (repeat for several; default: every experiment that "
                           "declares published numbers, each of whose DIR/NAME/splits.csv must then be present)")
    card.set_defaults(func=_scorecard)


def _sample_size(text):
    """``--sample``: a positive int, or ``"all"`` (every configuration)."""
    import argparse

    if text == "all":
        return "all"
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer or 'all'. Got {text!r} instead.")
    return value


def _verify(args) -> int:
    """``reproduce NAME --verify``: exit status 0 when the sample reproduces the committed values, else 1."""
    from ._verify import VERIFY_RTOL, VERIFY_SAMPLE, verify_experiment

    sample = {None: VERIFY_SAMPLE, "all": None}.get(args.sample, args.sample)
    try:
        result = verify_experiment(args.name, output=args.output, sample=sample, seed=args.seed, quick=args.quick,
                                   jobs=args.jobs, log=lambda message: print(message, flush=True),
                                   scheduler=args.scheduler)
    except FileNotFoundError as exc:
        print(f"ssl-toolkit reproduce --verify: {exc}", file=sys.stderr)
        return 2
    for key, task, method, scenario, error in result.failures:
        print(f"  failed {task} / {method} / {scenario} (configuration {key}): {error}", file=sys.stderr)
    if result.ok:
        print(f"verified: {result.n_compared} values of {len(result.sample) or 1} configuration(s) equal to "
              f"{result.committed} (rtol {VERIFY_RTOL:g}); {result.seconds:.0f} s")
        return 0
    print(f"NOT verified: {len(result.differences)} value(s) differ from {result.committed} (rtol {VERIFY_RTOL:g}; "
          "committed: the file's value, rerun: this machine's, NaN where a row is missing on one side):")
    if len(result.differences):
        print(result.table())
    return 1


def _scorecard(args) -> int:
    from ._scorecard import headline, write_scorecard

    from ._experiments import ExperimentError
    from ._scorecard import ResultsFileError

    try:
        card = write_scorecard(args.output, experiments=args.experiment or None)
    except (ResultsFileError, ExperimentError) as exc:     # nothing was written: the committed files stand
        print(f"ssl-toolkit scorecard: {exc}\nNothing was written.", file=sys.stderr)
        return 2
    print(f"scorecard: {headline(card)}")
    print(f"written: {args.output}/reproduction.csv, {args.output}/reproduction.md")
    return 0


def _reproduce(args) -> int:
    from ._experiments import ExperimentError, list_experiments

    if args.list:
        for name, title in list_experiments().items():
            print(f"{name:<24} {title}")
        return 0
    if not args.name:
        print("ssl-toolkit reproduce: give an experiment NAME or --list", file=sys.stderr)
        return 2
    from ._runner import run_experiment

    if args.jobs < 1:
        print(f"ssl-toolkit reproduce: --jobs must be at least 1. Got {args.jobs} instead.", file=sys.stderr)
        return 2
    if (args.sample is not None or args.seed != 0) and not args.verify:
        print("ssl-toolkit reproduce: --sample and --seed choose the configurations of --verify; add --verify.",
              file=sys.stderr)
        return 2
    if args.scheduler is not None:                 # reached once here, before any kernel starts
        from toolkit._dask import check_scheduler, dask_client

        try:
            with dask_client(check_scheduler(args.scheduler, "ssl-toolkit reproduce"), "ssl-toolkit reproduce"):
                pass
        except (OSError, ValueError, ImportError) as exc:
            print(f"ssl-toolkit reproduce --scheduler: {exc}", file=sys.stderr)
            return 2
    if args.verify:
        try:
            return _verify(args)
        except ExperimentError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    try:
        summary = run_experiment(args.name, output=args.output, quick=args.quick, jobs=args.jobs,
                                 log=lambda message: print(message, flush=True), scheduler=args.scheduler)
    except ExperimentError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if summary.interrupted:
        print(f"interrupted: {summary.n_finished} of {summary.n_configurations} configurations are finished and kept "
              f"in {summary.folder / 'runs'}; run the same command again to resume (finished configurations are "
              "skipped).", file=sys.stderr, flush=True)
        return 130
    print(f"{summary.experiment}: {summary.n_run} run, {summary.n_skipped} already finished, "
          f"{len(summary.failures)} failed; {summary.timing()}")
    for key, task, method, scenario, error in summary.failures:
        print(f"  failed {task} / {method} / {scenario} (configuration {key}): {error}", file=sys.stderr)
    if summary.report is None:
        return 1
    if summary.results is not None:
        print(f"results: {summary.results}")
    print(f"summary: {summary.folder / 'summary.md'}")
    print(f"report: {summary.report}  (open {summary.report.as_uri()} in a browser)")
    return 1 if (summary.failures and args.strict) else 0
