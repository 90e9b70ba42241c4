"""What one model selection computes once and shares across its grid: kernels and graphs.

* :class:`CachedKernel` -- a kernel callable remembering its last matrices (one kernel matrix per
  kernel setting and fold);
* :class:`GraphCache` -- the graph Laplacians ``L^p`` of one selection (one per fold and graph
  setting), owned by that selection.
"""
from __future__ import annotations

import hashlib
import weakref
from collections import OrderedDict
from typing import Any, Mapping

import numpy as np

__all__ = ["CachedKernel", "GraphCache", "kernel_for"]


_DIGESTS: dict[int, tuple] = {}     # id of a frozen array -> (weak reference, digest)


def _frozen(A) -> bool:
    """Whether ``A`` is a dense array that nothing can write to: it and every array it views are
    read-only (a read-only view of a writeable array is not frozen)."""
    while isinstance(A, np.ndarray):
        if A.flags.writeable:
            return False
        A = A.base
    return A is None


def _digest(A) -> str:
    """A hash of ``A``'s bytes, shape and dtype (about a millisecond per megabyte); remembered for a
    frozen array (see :func:`_frozen`), whose bytes cannot change while it lives."""
    import scipy.sparse as sp

    frozen = _frozen(A)
    if frozen:
        known = _DIGESTS.get(id(A))
        if known is not None and known[0]() is A:
            return known[1]
    h = hashlib.blake2b(digest_size=16)
    if sp.issparse(A):
        A = A.tocsr()
        for part in (A.data, A.indices, A.indptr):
            h.update(np.ascontiguousarray(part).tobytes())
    else:
        A = np.ascontiguousarray(A)
        h.update(A.tobytes())
    h.update(repr((getattr(A, "shape", None), str(getattr(A, "dtype", "")))).encode())
    digest = h.hexdigest()
    if frozen:
        key = id(A)
        _DIGESTS[key] = (weakref.ref(A, lambda _, key=key: _DIGESTS.pop(key, None)), digest)
    return digest


def _lookup(owner, key, build):
    """The least-recently-used cache of ``owner`` (``_cache``, ``maxsize``, ``hits``, ``misses``):
    the value under ``key``, or ``build()`` stored there (the oldest entry evicted past ``maxsize``)."""
    value = owner._cache.get(key)
    if value is None:
        owner.misses += 1
        value = owner._cache[key] = build()
        if len(owner._cache) > owner.maxsize:
            owner._cache.popitem(last=False)
    else:
        owner.hits += 1
        owner._cache.move_to_end(key)
    return value


class CachedKernel:
    """A kernel callable ``k(X, Z)`` that remembers its last matrices, keyed by the data's hash.

    Passed as ``kernel=`` to a solver, it lets every λ of a grid reuse one kernel matrix per
    (kernel, σ): the solvers concatenate and slice their inputs freely, so the key is a hash of
    the bytes of ``X`` and ``Z`` (about a millisecond per megabyte), not their identity; the hash
    of a read-only array (select's training and evaluation points, a solver's stacked training
    points) is computed once. A copy is returned so that a solver may modify its kernel in place.

    Parameters
    ----------
    kernel : {"linear", "rbf", "polynomial"}, default="linear"
    sigma : float, default=None
    kernel_degree : int, default=2
    maxsize : int, default=6
        Matrices kept (least recently used evicted).
    """

    def __init__(self, kernel="linear", *, sigma=None, kernel_degree=2, maxsize=6):
        self.kernel, self.sigma, self.kernel_degree, self.maxsize = kernel, sigma, kernel_degree, maxsize
        self._cache: OrderedDict[tuple, np.ndarray] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def __repr__(self):
        return f"CachedKernel({self.kernel!r}, sigma={self.sigma!r}, kernel_degree={self.kernel_degree!r})"

    def for_solver(self):
        """What to pass as a solver's ``kernel=``: the name ``"linear"`` (solvers exploit the explicit
        feature map, e.g. S²RLSC's low-rank factorisation when d < n, which a callable would hide),
        otherwise this caching callable."""
        return "linear" if self.kernel == "linear" else self

    def __call__(self, X, Z=None):
        from toolkit.kernels import kernel_matrix

        key = (_digest(X), None if Z is None else _digest(Z))
        return _lookup(self, key, lambda: kernel_matrix(X, Z, kernel=self.kernel, sigma=self.sigma,
                                                        kernel_degree=self.kernel_degree)).copy()


class GraphCache:
    """The graph Laplacians ``L^p`` of one :func:`select` call, keyed by the data's hash and the graph
    parameters, so that every (γ_A, γ_I) of a grid reuses one ``L^p`` per fold.

    Owned by the selection that creates it (nothing is shared between two selections); the
    ``maxsize`` most recently used matrices are kept.

    Parameters
    ----------
    maxsize : int, default=4
    """

    def __init__(self, maxsize=4):
        self.maxsize = maxsize
        self._cache: OrderedDict[tuple, Any] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def __repr__(self):
        return f"GraphCache({len(self._cache)} of {self.maxsize} kept, hits={self.hits}, misses={self.misses})"

    def get(self, X, graph, build):
        """The ``L^p`` of points ``X`` under the :class:`~toolkit.specs.Graph` ``graph``: cached, or ``build()`` once."""
        key = (_digest(X), graph)
        return _lookup(self, key, build)


def kernel_for(kparams: Mapping[str, Any], width: float | None) -> CachedKernel:
    """The :class:`CachedKernel` of one kernel setting (``sigma_scale`` times the width heuristic)."""
    kind = kparams.get("kernel", "linear")
    sigma = kparams.get("sigma")
    if "sigma_scale" in kparams and kparams["sigma_scale"] is not None:
        sigma = float(kparams["sigma_scale"]) * float(width)
    return CachedKernel(kind, sigma=sigma, kernel_degree=kparams.get("kernel_degree", 2))

