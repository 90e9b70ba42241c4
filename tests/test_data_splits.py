"""Splits: Gieseke's protocol, Melacci & Belkin's repeated stratified folds, the published splits."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolkit import data


@pytest.fixture(scope="module")
def shared_cache(mirror_dir, tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TOOLKIT_DATA_DIR", str(tmp_path_factory.getbasetemp() / "shared-data-cache"))
        mp.setenv("TOOLKIT_DATA_MIRROR", str(mirror_dir))
        yield


def _check_partition(s, n):
    parts = [s.labeled, s.unlabeled, s.validation, s.test]
    joined = np.concatenate(parts)
    assert len(np.unique(joined)) == len(joined), "parts overlap"
    assert joined.min(initial=0) >= 0 and joined.max(initial=0) < n
    for part in parts:
        assert part.dtype.kind == "i"


# ---------------------------------------------------------------------------------------- split

def test_split_gaussian2c_protocol():
    ds = data.load("gaussian2c", rng=0)
    s = data.split(ds, l=25, u=225, t=250, rng=1)
    assert (len(s.labeled), len(s.unlabeled), len(s.test), len(s.validation)) == (25, 225, 250, 0)
    _check_partition(s, 500)
    assert set(ds.y[s.labeled]) == {-1, 1}
    assert s.protocol == "gieseke" and s.seed == 1
    # first half of the seeded shuffle is the training part, the second half the test part
    order = np.random.default_rng(1).permutation(500)
    assert set(s.test) == set(order[250:]) and set(s.labeled) | set(s.unlabeled) == set(order[:250])


def test_split_defaults_take_the_rest():
    y = np.r_[np.ones(11), -np.ones(10)]
    s = data.split(y, l=4, rng=0)
    assert (len(s.labeled), len(s.unlabeled), len(s.test)) == (4, 6, 11)


def test_split_is_deterministic_per_seed():
    y = np.repeat([0, 1, 2], 40)
    a, b, c = (data.split(y, l=6, u=30, t=50, rng=r) for r in (7, 7, 8))
    for name in ("labeled", "unlabeled", "test"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    assert not np.array_equal(a.labeled, c.labeled)


def test_split_on_a_real_task_returns_indices_only():
    y = np.r_[np.ones(929), -np.ones(716)]  # the labels of USPS(2,5)
    s = data.split(y, l=16, u=800, t=800, rng=0)
    _check_partition(s, 1645)
    assert s.labeled.nbytes == 16 * 8


@given(n_per_class=st.lists(st.integers(1, 30), min_size=2, max_size=5), l_extra=st.integers(0, 10),
       seed=st.integers(0, 2**31))
def test_split_properties(n_per_class, l_extra, seed):
    y = np.repeat(np.arange(len(n_per_class)), n_per_class)
    y = np.random.default_rng(seed).permutation(y)
    n_train = len(y) // 2
    k = len(n_per_class)
    if any(np.sum(y[np.random.default_rng(seed).permutation(len(y))[:n_train]] == c) == 0 for c in range(k)):
        with pytest.raises(ValueError):
            data.split(y, l=max(k, min(k + l_extra, n_train)), rng=seed)
        return
    l = max(k, min(k + l_extra, n_train))
    if l > n_train:
        with pytest.raises(ValueError, match="'l' parameter of split must be at most the training part"):
            data.split(y, l=l, rng=seed)
        return
    s = data.split(y, l=l, rng=seed)
    _check_partition(s, len(y))
    assert len(s.labeled) == l and len(s.labeled) + len(s.unlabeled) == n_train
    assert set(y[s.labeled]) == set(range(k))


def test_split_errors_quote_counts():
    y = np.r_[np.ones(50), -np.ones(50), np.zeros(50)]
    with pytest.raises(ValueError, match=r"The 'l' parameter of split must be at least the number of classes \(3\)\. Got 2 instead\."):
        data.split(y, l=2, rng=0)
    with pytest.raises(ValueError, match=r"training part \(75 of 150 points\)\. Got l=10 \+ u=70 = 80 instead"):
        data.split(y, l=10, u=70, rng=0)
    with pytest.raises(ValueError, match=r"'t' parameter of split must be at most the test part \(75 of 150"):
        data.split(y, l=10, t=76, rng=0)
    with pytest.raises(TypeError, match="'l' parameter of split must be an int"):
        data.split(y, l=2.5, rng=0)
    # one class: nothing to classify (it used to draw a split silently)
    with pytest.raises(ValueError, match=r"'dataset' parameter of split must hold at least two classes .*Got one "
                                         r"class, 1.0, on 20 rows"):
        data.split(np.ones(20), l=2, rng=0)
    with pytest.raises(ValueError, match="'dataset' parameter of split"):
        data.split(np.zeros((3, 3)), l=2, rng=0)
    with pytest.raises(ValueError, match=r"The 'n_train' parameter of split must be an int in \[1, 149\]\. Got 150"):
        data.split(y, l=10, n_train=150, rng=0)


def test_split_n_train_coil_protocol():
    """Gieseke et al.'s COIL(i, j) [l=14, u=101, t=29]: 115 of 144 points train, 29 test."""
    y = np.repeat([1, -1], 72)
    s = data.split(y, l=14, u=101, t=29, n_train=115, rng=3)
    _check_partition(s, 144)
    assert (len(s.labeled), len(s.unlabeled), len(s.test)) == (14, 101, 29)
    # the same shuffle as the default protocol: the first n_train rows of the permutation train
    order = np.random.default_rng(3).permutation(144)
    assert set(s.labeled) | set(s.unlabeled) == set(order[:115])
    assert set(s.test) == set(order[115:])
    half = data.split(y, l=14, rng=3)
    assert len(half.labeled) + len(half.unlabeled) == 72
    with pytest.raises(ValueError, match=r"training part \(72 of 144 points\)"):
        data.split(y, l=14, u=101, rng=3)


# ------------------------------------------------------------------------------------ cv_splits

def test_cv_splits_melacci_belkin_g50c_sizes():
    y = np.r_[np.ones(275), -np.ones(275)]
    splits = data.cv_splits(y, l=50, v=50, rng=0)
    assert len(splits) == 12
    assert [(s.repeat, s.fold) for s in splits[:5]] == [(0, 0), (0, 1), (0, 2), (0, 3), (1, 0)]
    for s in splits:
        _check_partition(s, 550)
        assert len(s.labeled) == 50 and len(s.validation) == 50
        assert len(s.test) in (137, 138) and len(s.labeled) + len(s.unlabeled) + len(s.validation) + len(s.test) == 550
        assert set(y[s.labeled]) == {-1, 1} and set(y[s.validation]) == {-1, 1}
        # stratified: each fold holds the class proportions of the whole set (+-1)
        assert abs((y[s.test] == 1).sum() - len(s.test) / 2) <= 1
    for r in range(3):  # the test folds of one repeat partition the data
        tests = np.concatenate([s.test for s in splits[4 * r: 4 * r + 4]])
        assert sorted(tests) == list(range(550))


def test_cv_splits_cover_every_class_even_when_rare():
    y = np.r_[np.zeros(200), np.ones(4), np.full(40, 2)]
    for s in data.cv_splits(y, l=3, v=3, rng=5):
        assert set(y[s.labeled]) == {0, 1, 2} and set(y[s.validation]) == {0, 1, 2}


def test_cv_splits_deterministic_and_errors():
    y = np.repeat([0, 1], 30)
    a, b = data.cv_splits(y, l=4, v=4, rng=3), data.cv_splits(y, l=4, v=4, rng=3)
    for s, t in zip(a, b):
        np.testing.assert_array_equal(s.unlabeled, t.unlabeled)
    with pytest.raises(ValueError, match=r"'v' parameter of cv_splits must be at least the number of classes \(2\)\. Got 1"):
        data.cv_splits(y, l=4, v=1, rng=0)
    with pytest.raises(ValueError, match=r"smallest training part \(45 of 60 points with 4 folds\)\. Got l=30 \+ v=20 = 50"):
        data.cv_splits(y, l=30, v=20, rng=0)
    with pytest.raises(ValueError, match="'folds' parameter of cv_splits"):
        data.cv_splits(y, folds=1, l=4, v=4, rng=0)


# --------------------------------------------------------------------------------- fixed splits

@pytest.mark.usefixtures("shared_cache")
@pytest.mark.parametrize(("name", "n", "l"), [("g50c", 550, 50), ("uspst", 2007, 50), ("pcmac", 1946, 50)])
def test_fixed_splits_of_the_lds_files(name, n, l):
    splits = data.fixed_splits(data.load(name))
    assert len(splits) == 10
    for s in splits:
        assert len(s.labeled) == l and len(s.labeled) + len(s.unlabeled) == n
        assert sorted(np.r_[s.labeled, s.unlabeled]) == list(range(n))  # 1-based in the file, 0-based here
        assert s.test is s.unlabeled and s.protocol == "fixed"


@pytest.mark.usefixtures("shared_cache")
def test_fixed_splits_of_the_ssl_book():
    ds = data.load("ssl-book", "USPS")
    for labeled in (10, 100):
        splits = data.fixed_splits(ds, labeled=labeled)
        assert len(splits) == 12
        assert all(len(s.labeled) == labeled and len(s.unlabeled) == 1500 - labeled for s in splits)
    secstr = data.load("ssl-book", "SecStr")
    splits = data.fixed_splits(secstr, labeled=1000)
    assert len(splits) == 10 and len(splits[0].labeled) == 1000 and len(splits[0].unlabeled) == 83679 - 1000
    with pytest.raises(ValueError, match=r"'labeled' parameter of fixed_splits must be one of 100, 1000, 10000"):
        data.fixed_splits(secstr, labeled=10)
    with pytest.raises(ValueError, match="must be one of 10, 100"):
        data.fixed_splits(ds)


@pytest.mark.usefixtures("shared_cache")
def test_fixed_splits_need_all_rows():
    assert len(data.fixed_splits(data.load("uspst", [0, 1, 2, 3, 4], [5, 6, 7, 8, 9]))) == 10
    with pytest.raises(ValueError, match="keeps 338 of them"):
        data.fixed_splits(data.load("uspst", 3, 8))
    with pytest.raises(ValueError, match="published splits"):
        data.fixed_splits(data.load("gaussian2c", rng=0))


@given(n_per_class=st.lists(st.integers(4, 25), min_size=2, max_size=4), folds=st.integers(2, 4),
       seed=st.integers(0, 2**31))
def test_cv_splits_properties(n_per_class, folds, seed):
    y = np.repeat(np.arange(len(n_per_class)), n_per_class)
    k = len(n_per_class)
    splits = data.cv_splits(y, folds=folds, repeats=2, l=k, v=k, rng=seed)
    assert len(splits) == 2 * folds
    for s in splits:
        _check_partition(s, len(y))
        assert len(s.labeled) + len(s.unlabeled) + len(s.validation) + len(s.test) == len(y)
        assert set(y[s.labeled]) == set(range(k)) == set(y[s.validation])
        for c, size in enumerate(n_per_class):  # stratified: class share of each fold within one point
            assert abs((y[s.test] == c).sum() - size / folds) < 1 + 1e-9


def test_split_stratify_gives_each_class_its_share_of_the_labelled_points():
    # each class gets its share of the training part's points among the l labelled ones
    y = np.r_[np.ones(200), -np.ones(100)]
    for seed in range(5):
        drawn, per_class = data.split(y, l=30, u=100, rng=seed), data.split(y, l=30, u=100, stratify=True, rng=seed)
        assert np.array_equal(per_class.test, drawn.test)          # the same training and test parts
        train = np.setdiff1d(np.arange(300), drawn.test)
        positives = 30 * np.count_nonzero(y[train] > 0) / len(train)
        assert abs(np.count_nonzero(y[per_class.labeled] > 0) - positives) < 1   # rounded share
        assert len(per_class.labeled) == 30 and len(per_class.unlabeled) == 100
        assert set(per_class.labeled) | set(per_class.unlabeled) <= set(train)
        assert not set(per_class.labeled) & set(per_class.unlabeled)
    counts = [np.count_nonzero(y[data.split(y, l=30, rng=s).labeled] > 0) for s in range(20)]
    assert max(counts) - min(counts) > 2      # the drawn labelled sets' class counts vary (random partitions)
    # a rare class still gets one labelled point
    rare = np.r_[np.ones(290), -np.ones(10)]
    assert np.count_nonzero(rare[data.split(rare, l=10, stratify=True, rng=0).labeled] < 0) == 1
    with pytest.raises(TypeError, match="'stratify' parameter of split must be a bool. Got 'yes'"):
        data.split(y, l=30, stratify="yes")
