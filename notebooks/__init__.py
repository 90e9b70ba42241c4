"""The toolkit's papermill notebooks and experiment files (shipped in the wheel as ``toolkit.notebooks``).

``model_selection.ipynb``, ``comparison_report.ipynb``, ``datasets.ipynb`` and ``experiments/*.toml``
are data for :mod:`toolkit.reports`; the ``reproduce_*.py`` scripts are the papers' reproductions.
"""
