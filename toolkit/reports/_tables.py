"""Tables and figures of the comparison report, computed from the tidy results.

Kept out of the notebooks so that the notebooks stay thin: each function takes the tidy table
(dataset, task, split, method, params, scenario, fold, metric, value, seconds, seed) and returns
a DataFrame, an HTML string or a matplotlib figure.
"""
from __future__ import annotations

import html

import numpy as np

__all__ = ["split_errors", "paper_table", "helped_table", "rank_table", "runtime_figure", "error_figure",
           "selection_figure", "format_mean_sd", "catalogue_table", "image_grid", "selected_parameters"]


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
