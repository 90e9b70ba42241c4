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
           "summary_table", "summary_markdown", "friedman_verdict", "result_notes"]


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

    Significance marks (from ``helped``, :func:`toolkit.stats.unlabeled_data_helped`): ``▼`` the
    semi-supervised method is significantly better than its supervised baseline at ``alpha``,
    ``▲`` significantly worse. ``fmt="html"`` (default) or ``"latex"`` (a ``tabular`` with the
    sources as numbered notes).
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
    if helped is not None and len(helped):
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
               f"{esc(scenario)}; best per row in bold; {down.strip()}/{up.strip()}: significantly better/worse "
               f"than the method's supervised baseline (paired t-test, α = {alpha:g}).")
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
    """The "did the unlabelled data help?" table, formatted."""
    if helped is None or helped.empty:
        return helped
    out = helped.copy()
    out["difference (95% CI)"] = [
        f"{d:+.{digits}f} [{lo:+.{digits}f}, {hi:+.{digits}f}]" if np.isfinite(lo) else f"{d:+.{digits}f}"
        for d, lo, hi in zip(out["difference"], out["ci_low"].astype(float), out["ci_high"].astype(float))]
    out["p-value"] = out["pvalue"].map(lambda p: f"{p:.3g}" if np.isfinite(p) else "–")
    out["effect size"] = [f"{e:.2f} ({n})" if isinstance(n, str) else "–"
                          for e, n in zip(out["effect_size"].astype(float), out["effect_size_name"])]
    out["mean"] = out["mean"].map(lambda v: f"{v:.{digits}f}")
    out["mean_baseline"] = out["mean_baseline"].map(lambda v: f"{v:.{digits}f}")
    columns = ["scenario", "task", "method", "baseline", "n_splits", "mean", "mean_baseline",
               "difference (95% CI)", "p-value", "effect size", "verdict"]
    if "p (corrected)" in out:
        out["p (corrected)"] = out["p (corrected)"].astype(float).map(lambda p: f"{p:.3g}" if np.isfinite(p) else "–")
        columns.insert(9, "p (corrected)")
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
#: Fewer paired splits than this and the summary says the test has little power: the Wilcoxon
#: signed-rank test cannot reach p < 0.05 below 6 pairs (its smallest two-sided p-value is 2 / 2^n)
#: and the paired t-test's 5 % critical value is 2.78 or more (at most 4 degrees of freedom).
FEW_SPLITS = 6
#: Fewer tasks than this and Friedman's verdict is called indicative: Demšar (2006, §3.2.2) trusts
#: the chi² approximation from about N > 10 data sets (and k > 5 methods).
FEW_TASKS = 11

_SUMMARY_COLUMNS = ["scenario", "task", "n_methods", "best", "best_mean", "best_sd", "semi_supervised", "supervised",
                    "n_splits", "mean_semi_supervised", "mean_supervised", "difference", "ci_low", "ci_high",
                    "pvalue", "pvalue_wilcoxon", "pvalue_corrected", "verdict"]


def _supervised_names(supervised):
    if supervised is not None:
        return set(supervised)
    from toolkit._methods import METHODS

    return {name for name, m in METHODS.items() if m.family == "supervised"}


def summary_table(results, *, metric="test_error", alpha=0.05, supervised=None, sizes=None):
    """Per scenario and task: the best method, and whether the unlabelled data helped significantly.

    The best semi-supervised method (lowest mean ``metric`` over the splits) is compared with the best
    supervised method of the same task and scenario over the splits both ran, by the paired t-test
    (:func:`toolkit.stats.paired_ttest`, the verdict), the Wilcoxon signed-rank test and, with
    ``sizes``, Nadeau & Bengio's corrected resampled t-test (:func:`toolkit.stats.corrected_ttest`;
    the random partitions of one data set share training points).

    Parameters
    ----------
    results : pandas.DataFrame
        Tidy results (task, split, method, scenario, fold, metric, value); the refit rows are used.
    metric : str, default="test_error"
        Lower is better.
    alpha : float, default=0.05
    supervised : iterable of str, default=None
        Names of the supervised methods; None takes the registry's ``family == "supervised"``
        (:data:`toolkit.selection.METHODS`). Every other method counts as semi-supervised.
    sizes : mapping, default=None
        Task -> ``(n_train, n_test)`` for the corrected t-test.

    Returns
    -------
    pandas.DataFrame
        One row per (scenario, task), columns ``best``, ``best_mean``, ``best_sd``, ``semi_supervised``
        and ``supervised`` (the two best of each kind), ``n_splits`` (paired), their means,
        ``difference`` (semi-supervised - supervised: negative means the unlabelled data helped), its
        confidence interval, the three p-values, and ``verdict``: "helped", "hurt", "no significant
        difference", "too few splits", "only one method", "no supervised method" or "no
        semi-supervised method".
    """
    import pandas as pd

    from toolkit import stats

    supervised = _supervised_names(supervised)
    sizes = {} if sizes is None else dict(sizes)
    per_split = split_errors(results, metric=metric)
    rows = []
    for (scenario, task), group in per_split.groupby(["scenario", "task"], sort=False):
        wide = group.pivot_table(index="split", columns="method", values="value", aggfunc="mean")
        methods = _order(group["method"])
        means = wide.mean()[methods]
        best = means.idxmin()
        row = dict.fromkeys(_SUMMARY_COLUMNS, np.nan)
        row.update(scenario=scenario, task=task, n_methods=len(methods), best=best, best_mean=means[best],
                   best_sd=wide[best].std(), semi_supervised=None, supervised=None, n_splits=0)
        ssl = [m for m in methods if m not in supervised]
        sup = [m for m in methods if m in supervised]
        if ssl:
            row["semi_supervised"] = means[ssl].idxmin()
        if sup:
            row["supervised"] = means[sup].idxmin()
        if len(methods) == 1:
            row["verdict"] = "only one method"
        elif not sup:
            row["verdict"] = "no supervised method"
        elif not ssl:
            row["verdict"] = "no semi-supervised method"
        else:
            pair = wide[[row["semi_supervised"], row["supervised"]]].dropna()
            a, b = pair.iloc[:, 0].to_numpy(), pair.iloc[:, 1].to_numpy()
            row.update(n_splits=len(pair), mean_semi_supervised=a.mean() if len(a) else np.nan,
                       mean_supervised=b.mean() if len(b) else np.nan,
                       difference=(a - b).mean() if len(a) else np.nan)
            if len(pair) < 2:
                row["verdict"] = "too few splits"
            else:
                res = stats.paired_ttest(a, b)
                row["ci_low"], row["ci_high"] = res.conf_int(alpha)
                row["pvalue"] = res.pvalue
                row["pvalue_wilcoxon"] = stats.wilcoxon(a, b).pvalue
                if task in sizes:
                    n_train, n_test = sizes[task]
                    row["pvalue_corrected"] = stats.corrected_ttest(a, b, n_train=n_train, n_test=n_test).pvalue
                row["verdict"] = ("no significant difference" if not res.pvalue < alpha
                                  else "helped" if res.estimate < 0 else "hurt")
        rows.append(row)
    return pd.DataFrame(rows, columns=_SUMMARY_COLUMNS)


def _p(p):
    return "–" if not np.isfinite(p) else "p < 0.001" if p < 0.001 else f"p = {p:.2g}"


def _task_sentence(row, *, alpha, unit):
    best = f"best: **{row['best']}** ({format_mean_sd(row['best_mean'], row['best_sd'])}{unit})"
    head = f"- **{row['task']}**: {best}."
    verdict = row["verdict"]
    if verdict == "only one method":
        return f"{head} Only one method ran on this task: nothing to compare."
    if verdict == "no supervised method":
        return f"{head} No supervised method ran on this task: the unlabelled data cannot be judged."
    if verdict == "no semi-supervised method":
        return f"{head} No semi-supervised method ran on this task."
    ssl, sup, n = row["semi_supervised"], row["supervised"], int(row["n_splits"])
    if verdict == "too few splits":
        return (f"{head} {ssl} and {sup} share {n} split{'s' if n != 1 else ''}: too few for a paired test, "
                "no verdict on the unlabelled data.")
    compared = (f"{ssl} {row['mean_semi_supervised']:.1f}{unit} against the best supervised method, {sup}, "
                f"{row['mean_supervised']:.1f}{unit}: difference {row['difference']:+.1f} points "
                f"[95% CI {row['ci_low']:+.1f}, {row['ci_high']:+.1f}], paired t-test {_p(row['pvalue'])} "
                f"over {n} splits")
    if verdict == "helped":
        text = f"{head} The unlabelled data **helped significantly** ({compared})."
    elif verdict == "hurt":
        text = (f"{head} The unlabelled data **hurt**: the best supervised method is significantly better "
                f"({compared}).")
    else:
        text = (f"{head} **No significant difference** between semi-supervised and supervised at α = {alpha:g} "
                f"({compared}): these results do not show that the unlabelled data helped.")
    corrected = row["pvalue_corrected"]
    if verdict in ("helped", "hurt") and np.isfinite(corrected) and not corrected < alpha:
        text += (f" Not significant after Nadeau & Bengio's correction for the training points the "
                 f"splits share ({_p(corrected)}).")
    if n < FEW_SPLITS:
        wilcoxon = (f"the Wilcoxon test cannot reach p < 0.05 with fewer than {FEW_SPLITS} splits; here "
                    f"{_p(row['pvalue_wilcoxon'])}")
        if verdict == "no significant difference":
            text += (f" *With only {n} splits the test has little power*: a real difference of this size can "
                     f"go undetected ({wilcoxon}).")
        else:
            text += (f" *With only {n} splits the test has little power*: the verdict rests on the t-test's "
                     f"assumption of normal differences ({wilcoxon}).")
    return text


def friedman_verdict(results, *, scenario, metric="test_error", alpha=0.05):
    """Friedman's test across tasks (Demšar 2006) on :func:`rank_table`, in words (markdown)."""
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
    if N < FEW_TASKS:
        text += (f" *With only {N} tasks the test has little power* (Demšar 2006 relies on its chi² "
                 f"approximation from more than {FEW_TASKS - 1} data sets): read this as indicative.")
    return text


def summary_markdown(results, *, metric="test_error", alpha=0.05, supervised=None, sizes=None, unit=" %"):
    """The report's opening summary (markdown): per scenario, one line per task (best method, did the
    unlabelled data help, from :func:`summary_table`) and Friedman's verdict across tasks."""
    table = summary_table(results, metric=metric, alpha=alpha, supervised=supervised, sizes=sizes)
    if table.empty:
        return f"No refitted results of {metric} to summarise."
    parts = []
    for scenario, rows in table.groupby("scenario", sort=False):
        lines = [f"**Scenario {scenario}** ({metric.replace('_', ' ')}, mean ± sd over the splits):", ""]
        lines += [_task_sentence(row, alpha=alpha, unit=unit) for _, row in rows.iterrows()]
        lines += ["", friedman_verdict(results, scenario=scenario, metric=metric, alpha=alpha)]
        parts.append("\n".join(lines))
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
