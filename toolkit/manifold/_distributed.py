"""The low-rank LapSVM / LapRLSC operator in row blocks held by Dask workers.

The low-rank model (:mod:`toolkit.manifold._lowrank`) touches the ``n`` training points through
its features ``Φ = [1, K(X, Z) T]`` (n × (r+1)) only three times: to form
``G = γ_I Φᵀ L Φ + diag(0, γ_A I)`` once, to read the ``l`` labelled rows ``Φ_L`` once, and to
compute the decisions on U, ``Φ_U θ``, at each early-stopping check. Everything else is
``(r+1) × (r+1)``. Here ``Φ`` is a :class:`dask.array.Array` of row blocks computed and persisted by
the workers (each from its scattered rows of ``X``, the basis ``Z`` and the map ``T``), so that:

* memory: a worker holds its rows of ``X`` and of ``Φ`` (``8 n (r + 1 + d) / workers`` bytes in
  float64); the client holds ``X`` (it builds the kNN graph), ``L`` (about ``2 k n`` non-zeros),
  ``Φ_L`` and ``G``;
* time: the kernel rows ``O(n r d)`` and the Gram ``O(nnz(L) r + n r²)`` split across the workers;
  ``G`` is summed from one ``(r+1) × (r+1)`` matrix per row block
  ``Φ_Bᵀ Σ_C L_{BC} Φ_C`` (the blocks ``C`` that the rows of ``B`` reach through the graph:
  those ``Φ_C`` travel between workers); a rule check moves ``r + 1`` numbers out per column and
  ``n`` decisions back.

The rows are first put in reverse Cuthill-McKee order of the graph
(:func:`scipy.sparse.csgraph.reverse_cuthill_mckee`): neighbours then sit in the same or an
adjacent block, so a block's Gram share reaches one or two other blocks instead of all of them
(two moons, n = 200 000, 20 neighbours, 4 blocks: each block reaches 2-3 blocks, itself included,
against all four in the data's order).

The numbers equal the single-process ones (:func:`toolkit.training.reduced_system`) up to
the summation order of ``Φᵀ L Φ``.
"""
from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import reverse_cuthill_mckee

from toolkit.kernels import kernel_matrix
from toolkit.training import nystrom_map

__all__ = ["RowBlockFeatures", "reduced_system", "MIN_BLOCK_ROWS"]

#: Row blocks hold at least this many rows (smaller ones cost more in task overhead than they save).
MIN_BLOCK_ROWS = 1024


def _features_block(X_block, Z, T, kernel, sigma, kernel_degree, coef0, dtype):
    """``[1, K(X_B, Z) T]`` for one row block (runs on a worker)."""
    block = np.empty((X_block.shape[0], T.shape[1] + 1), dtype=dtype)
    block[:, 0] = 1.0
    block[:, 1:] = kernel_matrix(X_block, Z, kernel=kernel, sigma=sigma, kernel_degree=kernel_degree,
                                 coef0=coef0) @ T
    return block


def _graph_block(Phi_B, L_B, offsets, *Phi_C):
    """``Φ_Bᵀ Σ_C L_{B,C} Φ_C`` in float64 for the row block ``B`` (runs on a worker).

    ``L_B``: the rows of ``B`` restricted to the columns of the blocks ``C`` passed, which follow
    each other in ``L_B``'s columns at ``offsets``.
    """
    LPhi = np.zeros((L_B.shape[0], Phi_B.shape[1]))
    for (start, stop), block in zip(zip(offsets[:-1], offsets[1:]), Phi_C):
        LPhi += L_B[:, start:stop] @ np.asarray(block, dtype=np.float64)
    return np.asarray(Phi_B, dtype=np.float64).T @ LPhi


def _decisions_block(Phi_B, theta):
    return np.asarray(Phi_B @ theta, dtype=np.float64)


def _take_rows(Phi_B, rows):
    return np.asarray(Phi_B[rows])


class RowBlockFeatures:
    """``Φ`` as a persisted :class:`dask.array.Array` of row blocks on a cluster, with ``G`` and ``T``.

    Attributes
    ----------
    array : dask.array.Array of shape (n, r + 1)
        The features, row-chunked; its blocks live on the workers.
    G : ndarray of shape (r + 1, r + 1)
        ``γ_I Φᵀ L Φ + diag(0, γ_A I)``.
    T : ndarray of shape (r, k)
        The Nyström map of the basis (:func:`toolkit.training.nystrom_map`).
    n_blocks, n_workers : int
    """

    def __init__(self, client, array, futures, bounds, order, G, T):
        self.client, self.array, self._futures, self.bounds = client, array, futures, bounds
        self.order = order                              # block row i holds training row order[i]
        self.position = np.empty_like(order)
        self.position[order] = np.arange(order.size)    # training row j sits at block row position[j]
        self.G, self.T = G, T
        self.n_blocks = len(futures)
        self.n_workers = len(client.scheduler_info().get("workers", {}))

    @property
    def shape(self):
        return self.array.shape

    def rows(self, start, stop):
        """``Φ[start:stop]`` (training rows) gathered to the client; only those rows move."""
        where = self.position[start:stop]
        block = np.searchsorted(self.bounds, where, side="right") - 1
        parts = self.client.gather([self.client.submit(_take_rows, self._futures[B],
                                                       where[block == B] - self.bounds[B], pure=False)
                                    for B in np.unique(block)])
        out = np.empty((where.size, self.shape[1]), dtype=parts[0].dtype)
        for B, part in zip(np.unique(block), parts):
            out[block == B] = part
        return out

    def decisions(self, theta, start=0):
        """``Φ[start:] θ`` (training rows from ``start``) computed block by block on the workers
        (``θ`` of shape (r+1,) or (r+1, C))."""
        theta = np.array(theta, dtype=np.float64)         # (r + 1) × C numbers travel with each task
        parts = self.client.gather([self.client.submit(_decisions_block, f, theta, pure=False)
                                    for f in self._futures])
        return np.concatenate(parts, axis=0)[self.position[start:]]

    def release(self):
        """Drop the blocks from the workers' memory."""
        self.client.cancel(self._futures)
        self._futures, self.array = [], None


def reduced_system(client, X, Z, L, gamma_A, gamma_I, *, kernel, sigma, kernel_degree, coef0, dtype,
                   block_rows=None):
    """:func:`toolkit.training.reduced_system` with ``Φ`` in row blocks on ``client``'s workers.

    Parameters
    ----------
    client : distributed.Client
    X : ndarray or sparse matrix of shape (n, d)
        The training points (labelled first).
    Z : ndarray or sparse matrix of shape (r, d)
        The basis points.
    L : sparse matrix of shape (n, n)
        ``L^p`` as a sparse matrix (a matrix-free power is refused: its blocks are not local).
    block_rows : int, default=None
        Rows per block; ``None``: ``n / (2 × workers)``, at least :data:`MIN_BLOCK_ROWS`.

    Returns
    -------
    RowBlockFeatures
    """
    import dask.array as da

    if not sp.issparse(L):
        raise ValueError("With a 'scheduler', the graph Laplacian must be a sparse matrix (its row blocks go to the "
                         "workers); this L^p is a matrix-free operator because its power fills in. Use a smaller "
                         "'degree', or pass laplacian_matrix as a sparse matrix.")
    L = sp.csr_matrix(L, dtype=np.float64)
    n = X.shape[0]
    n_workers = max(1, len(client.scheduler_info().get("workers", {})))
    if block_rows is None:
        block_rows = max(MIN_BLOCK_ROWS, math.ceil(n / (2 * n_workers)))
    bounds = np.r_[np.arange(0, n, block_rows), n]
    order = (reverse_cuthill_mckee(L, symmetric_mode=True).astype(np.intp) if len(bounds) > 2
             else np.arange(n))
    X, L = X[order], L[order][:, order]
    T = nystrom_map(kernel_matrix(Z, kernel=kernel, sigma=sigma, kernel_degree=kernel_degree, coef0=coef0))
    k1 = T.shape[1] + 1
    Z_future, T_future = client.scatter([Z, T], broadcast=True, hash=False)
    X_blocks = client.scatter([X[a:b] for a, b in zip(bounds[:-1], bounds[1:])], hash=False)
    futures = [client.submit(_features_block, xb, Z_future, T_future, kernel, sigma, kernel_degree, coef0, dtype,
                             pure=False) for xb in X_blocks]
    array = da.concatenate([da.from_delayed(f, shape=(b - a, k1), dtype=dtype)
                            for f, a, b in zip(futures, bounds[:-1], bounds[1:])], axis=0)
    # G: one task per row block B, with the blocks C its rows reach through L
    slabs, reach = [], []
    for a, b in zip(bounds[:-1], bounds[1:]):
        L_B = L[a:b]
        reached = np.unique(np.searchsorted(bounds, L_B.indices, side="right") - 1)
        columns = np.concatenate([np.arange(bounds[C], bounds[C + 1]) for C in reached])
        slabs.append(L_B[:, columns])
        reach.append(reached)
    slab_futures = client.scatter(slabs, hash=False)       # sent once, not inside the task graph
    parts = [client.submit(_graph_block, futures[B], slab_futures[B],
                           np.r_[0, np.cumsum([bounds[C + 1] - bounds[C] for C in reached])],
                           *[futures[C] for C in reached], pure=False)
             for B, reached in enumerate(reach)]
    G = np.zeros((k1, k1))
    for part in client.gather(parts):
        G += part
    G *= gamma_I
    G = 0.5 * (G + G.T)
    G[np.arange(1, k1), np.arange(1, k1)] += gamma_A
    return RowBlockFeatures(client, array, futures, bounds, order, G, T)
