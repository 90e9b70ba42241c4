"""The reproduction scorecard: every published cell of the papers beside ours, in one tidy table.

Every experiment of the table kind declares the papers' numbers once (its ``published`` entries,
each with a ``source`` such as ``"Melacci & Belkin (2011), Table 4 (T)"``). The runner writes the
per-split values of each refitted model to ``reports/NAME/splits.csv`` (committed, small); from
those files and the declarations :func:`scorecard` builds one row per published cell:

``paper, table, row, method, scenario, column, published_mean, published_sd, ours_mean, ours_sd,
splits, sd_distance, note``

where ``sd_distance = |ours_mean - published_mean| / published_sd`` and a cell that was not run has
an empty ``ours_mean`` and the reason in ``note``. :func:`write_scorecard` writes
``reports/reproduction.csv`` and ``reports/reproduction.md`` (counts within one and two published
standard deviations per paper and table, the papers' Newton ÷ PCG time ratios beside ours, and every
cell not attempted). ``ssl-toolkit scorecard`` rebuilds both from the committed files.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from ._io import _atomic_write_text, _markdown_table

__all__ = ["SCORECARD_COLUMNS", "SPLIT_COLUMNS", "RELATIVE_TOLERANCE", "ResultsFileError", "cell_holds", "headline",
           "read_split_results", "split_values", "split_timings", "scorecard", "scorecard_markdown",
           "write_scorecard"]

#: Columns of ``reports/reproduction.csv``.
SCORECARD_COLUMNS = ["paper", "table", "row", "method", "scenario", "column", "published_mean", "published_sd",
                     "ours_mean", "ours_sd", "splits", "sd_distance", "holds", "note"]
#: A cell published without a spread (sd 0 or none: iteration counts, a figure's statements turned into
#: numbers) holds within this share of max(abs(published), 1); one with a published sd within one sd.
RELATIVE_TOLERANCE = 0.05


def cell_holds(published_mean, published_sd, ours_mean):
    """Whether our mean reproduces a published cell: within one published sd when the paper gives
    one (> 0), else within :data:`RELATIVE_TOLERANCE` × max(abs(published), 1). Arrays broadcast; a
    cell without our number gives False."""
    pub, sd, ours = (np.asarray(a, dtype=float) for a in (published_mean, published_sd, ours_mean))
    distance = np.abs(ours - pub)
    with np.errstate(invalid="ignore"):
        tolerance = np.where(sd > 0, sd, RELATIVE_TOLERANCE * np.maximum(np.abs(pub), 1.0))
        return np.where(np.isnan(ours), False, distance <= tolerance)
#: Columns of the committed per-split results ``reports/NAME/splits.csv``.
SPLIT_COLUMNS = ["experiment", "task", "method", "scenario", "split", "metric", "value"]
_REFIT_METRICS = ("test_error", "unlabeled_error", "validation_error", "n_iter", "line_search_per_iter")
_SOURCE = re.compile(r"^(?P<authors>.+?)(?: \((?P<year>\d{4})\))?, (?P<table>(?:Table|Figure|Fig\.) [^ (]+)"
                     r"(?: \((?P<column>[^)]*)\))?")


def split_values(experiment: str, results):
    """The per-split values the scorecard needs, from an experiment's tidy ``results``: the refit's
    test, unlabelled and validation errors (%), its iterations (``n_iter``: PCG iterations, Newton
    steps) and line-search iterations per iteration (``line_search_per_iter``). Only what the code
    computes, the same on every machine: committed as ``splits.csv``, so a rerun leaves it unchanged. The training times are :func:`split_timings`."""
    refit = results[results["fold"].astype(str) == "refit"]
    errors = refit[refit["metric"].isin(_REFIT_METRICS)]
    out = errors.assign(experiment=experiment)[SPLIT_COLUMNS]
    return out.sort_values(["task", "method", "scenario", "metric", "split"], kind="stable").reset_index(drop=True)


def split_timings(experiment: str, results):
    """The refits' training times per split (metric ``"seconds"``: the solver's own solve time when it
    reports one, as the papers' Table 6 does, else the whole fit), in the layout of ``splits.csv``.

    Written as ``timings.csv`` beside ``splits.csv`` and not committed: a time is a measurement of this
    machine, not a result of the code, and would change the committed files on every rerun.
    """
    refit = results[results["fold"].astype(str) == "refit"]
    key = ["task", "method", "scenario", "split"]
    timed = refit[refit["metric"] == "test_error"].set_index(key)["seconds"]     # one row per refit
    solve = refit[refit["metric"] == "solve_seconds"].set_index(key)["value"]
    seconds = solve.reindex(timed.index).fillna(timed).reset_index(name="value")
    out = seconds.assign(experiment=experiment, metric="seconds")[SPLIT_COLUMNS]
    return out.sort_values(["task", "method", "scenario", "split"], kind="stable").reset_index(drop=True)


def _source_parts(source: str):
    """``("Melacci & Belkin 2011", "Table 4", "T")`` from ``"Melacci & Belkin (2011), Table 4 (T)"``."""
    m = _SOURCE.match(str(source))
    if not m:
        return str(source), "", ""
    paper = f"{m['authors']} {m['year']}" if m["year"] else m["authors"]   # a paper without a year: authors only
    return paper, m["table"], m["column"] or ""


def scorecard(published, splits, *, failures=None, declared_tasks=None):
    """One row per published cell (:data:`SCORECARD_COLUMNS`).

    Parameters
    ----------
    published : pandas.DataFrame
        The declarations of one or more experiments: ``experiment, task, method, scenario, metric,
        mean, sd, source`` and optionally ``not_attempted`` (the reason a cell is not run here).
    splits : pandas.DataFrame
        Per-split values (:data:`SPLIT_COLUMNS`), e.g. the concatenated ``splits.csv`` files.
    failures : pandas.DataFrame, default=None
        Failed configurations (``experiment, task, method, scenario, error``): their cells say so.
    declared_tasks : mapping, default=None
        Experiment -> the tasks of the run that wrote its ``splits.csv``; other tasks' cells say
        they were not in that run (e.g. a ``--quick`` run).
    """
    import pandas as pd

    rows = []
    for pub in published.itertuples(index=False):
        metric = pub.metric if isinstance(pub.metric, str) and pub.metric else "test_error"
        scenario = pub.scenario if isinstance(pub.scenario, str) else ""
        part = splits[(splits["experiment"] == pub.experiment) & (splits["task"] == pub.task)
                      & (splits["method"] == pub.method) & (splits["metric"] == metric)]
        if scenario:
            part = part[part["scenario"].astype(str).str.split(" ").str[0] == scenario]
        values = part["value"].to_numpy(dtype=float)
        paper, table, column = _source_parts(pub.source)
        row = {"paper": paper, "table": table, "row": pub.task, "method": pub.method,
               "scenario": scenario or (part["scenario"].iloc[0].split(" ")[0] if len(part) else ""),
               "column": column or metric, "published_mean": float(pub.mean),
               "published_sd": float(pub.sd) if pub.sd == pub.sd else np.nan,
               "ours_mean": np.nan, "ours_sd": np.nan, "splits": 0, "sd_distance": np.nan, "holds": np.nan,
               "note": ""}
        reason = getattr(pub, "not_attempted", None)
        if isinstance(reason, str) and reason:      # declared as not run here, with the reason
            row["note"] = f"not attempted: {reason}"
        elif values.size:
            row["ours_mean"] = float(values.mean())
            row["ours_sd"] = float(values.std(ddof=1)) if values.size > 1 else np.nan
            row["splits"] = int(values.size)
            if row["published_sd"] > 0:
                row["sd_distance"] = abs(row["ours_mean"] - row["published_mean"]) / row["published_sd"]
            if metric != "seconds":
                row["holds"] = bool(cell_holds(row["published_mean"], row["published_sd"], row["ours_mean"]))
                tested = getattr(pub, "tested", None)    # what the experiment declared for this cell found
                if not row["holds"] and isinstance(tested, str) and tested:
                    row["note"] = f"miss tested by experiment: {tested}"
            if metric == "seconds":
                row["note"] = "training time on this machine (2 cores), not comparable in absolute terms"
        elif metric == "seconds":
            row["note"] = TIMING_NOTE
        else:
            row["note"] = _missing_reason(pub, failures, declared_tasks)
        rows.append(row)
    return _time_ratio_rows(pd.DataFrame(rows, columns=SCORECARD_COLUMNS))


#: The note of a training-time cell in the committed scorecard: times are kept apart from results.
TIMING_NOTE = ("timing: a measurement of the machine, not a result of the code, so not committed; each run "
               "writes reports/NAME/timings.csv and `ssl-toolkit scorecard` the ratios to reports/timings.md")

#: The method training times are compared with (Melacci & Belkin's Table 6: the dual and Newton
#: against PCG with the stability check); a table without it (Table 8) takes its own "... (PCG)".
TIME_REFERENCE = "lapsvm (PCG)"


def _time_ratio_rows(card):
    """Training-time cells become ratios to :data:`TIME_REFERENCE` on the same task: absolute seconds
    of a 2011 machine and of this one are not comparable, the ratio is the paper's claim (Table 6).
    A ratio has no published sd (the paper gives none), so it is reported, not counted in sd terms."""
    import pandas as pd

    timed = card["column"].str.contains("training time", na=False)
    ratios = []
    for (paper, table, task, scenario), part in card[timed].groupby(["paper", "table", "row", "scenario"],
                                                                     sort=False):
        by = {r.method: r for r in part.itertuples(index=False)}
        # the PCG of the table: lapsvm (PCG) in Table 6, laprlsc (PCG) in Table 8
        reference = TIME_REFERENCE if TIME_REFERENCE in by else next((m for m in by if m.endswith(" (PCG)")), None)
        if reference is None:
            ratios += [r._asdict() for r in part.itertuples(index=False)]    # nothing to divide by: kept as is
            continue
        ref = by[reference]
        for method, r in by.items():
            if method == reference:
                continue
            ours = r.ours_mean / ref.ours_mean if ref.ours_mean > 0 and r.ours_mean == r.ours_mean else np.nan
            note = (f"ratio of mean training times (solve only), ours on this machine"
                    if ours == ours else r.note or ref.note)
            ratios.append({"paper": paper, "table": table, "row": task, "method": f"{method} ÷ {reference}",
                           "scenario": scenario, "column": "training time ratio",
                           "published_mean": r.published_mean / ref.published_mean, "published_sd": np.nan,
                           "ours_mean": ours, "ours_sd": np.nan, "splits": int(min(r.splits, ref.splits)),
                           "sd_distance": np.nan, "holds": np.nan, "note": note})
    return pd.concat([card[~timed], pd.DataFrame(ratios, columns=SCORECARD_COLUMNS)], ignore_index=True)


def _missing_reason(pub, failures, declared_tasks):
    if failures is not None and len(failures):
        hit = failures[(failures["experiment"] == pub.experiment) & (failures["task"] == pub.task)
                       & (failures["method"] == pub.method)]
        if len(hit):
            return f"not attempted: the configuration failed ({str(hit['error'].iloc[0])[:160]})"
    tasks = (declared_tasks or {}).get(pub.experiment)
    if tasks is None:
        return f"not attempted: `ssl-toolkit reproduce {pub.experiment}` has not been run"
    if pub.task not in tasks:
        return f"not attempted: the committed run of {pub.experiment} (a --quick run) leaves this task out"
    return "not attempted: no result for this method in the committed run"


def _counts(card):
    """Attempted cells, and those within one and two published sd, per paper and table."""
    import pandas as pd

    numeric = card[card["published_sd"] > 0]
    rows = []
    for (paper, table), part in card.groupby(["paper", "table"], sort=False):
        num = numeric[(numeric["paper"] == paper) & (numeric["table"] == table)]
        attempted = num[num["ours_mean"].notna()]
        scored = part[part["holds"].notna()]
        data = _substitute(scored)
        rows.append({"paper": paper, "table": table, "cells": len(part),
                     "attempted": int(part["ours_mean"].notna().sum()),
                     "scored": len(scored), "hold": int((scored["holds"] == True).sum()),   # noqa: E712
                     "data:": int(data.sum()),
                     "with sd": len(attempted), "within 1 sd": int((attempted["sd_distance"] <= 1).sum()),
                     "within 2 sd": int((attempted["sd_distance"] <= 2).sum()),
                     "median splits": float(part.loc[part["ours_mean"].notna(), "splits"].median())
                     if part["ours_mean"].notna().any() else np.nan})
    return pd.DataFrame(rows)


def _time_ratios(card):
    """The papers' Table 6 training-time ratios to PCG beside ours, one row per task."""
    import pandas as pd

    times = card[(card["column"] == "training time ratio") & card["method"].str.endswith(f" ÷ {TIME_REFERENCE}")]
    rows = []
    for task, part in times.groupby("row", sort=False):
        row = {"task": task}
        for r in part.itertuples(index=False):
            method = r.method.split(" ÷ ")[0]
            name = {"lapsvm": "Newton", "lapsvm_dual": "dual"}.get(method, method.replace("lapsvm (", "").rstrip(")"))
            row[f"paper {name} ÷ PCG"] = r.published_mean
            row[f"ours {name} ÷ PCG"] = r.ours_mean
        rows.append(row)
    return pd.DataFrame(rows)


def _markdown(frame):

    return _markdown_table(frame, digits=3, missing="")


def _substitute(card):
    """The cells computed on substitute data (a note that starts with ``data:``, set on every cell of
    a ``substitute_data`` task, holds and misses alike)."""
    return card["note"].fillna("").astype(str).str.startswith("data:")


def headline(card):
    """The scorecard's one-line summary: the scored cells (a number of ours beside a published one,
    times apart) that hold by :func:`cell_holds`, every one of them counted, and the same share with
    the cells computed on substitute data left out all together, holds and misses alike. No other
    note removes a cell from either count."""
    scored = card[card["holds"].notna()]
    hold = scored["holds"] == True                                          # noqa: E712
    data = _substitute(scored)
    rest = scored[~data]
    share = float(hold.mean()) if len(scored) else float("nan")
    share_rest = float((rest["holds"] == True).mean()) if len(rest) else float("nan")   # noqa: E712
    return (f"{int(hold.sum())} of {len(scored)} scored cells hold ({100 * share:.1f} %), every scored cell "
            f"counted; on the papers' own data, the {int(data.sum())} cells computed on substitute data "
            f"(`data:`, {int((scored.loc[data, 'holds'] == True).sum())} of them hold) left out all together, "  # noqa: E712
            f"{int((rest['holds'] == True).sum())} of {len(rest)} ({100 * share_rest:.1f} %). "  # noqa: E712
            f"{len(card)} published cells, {len(card) - len(scored)} not scored (not attempted, or training times).")


def scorecard_markdown(card, tested=None, every=None, sensitivity=None) -> str:
    """``reproduction.md``: the headline, every miss with what explains it, counts per paper and
    table, the explanation variants on every cell they apply to, the input-sensitivity experiment,
    the cells, the cells not attempted."""
    counts = _counts(card)
    attempted = card[card["ours_mean"].notna()]
    scored = card[card["holds"].notna()]
    lines = ["# Reproduction scorecard", "",
             f"**{headline(card)}**", "",
             "A cell holds when our mean is within one published sd, or, for a cell published without a spread "
             f"(sd 0: iteration counts, a figure's statements as numbers), within {100 * RELATIVE_TOLERANCE:.0f} % of "
             "max(abs(published), 1). Written by `ssl-toolkit scorecard` from the committed per-split results "
             "(`reports/*/splits.csv`) and the papers' numbers declared in `notebooks/experiments/*.toml`; each "
             "experiment's results are regenerated by `ssl-toolkit reproduce NAME` and checked by `ssl-toolkit "
             "reproduce NAME --verify`. `sd_distance` = |ours − published| / published sd.", ""]
    misses = scored[scored["holds"] == False]                                # noqa: E712
    if len(misses):
        lines += ["## Every miss and what explains it", "",
                  "The note says which experiment tests each miss: `inputs:` (another admissible setting of an "
                  "input the paper leaves open reaches it), `no admissible input reaches it` (every admissible "
                  "setting misses it too), `outside the text` (a setting the paper's text rules out reaches it), "
                  "`miss tested by` (a variant of the method that tests a stated explanation; see below), `data:` "
                  "(computed on data that stand in for the paper's; such a task's cells are left out of the second "
                  "share all together, holds and misses alike). Every one of them is a miss in the headline.", "",
                  _markdown(misses[["paper", "table", "row", "method", "scenario", "column", "published_mean",
                                    "published_sd", "ours_mean", "note"]]), ""]
    lines += ["## Per paper and table", "", _markdown(counts), ""]
    ratios = _time_ratios(card)
    if len(ratios) and any(c.startswith("ours ") and ratios[c].notna().any() for c in ratios):
        lines += ["## Training time ÷ PCG's (Melacci & Belkin, Table 6)", "",
                  "Absolute times differ by machine; the ratio is what the paper's claim is about. Ours are "
                  "solve times (kernel, graph and the one-off loading of compiled code excluded).", "",
                  _markdown(ratios), ""]
    elif len(ratios):
        lines += ["Training times (Melacci & Belkin, Table 6) are measurements of a machine, not results of the "
                  "code: they are kept out of the committed files. Each run writes `reports/NAME/timings.csv`, "
                  "and `ssl-toolkit scorecard` compares their ratios to PCG's with the paper's in "
                  "`reports/timings.md` (neither is committed).", ""]
    if every is not None and len(every):
        lines += ["## Explanation variants on every cell they apply to", "",
                  "Each variant is run on every task and scenario it applies to, not only on the misses: how many "
                  "of those cells the method and the variant reproduce.", "", _markdown(every), ""]
    if sensitivity is not None and len(sensitivity):
        named = sensitivity.assign(setting=np.where(sensitivity["admissible"], sensitivity["setting"],
                                                    sensitivity["setting"] + " (outside the text)"))
        wide = named.pivot_table(index=["table", "row", "method", "column", "published_mean", "published_sd",
                                        "ours_mean"], columns="setting", values="setting_mean",
                                 sort=False).reset_index()
        reach = (named.assign(hit=named["holds"] == True, reach=named["setting_holds"] == True)   # noqa: E712
                 .assign(brought=lambda f: ~f["hit"] & f["reach"], lost=lambda f: f["hit"] & ~f["reach"])
                 .groupby("setting", sort=False)
                 .agg(cells=("reach", "size"), hold=("reach", "sum"),
                      **{"headline misses it brings within tolerance": ("brought", "sum"),
                         "headline holds it loses": ("lost", "sum")}).reset_index())
        lines += ["## Input sensitivity", "",
                  "The inputs a paper leaves open, varied on every cell of the task at once (tasks declared with "
                  "`sensitivity_of`): `ours_mean` is the headline setting, argued from the paper's text before "
                  "the fit was seen. A setting the text rules out is run and reported all the same, marked "
                  "`(outside the text)`. No setting changes the headline: what each one reaches is listed here "
                  "and in the notes of the misses.", "",
                  _markdown(reach), "", _markdown(wide), ""]
    if tested is not None and len(tested):
        cell = ["paper", "table", "row", "method", "scenario", "column"]    # a cell may have several variants
        n_tested = len(tested.drop_duplicates(cell))
        within = len(tested[tested["variant_holds"] == True].drop_duplicates(cell))   # noqa: E712
        lines += ["## Misses tested by an experiment", "",
                  f"{len(misses)} scored cells miss; {n_tested} of them are recomputed by a variant that tests a "
                  "stated explanation (declared as `explanations` in the experiment file and run by the same "
                  "`ssl-toolkit reproduce`, or, for another implementation, read from the per-split results it "
                  f"names), and a variant brings {within} of them within tolerance. The explanations:", ""]
        for (method, variant), part in tested.groupby(["method", "variant"], sort=False):
            lines.append(f"- **{method} → {variant}** ({len(part)} cells, "
                         f"{int((part['variant_holds'] == True).sum())} within tolerance): "   # noqa: E712
                         f"{part['hypothesis'].iloc[0]}")
        lines += ["", _markdown(tested.drop(columns=["hypothesis"])), ""]
    lines += ["## Cells", "", _markdown(attempted.drop(columns=["note"]).assign(
        splits=attempted["splits"].astype(int))), ""]
    missing = card[card["ours_mean"].isna()]
    if len(missing):
        lines += ["## Not attempted", "", _markdown(missing[["paper", "table", "row", "method", "column", "note"]]), ""]
    return "\n".join(lines)


class ResultsFileError(ValueError):
    """A results file the scorecard cannot trust (missing, unreadable, incomplete, inconsistent):
    the message names the file, what was expected, what was found and how to restore it."""


def _restore_hint(name):
    return (f"Restore the committed file (git checkout -- reports/{name}/splits.csv) or rerun "
            f"`ssl-toolkit reproduce {name}` into this folder.")


def read_split_results(path, experiment):
    """``NAME/splits.csv`` of an experiment, checked whole before a cell is scored from it.

    The checks: a CSV of the :data:`SPLIT_COLUMNS` header; every key filled, ``split`` a
    non-negative integer, ``value`` a number; the experiment's own name on every row; no
    (task, method, scenario, split, metric) twice; a metric NaN on every split of a
    configuration or on none; and, for an experiment of configurations, every configuration not in
    ``failures.csv`` present with each of its splits and the same metrics on each (of the full run
    or of ``--quick``). A truncated, duplicated, header-less or hand-edited file fails one of them.

    Parameters
    ----------
    path : path-like
    experiment : Experiment
        As loaded by :func:`toolkit.reports.load_experiment` (its configurations).

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    ResultsFileError
        Naming ``path`` and the first problem found.
    """
    import pandas as pd

    from ._experiments import load_experiment

    path = Path(path)
    name = experiment.name
    where = f"The results file {path}"
    if not path.is_file():
        raise ResultsFileError(f"{where} does not exist, so the {name} cells cannot be scored. {_restore_hint(name)}")
    try:
        frame = pd.read_csv(path, dtype={"task": str, "method": str, "scenario": str, "metric": str,
                                         "experiment": str}, keep_default_na=False, na_values=["", "nan", "NaN"])
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError) as exc:
        raise ResultsFileError(f"{where} is not a CSV table of results ({type(exc).__name__}: "
                               f"{str(exc).splitlines()[0][:160]}). {_restore_hint(name)}") from exc
    if list(frame.columns) != SPLIT_COLUMNS:
        raise ResultsFileError(f"{where} must have the header {','.join(SPLIT_COLUMNS)}. Got "
                               f"{','.join(map(str, frame.columns))[:200]} instead. {_restore_hint(name)}")

    def line_of(mask):           # the file's line number of the first offending row (header: line 1)
        return int(np.flatnonzero(np.asarray(mask))[0]) + 2

    keys = ["experiment", "task", "method", "scenario", "split", "metric"]
    empty = frame[keys].isna().any(axis=1)
    if empty.any():
        raise ResultsFileError(f"{where}, line {line_of(empty)}: every row needs {', '.join(keys)}; "
                               f"{int(empty.sum())} row(s) lack one (a truncated or hand-edited file?). "
                               f"{_restore_hint(name)}")
    split = pd.to_numeric(frame["split"], errors="coerce")
    bad = ~(split.notna() & (split >= 0) & (split == np.floor(split)))
    if bad.any():
        raise ResultsFileError(f"{where}, line {line_of(bad)}: 'split' must be a non-negative integer. Got "
                               f"{frame['split'][bad].iloc[0]!r} instead. {_restore_hint(name)}")
    value = pd.to_numeric(frame["value"], errors="coerce")
    bad = value.isna() & frame["value"].notna()
    if bad.any():
        raise ResultsFileError(f"{where}, line {line_of(bad)}: 'value' must be a number. Got "
                               f"{frame['value'][bad].iloc[0]!r} instead. {_restore_hint(name)}")
    frame = frame.assign(split=split.astype(int), value=value.astype(float))
    bad = frame["experiment"] != name
    if bad.any():
        raise ResultsFileError(f"{where}, line {line_of(bad)}: every row must belong to the experiment {name!r}. "
                               f"Got {frame['experiment'][bad].iloc[0]!r} instead. {_restore_hint(name)}")
    twice = frame.duplicated(["task", "method", "scenario", "split", "metric"], keep="first")
    if twice.any():
        r = frame[twice].iloc[0]
        times = int(((frame["task"] == r.task) & (frame["method"] == r.method) & (frame["scenario"] == r.scenario)
                     & (frame["split"] == r.split) & (frame["metric"] == r.metric)).sum())
        raise ResultsFileError(f"{where}, line {line_of(twice)}: {r.task} / {r.method} / {r.scenario}, split "
                               f"{r.split}, {r.metric} appears {times} times ({int(twice.sum())} repeated row(s) in "
                               f"all); each value is recorded once. {_restore_hint(name)}")
    group = ["task", "method", "scenario", "metric"]
    nan_share = frame["value"].isna().groupby([frame[c] for c in group]).mean()
    partial = nan_share[(nan_share > 0) & (nan_share < 1)]
    if len(partial):
        task, method, scenario, metric = partial.index[0]
        raise ResultsFileError(f"{where}: {task} / {method} / {scenario}, {metric} is NaN on some splits and a number "
                               f"on others (a metric is undefined on every split of a configuration or on none). "
                               f"{_restore_hint(name)}")
    if experiment.configurations:       # the full run's configurations, or those of --quick
        failures = path.parent / "failures.csv"
        problem = _incomplete(frame, experiment, failures)
        if problem is not None and _incomplete(frame, load_experiment(name, quick=True), failures) is not None:
            raise ResultsFileError(f"{where} is incomplete: {problem} (a truncated file, or a run that did not "
                                   f"finish?). {_restore_hint(name)}")
    return frame


def _incomplete(frame, experiment, failures_path):
    """The first configuration of ``experiment`` (not a recorded failure) whose splits or metrics are
    missing from ``frame``, as text; None when every one is there."""
    import pandas as pd

    failed = set()
    if failures_path.is_file():
        try:
            failed = set(pd.read_csv(failures_path, dtype=str)["config"].dropna())
        except (pd.errors.ParserError, pd.errors.EmptyDataError, KeyError, UnicodeDecodeError) as exc:
            raise ResultsFileError(f"The failures file {failures_path} is not a CSV table with a 'config' column "
                                   f"({type(exc).__name__}). Restore it with git checkout, or rerun the "
                                   "experiment.") from exc
    base = frame["scenario"].str.split(" ").str[0]
    by_config = {key: part for key, part in frame.groupby([frame["task"], frame["method"], base])}
    for c in experiment.configurations:
        if c.key in failed:
            continue
        n_splits = int(c.parameters["n_splits"])
        part = by_config.get((c.task, c.method, c.scenario))
        label = f"{c.task} / {c.method} / {c.scenario}"
        if part is None:
            return f"no rows for {label}"
        got = sorted(set(part["split"]))
        if got != list(range(n_splits)):
            return f"{label} has splits {_ranges(got)}, expected 0-{n_splits - 1}"
        metrics = part.groupby(["scenario", "split"])["metric"].apply(frozenset)
        if metrics.nunique() > 1:
            return f"{label} records different metrics on different splits"
    return None


def _ranges(values):
    if not values:
        return "none"
    return f"{values[0]}-{values[-1]} ({len(values)} of them)" if len(values) > 1 else str(values[0])


def write_scorecard(output="reports", *, experiments=None):
    """Rebuild ``OUTPUT/reproduction.csv`` and ``OUTPUT/reproduction.md`` from every table
    experiment's declarations and the ``OUTPUT/NAME/splits.csv`` present (atomic writes).

    Returns the scorecard (a DataFrame).
    """
    import pandas as pd

    from ._experiments import list_experiments, load_experiment

    folder = Path(output).expanduser().resolve()
    if not folder.is_dir():
        raise ResultsFileError(f"The reports folder {output!r} ({folder}) does not exist: nothing to score. Give the "
                               "folder `ssl-toolkit reproduce` wrote (default: reports).")
    published, splits, failures, tasks, variants, inputs, substitutes = [], [], [], {}, [], [], {}
    for name in (experiments or list_experiments()):
        exp = load_experiment(name)   # a notebook experiment's cells come from the `splits` table it records
        own = [entry for entry in exp.published if "borrowed_from" not in entry]   # a cell is scored in its paper's run
        if not own:
            continue
        declared = pd.DataFrame(own).assign(experiment=exp.name)
        for column in ("scenario", "metric", "sd", "not_attempted", "tested"):
            if column not in declared:
                declared[column] = "" if column != "sd" else np.nan
        declared["scenario"] = declared["scenario"].fillna("")
        scenarios = sorted({c.scenario for c in exp.configurations})
        if len(scenarios) == 1:          # a cell without a scenario is in the experiment's only one
            declared["scenario"] = declared["scenario"].where(
                declared["scenario"].astype(str).str.len() > 0, scenarios[0].split(" ")[0])
        published.append(declared)
        scored = declared[(declared["metric"] != "seconds") & (declared["not_attempted"].fillna("").astype(str) == "")]
        for entry in exp.sensitivity:         # the same cells on another admissible input
            inputs.append(scored[scored["task"] == entry["of"]].assign(task=entry["task"], base=entry["of"],
                                                                        setting=entry["setting"],
                                                                        admissible=entry["admissible"]))
        substitutes.update({(exp.name, task): reason for task, reason in exp.substitute_data.items()})
        for entry in exp.explanations:        # the same cells by the variant that tests the explanation
            sel = declared[(declared["method"] == entry["method"]) & (declared["metric"] != "seconds")
                           & (declared["not_attempted"].fillna("").astype(str) == "")]
            if entry.get("tasks"):
                sel = sel[sel["task"].isin(entry["tasks"])]
            variants.append(sel.assign(method=entry["by"], explains=entry["method"], hypothesis=entry["hypothesis"]))
            if "results" in entry:       # the variant ran elsewhere: its per-split rows, under the variant's label
                outside = pd.read_csv(entry["results"],        # resolved by load_experiment
                                      dtype={"task": str, "method": str, "scenario": str})
                outside = outside[outside["method"] == entry.get("results_method", entry["method"])].assign(
                    method=entry["by"])
                if entry.get("tasks"):
                    outside = outside[outside["task"].isin(entry["tasks"])]
                splits.append(outside.assign(experiment=exp.name))
        path = folder / exp.name / "splits.csv"
        frame = read_split_results(path, exp)   # every experiment that declares cells: its file, checked whole
        splits.append(frame)
        # a notebook run has no task list of its own: a cell it did not record has no result
        tasks[exp.name] = set(declared["task"]) if exp.notebook else set(frame["task"])
        fail_path = folder / exp.name / "failures.csv"
        if fail_path.is_file():
            fails = pd.read_csv(fail_path)
            if len(fails):
                failures.append(fails.assign(experiment=exp.name))
                tasks[exp.name] |= set(fails["task"])
    if not published:
        raise ValueError("No experiment declares published numbers: nothing to score.")
    published = pd.concat(published, ignore_index=True)
    splits = pd.concat(splits, ignore_index=True) if splits else pd.DataFrame(columns=SPLIT_COLUMNS)
    failures = pd.concat(failures, ignore_index=True) if failures else None
    card = scorecard(published, splits, failures=failures, declared_tasks=tasks)
    # a cell declared by two experiments (quick.toml takes the papers' numbers from theirs): one row,
    # from the run with the most splits (ties: the paper's own experiment, listed first)
    key = ["paper", "table", "row", "method", "scenario", "column"]
    card = (card.assign(_order=np.arange(len(card))).sort_values(["splits", "_order"], ascending=[False, True])
            .drop_duplicates(key).sort_values("_order").drop(columns="_order").reset_index(drop=True))
    tested, every = _tested_misses(card, pd.concat(variants, ignore_index=True) if variants else None, splits)
    # a miss tested by several variants is noted with the one that reaches it, else the closest (written last)
    order = tested.assign(_reach=tested["variant_holds"].astype(bool),
                          _distance=tested["variant_sd_distance"].fillna(np.inf))
    order = order.sort_values(["_reach", "_distance"], ascending=[True, False], kind="stable")
    for r in order.itertuples(index=False):
        hit = ((card["paper"] == r.paper) & (card["table"] == r.table) & (card["row"] == r.row)
               & (card["method"] == r.method) & (card["scenario"] == r.scenario) & (card["column"] == r.column))
        distance = f"{r.variant_sd_distance:.2f} sd" if r.variant_sd_distance == r.variant_sd_distance else \
            ("within 5 %" if r.variant_holds else "beyond 5 %")
        card.loc[hit, "note"] = f"miss tested by '{r.variant}': {r.variant_mean:.3g} ({distance}); {r.hypothesis}"
    sensitivity = _input_sensitivity(card, pd.concat(inputs, ignore_index=True) if inputs else None, splits)
    _data_notes(card, sensitivity, substitutes, published)
    folder.mkdir(parents=True, exist_ok=True)
    _atomic_write_text(folder / "reproduction.csv", card.to_csv(index=False, float_format="%.6g"))
    _atomic_write_text(folder / "reproduction.md", scorecard_markdown(card, tested, every, sensitivity))
    _write_timings(folder, published)
    return card


def _write_timings(folder, published):
    """``FOLDER/timings.md`` (not committed): the papers' training-time ratios to PCG's beside ours,
    from the ``FOLDER/NAME/timings.csv`` this machine's runs wrote."""
    import pandas as pd


    timed = published[published["metric"] == "seconds"]
    frames = [pd.read_csv(folder / name / "timings.csv", dtype={"task": str, "method": str, "scenario": str})
              for name in sorted(set(timed["experiment"])) if (folder / name / "timings.csv").is_file()]
    if not len(timed) or not frames:
        return
    ratios = _time_ratios(scorecard(timed, pd.concat(frames, ignore_index=True)))
    _atomic_write_text(folder / "timings.md", "\n".join([
        "# Training time ÷ PCG's (Melacci & Belkin, Table 6)", "",
        "Measured on this machine by `ssl-toolkit reproduce` (each experiment's `timings.csv`); not committed. "
        "Absolute times differ by machine; the ratio is what the paper's claim is about. Ours are solve times "
        "(kernel, graph and the one-off loading of compiled code excluded).", "", _markdown(ratios), ""]))


def _tested_misses(card, variants, splits):
    """Every cell more than one published sd away whose experiment declares an explanation, beside the
    same cell computed by the variant that tests it (``explanations`` in the experiment file)."""
    import pandas as pd

    columns = ["paper", "table", "row", "method", "scenario", "column", "published_mean", "published_sd",
               "ours_mean", "sd_distance", "variant", "variant_mean", "variant_sd_distance", "variant_holds",
               "hypothesis"]
    summary_columns = ["method", "variant", "cells", "method holds", "variant holds", "hypothesis"]
    if variants is None or not len(variants):
        return pd.DataFrame(columns=columns), pd.DataFrame(columns=summary_columns)
    variant_card = scorecard(variants, splits)      # no time cells: row i is variants' row i
    rows, every = [], []
    for v, (explains, hypothesis) in zip(variant_card.itertuples(index=False),
                                         variants[["explains", "hypothesis"]].itertuples(index=False)):
        main = card[(card["paper"] == v.paper) & (card["table"] == v.table) & (card["row"] == v.row)
                    & (card["method"] == explains) & (card["scenario"] == v.scenario) & (card["column"] == v.column)]
        if not len(main) or v.ours_mean != v.ours_mean or main["ours_mean"].iloc[0] != main["ours_mean"].iloc[0]:
            continue
        m = main.iloc[0]
        every.append({"method": explains, "variant": v.method, "main": bool(m["holds"]), "holds": bool(v.holds),
                      "hypothesis": hypothesis})
        if m["holds"] == True:                                              # noqa: E712
            continue
        rows.append({**{c: m[c] for c in columns[:9]}, "variant": v.method, "variant_mean": v.ours_mean,
                     "variant_sd_distance": v.sd_distance, "variant_holds": bool(v.holds), "hypothesis": hypothesis})
    every = pd.DataFrame(every, columns=["method", "variant", "main", "holds", "hypothesis"])
    summary = (every.groupby(["method", "variant"], sort=False)
               .agg(cells=("holds", "size"), **{"method holds": ("main", "sum"), "variant holds": ("holds", "sum")},
                    hypothesis=("hypothesis", "first")).reset_index()) if len(every) else \
        pd.DataFrame(columns=summary_columns)
    return pd.DataFrame(rows, columns=columns), summary[summary_columns]


def _input_sensitivity(card, inputs, splits):
    """Every cell of a task with input variants (``sensitivity_of``) beside the same cell on each
    admissible input: ``paper, table, row, method, scenario, column, published_mean, published_sd,
    ours_mean, holds, setting, setting_mean, setting_holds``."""
    import pandas as pd

    columns = ["paper", "table", "row", "method", "scenario", "column", "published_mean", "published_sd",
               "ours_mean", "holds", "setting", "admissible", "setting_mean", "setting_holds"]
    if inputs is None or not len(inputs):
        return pd.DataFrame(columns=columns)
    setting_card = scorecard(inputs, splits)         # no time cells: row i is inputs' row i
    rows = []
    for v, (base, setting, admissible) in zip(setting_card.itertuples(index=False),
                                              inputs[["base", "setting", "admissible"]].itertuples(index=False)):
        main = card[(card["paper"] == v.paper) & (card["table"] == v.table) & (card["row"] == base)
                    & (card["method"] == v.method) & (card["scenario"] == v.scenario) & (card["column"] == v.column)]
        if not len(main) or main["ours_mean"].iloc[0] != main["ours_mean"].iloc[0]:
            continue
        m = main.iloc[0]
        rows.append({**{c: m[c] for c in columns[:10]}, "setting": setting, "admissible": bool(admissible),
                     "setting_mean": v.ours_mean,
                     "setting_holds": bool(v.holds) if v.ours_mean == v.ours_mean else np.nan})
    return pd.DataFrame(rows, columns=columns)


def _data_notes(card, sensitivity, substitutes, published):
    """Say what explains a miss, and mark the cells computed on substitute data.

    A missed cell of a task with input variants (``sensitivity_of``) is noted ``inputs:`` with the
    admissible settings that bring it within tolerance, or ``no admissible input reaches it`` with the
    closest one; a setting the paper's text rules out (``admissible = false``) that reaches it is named
    as such. Either way the cell stays a miss. Every scored cell of a ``substitute_data`` task (the
    paper's data are not available), hold or miss, is noted ``data:``, so that the headline can leave
    those cells out all together (:func:`headline`)."""
    cell = ["paper", "table", "row", "method", "scenario", "column"]
    if len(sensitivity):
        for key, part in sensitivity.groupby(cell, sort=False):
            hit = np.logical_and.reduce([card[c] == k for c, k in zip(cell, key)])
            if not hit.any() or not card.loc[hit, "holds"].iloc[0] == False or part["setting_mean"].isna().any():  # noqa: E712
                continue
            inside, outside = part[part["admissible"]], part[~part["admissible"].astype(bool)]
            reached = inside[inside["setting_holds"] == True]                  # noqa: E712 (NaN-safe)
            if len(reached):
                text = "inputs: within tolerance with " + "; ".join(
                    f"{r.setting} ({r.setting_mean:.3g})" for r in reached.itertuples(index=False))
            elif len(inside):
                best = inside.iloc[int(np.argmin(np.abs(inside["setting_mean"] - inside["published_mean"])))]
                text = (f"no admissible input reaches it (ours {part['ours_mean'].iloc[0]:.3g}; closest "
                        f"{best['setting']} {best['setting_mean']:.3g}, published {best['published_mean']:.3g})")
            else:
                text = ""
            beyond = outside[outside["setting_holds"] == True]                 # noqa: E712
            if len(beyond):
                text += ("; " if text else "") + "outside the text, within tolerance with " + "; ".join(
                    f"{r.setting} ({r.setting_mean:.3g})" for r in beyond.itertuples(index=False))
            if not text:
                continue
            note = card.loc[hit, "note"].iloc[0]
            card.loc[hit, "note"] = text + (f"; {note}" if note else "")
    for (experiment, task), reason in substitutes.items():
        rows = published[(published["experiment"] == experiment) & (published["task"] == task)]
        if not len(rows):
            continue
        hit = (card["row"] == task) & card["holds"].notna()
        for i in card.index[hit]:
            note = card.at[i, "note"]
            note = "" if note != note else str(note)
            card.at[i, "note"] = f"data: {reason}" + (f"; {note}" if note else "")
