"""Write the small intersphinx inventories the documentation links against, without a network.

The build machine (and CI) is offline, so ``conf.py`` reads these files instead of fetching each
project's ``objects.inv``. They are generated from the *installed* packages: every public name of
the modules listed below, with the address that project's documentation gives it (NumPy, SciPy,
scikit-learn and pandas put one page per object under ``generated/``; matplotlib under
``api/_as_gen/``; Python's builtins and the few standard-library names our docstrings mention are
listed by hand). Only what our docstrings and examples can refer to is included, so each file is a
few kilobytes. Regenerate after a dependency upgrade adds names we use::

    python docs/_inventories/make_inventories.py
"""
from __future__ import annotations

import importlib
import inspect
import zlib
from pathlib import Path

import numpy

HERE = Path(__file__).resolve().parent

# module -> page-per-object prefix, relative to the project's documentation root
PROJECTS = {
    "numpy": ("NumPy", "reference/generated/{name}.html#{name}",
              ["numpy", "numpy.linalg", "numpy.random"]),
    "scipy": ("SciPy", "reference/generated/{name}.html#{name}",
              ["scipy.linalg", "scipy.sparse", "scipy.sparse.linalg", "scipy.sparse.csgraph", "scipy.stats",
               "scipy.optimize", "scipy.spatial.distance"]),
    "sklearn": ("scikit-learn", "modules/generated/{name}.html#{name}",
                ["sklearn.base", "sklearn.model_selection", "sklearn.svm", "sklearn.neighbors",
                 "sklearn.pipeline", "sklearn.preprocessing", "sklearn.kernel_ridge", "sklearn.metrics",
                 "sklearn.exceptions", "sklearn.semi_supervised", "sklearn.datasets", "sklearn.utils",
                 "sklearn.cluster", "sklearn.linear_model"]),
    "pandas": ("pandas", "reference/api/{name}.html#{name}", ["pandas"]),
    "matplotlib": ("Matplotlib", "api/_as_gen/{name}.html#{name}",
                   ["matplotlib.pyplot", "matplotlib.figure", "matplotlib.axes"]),
}

# modules whose own page is named after the module, as their documentation does
MODULE_PAGES = {
    "numpy": {"numpy": "reference/index.html", "numpy.random": "reference/random/index.html",
              "numpy.linalg": "reference/routines.linalg.html"},
    "scipy": {m: f"reference/{m[len('scipy.'):]}.html" for m in PROJECTS["scipy"][2]},
    "sklearn": {m: f"api/{m}.html" for m in PROJECTS["sklearn"][2]},
    "pandas": {"pandas": "reference/index.html"},
    "matplotlib": {"matplotlib.pyplot": "api/pyplot_summary.html", "matplotlib.figure": "api/figure_api.html",
                   "matplotlib.axes": "api/axes_api.html"},
}

# objects documented on a shared page rather than one of their own
# labels and data numpydoc's default aliases point at ("scalar", "np.inf")
EXTRA = {
    "numpy": {("arrays.scalars", "std:label"): "reference/arrays.scalars.html#arrays-scalars",
              ("numpy.inf", "py:data"): "reference/constants.html#numpy.inf",
              ("numpy.nan", "py:data"): "reference/constants.html#numpy.nan"},
}

OVERRIDES = {
    "numpy": {"numpy.random.default_rng": "reference/random/generator.html#numpy.random.default_rng",
              "numpy.random.Generator": "reference/random/generator.html#numpy.random.Generator"},
}

# NumPy / scikit-learn glossary terms used in numpydoc type descriptions
TERMS = {
    "numpy": {"array_like": "glossary.html#term-array_like"},
    "sklearn": {"estimator": "glossary.html#term-estimator", "random_state": "glossary.html#term-random_state",
                "cross-validation generator": "glossary.html#term-cross-validation-generator"},
}

# Python: builtins and the standard-library names the toolkit's docstrings mention
PYTHON = {
    "py:class": {
        **{n: "library/functions.html#" + n for n in ("int", "float", "bool", "object", "type", "complex",
                                                        "bytes", "range", "slice", "memoryview")},
        **{n: "library/stdtypes.html#" + n for n in ("str", "dict", "list", "tuple", "set", "frozenset")},
        "pathlib.Path": "library/pathlib.html#pathlib.Path",
        "numbers.Real": "library/numbers.html#numbers.Real",
        "numbers.Integral": "library/numbers.html#numbers.Integral",
        "collections.abc.Mapping": "library/collections.abc.html#collections.abc.Mapping",
        "collections.abc.Sequence": "library/collections.abc.html#collections.abc.Sequence",
        "collections.abc.Callable": "library/collections.abc.html#collections.abc.Callable",
        "collections.abc.Iterable": "library/collections.abc.html#collections.abc.Iterable",
        "typing.Any": "library/typing.html#typing.Any",
        "types.MappingProxyType": "library/types.html#types.MappingProxyType",
        "concurrent.futures.Executor": "library/concurrent.futures.html#concurrent.futures.Executor",
    },
    "py:exception": {n: "library/exceptions.html#" + n for n in (
        "Exception", "ValueError", "TypeError", "KeyError", "IndexError", "RuntimeError", "RuntimeWarning",
        "UserWarning", "Warning", "StopIteration", "FileNotFoundError", "OSError", "KeyboardInterrupt",
        "NotImplementedError", "DeprecationWarning")},
    "py:data": {"None": "library/constants.html#None", "True": "library/constants.html#True",
                "False": "library/constants.html#False"},
    "py:function": {n: "library/functions.html#" + n for n in ("callable", "len", "print", "isinstance", "repr")}
    | {"dataclasses.replace": "library/dataclasses.html#dataclasses.replace",
       "dataclasses.dataclass": "library/dataclasses.html#dataclasses.dataclass",
       "contextlib.contextmanager": "library/contextlib.html#contextlib.contextmanager",
       "collections.namedtuple": "library/collections.html#collections.namedtuple",
       "pickle.dumps": "library/pickle.html#pickle.dumps", "warnings.warn": "library/warnings.html#warnings.warn"},
    # the targets of numpydoc's default type aliases (bool, sequence, iterable, ...)
    "std:label": {"bltin-boolean-values": "library/stdtypes.html#bltin-boolean-values"},
    "std:term": {n: "glossary.html#term-" + n.replace(" ", "-") for n in (
        "sequence", "iterable", "generator", "mapping", "hashable", "file object", "path-like object")},
    "py:module": {n: f"library/{n}.html#module-{n}" for n in (
        "dataclasses", "pathlib", "pickle", "warnings", "concurrent.futures", "numbers", "typing", "functools")},
}


def _role(obj) -> str | None:
    if inspect.isclass(obj):
        return "py:exception" if issubclass(obj, BaseException) else "py:class"
    if callable(obj):
        return "py:function"
    return None


def _public_objects(module_name):
    module = importlib.import_module(module_name)
    declared = getattr(module, "__all__", None)
    names = declared or [n for n in dir(module) if not n.startswith("_")]
    for name in sorted(set(names)):
        try:
            obj = getattr(module, name, None)
        except ImportError:                     # scikit-learn's experimental names refuse plain access
            continue
        role = _role(obj)
        if role is None or inspect.ismodule(obj):
            continue
        if declared is None and not getattr(obj, "__module__", "").startswith(module_name):
            continue                            # imported from elsewhere, documented there
        yield f"{module_name}.{name}", role, obj


def _write(path: Path, project: str, version: str, entries: dict[tuple[str, str], str]) -> None:
    lines = []
    for (name, role), uri in sorted(entries.items()):
        # "$" at the end of a URI stands for the object's name (the inventory format's shorthand)
        if uri.endswith("#" + name):
            uri = uri[: -len(name)] + "$"
        lines.append(f"{name} {role} 1 {uri} -")
    header = (f"# Sphinx inventory version 2\n# Project: {project}\n# Version: {version}\n"
              "# The remainder of this file is compressed using zlib.\n")
    path.write_bytes(header.encode() + zlib.compress(("\n".join(lines) + "\n").encode()))


def main() -> None:
    for key, (project, pattern, modules) in PROJECTS.items():
        version = importlib.import_module(key).__version__
        entries = {}
        for module_name in modules:
            for name, role, obj in _public_objects(module_name):
                entries[(name, role)] = pattern.format(name=name)
                if key == "numpy" and inspect.isclass(obj) and issubclass(obj, numpy.generic):
                    entries[(name, role)] = f"reference/arrays.scalars.html#{name}"   # float64 & co.
                # the short alias a docstring writes: numpy.ndarray for numpy's own names,
                # pandas.DataFrame for pandas.core.frame.DataFrame, and so on
                canonical = f"{getattr(obj, '__module__', '')}.{getattr(obj, '__qualname__', '')}"
                if canonical != name and canonical.startswith(key) and "<" not in canonical:
                    entries.setdefault((canonical, role), pattern.format(name=name))
                if role == "py:class":                       # methods of classes people call on results
                    for meth, value in vars(obj).items():
                        if not meth.startswith("_") and inspect.isfunction(value):
                            entries[(f"{name}.{meth}", "py:method")] = pattern.format(name=f"{name}.{meth}")
        for module_name, page in MODULE_PAGES.get(key, {}).items():
            entries[(module_name, "py:module")] = f"{page}#module-{module_name}"
        for name, uri in OVERRIDES.get(key, {}).items():
            entries.update({(n, r): uri for (n, r) in entries if n == name})
        entries.update(EXTRA.get(key, {}))
        for term, uri in TERMS.get(key, {}).items():
            entries[(term, "std:term")] = uri
        _write(HERE / f"{key}-objects.inv", project, version, entries)
    python = {(name, role): uri for role, names in PYTHON.items() for name, uri in names.items()}
    _write(HERE / "python-objects.inv", "Python", "3", python)


if __name__ == "__main__":
    main()
