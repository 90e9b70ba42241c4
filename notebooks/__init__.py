"""The toolkit's papermill notebooks and experiment files (shipped in the wheel as ``toolkit.notebooks``).

``model_selection.ipynb``, ``comparison_report.ipynb``, ``wang_paths.ipynb``, ``datasets.ipynb`` and
``experiments/*.toml`` are data for :mod:`toolkit.reports`: every reproduction of a paper is an
experiment file run by ``ssl-toolkit reproduce NAME``.
"""
