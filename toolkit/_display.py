"""How results show themselves: ``summary()`` as a text table, ``_repr_html_`` as an HTML table.

One layout for every result of the toolkit (statsmodels' ``Summary``: a title, a rule, one
``name  value`` row per field, then any tables under their captions), shared by the solvers'
results (:mod:`toolkit.rls`, :mod:`toolkit.transductive`) and the statistical tests
(:mod:`toolkit.stats`).

Inner helpers: ``rows`` is a sequence of ``(name, value)`` pairs, ``tables`` a sequence of
``(caption, pandas.DataFrame)`` pairs; values are shown with ``str``.
"""
from __future__ import annotations

import html

__all__ = ["text_table", "html_table"]


def text_table(title, rows, tables=()):
    """``title``, a rule, the rows as two aligned columns, then every table under its caption."""
    width = max((len(str(k)) for k, _ in rows), default=0)
    lines = [title, "=" * max(len(title), 40)]
    lines += [f"{str(k):<{width}}  {v}" for k, v in rows]
    for caption, frame in tables:
        text = frame.to_string()
        rule = "-" * max(len(caption), max(len(line) for line in text.splitlines()))
        lines += ["", caption, rule, text]
    return "\n".join(lines)


def html_table(title, rows, tables=()):
    """The same content as :func:`text_table`, as HTML tables (the notebook's rich display)."""
    body = "".join(f"<tr><th style='text-align:left'>{html.escape(str(k))}</th>"
                   f"<td style='text-align:left'>{html.escape(str(v))}</td></tr>" for k, v in rows)
    out = f"<table><caption>{html.escape(title)}</caption>{body}</table>"
    for caption, frame in tables:
        out += f"<p style='margin-bottom:0'><b>{html.escape(caption)}</b></p>{frame.to_html()}"
    return out
