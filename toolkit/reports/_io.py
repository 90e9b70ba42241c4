"""The reports' writers: a file is replaced whole or not at all, and a table is written as markdown.

Every file the runner and the scorecard write goes through :func:`_atomic_write_text` (the data
cache's :func:`toolkit.data._registry.write_atomically`: a temporary file renamed into place with
``os.replace``), so an interrupted run never leaves a half-written result.
"""
from __future__ import annotations

from pathlib import Path

from toolkit.data._registry import write_atomically

__all__ = ["_atomic_write_text", "_atomic_write_csv", "_markdown_table"]


def _atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically, with the user's umask (the data cache's one writer)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with write_atomically(path) as tmp:
        Path(tmp).write_text(text, encoding="utf-8")


def _atomic_write_csv(path: Path, frame) -> None:
    """Write the DataFrame ``frame`` to ``path`` as CSV without its index, atomically."""
    _atomic_write_text(path, frame.to_csv(index=False))


def _markdown_table(frame, *, digits=4, missing="–") -> str:
    """A DataFrame as a GitHub markdown table (numbers with ``digits`` significant digits, NaN as ``missing``)."""
    def cell(value):
        if isinstance(value, float):
            return missing if value != value else f"{value:.{digits}g}"
        return str(value).replace("|", "\\|")

    lines = ["| " + " | ".join(map(str, frame.columns)) + " |", "|" + "---|" * len(frame.columns)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join(lines)
