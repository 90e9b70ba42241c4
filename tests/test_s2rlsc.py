"""S²RLSC and maximum margin clustering (Gieseke et al. 2011, 2012) against independent references.

References used here: the dense O(n³) solve of eq. (7) (``direct_objective``), brute force over
all valid labellings, the naive search that recomputes F for every candidate, supervised RLSC.
"""
from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolkit import kernel_matrix, mmc, rlsc, s2rlsc
from toolkit.specs import Kernel, LocalSearch
from toolkit.rls._operator import (diagonal_weights, nystrom_features, operator_from_features,
                                      operator_from_kernel)
from toolkit.rls._reference import (best_valid_flip_gain, direct_objective, exhaustive_minimum, mmc_naive,
                                    s2rlsc_naive)
from toolkit.rls._search import _select_smallest, evolutionary_search, local_search
from toolkit.rls import ConvergenceWarning


def gaussian2c(n, d, seed, shift=2.5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(np.arange(n) < n // 2, 1, -1)
    X[:, 0] += shift * y
    perm = rng.permutation(n)
    return X[perm], y[perm]


def split(n=60, d=5, l=8, seed=0):
    X, y = gaussian2c(n, d, seed)
    # make sure both classes are labelled
    order = np.r_[np.flatnonzero(y > 0)[: l // 2], np.flatnonzero(y < 0)[: l - l // 2]]
    rest = np.setdiff1d(np.arange(n), order)
    return X[order], y[order], X[rest], y[rest]


# ------------------------------------------------------------------ the O(1) flip update

@given(n=st.integers(3, 14), l_frac=st.floats(0.1, 0.9), lam=st.floats(1e-3, 1e2), lam_u=st.floats(1e-3, 1e2),
       seed=st.integers(0, 2**16), form=st.sampled_from(["kernel", "features", "nystrom-full"]))
def test_flip_delta_equals_direct_recomputation(n, l_frac, lam, lam_u, seed, form):
    rng = np.random.default_rng(seed)
    l = min(max(1, int(l_frac * n)), n - 1)
    X = rng.normal(size=(n, int(rng.integers(1, 6))))
    K = kernel_matrix(X, kernel="rbf", sigma=1.0) if form == "nystrom-full" else X @ X.T
    d = diagonal_weights(l, n - l, lam_u)
    if form == "kernel":
        op = operator_from_kernel(K, d, lam)
    elif form == "features":
        op = operator_from_features(X, d, lam, dense=False)
    else:                                   # Nyström with every point in the basis: r = n is exact
        Phi, _ = nystrom_features(K, K, rcond=1e-13)
        op = operator_from_features(Phi, d, lam, dense=False)
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    F = direct_objective(K, y, l, lam, lam_u)
    scale = 1.0 + lam_u
    assert op.objective(y) == pytest.approx(F, rel=1e-6, abs=1e-9 * scale)
    m = op.matvec(y)
    M_jj = op.diag
    for j in range(l, n):
        z = y.copy()
        z[j] = -z[j]
        delta = -4.0 * y[j] * m[j] + 4.0 * M_jj[j]
        assert delta == pytest.approx(direct_objective(K, z, l, lam, lam_u) - F, abs=1e-7 * scale)
    # accepting a flip: m ← m − 2 y_j M[:, j] equals M ȳ
    j = n - 1
    e = np.zeros(n)
    e[j] = 1.0
    col = op.matvec(e)
    z = y.copy()
    z[j] = -z[j]
    np.testing.assert_allclose(m - 2 * y[j] * col, op.matvec(z), atol=1e-10 * scale)


@given(seed=st.integers(0, 2**16), lowrank=st.booleans(), order=st.booleans())
def test_compiled_search_tracks_F_exactly(seed, lowrank, order):
    rng = np.random.default_rng(seed)
    n, l = 25, 5
    X = rng.normal(size=(n, 3))
    d = diagonal_weights(l, n - l, 0.7)
    op = operator_from_features(X, d, 0.2, dense=not lowrank)
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    n_pos = int((y[l:] > 0).sum())
    hist = np.empty(1001)
    F, sweeps, n_eval, n_flip, conv, n_pos_end = local_search(
        y, op.state(y), op.M, op.V, op.d2, op.diag, op.lowrank, l, n_pos, 0.5, 1.0, 0.0, order, seed, 1000,
        op.objective(y), hist)
    assert conv
    assert F == pytest.approx(direct_objective(X @ X.T, y, l, 0.2, 0.7), abs=1e-10)
    assert n_pos_end == int((y[l:] > 0).sum())
    assert np.all(np.diff(hist[:sweeps + 1]) <= 1e-12)


def test_nystrom_with_all_points_equals_exact():
    Xl, yl, Xu, _ = split(50, 8, 6, seed=3)
    kw = dict(kernel=Kernel("rbf", sigma=3.0), lam=0.1, lam_u=0.5, search=LocalSearch(restarts=4), rng=11)
    exact = s2rlsc(Xl, yl, Xu, **kw)
    nys = s2rlsc(Xl, yl, Xu, n_basis=50, **kw)
    np.testing.assert_array_equal(exact.labels_unlabeled, nys.labels_unlabeled)
    assert nys.objective == pytest.approx(exact.objective, rel=1e-7)
    np.testing.assert_allclose(nys.decision_function(Xu), exact.decision_function(Xu), rtol=1e-5, atol=1e-8)
    assert "Nystrom" in nys.params["operator"]


@given(st.lists(st.integers(0, 6), min_size=1, max_size=40), st.integers(1, 8))
def test_select_smallest_is_a_stable_partial_sort(values, k):
    # the EA's survivor selection: the k smallest keys, ties to the lower index (a parent beats an equal child)
    keys = np.array(values, dtype=float)
    k = min(k, keys.size)
    out = np.empty(k, dtype=np.int64)
    _select_smallest(keys, keys.size, k, out)
    np.testing.assert_array_equal(out, np.argsort(keys, kind="stable")[:k])


@pytest.mark.parametrize("lowrank", [False, True])
@pytest.mark.parametrize("mu, nu", [(5, 25), (3, 2), (1, 1), (6, 40)])
def test_evolutionary_search_keeps_each_labelling_with_its_own_state(lowrank, mu, nu):
    # the population is updated in place through a rank -> row map; a row mixed up with another
    # would leave a state m = M y (or w = V^T y), a fitness or a count that belongs to another labelling
    Xl, yl, Xu, _ = split(70, 6, 8, seed=3)
    X = np.vstack([Xl, Xu])
    d = diagonal_weights(8, 62, 1.0)
    op = operator_from_features(X, d, 0.5, dense=not lowrank)
    n, first = 70, 8
    gen = np.random.default_rng(1)
    Y = np.where(gen.random((mu, n)) < 0.5, 1.0, -1.0)
    Y[:, :first] = np.where(yl > 0, 1.0, -1.0)
    S = np.ascontiguousarray(np.stack([op.state(y) for y in Y]))
    F = np.array([op.objective(y) for y in Y])
    P = (Y[:, first:] > 0).sum(axis=1).astype(np.int64)
    start = F.min()
    history = np.empty(400 + 1)
    gens, n_eval, n_acc, _ = evolutionary_search(Y, S, F, P, op.M, op.V, op.d2, op.diag, lowrank, first, 0.5,
                                                 0.4, 1e-12, nu, 7, 400, 62, history)
    assert n_acc > mu                                                   # the population did change
    assert F[0] < start
    assert np.all(np.diff(F) > -1e-10)           # rows in rank order, best first (a child wins by > tol)
    for i in range(mu):
        np.testing.assert_allclose(S[i], op.state(Y[i]), rtol=1e-9, atol=1e-9)
        assert F[i] == pytest.approx(op.objective(Y[i]), rel=1e-9, abs=1e-12)
        assert P[i] == int((Y[i, first:] > 0).sum())
        np.testing.assert_array_equal(Y[i, :first], np.where(yl > 0, 1.0, -1.0))   # labels never flip
    assert history[gens] == F[0]


@pytest.mark.parametrize("search", ["1+1", "mu+nu"])
def test_low_rank_and_dense_storage_give_the_same_search(search):
    Xl, yl, Xu, _ = split(90, 4, 8, seed=14)
    kw = dict(lam=0.3, lam_u=1.0, search=LocalSearch(search, restarts=3), rng=5)
    dense = s2rlsc(Xl, yl, Xu, **kw)                       # exact, dense M from the 4 features
    low = s2rlsc(Xl, yl, Xu, operator="low-rank", **kw)    # exact, M = diag(d²) − V Vᵀ, r = 4
    np.testing.assert_array_equal(dense.labels_unlabeled, low.labels_unlabeled)
    assert low.objective == pytest.approx(dense.objective, rel=1e-9)
    assert "low rank" in low.params["operator"] and "dense" in dense.params["operator"]
    nys_dense = s2rlsc(Xl, yl, Xu, n_basis=20, operator="dense", **kw)
    nys_low = s2rlsc(Xl, yl, Xu, n_basis=20, **kw)
    np.testing.assert_array_equal(nys_dense.labels_unlabeled, nys_low.labels_unlabeled)
    with pytest.raises(ValueError, match="'operator' parameter of s2rlsc"):
        s2rlsc(Xl, yl, Xu, kernel=Kernel("rbf", sigma=1.0), operator="low-rank")


# ------------------------------------------------------------------ optimality

CONFIGS = [
    dict(),
    dict(search=LocalSearch(order="random", restarts=3)),
    dict(search=LocalSearch("mu+nu", restarts=3)),
    dict(kernel=Kernel("rbf", sigma=2.0)),
    dict(n_basis=15),
    dict(offset=True, lam=0.05),
    dict(init="random", lam_u=5.0),
]


@pytest.mark.parametrize("kw", CONFIGS, ids=["default", "order=random", "search=mu+nu", "kernel=rbf,sigma=2.0", "n_basis=15",
                                              "offset=True,lam=0.05", "init=random,lam_u=5.0"])
def test_result_is_valid_local_optimum_with_exact_objective(kw):
    Xl, yl, Xu, _ = split(70, 6, 8, seed=5)
    params = dict(lam=0.5, lam_u=1.0, balance=0.5, eps=0.1, search=LocalSearch(restarts=3), rng=2)
    params.update(kw)
    res = s2rlsc(Xl, yl, Xu, **params)
    X = np.vstack([Xl, Xu])
    if "n_basis" in kw:
        basis = res.params["basis"]
        C = kernel_matrix(X, X[basis])
        Phi, _ = nystrom_features(C, C[basis])
        K = Phi @ Phi.T
    else:
        kernel = params.get("kernel", Kernel("linear"))
        K = kernel_matrix(X, kernel=kernel.name, sigma=None if kernel.name == "linear" else kernel.sigma)
    if params.get("offset"):
        K = K + 1.0
    y_full = np.r_[yl, res.labels_unlabeled].astype(float)
    gain, F, u = best_valid_flip_gain(K, y_full, len(yl), params["lam"], params["lam_u"], 0.5, 0.1)
    assert res.objective == pytest.approx(F, rel=1e-7)
    assert gain <= 1e-9 * max(1.0, F)
    assert abs(np.mean(res.labels_unlabeled > 0) - 0.5) < 0.1
    assert res.converged and res.status == 0
    assert res.objective == pytest.approx(res.restart_objectives.min())
    assert np.all(np.diff(res.history["objective"]) <= 1e-12)
    assert res.n_flips > 0 and res.n_evaluations >= res.n_flips


def test_mmc_local_optimum_and_clusters():
    X, y = gaussian2c(60, 3, seed=4, shift=4.0)
    res = mmc(X, lam=0.1, search=LocalSearch(restarts=4), rng=0)
    K = X @ X.T
    gain, F, _ = best_valid_flip_gain(K, res.labels.astype(float), 0, 0.1, 1.0, 0.5, 0.1)
    assert res.objective == pytest.approx(F, rel=1e-7)
    assert gain <= 1e-9
    agreement = np.mean(res.labels == y)
    assert max(agreement, 1 - agreement) > 0.95
    np.testing.assert_array_equal(res.predict(X), res.labels)   # training labels are sign(f)
    assert "MMC" in res.summary()


# ------------------------------------------------------------------ brute force and special cases

@pytest.mark.parametrize("seed,u,kernel", [(0, 10, "linear"), (1, 12, "rbf"), (2, 9, "linear")])
def test_best_of_restarts_reaches_global_optimum(seed, u, kernel):
    rng = np.random.default_rng(seed)
    l = 3
    X = rng.normal(size=(l + u, 2))
    y_l = np.array([1.0, -1.0, 1.0])
    sigma = 1.0 if kernel == "rbf" else None
    kw = dict(kernel=Kernel(kernel, sigma=sigma), lam=0.05, lam_u=2.0, balance=0.5, eps=0.25)
    K = kernel_matrix(X, kernel=kernel, sigma=sigma)
    best = exhaustive_minimum(K, y_l, u, kw["lam"], kw["lam_u"], 0.5, 0.25)
    for search in ["1+1", "mu+nu"]:
        res = s2rlsc(X[:l], y_l, X[l:], search=LocalSearch(search, restarts=30), rng=seed, **kw)
        assert res.objective == pytest.approx(best, rel=1e-9), search


def test_mmc_global_optimum_small():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(11, 2))
    K = X @ X.T
    best = exhaustive_minimum(K, np.empty(0), 11, 0.3, 1.0, 0.5, 0.2)
    res = mmc(X, lam=0.3, eps=0.2, search=LocalSearch(restarts=40), rng=0)
    assert res.objective == pytest.approx(best, rel=1e-9)


def test_small_lam_u_gives_supervised_rlsc():
    Xl, yl, Xu, _ = split(40, 4, 10, seed=6)
    sup = rlsc(Xl, yl, lam=0.3)
    semi = s2rlsc(Xl, yl, Xu, lam=0.3, lam_u=1e-10, search=LocalSearch(restarts=2), rng=0)
    np.testing.assert_allclose(semi.coefficients[:10], sup.coefficients, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(semi.coefficients[10:], 0.0, atol=1e-8)
    Xt = np.vstack([Xl, Xu])
    np.testing.assert_allclose(semi.decision_function(Xt), sup.decision_function(Xt), rtol=1e-6, atol=1e-8)


def test_same_seed_same_result_and_naive_agrees():
    Xl, yl, Xu, _ = split(80, 5, 6, seed=8)
    kw = dict(lam=0.2, lam_u=1.0, search=LocalSearch(restarts=4), rng=123)
    a = s2rlsc(Xl, yl, Xu, **kw)
    b = s2rlsc(Xl, yl, Xu, **kw)
    np.testing.assert_array_equal(a.labels_unlabeled, b.labels_unlabeled)
    np.testing.assert_array_equal(a.restart_objectives, b.restart_objectives)
    assert a.seed == 123
    evolutionary = {**kw, "search": LocalSearch("mu+nu", restarts=4)}
    c = s2rlsc(Xl, yl, Xu, **evolutionary)
    e = s2rlsc(Xl, yl, Xu, **evolutionary)
    np.testing.assert_array_equal(c.restart_objectives, e.restart_objectives)
    # the reference engine behind the same body, which takes the flat keywords
    naive = s2rlsc_naive(Xl, yl, Xu, lam=0.2, lam_u=1.0, restarts=4, rng=123)   # F recomputed for every candidate
    np.testing.assert_array_equal(naive.labels_unlabeled, a.labels_unlabeled)
    assert naive.n_evaluations == a.n_evaluations and naive.n_flips == a.n_flips
    # MMC: F(y) = F(-y), so restarts may end in y and -y with F equal up to rounding, and which of the
    # two is "best" is decided by the last bit. Same function, same seed: identical; compiled against
    # naive: the same objectives, the labels up to the global sign.
    X, _ = gaussian2c(40, 3, 9)
    m, m_again, m_naive = mmc(X, search=LocalSearch(restarts=3), rng=1), mmc(X, search=LocalSearch(restarts=3), rng=1), mmc_naive(X, restarts=3, rng=1)
    np.testing.assert_array_equal(m.labels, m_again.labels)
    np.testing.assert_array_equal(m.restart_objectives, m_again.restart_objectives)
    np.testing.assert_allclose(m_naive.restart_objectives, m.restart_objectives, rtol=1e-12)
    assert m_naive.objective == pytest.approx(m.objective, rel=1e-12)
    assert_equal_up_to_sign(m_naive.labels, m.labels)
    assert m_naive.n_evaluations == m.n_evaluations and m_naive.n_flips == m.n_flips


def assert_equal_up_to_sign(actual, desired):
    """±1 labellings equal up to the global sign y -> -y (the symmetry of the MMC objective)."""
    sign = 1 if np.array_equal(actual, desired) else -1
    np.testing.assert_array_equal(actual, sign * np.asarray(desired))


def test_label_coding_precomputed_and_offset_paths_agree():
    Xl, yl, Xu, yu = split(60, 5, 8, seed=10)
    names = np.array(["neg", "pos"])
    yl_s = names[(yl > 0).astype(int)]
    kw = dict(lam=0.5, lam_u=1.0, search=LocalSearch(restarts=3), rng=4)
    a = s2rlsc(Xl, yl_s, Xu, **kw)
    assert set(a.labels_unlabeled) <= {"neg", "pos"}
    assert np.mean(a.labels_unlabeled == names[(yu > 0).astype(int)]) > 0.9
    X = np.vstack([Xl, Xu])
    K = X @ X.T
    b = s2rlsc(K[:8], yl_s, K[8:], kernel="precomputed", **kw)
    np.testing.assert_array_equal(a.labels_unlabeled, b.labels_unlabeled)
    np.testing.assert_array_equal(a.predict(Xu[:5]), b.predict(K[8:13]))
    # offset through appended features (linear fast path) == kernel + 1 (precomputed path)
    c = s2rlsc(Xl + 2.0, yl, Xu + 2.0, offset=True, **kw)
    X2 = X + 2.0
    e = s2rlsc((X2 @ X2.T + 1.0)[:8], yl, (X2 @ X2.T + 1.0)[8:], kernel="precomputed", **kw)
    np.testing.assert_array_equal(c.labels_unlabeled, e.labels_unlabeled)
    assert c.objective == pytest.approx(e.objective, rel=1e-8)


def test_quality_gaussian2c_beats_rlsc():
    X, y = gaussian2c(500, 100, 21)
    Xtr, ytr, Xte, yte = X[:250], y[:250], X[250:], y[250:]
    res = s2rlsc(Xtr[:25], ytr[:25], Xtr[25:], lam=8.0, lam_u=1.0, search=LocalSearch(restarts=10), rng=0)
    sup = rlsc(Xtr[:25], ytr[:25], lam=1.0)
    e_s2 = np.mean(res.predict(Xte) != yte)
    e_rl = np.mean(sup.predict(Xte) != yte)
    assert e_s2 <= 0.05 and e_s2 <= e_rl


# ------------------------------------------------------------------ solver contract

def test_warm_start_callback_and_max_iter():
    Xl, yl, Xu, _ = split(50, 4, 6, seed=12)
    base = s2rlsc(Xl, yl, Xu, search=LocalSearch(restarts=2), rng=0)
    warm = s2rlsc(Xl, yl, Xu, search=LocalSearch(restarts=1), x0=base.labels_unlabeled, rng=1)
    np.testing.assert_array_equal(warm.labels_unlabeled, base.labels_unlabeled)
    assert warm.restarts[0].init == "x0" and warm.restarts[0].n_flips == 0
    seen = []

    def stop_after_two(intermediate_result):
        seen.append(intermediate_result.record.objective)
        if len(seen) == 2:
            raise StopIteration

    res = s2rlsc(Xl, yl, Xu, search=LocalSearch(restarts=10), rng=0, callback=stop_after_two)
    assert res.status == 3 and len(res.restart_objectives) == 2 and not res.converged
    assert "restart 2 of 10" in res.message and res.stop is None
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        res = s2rlsc(Xl, yl, Xu, search=LocalSearch(restarts=2, max_iter=1), init="random", rng=0)
    assert res.status == 2 and not res.converged
    assert not res.history["restart_converged"].any()


def test_result_is_frozen_and_reports():
    Xl, yl, Xu, _ = split(40, 3, 6, seed=13)
    res = s2rlsc(Xl, yl, Xu, search=LocalSearch(restarts=2), rng=0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.objective = 0.0
    text = res.summary()
    assert "objective F" in text and "seed" in text
    assert res._repr_html_().startswith("<table>")
    assert res.time_total >= res.time_preprocessing >= 0.0
    assert res.restarts[0].init == "rlsc" and res.restarts[1].init == "random"


@pytest.mark.parametrize("kwargs,match", [
    (dict(y_labeled=[1, 1, 1, 1]), "exactly two classes"),
    (dict(y_labeled=[0, 1, 2, 1]), "exactly two classes"),
    (dict(lam=0.0), "'lam' parameter of s2rlsc"),
    (dict(lam=-1.0), "'lam' parameter of s2rlsc"),
    (dict(lam_u=0.0), "'lam_u' parameter of s2rlsc"),
    (dict(balance=0.0), "'balance' parameter of s2rlsc"),
    (dict(balance=1.0), "'balance' parameter of s2rlsc"),
    (dict(balance=1.5), "'balance' parameter of s2rlsc"),
    (dict(X_unlabeled=np.zeros((0, 3))), "at least one row"),
    (dict(X_labeled=np.array([[np.nan, 0, 0]] * 4)), "finite"),
    (dict(X_unlabeled=np.full((5, 3), np.inf)), "finite"),
    (dict(X_unlabeled=np.zeros((5, 2))), "features"),
    (dict(y_labeled=[0, 1, 1]), "rows"),
    (dict(kernel="precomputed"), "precomputed"),
    (dict(kernel="rbf"), "sigma"),
    (dict(eps=1e-3), "no labelling"),
    (dict(n_basis=0), "'n_basis' parameter"),
    (dict(n_basis=np.array([0, 0, 1])), "distinct"),
    (dict(search="ga"), "'search' parameter"),
    (dict(search="ga"), "'search' parameter of s2rlsc"),
    (dict(x0=np.zeros(5)), "'x0' parameter"),
])
def test_bad_input(kwargs, match):
    rng = np.random.default_rng(0)
    args = dict(X_labeled=rng.normal(size=(4, 3)), y_labeled=[0, 1, 0, 1], X_unlabeled=rng.normal(size=(5, 3)))
    args.update(kwargs)
    with pytest.raises((ValueError, TypeError), match=match):
        s2rlsc(args.pop("X_labeled"), args.pop("y_labeled"), args.pop("X_unlabeled"), **args)


def test_bad_input_mmc_and_prediction_shapes():
    X = np.random.default_rng(0).normal(size=(10, 2))
    with pytest.raises(ValueError, match="'balance' parameter of mmc"):
        mmc(X, balance=1.0)
    with pytest.raises(ValueError, match="symmetric"):
        mmc(X @ X.T + np.triu(np.ones((10, 10)), 1), kernel="precomputed")
    res = mmc(X @ X.T, kernel="precomputed", search=LocalSearch(restarts=2), rng=0)
    with pytest.raises(ValueError, match="kernel rows"):
        res.decision_function(np.zeros((3, 4)))
    res = mmc(X, search=LocalSearch(restarts=2), rng=0)
    with pytest.raises(ValueError, match="features"):
        res.predict(np.zeros((3, 5)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mmc(X, search=LocalSearch(restarts=1), rng=0)


def test_progress_bar_does_not_change_the_result(capsys):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 3))
    y = np.where(X[:, 0] > 0, 1, -1)
    kw = dict(lam=1.0, search=LocalSearch(restarts=3), rng=0)
    quiet = s2rlsc(X[:6], np.r_[1, -1, y[2:6]], X[6:], **kw)
    shown = s2rlsc(X[:6], np.r_[1, -1, y[2:6]], X[6:], progress=True, **kw)
    assert "restarts" in capsys.readouterr().err
    np.testing.assert_array_equal(quiet.labels_unlabeled, shown.labels_unlabeled)
    assert mmc(X, search=LocalSearch(restarts=2), rng=0, progress=True).objective == mmc(X, search=LocalSearch(restarts=2), rng=0).objective
