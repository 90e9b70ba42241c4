"""Tables and figures of the comparison report, computed from the tidy results.

Kept out of the notebooks so that the notebooks stay thin: each function takes the tidy table
(dataset, task, split, method, params, scenario, fold, metric, value, seconds, seed) and returns
a DataFrame, an HTML string or a matplotlib figure.
"""
from __future__ import annotations

import html

import numpy as np

__all__ = ["split_errors", "paper_table", "helped_table", "rank_table", "runtime_figure", "error_figure",
           "selection_figure", "format_mean_sd", "catalogue_table", "image_grid", "selected_parameters",
           "summary_table", "summary_markdown", "friedman_verdict", "result_notes", "verdict_table"]


def format_mean_sd(mean, sd, digits=1):
    if mean is None or not np.isfinite(mean):
        return "–"
    return f"{mean:.{digits}f} ± {0.0 if sd is None or not np.isfinite(sd) else sd:.{digits}f}"


def split_errors(results, *, metric="test_error"):
    """One row per (scenario, task, method, split): the refitted model's ``metric``."""
    refit = results[(results["fold"].astype(str) == "refit") & (results["metric"] == metric)]
    return (refit.groupby(["scenario", "task", "method", "split"], sort=False)["value"].mean()
            .reset_index())


def _order(values):
    seen = []
    for v in values:
        if v not in seen:
            seen.append(v)
    return seen


def paper_table(results, *, published=None, scenario, metric="test_error", alpha=0.05, helped=None, digits=1,
                fmt="html"):
    """Table laid out like the papers': tasks as rows, methods as columns, mean ± sd over splits,
    the best mean of each row in bold, the published number beside ours with its citation.

    Significance marks from ``helped``, the report's one :func:`verdict_table` (the verdicts of
    :func:`toolkit.stats.unlabeled_data_helped`): ``▼`` the unlabelled data helped (the
    semi-supervised method is significantly better than its supervised baseline), ``▲`` it hurt
    (significantly worse); the caption names the test that decided. Without ``helped``, no marks.
    ``fmt="html"`` (default) or ``"latex"`` (a ``tabular`` with the sources as numbered notes).
    Errors in percent.
    """
    latex = fmt == "latex"
    esc = (lambda t: str(t).replace("&", r"\&").replace("%", r"\%").replace("_", r"\_")) if latex else html.escape
    per_split = split_errors(results, metric=metric)
    per_split = per_split[per_split["scenario"] == scenario]
    if per_split.empty:
        return "no results for this scenario" if latex else "<p>no results for this scenario</p>"
    stats = per_split.groupby(["task", "method"], sort=False)["value"].agg(["mean", "std", "count"])
    tasks, methods = _order(per_split["task"]), _order(per_split["method"])
    pub = {}
    sources = []
    if published is not None and len(published):
        for _, row in published.iterrows():
            row_scenario = row.get("scenario")
            if isinstance(row_scenario, str) and row_scenario and row_scenario != scenario.split(" ")[0]:
                continue
            if row["source"] not in sources:
                sources.append(row["source"])
            pub[(row["task"], row["method"])] = (row["mean"], row.get("sd"), sources.index(row["source"]) + 1)
    up, down = (r" $\blacktriangle$", r" $\blacktriangledown$") if latex else (" ▲", " ▼")
    marks = {}
    tests = []
    if helped is not None and len(helped):
        tests = _deciding_tests(helped[helped["scenario"] == scenario])
        for _, row in helped[helped["scenario"] == scenario].iterrows():
            if row["verdict"] == "helped":
                marks[(row["task"], row["method"])] = down
            elif row["verdict"] == "hurt":
                marks[(row["task"], row["method"])] = up
    has_pub = {m: any((t, m) in pub for t in tasks) for m in methods}
    pm = r"$\pm$" if latex else "±"
    header = ["task"]
    for m in methods:
        header.append(esc(m))
        if has_pub[m]:
            header.append(r"\textit{paper}" if latex else "<i>paper</i>")
    body = []
    for task in tasks:
        means = {m: stats.loc[(task, m), "mean"] for m in methods if (task, m) in stats.index}
        best = min(means.values()) if means else None
        n = int(per_split[per_split["task"] == task]["split"].nunique())
        cells = [f"{esc(task)} ({n} splits)" if latex else f"{esc(task)} <small>({n} splits)</small>"]
        for m in methods:
            if m in means:
                text = format_mean_sd(means[m], stats.loc[(task, m), "std"], digits).replace("±", pm)
                if best is not None and abs(means[m] - best) < 1e-12:
                    text = rf"\textbf{{{text}}}" if latex else f"<b>{text}</b>"
                text += marks.get((task, m), "")
            else:
                text = "–"
            cells.append(text)
            if has_pub[m]:
                p = pub.get((task, m))
                ref = f"{format_mean_sd(p[0], p[1], digits).replace('±', pm)} [{p[2]}]" if p else ""
                cells.append(rf"\textit{{{ref}}}" if latex and ref else ref if latex else f"<i>{ref}</i>")
        body.append(cells)
    pct = "\\%" if latex else "%"
    caption = (f"{esc(metric.replace('_', ' '))} in {pct} (mean {pm} sd over splits), scenario "
               f"{esc(scenario)}; best per row in bold; {down.strip()}/{up.strip()}: the unlabelled data helped/hurt, "
               f"the method is significantly better/worse than its supervised baseline "
               f"({esc(' or '.join(tests) if tests else 'paired test')}, α = {alpha:g}; the summary's verdicts)."
               if helped is not None else
               f"{esc(metric.replace('_', ' '))} in {pct} (mean {pm} sd over splits), scenario "
               f"{esc(scenario)}; best per row in bold.")
    if latex:
        lines = [r"\begin{tabular}{l" + "r" * (len(header) - 1) + "}", r"\hline", " & ".join(header) + r" \\",
                 r"\hline"] + [" & ".join(row) + r" \\" for row in body] + [r"\hline", r"\end{tabular}"]
        notes = [caption.replace("α", r"$\alpha$")] + [f"[{i}] {esc(src)}" for i, src in enumerate(sources, 1)]
        return "\n".join(lines + ["", *[n + r" \\" for n in notes]])
    notes = "".join(f"<br>[{i}] {html.escape(src)}" for i, src in enumerate(sources, 1))
    head = "".join(f"<th>{h}</th>" for h in header)
    rows = "".join("<tr><th>" + row[0] + "</th>" + "".join(f"<td>{c}</td>" for c in row[1:]) + "</tr>"
                   for row in body)
    return (f"<table class='paper'><caption style='caption-side: bottom; text-align: left'>{caption}{notes}"
            f"</caption><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>")


def helped_table(helped, *, digits=2):
    """The "did the unlabelled data help?" table of a :func:`verdict_table`, formatted: the deciding
    test, its p-value and the uncorrected paired t-test's beside it, the difference (percentage points
    for errors) with the deciding test's confidence interval, the effect size and the verdict."""
    if helped is None or helped.empty:
        return helped
    out = helped.copy()

    def number(v):
        return f"{v:.{digits}f}" if np.isfinite(v) else "–"

    out["difference (95% CI)"] = [
        f"{d:+.{digits}f} [{lo:+.{digits}f}, {hi:+.{digits}f}]" if np.isfinite(lo)
        else f"{d:+.{digits}f}" if np.isfinite(d) else "–"
        for d, lo, hi in zip(out["difference"].astype(float), out["ci_low"].astype(float),
                             out["ci_high"].astype(float))]
    out["p-value"] = out["pvalue"].astype(float).map(lambda p: f"{p:.3g}" if np.isfinite(p) else "–")
    out["p (uncorrected)"] = out["pvalue_uncorrected"].astype(float).map(lambda p: f"{p:.3g}" if np.isfinite(p) else "–")
    out["effect size"] = [f"{e:.2f} ({n})" if isinstance(n, str) else "–"
                          for e, n in zip(out["effect_size"].astype(float), out["effect_size_name"])]
    out["test"] = out["test"].map(lambda t: t if isinstance(t, str) else "–")
    out["mean"] = out["mean"].astype(float).map(number)
    out["mean_baseline"] = out["mean_baseline"].astype(float).map(number)
    columns = ["scenario", "task", "method", "baseline", "n_splits", "mean", "mean_baseline",
               "difference (95% CI)", "test", "p-value", "p (uncorrected)", "effect size", "verdict"]
    return out[columns]


def rank_table(results, *, scenario, metric="test_error"):
    """Tasks × methods table of mean errors (only methods present on every task), for Friedman."""
    per_split = split_errors(results, metric=metric)
    per_split = per_split[per_split["scenario"] == scenario]
    table = per_split.groupby(["task", "method"], sort=False)["value"].mean().unstack("method")
    # the largest complete block: drop the tasks missing most methods one by one, keep the methods
    # present on every remaining task, and take the block with the most cells (at least 2 x 2)
    order = table.isna().sum(axis=1).sort_values(kind="stable", ascending=False).index
    blocks = [table.drop(index=order[:m]).dropna(axis=1, how="any") for m in range(len(order))]
    return max(blocks, key=lambda t: (min(t.shape) >= 2, t.shape[0] * t.shape[1], t.shape[0]))


def runtime_figure(results):
    """Seconds per fit (selection fits and refits) by method and task, log scale."""
    import matplotlib.pyplot as plt

    fits = results.drop_duplicates(["task", "method", "scenario", "split", "params", "fold"])
    tasks, methods = _order(fits["task"]), _order(fits["method"])
    fig, ax = plt.subplots(figsize=(7, 0.6 + 0.45 * len(methods) * max(1, len(tasks)) ** 0.5))
    height = 0.8 / max(1, len(tasks))
    for j, task in enumerate(tasks):
        sub = fits[fits["task"] == task]
        med = [sub[sub["method"] == m]["seconds"].median() for m in methods]
        ax.barh(np.arange(len(methods)) + j * height, med, height=height, label=task)
    ax.set_yticks(np.arange(len(methods)) + 0.4 - height / 2)
    ax.set_yticklabels(methods)
    ax.set_xscale("log")
    ax.set_xlabel("median seconds per fit (selection fits and refits)")
    ax.legend(fontsize=8, loc="best")
    ax.set_title("Runtime")
    fig.tight_layout()
    return fig


def error_figure(results, *, scenario, metric="test_error"):
    """Box plots of the per-split errors by task and method."""
    import matplotlib.pyplot as plt

    per_split = split_errors(results, metric=metric)
    per_split = per_split[per_split["scenario"] == scenario]
    tasks, methods = _order(per_split["task"]), _order(per_split["method"])
    fig, axes = plt.subplots(1, len(tasks), figsize=(3.2 * len(tasks), 3.2), squeeze=False)
    for ax, task in zip(axes[0], tasks):
        sub = per_split[per_split["task"] == task]
        data = [sub[sub["method"] == m]["value"].to_numpy() for m in methods]
        ax.boxplot(data, tick_labels=methods)
        ax.set_title(task, fontsize=9)
        ax.tick_params(axis="x", rotation=45, labelsize=8)
        ax.set_ylabel(f"{metric.replace('_', ' ')} (%)")
    fig.suptitle(f"Per-split errors, scenario {scenario}", fontsize=10)
    fig.tight_layout()
    return fig


def selection_figure(results, *, param=None):
    """Mean selection error (± se over folds and splits) along one parameter, the others at their best."""
    import json

    import matplotlib.pyplot as plt

    sel = results[results["fold"].astype(str) != "refit"]
    sel = sel[sel["metric"].isin(["cv_error", "test_error", "validation_error"])]
    params = sel["params"].map(json.loads)
    if param is None:
        numeric = [k for k in params.iloc[0] if isinstance(params.iloc[0][k], (int, float))
                   and not isinstance(params.iloc[0][k], bool)]
        varying = [k for k in numeric if params.map(lambda p: p.get(k)).nunique() > 1]
        param = varying[0] if varying else (numeric[0] if numeric else None)
    fig, ax = plt.subplots(figsize=(5, 3.2))
    if param is None:
        ax.text(0.5, 0.5, "no numeric parameter to plot", ha="center")
        return fig
    sel = sel.assign(value_of=params.map(lambda p: p.get(param)))
    curve = sel.groupby("value_of")["value"].agg(["mean", "std", "count"])
    ax.errorbar(curve.index.astype(float), curve["mean"], yerr=curve["std"] / np.sqrt(curve["count"]),
                marker="o", capsize=3)
    x = curve.index.astype(float)
    ax.set_xscale("log" if (x > 0).all() else "symlog", **({} if (x > 0).all() else {"linthresh": 1e-6}))
    ax.set_xlabel(param)
    ax.set_ylabel("selection error (%)")
    ax.set_title(f"Selection curve over {param}", fontsize=10)
    fig.tight_layout()
    return fig


def catalogue_table():
    """One row per data set of the registry catalogue (SSL-book sets one by one)."""
    import pandas as pd

    from toolkit import data

    rows = []
    for name, entry in data.catalogue().items():
        subsets = entry.get("sets", {}) if name == "ssl-book" else {}
        for label, sub in ([(f"{name} {k} ({v.get('name', '')})", {**entry, **v}) for k, v in subsets.items()]
                           or [(name, entry)]):
            rows.append({"name": label, "title": sub.get("title", ""), "n": sub.get("n", ""), "d": sub.get("d", ""),
                         "classes": sub.get("classes", ""), "citation": sub.get("citation", ""),
                         "licence": sub.get("licence", sub.get("license", ""))})
    return pd.DataFrame(rows)


def image_grid(X, labels, *, shape, order="C", per_class=6, title=""):
    """Example images: ``per_class`` rows of each class, reshaped to ``shape`` (``order="F"`` for
    column-major files such as COIL20.mat)."""
    import matplotlib.pyplot as plt

    X = X.toarray() if hasattr(X, "toarray") else np.asarray(X)
    classes = np.unique(labels)
    fig, axes = plt.subplots(len(classes), per_class, figsize=(0.9 * per_class, 0.9 * len(classes)),
                             squeeze=False)
    for row, c in zip(axes, classes):
        members = np.flatnonzero(labels == c)[:per_class]
        for ax, i in zip(row, list(members) + [-1] * (per_class - len(members))):
            ax.axis("off")
            if i >= 0:
                ax.imshow(X[int(i)].reshape(shape, order=order), cmap="gray")
        row[0].set_title(str(c), fontsize=7, loc="left")
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig


def selected_parameters(results):
    """The refitted parameters of each task × method × scenario: the most frequent choice over the
    splits and how many splits chose it (kernel settings included)."""
    import json

    import pandas as pd

    refit = results[(results["fold"].astype(str) == "refit") & (results["metric"] == "test_error")]
    rows = []
    for (scenario, task, method), group in refit.groupby(["scenario", "task", "method"], sort=False):
        counts = group["params"].value_counts()
        params = json.loads(counts.index[0])
        shown = ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in params.items())
        rows.append({"scenario": scenario, "task": task, "method": method, "most frequent choice": shown,
                     "splits": f"{counts.iloc[0]} of {group['split'].nunique()}"})
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------------------------
# The summary the report opens with
# ----------------------------------------------------------------------------------------------
#: Fewer paired splits than this and the summary's caveats say the tests have little power: the
#: Wilcoxon signed-rank test cannot reach p < 0.05 below 6 pairs (its smallest two-sided p-value is
#: 2 / 2^n) and the paired t-test's 5 % critical value is 2.78 or more (at most 4 degrees of freedom).
FEW_SPLITS = 6
#: Fewer tasks than this and the caveats call Friedman's verdict indicative: Demšar (2006, §3.2.2)
#: trusts the chi² approximation from about N > 10 data sets (and k > 5 methods).
FEW_TASKS = 11

_SUMMARY_COLUMNS = ["scenario", "task", "n_methods", "n_splits", "best", "best_mean", "best_sd", "test", "helped",
                    "hurt", "no significant difference", "not tested"]


def verdict_table(results, *, metric="test_error", alpha=0.05, sizes=None, baselines=None):
    """The one verdict per scenario × task × semi-supervised method that every part of the report renders.

    :func:`toolkit.stats.unlabeled_data_helped`'s comparison (each semi-supervised method against its
    supervised baseline over the splits both ran) with its default deciding test: Nadeau & Bengio's
    corrected resampled t-test for the tasks in ``sizes`` (random partitions of one data set, whose
    training sets overlap), the paired t-test for the others; ``pvalue_uncorrected`` is the paired
    t-test's. Unlike that function it returns an empty table (same columns) when no method ran with its
    baseline, so that a report of supervised methods only still renders.

    Parameters
    ----------
    results : pandas.DataFrame
        Tidy results; the refit rows of ``metric`` are used (errors in percent).
    metric : str, default="test_error"
    alpha : float, default=0.05
    sizes : mapping, default=None
        Task -> ``(n_train, n_test)``.
    baselines : mapping, default=None
        Method -> supervised baseline; ``None``: the method registry's.

    Returns
    -------
    pandas.DataFrame
        The columns of :func:`toolkit.stats.unlabeled_data_helped`.
    """
    from toolkit import stats

    table, _ = stats._compare_with_baselines(results, baselines=baselines, metric=metric, alpha=alpha,
                                             sizes=sizes, func="verdict_table")
    return table


def _deciding_tests(verdicts):
    return _order(t for t in verdicts["test"] if isinstance(t, str)) if len(verdicts) else []


def _test_phrase(tests):
    """How the report declares the deciding test(s), once."""
    named = {"corrected resampled t-test": "Nadeau & Bengio's corrected resampled t-test (for the training points "
                                          "the random splits share)",
             "paired t-test": "the paired t-test", "Wilcoxon signed-rank": "the Wilcoxon signed-rank test"}
    if not tests:
        return "a paired test"
    if len(tests) == 1:
        return named.get(tests[0], tests[0])
    return " or ".join(named.get(t, t) for t in tests) + " (named with each comparison)"


def summary_table(results, *, metric="test_error", alpha=0.05, sizes=None, baselines=None, verdicts=None):
    """Per scenario and task: the best method, and the verdict of every semi-supervised method.

    The verdicts are those of :func:`verdict_table` (pass its table as ``verdicts`` to render the
    very same one; by default it is computed from the other arguments): the summary, the results
    tables (:func:`paper_table`) and the "did it help?" table (:func:`helped_table`) cannot disagree.

    Parameters
    ----------
    results : pandas.DataFrame
        Tidy results (task, split, method, scenario, fold, metric, value); the refit rows are used.
    metric : str, default="test_error"
        Lower is better.
    alpha : float, default=0.05
    sizes : mapping, default=None
        Task -> ``(n_train, n_test)`` for the corrected t-test (see :func:`verdict_table`).
    baselines : mapping, default=None
        Method -> supervised baseline; ``None``: the method registry's.
    verdicts : pandas.DataFrame, default=None
        A :func:`verdict_table` of ``results``.

    Returns
    -------
    pandas.DataFrame
        One row per (scenario, task): ``n_methods``, ``n_splits`` (the most splits a method ran),
        ``best`` (lowest mean ``metric``) with ``best_mean`` and ``best_sd``, ``test`` (the deciding
        test(s)), and the semi-supervised methods by verdict, comma-separated: ``helped``, ``hurt``,
        ``no significant difference``, ``not tested`` (too few shared splits, or no baseline).
    """
    import pandas as pd

    if verdicts is None:
        verdicts = verdict_table(results, metric=metric, alpha=alpha, sizes=sizes, baselines=baselines)
    per_split = split_errors(results, metric=metric)
    rows = []
    for (scenario, task), group in per_split.groupby(["scenario", "task"], sort=False):
        wide = group.pivot_table(index="split", columns="method", values="value", aggfunc="mean")
        methods = _order(group["method"])
        means = wide.mean()[methods]
        best = means.idxmin()
        mine = verdicts[(verdicts["scenario"] == scenario) & (verdicts["task"] == task)]
        row = {"scenario": scenario, "task": task, "n_methods": len(methods), "n_splits": int(wide.count().max()),
               "best": best, "best_mean": means[best], "best_sd": wide[best].std(),
               "test": ", ".join(_deciding_tests(mine))}
        for column, chosen in (("helped", ("helped",)), ("hurt", ("hurt",)),
                               ("no significant difference", ("no significant difference",)),
                               ("not tested", ("too few splits", "no baseline"))):
            row[column] = ", ".join(mine.loc[mine["verdict"].isin(chosen), "method"])
        rows.append(row)
    return pd.DataFrame(rows, columns=_SUMMARY_COLUMNS)


def _p(p):
    return "–" if not np.isfinite(p) else "p < 0.001" if p < 0.001 else f"p = {p:.2g}"


def _comparison(row, *, unit, tests):
    """One comparison of a verdict row in words: means, difference with its CI, the deciding p-value
    and the uncorrected one beside it."""
    text = (f"{row['method']} against {row['baseline']}, {row['mean']:.1f}{unit} vs "
            f"{row['mean_baseline']:.1f}{unit}: {row['difference']:+.1f} points "
            f"[95% CI {row['ci_low']:+.1f}, {row['ci_high']:+.1f}], {_p(row['pvalue'])}")
    if row["test"] == "corrected resampled t-test":
        text += f" (uncorrected {_p(row['pvalue_uncorrected'])})"
    elif row["test"] != "paired t-test":
        text += f" (paired t-test {_p(row['pvalue_uncorrected'])})"
    if len(tests) > 1:
        text += f", {row['test']}"
    return text


def _task_sentence(summary_row, verdicts, *, unit):
    """The summary's line for one task: the best method, then every semi-supervised method's verdict."""
    best = (f"best **{summary_row['best']}** "
            f"({format_mean_sd(summary_row['best_mean'], summary_row['best_sd'])}{unit})")
    head = f"- **{summary_row['task']}**: {best}."
    if summary_row["n_methods"] == 1:
        return f"{head} Only one method ran on this task: nothing to compare."
    if verdicts.empty:
        return f"{head} No semi-supervised method ran with its supervised baseline: the unlabelled data cannot be judged."
    tests = _deciding_tests(verdicts)
    parts = []
    for verdict, label in (("helped", "The unlabelled data **helped**"), ("hurt", "The unlabelled data **hurt**"),
                           ("no significant difference", "**No significant difference**")):
        chosen = verdicts[verdicts["verdict"] == verdict]
        if len(chosen):
            parts.append(f"{label}: " + "; ".join(_comparison(r, unit=unit, tests=tests) for _, r in chosen.iterrows())
                         + ".")
    untested = verdicts[verdicts["verdict"].isin(["too few splits", "no baseline"])]
    for _, r in untested.iterrows():
        if r["verdict"] == "no baseline":
            parts.append(f"{r['method']}: its baseline {r['baseline']} did not run on this task, no verdict.")
        else:
            parts.append(f"{r['method']} and {r['baseline']} share {int(r['n_splits'])} split"
                         f"{'s' if r['n_splits'] != 1 else ''}: too few for a paired test, no verdict.")
    return " ".join([head, *parts])


def friedman_verdict(results, *, scenario, metric="test_error", alpha=0.05, caveat=True):
    """Friedman's test across tasks (Demšar 2006) on :func:`rank_table`, in words (markdown).

    ``caveat=False`` leaves out the sentence on fewer than :data:`FEW_TASKS` tasks (the summary
    says it once, among its caveats)."""
    from toolkit import stats

    table = rank_table(results, scenario=scenario, metric=metric)
    if table.shape[0] < 2 or table.shape[1] < 2:
        return (f"Across tasks: fewer than two tasks with at least two methods in common in scenario "
                f"{scenario}; no rank test.")
    fr = stats.friedman(table)
    N, k = table.shape
    ranks = fr.ranks.sort_values()
    pvalue = fr.pvalue_f if np.isfinite(fr.pvalue_f) else fr.pvalue
    block = (f"the {N} tasks on which {'both' if k == 2 else f'all {k}'} methods ran "
             f"({', '.join(map(str, table.columns))}); "
             f"mean ranks {', '.join(f'{m} {r:.2f}' for m, r in ranks.items())}")
    if pvalue < alpha:
        cd = stats.critical_difference(k, N, alpha)
        close = [m for m, r in ranks.items() if r - ranks.iloc[0] < cd and m != ranks.index[0]]
        text = (f"Across tasks, Friedman's test finds that the methods **differ significantly** "
                f"(Iman-Davenport {_p(pvalue)}, Kendall's W = {fr.effect_size:.2f}) over {block}. "
                f"Best mean rank: **{ranks.index[0]}**; within Nemenyi's critical difference "
                f"({cd:.2f}) of it: {', '.join(close) if close else 'none'}.")
    else:
        text = (f"Across tasks, Friedman's test finds **no significant difference** between the methods "
                f"({_p(pvalue)}, Kendall's W = {fr.effect_size:.2f}) over {block}.")
        if ranks.iloc[0] < ranks.iloc[1]:
            text += f" The lowest mean rank ({ranks.index[0]}) is not evidence that it is better."
    if caveat and N < FEW_TASKS:
        text += (f" *With only {N} tasks the test has little power* (Demšar 2006 relies on its chi² "
                 f"approximation from more than {FEW_TASKS - 1} data sets): read this as indicative.")
    return text


def _caveats(verdicts, friedman_tasks):
    """The summary's caveats, each said once: few splits for the paired tests, few tasks for Friedman."""
    out = []
    tested = verdicts[verdicts["verdict"].isin(["helped", "hurt", "no significant difference"])]
    few = tested[tested["n_splits"] < FEW_SPLITS]
    if len(few):
        counts = sorted(set(few["n_splits"].astype(int)))
        where = ("every comparison" if len(few) == len(tested)
                 else "the comparisons on " + ", ".join(_order(few["task"])))
        out.append(f"*Few splits.* {'/'.join(map(str, counts))} splits for {where}: the paired tests have little "
                   "power (a real difference of the sizes above can go undetected), a significant verdict rests on "
                   "the t-test's assumption of normal differences, and the Wilcoxon signed-rank test could not "
                   f"reach p < 0.05 with fewer than {FEW_SPLITS} splits.")
    few_tasks = {scenario: n for scenario, n in friedman_tasks.items() if 2 <= n < FEW_TASKS}
    if few_tasks:
        out.append("*Few tasks.* Friedman's test ran over "
                   + " and ".join(f"{n} tasks in scenario {scenario}" for scenario, n in few_tasks.items())
                   + f": Demšar (2006) relies on its chi² approximation from more than {FEW_TASKS - 1} data sets, "
                   "so read it as indicative.")
    return out


def summary_markdown(results, *, metric="test_error", alpha=0.05, sizes=None, baselines=None, unit=" %",
                     verdicts=None):
    """The report's opening summary (markdown).

    Which test decides is said once, at the top; then per scenario one line per task (best method,
    and each semi-supervised method's verdict against its baseline, from :func:`summary_table` and
    :func:`verdict_table`: the same verdicts as the results tables and the "did it help?" table),
    Friedman's verdict across tasks; then the caveats, each said once.

    Parameters
    ----------
    results, metric, alpha, sizes, baselines, verdicts
        As :func:`summary_table`.
    unit : str, default=" %"
        Unit appended to the means (errors are in percent, differences in percentage points).

    Returns
    -------
    str
    """
    if verdicts is None:
        verdicts = verdict_table(results, metric=metric, alpha=alpha, sizes=sizes, baselines=baselines)
    table = summary_table(results, metric=metric, alpha=alpha, verdicts=verdicts)
    if table.empty:
        return f"No refitted results of {metric} to summarise."
    name = metric.replace("_", " ")
    parts = [f"{name.capitalize()}{' in' + unit.rstrip() if unit.strip() else ''}, mean ± sd over the splits. "
             "Did the unlabelled data help? Each semi-supervised method is compared with its supervised baseline "
             f"on the splits both ran; {_test_phrase(_deciding_tests(verdicts))} decides at α = {alpha:g} "
             "(*helped*: significantly lower error, *hurt*: significantly higher), and the uncorrected paired "
             "t-test's p-value is shown beside it. The results tables mark the same verdicts (▼ helped, ▲ hurt)."]
    friedman_tasks = {}
    for scenario, rows in table.groupby("scenario", sort=False):
        mine = verdicts[verdicts["scenario"] == scenario]
        lines = [f"**Scenario {scenario}**", ""]
        lines += [_task_sentence(row, mine[mine["task"] == row["task"]], unit=unit) for _, row in rows.iterrows()]
        lines += ["", friedman_verdict(results, scenario=scenario, metric=metric, alpha=alpha, caveat=False)]
        friedman_tasks[scenario] = rank_table(results, scenario=scenario, metric=metric).shape[0]
        parts.append("\n".join(lines))
    caveats = _caveats(verdicts, friedman_tasks)
    if caveats:
        parts.append("**Caveats**\n\n" + "\n".join(f"- {c}" for c in caveats))
    return "\n\n".join(parts)


# ----------------------------------------------------------------------------------------------
# Surprising results that were investigated and are genuine
# ----------------------------------------------------------------------------------------------
#: (data set, kernel, methods) -> the explanation shown when a task of that data set ran one of the
#: methods with that kernel. The numbers were measured on quick.toml's Gaussian2C task, split 0
#: (``toolkit.data.split(toolkit.data.load("gaussian2c", rng=0), l=25, u=225, t=250, rng=0)``).
RESULT_NOTES = {
    ("gaussian2c", "linear", ("lapsvm", "laprlsc")): (
        "**Why LapSVM and LapRLSC are far behind RLSC on Gaussian2C (linear kernel).** Checked: not a solver "
        "bug. On split 0 with γ_A = 10⁻⁶, γ_I = 0.01 and 6 neighbours, Newton's method, PCG run to tol "
        "10⁻¹⁰ and L-BFGS on Melacci & Belkin's eq. (7) reach the same objective (0.0986048) and 35.2 % test error; "
        "LapRLSC also 35.2 %, RLSC 8.0 %. Gaussian2C has 500 features and its classes differ in one (means "
        "±2.5, unit noise on all 500), so the Euclidean 6-NN graph hardly sees them: 72 % of its edges join "
        "points of one class (99.4 % for a graph on that feature alone). As d = 500 ≥ n = 250, the linear "
        "kernel matrix has full rank, so any values on the training points are reachable and, with γ_A ≤ γ_I "
        "as in this grid, LapSVM's f on the unlabelled points is the graph's harmonic extension of the labels "
        "(correlation 1.000): it stays near "
        "the bias and gives 96 % of them the labelled majority class (46 % error on U). The same solver with "
        "the graph built on the informative feature gets 2.8 %, and 0.8 % on a 2-d version of the data. "
        "No graph or grid setting tried closes the gap (k = 20 or 50, the unnormalised Laplacian, "
        "γ_A/γ_I up to 10⁴: 18.8-46.4 % on split 0); the best fall back to a supervised SVM. S²RLSC, which "
        "needs no graph, shows that the cluster assumption holds: the kNN graph in 500 dimensions is what "
        "fails. SVC trails RLSC for a related reason: its unregularised bias absorbs the labelled class "
        "imbalance (15 to 10 on split 0, b = 0.16) while wᵀx of a test point is small (median 0.25): 19.2 % "
        "test error, 8.4 % with b = 0."),
}


def result_notes(results, *, notes=None):
    """The explanations of :data:`RESULT_NOTES` (or ``notes``) whose data set ran one of their methods
    with their kernel in ``results``, joined as markdown paragraphs ("" when none applies)."""
    import json

    notes = RESULT_NOTES if notes is None else notes
    kernels = results["params"].map(lambda p: json.loads(p).get("kernel") if isinstance(p, str) else None)
    present = set(zip(results["dataset"], kernels, results["method"]))
    return "\n\n".join(text for (dataset, kernel, methods), text in notes.items()
                       if any((dataset, kernel, m) in present for m in methods))
