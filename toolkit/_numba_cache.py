"""Where the compiled code of the toolkit is cached: a per-user folder, never the installed package.

``numba.njit(cache=True)`` writes its index (``*.nbi``) and data (``*.nbc``) files into the
``__pycache__`` folder beside the source file (numba's "in-tree" locator), i.e. into
``site-packages/toolkit/__pycache__`` for an installed toolkit. pip does not know these files:
an uninstall (also the one an ``install`` over an existing install does first) removes the files
it recorded and leaves that folder behind, and Python then imports the leftover folder as an empty
namespace package ``toolkit`` (``cannot import name '__version__' from 'toolkit' (unknown
location)``) when the editable install's finder comes after it on the import path.

Every cached compiled function of the toolkit is therefore decorated with :func:`njit` from this
module, a drop-in for ``numba.njit`` whose ``cache=True`` stores the cache in the folder given by
:func:`cache_dir`:

1. ``NUMBA_CACHE_DIR`` set: numba's own rule, ``$NUMBA_CACHE_DIR/<folder>_<hash of the path>/``.
2. Otherwise the per-user cache folder of the toolkit, the one the data sets use
   (``pooch.os_cache("ssl-toolkit")``: ``$XDG_CACHE_HOME/ssl-toolkit`` or ``~/.cache/ssl-toolkit`` on
   Linux, ``~/Library/Caches/ssl-toolkit`` on macOS, ``%LOCALAPPDATA%\\ssl-toolkit\\ssl-toolkit\\Cache``
   on Windows), in ``numba/<toolkit version>/<folder>_<hash of the source folder's path>/``: one
   folder per toolkit version (delete the old ones at will) and per copy of the sources (an
   editable checkout and an installed copy do not overwrite each other's index). The file names
   carry the Python version (``…py311.nbi``); numba checks the source file's hash, the bytecode and
   the CPU before it uses an entry, so a stale entry is recompiled, never run.
3. If that folder cannot be created or written: a private temporary folder of the process
   (``tempfile.mkdtemp``, removed at exit). The cache then only lasts the process.

Nothing is ever written inside the package. Deleting any of these folders is always safe.
(Numba's own ``NUMBA_CACHE_LOCATOR_CLASSES``, if a user sets it, replaces the list of locators for
every numba function, these included: that explicit choice is honoured.)

Design choice: a decorator that gives each toolkit dispatcher its own cache object
(``dispatcher._cache``, which is what ``Dispatcher.enable_caching`` sets) rather than a locator
inserted at the front of numba's global ``CacheImpl._locator_classes``:

* numba's global state and its behaviour for every other package's functions stay untouched;
* nothing depends on import order (a global locator must be registered before the first toolkit
  function is decorated, and registering it from ``toolkit/__init__`` would import numba on every
  ``import toolkit``, which stays lazy and fast for the command line);
* it uses fewer of numba's internals (the locator base classes, ``CompileResultCacheImpl``,
  ``FunctionCache``, ``Dispatcher._cache``; the global list was renamed from ``_CacheImpl`` to
  ``CacheImpl`` between releases). Should any of these change, :func:`njit` compiles without a
  cache (slower first calls, never a cache in the package); ``tests/test_install_cache.py`` fails
  in that case.
"""
from __future__ import annotations

import atexit
import functools
import os
import shutil
import tempfile

import numba

__all__ = ["njit", "cache_dir"]

#: The folder of the toolkit's sources: no cache file may be written below it.
PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def _inside_package(path: str) -> bool:
    try:
        return os.path.commonpath([os.path.abspath(path), PACKAGE_DIR]) == PACKAGE_DIR
    except ValueError:                     # another drive (Windows)
        return False


def _writable_folder(path: str) -> bool:
    try:
        os.makedirs(path, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()
    except OSError:
        return False
    return True


@functools.cache
def cache_dir() -> str:
    """The folder of the toolkit's compiled-code cache when ``NUMBA_CACHE_DIR`` is not set.

    ``<pooch.os_cache("ssl-toolkit")>/numba/<toolkit version>``, or a private temporary folder of
    the process when that one cannot be created or written (see the module docstring).
    """
    import pooch

    from toolkit import __version__
    folder = os.path.join(os.path.expanduser(pooch.os_cache("ssl-toolkit")), "numba", __version__)
    if not _inside_package(folder) and _writable_folder(folder):
        return folder
    folder = tempfile.mkdtemp(prefix="ssl-toolkit-numba-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


try:
    from numba.core import caching as _caching

    class _UserCacheLocator(_caching._SourceFileBackedLocatorMixin, _caching._CacheLocator):
        """Numba's user-wide locator, in :func:`cache_dir`, for the toolkit's own source files only."""

        def __init__(self, py_func, py_file):
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            self._cache_path = os.path.join(cache_dir(), self.get_suitable_cache_subpath(py_file))

        def get_cache_path(self):
            return self._cache_path

        @classmethod
        def from_function(cls, py_func, py_file):
            if not _inside_package(py_file):
                return None
            return super().from_function(py_func, py_file)     # None if the folder is not writable

    class _ToolkitCacheImpl(_caching.CompileResultCacheImpl):
        # NUMBA_CACHE_DIR first (numba's locator returns None when it is unset), then the user folder;
        # no in-tree locator. No locator found: CacheImpl raises RuntimeError, njit then caches nothing.
        _locator_classes = [getattr(_caching, "UserProvidedCacheLocator", None)
                            or getattr(_caching, "_UserProvidedCacheLocator"), _UserCacheLocator]

    class _ToolkitFunctionCache(_caching.FunctionCache):
        _impl_class = _ToolkitCacheImpl

except (ImportError, AttributeError):      # numba's caching internals moved: compile without a cache
    _ToolkitFunctionCache = None


def _enable_cache(dispatcher):
    """Give ``dispatcher`` an on-disk cache outside the package (what ``enable_caching`` does in-tree)."""
    py_func = getattr(dispatcher, "py_func", None)
    if _ToolkitFunctionCache is None or py_func is None or not hasattr(dispatcher, "_cache"):
        return dispatcher                  # NUMBA_DISABLE_JIT (a plain function) or unknown internals
    try:
        dispatcher._cache = _ToolkitFunctionCache(py_func)
    except (RuntimeError, OSError):        # no usable cache folder: compile on every first call
        pass
    return dispatcher


def njit(function=None, /, *, cache=False, **options):
    """``numba.njit`` whose ``cache=True`` caches in :func:`cache_dir`, never beside the source.

    Use as ``@njit``, ``@njit(cache=True)`` or ``@njit(cache=True, fastmath=...)``; every other
    keyword goes to ``numba.njit`` unchanged.
    """
    def decorate(py_func):
        dispatcher = numba.njit(**options)(py_func)
        return _enable_cache(dispatcher) if cache else dispatcher

    return decorate if function is None else decorate(function)
