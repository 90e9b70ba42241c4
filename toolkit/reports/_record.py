"""``record(name, value)``: the one way a notebook hands a metric or a table to its caller.

A recorded value is displayed as a small JSON payload under a private MIME type, so it travels
inside the executed notebook (papermill writes it) and :func:`read_records` gets it back, exactly
as a test or the reproduce runner needs it. Tables (pandas DataFrames) travel as
``DataFrame.to_json(orient="split")``; numbers, strings, lists and dicts as JSON.
"""
from __future__ import annotations

import io
import json
import math
from pathlib import Path

import numpy as np

RECORD_MIME = "application/vnd.ssl-toolkit.record+json"

__all__ = ["record", "read_records", "show_figure", "RECORD_MIME"]


def _plain(value):
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return _plain(value.tolist())
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating, float)):
        value = float(value)
        return None if math.isnan(value) or math.isinf(value) else value
    if isinstance(value, (np.bool_,)):
        return bool(value)
    return value


def record(name: str, value) -> None:
    """Record ``value`` under ``name`` in the running notebook (nothing is shown to the reader).

    Parameters
    ----------
    name : str
    value : number, str, bool, list, dict or pandas.DataFrame
        NaN and inf become ``None`` (JSON has no NaN).
    """
    import pandas as pd
    from IPython.display import display

    if isinstance(value, pd.DataFrame):
        payload = {"name": name, "kind": "dataframe", "value": value.to_json(orient="split", index=False)}
    else:
        payload = {"name": name, "kind": "json", "value": _plain(value)}
    # an empty text/plain: front ends show an empty output (no "no renderer" notice), papermill
    # keeps the payload in the executed notebook for read_records
    display({RECORD_MIME: payload, "text/plain": ""}, raw=True)


def read_records(notebook) -> dict:
    """Every value recorded in an executed notebook (a path or an ``nbformat`` node), by name.

    A name recorded twice keeps its last value.
    """
    import nbformat
    import pandas as pd

    if isinstance(notebook, (str, Path)):
        notebook = nbformat.read(str(notebook), as_version=4)
    out = {}
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            payload = output.get("data", {}).get(RECORD_MIME)
            if payload is None:
                continue
            if isinstance(payload, str):
                payload = json.loads(payload)
            if payload.get("kind") == "dataframe":
                out[payload["name"]] = pd.read_json(io.StringIO(payload["value"]), orient="split",
                                                    dtype=False)
            else:
                out[payload["name"]] = payload["value"]
    return out


def show_figure(fig, *, dpi: int = 96) -> None:
    """Display a matplotlib figure as an embedded PNG (whatever the backend) and close it."""
    import matplotlib.pyplot as plt
    from IPython.display import Image, display

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight")
    plt.close(fig)
    display(Image(data=buffer.getvalue(), format="png"))
