"""The one stratified k-fold assignment and the one 1-SE rule (toolkit/_cv.py)."""
import itertools
import json

import numpy as np
import pytest

from toolkit._cv import one_standard_error, stratified_folds


# ----------------------------------------------------------------------------- stratified folds
def test_stratified_folds_by_hand():
    y = np.array([1, -1, -1, 1, -1])
    gen = np.random.default_rng(0)
    first, second = gen.permutation(np.array([1, 2, 4])), gen.permutation(np.array([0, 3]))
    expected = np.empty(5, dtype=int)
    expected[first] = [0, 1, 0]                    # class -1 dealt from fold 0
    expected[second] = [1, 0]                      # class +1 goes on where -1 stopped
    np.testing.assert_array_equal(stratified_folds(y, 2, 0), expected)
    np.testing.assert_array_equal(stratified_folds(y, 2, np.random.default_rng(0)), expected)


@pytest.mark.parametrize("sizes, n_folds", [((4, 4), 3), ((3, 7), 3), ((5, 5), 5), ((1, 2, 6), 4),
                                            ((2, 2), 4), ((10, 1), 2), ((8, 13), 7)])
def test_stratified_folds_partition_and_balance(sizes, n_folds):
    y = np.repeat(np.arange(len(sizes)) * 2.0 - 1.0, sizes)
    y = y[np.random.default_rng(1).permutation(y.size)]
    for seed in range(5):
        fold = stratified_folds(y, n_folds, seed)
        assert fold.shape == y.shape and fold.dtype == np.int64
        tests = [np.flatnonzero(fold == k) for k in range(n_folds)]
        np.testing.assert_array_equal(np.sort(np.concatenate(tests)), np.arange(y.size))   # each point once
        counts = np.bincount(fold, minlength=n_folds)
        assert counts.min() >= 1 and counts.max() - counts.min() <= 1                      # no fold dropped
        for label in np.unique(y):
            per_class = np.bincount(fold[y == label], minlength=n_folds)
            assert per_class.max() - per_class.min() <= 1                                   # stratified
        np.testing.assert_array_equal(fold, stratified_folds(y, n_folds, seed))            # deterministic


def test_stratified_folds_balances_what_the_paths_copy_did_not():
    # the former toolkit.paths copy restarted every class at fold 0: 4 + 4 points in 3 folds
    # gave test folds of 4, 2, 2 points; the one rule gives 3, 3, 2
    y = np.r_[-np.ones(4), np.ones(4)]
    assert sorted(np.bincount(stratified_folds(y, 3, 0)).tolist()) == [2, 3, 3]


# ----------------------------------------------------------------------------- 1-SE rule
def _brute_force(error, se, strength, tol):
    """The definition, by enumeration (plain Python)."""
    finite = [i for i in range(len(error)) if not np.isnan(error[i])]
    smallest = min(error[i] for i in finite)
    i_min = min(i for i in finite if error[i] == smallest)
    within = [i for i in finite if error[i] <= error[i_min] + se[i_min] + tol]
    if strength is None:
        return i_min, within[0]
    top = max(strength[i] for i in within)
    ties = [i for i in within if strength[i] == top]
    low = min(error[i] for i in ties)
    return i_min, min(i for i in ties if error[i] == low)


def test_one_standard_error_by_hand():
    lambdas = np.array([10.0, 5.0, 2.0, 1.0, 0.5])
    err = np.array([0.40, 0.22, 0.20, 0.18, 0.25])
    se = np.full(5, 0.05)
    assert one_standard_error(err, se) == (3, 1)
    assert one_standard_error(err, se, strength=lambdas) == (3, 1)
    # ties at the minimum: the first (largest λ on a decreasing grid)
    assert one_standard_error([0.3, 0.1, 0.1, 0.2], [0.0] * 4) == (1, 1)
    # NaN candidates are never chosen
    assert one_standard_error([np.nan, 0.3, 0.1], [0.0, 0.0, 0.25]) == (2, 1)
    # strength in any order: the most regularised within 1 SE, ties to the smaller error
    assert one_standard_error([0.2, 0.1, 0.15, 0.12], [0.05] * 4, strength=[1.0, 2.0, 3.0, 3.0]) == (1, 3)
    # tol admits a candidate equal to the threshold up to round-off only
    assert one_standard_error([0.1 + 0.2, 0.3], [0.0, 0.0], strength=[0.0, 1.0]) == (1, 1)
    assert one_standard_error([0.3, 0.1 + 0.2], [0.0, 0.0], strength=[1.0, 0.0]) == (0, 0)
    assert one_standard_error([0.3, 0.1 + 0.2], [0.0, 0.0], strength=[0.0, 1.0], tol=1e-12) == (0, 1)


def test_one_standard_error_against_brute_force():
    gen = np.random.default_rng(7)
    for n, grid_values in itertools.product((1, 2, 5, 9), (2, 4)):
        for _ in range(40):
            error = gen.integers(0, grid_values, size=n) / grid_values          # many ties
            error[gen.random(n) < 0.15] = np.nan
            if np.all(np.isnan(error)):
                error[0] = 0.5
            se = gen.integers(0, 3, size=n) / 8.0
            strength = gen.integers(0, 3, size=n).astype(float)
            for s in (None, strength):
                for tol in (0.0, 1e-12):
                    assert one_standard_error(error, se, strength=s, tol=tol) == _brute_force(error, se, s, tol)


def test_one_standard_error_equals_select_simplest_rule():
    """The former inline rule of ``select``: sorted(zip(params, means), key=(-sign·param, mean))."""
    gen = np.random.default_rng(3)
    for _ in range(200):
        n = int(gen.integers(1, 8))
        means = gen.integers(0, 5, size=n) / 10.0
        se = gen.integers(0, 3, size=n) / 10.0
        params = [{"lam": float(v)} for v in gen.choice([0.01, 0.1, 1.0], size=n)]
        sign = float(gen.choice([1.0, -1.0]))
        best_i = int(np.nanargmin(means))
        candidates = np.flatnonzero(means <= means[best_i] + se[best_i] + 1e-12)
        decoded = [json.loads(json.dumps(params[i])) for i in candidates]
        expected = sorted(zip(decoded, means[candidates]), key=lambda t: (-sign * t[0]["lam"], t[1]))[0][0]
        strength = sign * np.array([p["lam"] for p in params])
        i_min, i_1se = one_standard_error(means, se, strength=strength, tol=1e-12)
        assert i_min == best_i and params[i_1se] == expected
