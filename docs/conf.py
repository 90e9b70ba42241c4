"""Sphinx configuration of the ssl-toolkit documentation.

Build (from the repository root; offline: nothing is fetched)::

    pip install -e ".[docs]"
    python -m sphinx -W --keep-going -b html docs docs/_build/html

The API reference is generated from the numpydoc docstrings (``autosummary`` writes one page per
public function, result class and estimator into ``docs/generated/``), the gallery runs the
scripts of ``examples/`` at build time (``docs/auto_examples/``), and intersphinx links to NumPy,
SciPy, scikit-learn, pandas, matplotlib and Python through the inventories in
``docs/_inventories/`` (see ``make_inventories.py`` there), never over the network.
"""
import os
import sys
from pathlib import Path

import matplotlib

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))                       # the checkout's toolkit, installed or not
matplotlib.use("Agg")
os.environ.setdefault("MPLBACKEND", "Agg")

import toolkit  # noqa: E402

project = "ssl-toolkit"
author = "ssl-toolkit developers"
copyright = "ssl-toolkit developers"
version = release = toolkit.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "myst_parser",                                  # the committed scorecard (reports/*.md) is Markdown
    "sphinx-mathjax-offline",                       # MathJax 3 shipped in _static: formulas render offline
]

templates_path = ["_templates"]
exclude_patterns = ["_build", "_inventories", "**.ipynb_checkpoints", "auto_examples/*.ipynb",
                    "auto_examples/*.py", "auto_examples/*.zip"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
default_role = "code"                               # `x` in a docstring is code, not a broken reference
pygments_style = "sphinx"
# MathJax (served from _static, not a CDN) renders the docstrings' unicode math (γ, λ) and LaTeX alike
mathjax3_config = {"tex": {"macros": {"R": r"\mathbb{R}"}}}

# -- API reference: autosummary + autodoc + numpydoc ----------------------------------------------
autosummary_generate = True
autosummary_imported_members = False
autodoc_typehints = "none"                          # the numpydoc sections state the types
autodoc_member_order = "bysource"
numpydoc_show_class_members = False                 # the class template lists the methods itself
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
numpydoc_xref_param_type = True
numpydoc_xref_aliases = {
    "ndarray": "numpy.ndarray",
    "array-like": ":term:`array-like <array_like>`",
    "array_like": ":term:`array_like`",
    "Generator": "numpy.random.Generator",
    "DataFrame": "pandas.DataFrame",
    "Series": "pandas.Series",
    "LinearOperator": "scipy.sparse.linalg.LinearOperator",
    "sparse matrix": "scipy.sparse.csr_matrix",
    "Figure": "matplotlib.figure.Figure",
    "Axes": "matplotlib.axes.Axes",
    "Dataset": "toolkit.data.Dataset",
    "Split": "toolkit.data.Split",
    "LapSVMResult": "toolkit.manifold.LapSVMResult",
    "RLSCResult": "toolkit.rls.RLSCResult",
    "S2RLSCResult": "toolkit.rls.S2RLSCResult",
    "MMCResult": "toolkit.rls.MMCResult",
    "TSVMResult": "toolkit.transductive.TSVMResult",
    "SvmPath": "toolkit.paths.SvmPath",
    "LaplacianSvmPath": "toolkit.paths.LaplacianSvmPath",
    "RlscPath": "toolkit.paths.RlscPath",
    "PathSelection": "toolkit.paths.PathSelection",
    "Selection": "toolkit.selection.Selection",
    "StopEvent": "toolkit.early_stopping.StopEvent",
    "TestResult": "toolkit.stats.TestResult",
    "FriedmanResult": "toolkit.stats.FriedmanResult",
    "PosthocResult": "toolkit.stats.PosthocResult",
}
numpydoc_xref_ignore = "all"                       # only the aliases above (and numpydoc's) link

# -- intersphinx: shipped inventories only (the build never touches the network) --------------------
_INV = DOCS / "_inventories"
intersphinx_mapping = {
    "python": ("https://docs.python.org/3/", str(_INV / "python-objects.inv")),
    "numpy": ("https://numpy.org/doc/stable/", str(_INV / "numpy-objects.inv")),
    "scipy": ("https://docs.scipy.org/doc/scipy/", str(_INV / "scipy-objects.inv")),
    "sklearn": ("https://scikit-learn.org/stable/", str(_INV / "sklearn-objects.inv")),
    "pandas": ("https://pandas.pydata.org/docs/", str(_INV / "pandas-objects.inv")),
    "matplotlib": ("https://matplotlib.org/stable/", str(_INV / "matplotlib-objects.inv")),
}

# -- gallery: examples/ executed at build time --------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",                   # every plot_*.py runs
    "download_all_examples": False,
    "within_subsection_order": "FileNameSortKey",
    "remove_config_comments": True,
    "reference_url": {"toolkit": None},             # link names in the examples to our API pages
    "backreferences_dir": "generated/backreferences",
    "doc_module": ("toolkit",),
    "show_memory": False,
    "matplotlib_animations": False,
    "image_scrapers": ("matplotlib",),
    "abort_on_example_error": True,
    "only_warn_on_example_error": False,
    "default_thumb_file": None,
    "plot_gallery": "True",
}

# -- myst (the scorecard page includes reports/reproduction.md) ------------------------------------
myst_heading_anchors = 3
# the scorecard is included below the page's own title, so its sections start at "##" by design
suppress_warnings = ["myst.header"]

# -- HTML ---------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"ssl-toolkit {release}"
html_static_path = []
html_show_sourcelink = False
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "header_links_before_dropdown": 6,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
    "icon_links": [],
}
html_context = {"default_mode": "light"}


def _skip_sklearn_machinery(app, what, name, obj, skip, options):
    """Leave scikit-learn's own methods (metadata routing, ``set_*_request``) to its documentation."""
    if what == "class" and (getattr(obj, "__module__", None) or "").startswith("sklearn"):
        return True
    if name.startswith("set_") and name.endswith("_request"):
        return True
    return None


def setup(app):
    app.connect("autodoc-skip-member", _skip_sklearn_machinery)
