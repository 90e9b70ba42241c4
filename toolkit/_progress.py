"""One progress bar for the package: tqdm's widget in Jupyter where ipywidgets is installed, text otherwise.

``tqdm.auto`` picks the widget whenever it runs in a Jupyter kernel and warns ``IProgress not found``
when ipywidgets is missing. ipywidgets comes with the ``[lab]`` extra, not with the core install, so a
kernel without it gets tqdm's text bar, without a warning.
"""
from __future__ import annotations

import importlib.util


def tqdm_class():
    """The tqdm class to use: ``tqdm.auto.tqdm`` when ipywidgets can be imported, else ``tqdm.std.tqdm``."""
    if importlib.util.find_spec("ipywidgets") is not None:
        from tqdm.auto import tqdm
    else:
        from tqdm.std import tqdm
    return tqdm


def tqdm(*args, **kwargs):
    """A progress bar: ``tqdm_class()(*args, **kwargs)``."""
    return tqdm_class()(*args, **kwargs)


def trange(n, **kwargs):
    """``tqdm(range(n), **kwargs)``."""
    return tqdm_class()(range(n), **kwargs)
