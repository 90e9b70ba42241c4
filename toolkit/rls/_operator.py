"""The fitness operator ``M = λ D (D K D + λ I)⁻¹ D`` of S²RLSC, dense or low rank.

For a fixed labelling ``y`` the inner problem of eq. (7) / (10),
``J(c, y) = ‖D y − D K c‖² + λ cᵀ K c``, is minimised by ``c* = D (D K D + λ I)⁻¹ D y``
(eq. 9 / 12) and its value is ``F(y) = yᵀ M y`` (eq. 10 / 13).  With ``D K D = U diag(s) Uᵀ``
(``eigh``, never ``inv``):

* dense (Theorem 1):  ``M = λ (D U) diag(1 / (s + λ)) (D U)ᵀ``;
* low rank, ``D K D = B Bᵀ`` with ``B = D Φ`` of shape (n, r) (Nyström features, Theorem 2 and
  Appendix 1 of the 2012 article; or the features of a linear kernel): with ``BᵀB = W diag(s) Wᵀ``
  (an r × r ``eigh``), ``M = diag(d²) − V Vᵀ`` where ``V = D B W diag((s + λ)^(−1/2))``.
  This is eq. (13) restricted to the r non-zero eigenvalues: ``F = yᵀD²y − ‖Vᵀ y‖²``.

Then ``c* = M y / λ``.  Private module; inputs are trusted.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg as la

_EMPTY = np.zeros((1, 1))


@dataclass(frozen=True, eq=False)
class FlipOperator:
    """``M`` in one of two forms, with its diagonal ``M_jj`` and ``d² = diag(D)²``."""

    lowrank: bool
    d2: np.ndarray          # (n,)
    diag: np.ndarray        # (n,)  M_jj
    M: np.ndarray           # (n, n) when dense, placeholder otherwise
    V: np.ndarray           # (n, r) when low rank, placeholder otherwise
    lam: float

    @property
    def n(self):
        return self.d2.shape[0]

    @property
    def rank(self):
        return self.V.shape[1] if self.lowrank else self.n

    def matvec(self, y):
        """``M y``."""
        if self.lowrank:
            return self.d2 * y - self.V @ (self.V.T @ y)
        return self.M @ y

    def state(self, y):
        """Search state of ``y``: ``m = M y`` (dense) or ``w = Vᵀ y`` (low rank)."""
        if self.lowrank:
            return np.ascontiguousarray(self.V.T @ y)
        return self.M @ y

    def objective(self, y):
        """``F(y) = yᵀ M y`` computed from scratch."""
        return float(y @ self.matvec(y))

    def objective_from_state(self, y, state):
        """``F(y)`` from the search state: ``yᵀ m`` (dense, O(n)) or ``yᵀD²y − ‖w‖²`` (low rank, O(n))."""
        if self.lowrank:
            return float(self.d2 @ (y * y) - state @ state)
        return float(y @ state)

    def coefficients(self, y):
        """``c* = D (D K D + λ I)⁻¹ D y = M y / λ`` (eq. 9 / 12)."""
        return self.matvec(y) / self.lam

    def densified(self):
        """The same operator with ``M`` stored densely (O(1) flip evaluations)."""
        if not self.lowrank:
            return self
        M = -(self.V @ self.V.T)
        M[np.diag_indices_from(M)] += self.d2
        return FlipOperator(False, self.d2, self.diag, M, _EMPTY, self.lam)


def diagonal_weights(n_labeled, n_unlabeled, lam_u):
    """``diag(D)``: ``sqrt(1/l)`` on labelled rows, ``sqrt(λ'/u)`` on unlabelled rows (eq. 7 / 10)."""
    d = np.empty(n_labeled + n_unlabeled)
    if n_labeled:
        d[:n_labeled] = np.sqrt(1.0 / n_labeled)
    d[n_labeled:] = np.sqrt(lam_u / n_unlabeled)
    return d


def _psd_eigenvalues(s, what):
    """Clip round-off negatives of a PSD spectrum at 0; raise when the matrix is clearly indefinite."""
    scale = max(float(np.max(np.abs(s))), 1.0) if s.size else 1.0
    if s.size and s.min() < -1e-8 * scale:
        raise ValueError(f"The {what} is not positive semi-definite (smallest eigenvalue {s.min():.3g}); "
                         "use a Mercer kernel.")
    return np.maximum(s, 0.0)


def operator_from_kernel(K, d, lam):
    """Dense ``M`` from the full kernel matrix: one ``eigh`` of ``D K D`` (O(n³), O(n²) memory)."""
    Kb = d[:, None] * K * d[None, :]
    Kb = 0.5 * (Kb + Kb.T)
    s, U = la.eigh(Kb, driver="evd", check_finite=False)
    s = _psd_eigenvalues(s, "kernel matrix")
    DU = d[:, None] * U
    M = (DU * (lam / (s + lam))) @ DU.T
    M = 0.5 * (M + M.T)
    return FlipOperator(False, d * d, np.ascontiguousarray(np.diag(M)), M, _EMPTY, lam)


def operator_from_features(Phi, d, lam, *, dense):
    """``M`` from features with ``K = Φ Φᵀ``: one r × r ``eigh`` (O(n r²), O(n r) memory).

    ``dense=True`` then forms ``M`` (n × n) for O(1) flip evaluations; the factorisation is exact
    either way (the linear kernel with fewer features than points, or the Nyström kernel).
    """
    B = d[:, None] * Phi
    s, W = la.eigh(B.T @ B, check_finite=False)
    s = _psd_eigenvalues(s, "feature Gram matrix")
    V = np.ascontiguousarray(d[:, None] * (B @ (W / np.sqrt(s + lam))))
    diag = d * d - np.einsum("ij,ij->i", V, V)
    op = FlipOperator(True, d * d, diag, _EMPTY, V, lam)
    return op.densified() if dense else op


def nystrom_features(K_nR, K_RR, *, rcond=1e-10):
    """Features ``Φ`` (n × k) with ``Φ Φᵀ = K_nR K_RR⁺ K_Rn`` (eq. 15 / 19), and the map ``T``.

    ``K_RR = Q diag(σ) Qᵀ`` (``eigh``); eigenvalues below ``rcond · max σ`` are dropped (pseudo
    inverse, so duplicated or linearly dependent basis points are harmless).  ``T = Q_k σ_k^(−1/2)``
    and ``Φ = K_nR T``; a prediction for new points is ``k(x, R) T Φᵀ c``.
    """
    sig, Q = la.eigh(0.5 * (K_RR + K_RR.T), check_finite=False)
    keep = sig > rcond * max(float(sig.max()), 0.0)
    if not np.any(keep):
        raise ValueError("The Nyström basis kernel matrix K_RR is zero; choose other basis points.")
    T = Q[:, keep] / np.sqrt(sig[keep])
    return K_nR @ T, T
