"""How results show themselves: ``summary()`` as a text table, ``_repr_html_`` as an HTML table.

One layout for every result of the toolkit (statsmodels' ``Summary``: a title, a rule, one
``name  value`` row per field, then any tables under their captions), shared by the solvers'
results (:mod:`toolkit.rls`, :mod:`toolkit.manifold`, :mod:`toolkit.transductive`,
:mod:`toolkit.paths`), the model selection (:mod:`toolkit.selection`) and the statistical tests
(:mod:`toolkit.stats`). Every result class derives from :class:`Result`, which draws ``summary()``,
``_repr_html_`` and ``repr`` from what the class says to show; no result class writes its own.

Inner helpers: ``rows`` is a sequence of ``(name, value)`` pairs, ``tables`` a sequence of
``(caption, pandas.DataFrame)`` pairs; values are shown with ``str``.
"""
from __future__ import annotations

import html
from typing import ClassVar

__all__ = ["Result", "text_table", "html_table"]


class Result:
    """The one display of the toolkit's results: ``summary()``, ``_repr_html_`` and ``repr``.

    A result class (a frozen dataclass, declared with ``repr=False`` so that the dataclass does not
    write its own ``__repr__``) says what to show; this base shows it:

    * ``_title``: the first line of :meth:`summary` and the caption of the HTML table (a class
      variable, or a property where it depends on the result); ``_html_title`` a shorter caption
      for the HTML table (default: ``_title``);
    * ``_rows()``: the ``(name, value)`` pairs under the title, in order;
    * ``_tables()``: ``(caption, pandas.DataFrame)`` pairs shown under the rows (default: none);
    * ``_brief()``: the one line that ``repr`` shows inside ``TypeName(...)``.

    Solver results derive from :class:`toolkit._contract.SolverResult`, which adds the fields of
    the solver contract to this display.
    """

    __slots__ = ()

    _title: ClassVar[str] = ""
    _html_title: ClassVar[str | None] = None

    def _rows(self):
        """The ``(name, value)`` pairs that :meth:`summary` shows under the title."""
        return []

    def _tables(self):
        """The ``(caption, pandas.DataFrame)`` pairs that :meth:`summary` shows under the rows."""
        return ()

    def _brief(self):
        """What ``repr`` shows inside ``TypeName(...)``: the first three rows as ``name=value``."""
        return ", ".join(f"{name}={value}" for name, value in self._rows()[:3])

    def summary(self) -> str:
        """The result as a text table: the title over a rule, one ``name  value`` row per line,
        then every table under its caption."""
        return text_table(self._title, self._rows(), self._tables())

    def _repr_html_(self):
        """The same content as :meth:`summary` as HTML tables (the notebook's rich display)."""
        title = self._title if self._html_title is None else self._html_title
        return html_table(title, self._rows(), self._tables())

    def __repr__(self):
        return f"{type(self).__name__}({self._brief()})"


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
