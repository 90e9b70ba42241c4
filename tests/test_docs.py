"""The documentation site: built with warnings as errors, complete, linked, and readable in a browser.

The site is built once per module run, as CI and ``../shared/acceptance/docs`` build it
(``python -m sphinx -W --keep-going -b html docs OUT``), into a temporary folder: the API
reference is generated from the docstrings and the gallery scripts of ``examples/`` are executed
(they load USPST from the offline mirror). Then

* every public function, result class and estimator has its reference page;
* every gallery example ran and produced a figure;
* every internal link and reference of the built HTML resolves (a link check without network:
  relative ``href`` / ``src`` targets exist, and so do their ``#fragment`` anchors);
* headless Chromium, as a reader would, opens ``index.html`` and the ``lapsvm`` reference page and
  shows their title, the parameter table and figures (skipped, saying why, only where no
  Chromium is installed; CI installs Debian's ``chromium``).

The docs extra must be installed (``pip install -e ".[test,docs]"``, the README's test command);
without it the build fails with a message saying so, never a silent skip.
"""
from __future__ import annotations

import html.parser
import importlib
import importlib.util
import inspect
import os
import runpy
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
EXAMPLES = ROOT / "examples"
DOCUMENTED_MODULES = ["data", "kernels", "graphs", "rls", "transductive", "manifold", "early_stopping", "training",
                      "paths", "selection", "estimators", "stats", "reports"]
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


# ------------------------------------------------------------------------------------ the build
@pytest.fixture(scope="module")
def site(tmp_path_factory, mirror_dir) -> Path:
    """Build the site once; return the folder holding ``index.html``."""
    missing = [name for name in ("sphinx", "numpydoc", "sphinx_gallery", "pydata_sphinx_theme", "myst_parser",
                                 "sphinx-mathjax-offline")
               if importlib.util.find_spec(name) is None]
    if missing:
        pytest.fail(f"the docs extra is not installed (missing {', '.join(missing)}): "
                    "pip install -e \".[test,docs]\"")
    out = tmp_path_factory.mktemp("docs")
    env = {**os.environ, "TOOLKIT_DATA_MIRROR": str(mirror_dir), "MPLBACKEND": "Agg"}
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", "-d", str(out / "doctrees"),
         str(DOCS), str(out / "html")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, f"sphinx -W failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-6000:]}"
    return out / "html"


class _Page(html.parser.HTMLParser):
    """The links, images, ids, title and text of one HTML page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links, self.images, self.ids, self.title, self.text = [], [], set(), "", []
        self._in_title = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("name"):
            self.ids.add(attrs["name"])
        for key in ("href", "src"):
            if attrs.get(key):
                self.links.append(attrs[key])
        if tag == "img" and attrs.get("src"):
            self.images.append(attrs["src"])
        self._in_title = tag == "title"

    def handle_endtag(self, tag):
        if tag == "title":
            self._in_title = False

    def handle_data(self, data):
        if self._in_title:
            self.title += data
        self.text.append(data)


def _parse(text: str) -> _Page:
    page = _Page()
    page.feed(text)
    return page


def _public_objects():
    """(module, name) of every public function and class the reference must document."""
    import toolkit

    for module_name in DOCUMENTED_MODULES:
        module = importlib.import_module(f"toolkit.{module_name}")
        for name in module.__all__:
            obj = getattr(module, name)
            if not (inspect.isclass(obj) or inspect.isfunction(obj)):
                continue                        # constants and submodules
            if getattr(obj, "__module__", "") == "toolkit._contract":
                continue                        # re-exports of the contract, documented at the top
            yield f"toolkit.{module_name}", name
    for name, module_name in toolkit._EXPORTS.items():
        if module_name == "toolkit._contract":
            yield "toolkit", name


# ------------------------------------------------------------------------------------ the tests
def test_every_public_function_result_and_estimator_has_a_reference_page(site):
    missing = [f"{module}.{name}" for module, name in _public_objects()
               if not (site / "generated" / f"{module}.{name}.html").is_file()]
    assert not missing, f"no reference page for {missing}: add them to docs/api.rst"
    for module, name in [("toolkit.manifold", "lapsvm"), ("toolkit.rls", "s2rlsc"), ("toolkit.paths", "svm_path"),
                         ("toolkit.selection", "select"), ("toolkit.estimators", "LapSVM")]:
        page = _parse((site / "generated" / f"{module}.{name}.html").read_text(encoding="utf-8"))
        assert f"{module}.{name}" in page.title
        assert "Parameters" in page.text, f"{module}.{name}: no parameter table"


def test_the_user_guide_has_a_page_per_family(site):
    guide = site / "user_guide"
    for page in ["data", "kernels_graphs", "s2rlsc_mmc", "tsvm", "lapsvm", "paths", "selection", "statistics",
                 "reproducing", "scaling", "estimators"]:
        text = (guide / f"{page}.html").read_text(encoding="utf-8")
        assert 'class="math' in text, f"user_guide/{page}: no formula"
    scorecard = (guide / "reproducing.html").read_text(encoding="utf-8")
    assert "scored cells hold" in scorecard                      # reports/reproduction.md is included


def test_every_gallery_example_ran_and_drew_a_figure(site):
    scripts = sorted(EXAMPLES.glob("plot_*.py"))
    assert {p.stem for p in scripts} >= {"plot_two_moons", "plot_regularization_path", "plot_early_stopping",
                                         "plot_critical_difference"}
    for script in scripts:
        page = _parse((site / "auto_examples" / f"{script.stem}.html").read_text(encoding="utf-8"))
        figures = [src for src in page.images if f"sphx_glr_{script.stem}_0" in src]
        assert figures, f"{script.name} drew no figure"
        for src in figures:
            assert (site / "auto_examples" / src).resolve().stat().st_size > 5000


def test_internal_links_resolve(site):
    """A link check that needs no network: every relative href / src and its #fragment exists."""
    pages = {path: _parse(path.read_text(encoding="utf-8")) for path in site.rglob("*.html")
             if "_static" not in path.relative_to(site).parts}      # the theme ships Jinja macros there
    assert len(pages) > 100
    broken = []
    for path, page in pages.items():
        for link in page.links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith(("mailto:", "javascript:", "data:")):
                continue                        # external addresses are not checked offline
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{path.relative_to(site)}: {link}")
                continue
            fragment = unquote(parts.fragment)
            if fragment and target.suffix == ".html":
                ids = pages[target].ids if target in pages else set()
                if fragment not in ids:
                    broken.append(f"{path.relative_to(site)}: {link} (no anchor #{fragment})")
    assert not broken, f"{len(broken)} broken internal links:\n" + "\n".join(broken[:30])


def test_the_readme_command_builds_the_docs_in_ci():
    """CI runs the README's test command, which installs the docs extra, so this module runs in CI."""
    helpers = runpy.run_path(str(ROOT / ".ci" / "readme_commands.py"))
    test_command = helpers["quick_start"]((ROOT / "README.md").read_text(encoding="utf-8"))[1]
    assert "docs" in test_command.split("&&")[0], test_command
    assert "sphinx -b html docs" in (ROOT / "README.md").read_text(encoding="utf-8")   # how to build it locally


# ------------------------------------------------------------------------------ the reader test
def _browser() -> str:
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    pytest.skip(f"no headless browser installed (looked for {', '.join(BROWSERS)} on PATH): "
                "install Debian's chromium (apt-get install chromium) to run the reader test")


def _chromium(browser: str, profile: Path, *args: str) -> subprocess.CompletedProcess:
    command = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
               "--no-first-run", "--hide-scrollbars", f"--user-data-dir={profile}", "--virtual-time-budget=10000",
               *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=180)


@pytest.mark.parametrize("page, title, parameters", [
    ("index.html", "ssl-toolkit", None),
    ("generated/toolkit.manifold.lapsvm.html", "toolkit.manifold.lapsvm", ["X_labeled", "gamma_I", "stop"]),
])
def test_a_reader_sees_the_title_parameters_and_figures_in_chromium(site, tmp_path, page, title, parameters):
    browser = _browser()
    url = (site / page).as_uri()
    dom = _chromium(browser, tmp_path / "profile", "--dump-dom", url)
    assert dom.returncode == 0 and "<html" in dom.stdout, dom.stderr[-3000:]
    rendered = _parse(dom.stdout)
    assert title in rendered.title
    text = " ".join(rendered.text)
    assert "ssl-toolkit" in text
    if parameters:                              # numpydoc's parameter table, and the objective typeset
        assert '<dt class="field-odd">Parameters' in dom.stdout
        assert "<mjx-container" in dom.stdout, "MathJax did not typeset the formula (it is served locally)"
        for name in parameters:
            assert name in text
    figures = [src for src in rendered.images if src.endswith(".png") and "sphx_glr_" in src]
    assert figures, f"{page}: no figure in the rendered page"
    for src in figures:
        image = (site / page).parent / unquote(urlsplit(src).path)
        assert image.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", src
    shot = tmp_path / "page.png"
    proc = _chromium(browser, tmp_path / "profile", f"--screenshot={shot}", "--window-size=1280,1600", url)
    assert proc.returncode == 0 and shot.stat().st_size > 20_000, proc.stderr[-3000:]
