"""toolkit.data.load: every figure the papers' tasks rely on, class coding, options and bad input.

All tests here share one cache folder per session (parsed arrays are reused), filled from the
local offline mirror.
"""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from toolkit import data


@pytest.fixture(scope="module", autouse=True)
def shared_cache(mirror_dir, tmp_path_factory):
    """One cache folder for every figure check of the session, filled from the local mirror."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TOOLKIT_DATA_DIR", str(tmp_path_factory.getbasetemp() / "shared-data-cache"))
        mp.setenv("TOOLKIT_DATA_MIRROR", str(mirror_dir))
        yield


# ------------------------------------------------------------------------------------------ usps

def test_usps_full_set():
    ds = data.load("usps")
    assert ds.X.shape == (9298, 256)
    assert ds.X.min() == 0.0 and ds.X.max() == 1.0
    counts = np.bincount(ds.y)
    assert counts.tolist() == [1553, 1269, 929, 824, 852, 716, 834, 792, 708, 821]
    assert ds.classes == tuple(range(10))
    assert ds.files == ("zip.train.gz", "zip.test.gz")
    assert ds.sha256[0] == "sha256:66ebf231ab51f2cf6ac1a892d0f98ccffee1079d7a5db638c1f11f366046ca16"
    assert "Hastie" in ds.citation and ds.licence
    # zip.train first: its first row is a 6, zip.test's first row a 9 (file order kept)
    assert ds.y[0] == 6 and ds.y[7291] == 9


@pytest.mark.parametrize(("a", "b", "n", "n_pos"), [(2, 5, 1645, 929), (2, 7, 1721, 929),
                                                     (3, 8, 1532, 824), (8, 0, 2261, 708)])
def test_usps_pairs(a, b, n, n_pos):
    ds = data.load("usps", a, b)
    assert ds.X.shape == (n, 256)
    assert (ds.y == 1).sum() == n_pos and (ds.y == -1).sum() == n - n_pos
    assert np.all(np.diff(ds.rows) > 0)  # rows keep the source order
    assert set(ds.labels[ds.y == 1]) == {a} and set(ds.labels[ds.y == -1]) == {b}
    assert ds.binary and ds.classes == (a, b)


def test_usps_2_5_is_the_issue_example():
    ds = data.load("usps", 2, 5)
    assert ds.X.shape == (1645, 256) and 0 <= ds.X.min() and ds.X.max() <= 1
    assert ((ds.y == 1).sum(), (ds.y == -1).sum()) == (929, 716)
    full = data.load("usps")
    np.testing.assert_array_equal(ds.X, full.X[ds.rows])


# ----------------------------------------------------------------------------------------- uspst

def test_uspst_and_uspst_b():
    ds = data.load("uspst")
    assert ds.X.shape == (2007, 256)
    assert np.bincount(ds.y).tolist() == [327, 273, 206, 178, 196, 140, 174, 173, 160, 180]
    b = data.load("uspst", [0, 1, 2, 3, 4], [5, 6, 7, 8, 9])
    assert b.X.shape == (2007, 256) and (b.y == 1).sum() == 1180 and (b.y == -1).sum() == 827
    assert b.classes == ((0, 1, 2, 3, 4), (5, 6, 7, 8, 9))


def test_uspst_is_not_esl_test_split():
    uspst, usps = data.load("uspst"), data.load("usps")
    assert not np.array_equal(np.bincount(uspst.y), np.bincount(usps.y[7291:]))


# ----------------------------------------------------------------------------------------- mnist

def test_mnist_test_split_3_vs_8():
    ds = data.load("mnist", 3, 8, split="test")
    assert ds.X.shape == (1984, 784)
    assert (ds.y == 1).sum() == 1010 and (ds.y == -1).sum() == 974
    assert ds.X.min() == 0.0 and ds.X.max() == 1.0


def test_mnist_options():
    full = data.load("mnist", split="test")
    assert full.X.shape == (10000, 784)
    first = data.load("mnist", 1, 7, split="test", n=1000)
    assert first.X.shape == (1000, 784)
    pair = data.load("mnist", 1, 7, split="test")
    np.testing.assert_array_equal(first.X, pair.X[:1000])
    unit = data.load("mnist", 3, 8, split="test", normalize="unit")
    np.testing.assert_allclose(np.linalg.norm(unit.X, axis=1), 1.0)
    raw = data.load("mnist", 3, 8, split="test", normalize="raw")
    assert raw.X.max() == 255.0
    with pytest.raises(ValueError, match="'split' parameter of load"):
        data.load("mnist", split="validation")
    with pytest.raises(ValueError, match="'normalize' parameter"):
        data.load("mnist", split="test", normalize="l2")
    with pytest.raises(ValueError, match="'n' parameter"):
        data.load("mnist", 3, 8, split="test", n=5000)


@pytest.mark.parametrize("split", ["train", "all"])
def test_mnist_training_images_missing_from_mirror(split):
    with pytest.raises(data.DataError) as info:
        data.load("mnist", 3, 8, split=split)
    assert "train-images-idx3-ubyte.gz" in str(info.value)
    assert "TOOLKIT_DATA_MIRROR" in str(info.value)


# ---------------------------------------------------------------------------------------- coil20

def test_coil20_full_and_binary():
    ds = data.load("coil20")
    assert ds.X.shape == (1440, 1024)
    assert np.bincount(ds.y)[1:].tolist() == [72] * 20 and ds.classes == tuple(range(1, 21))
    c = data.load("coil20", 3, 6, size=20)
    assert c.X.shape == (144, 400) and 0.0 <= c.X.min() and c.X.max() <= 1.0
    b = data.load("coil20", list(range(1, 11)), list(range(11, 21)))
    assert b.X.shape == (1440, 1024) and (b.y == 1).sum() == 720


def test_coil20_resize_is_box_averaging():
    full = data.load("coil20", 3, 6)
    half = data.load("coil20", 3, 6, size=16)
    images = full.X.reshape(-1, 32, 32)  # column-major storage: axes are (column, row)
    blocks = images.reshape(-1, 16, 2, 16, 2).mean(axis=(2, 4)).reshape(-1, 256)
    np.testing.assert_allclose(half.X, blocks)
    # a constant image stays constant, means are preserved at any size
    small = data.load("coil20", 3, 6, size=20)
    np.testing.assert_allclose(small.X.mean(axis=1), full.X.mean(axis=1))
    with pytest.raises(ValueError, match="'size' parameter of load"):
        data.load("coil20", size=40)


# ------------------------------------------------------------------------------------ g50c, pcmac

def test_g50c_and_pcmac():
    g = data.load("g50c")
    assert g.X.shape == (550, 50) and np.bincount(g.y + 1)[[0, 2]].tolist() == [275, 275]
    p = data.load("pcmac")
    assert sp.isspmatrix_csr(p.X) and p.X.shape == (1946, 7511) and p.X.nnz == 106221
    assert ((p.y == -1).sum(), (p.y == 1).sum()) == (961, 985)
    unit = data.load("pcmac", normalize="unit")
    assert sp.issparse(unit.X)
    np.testing.assert_allclose(np.sqrt(unit.X.multiply(unit.X).sum(axis=1)).A1, 1.0)
    # "global": one factor for every row, the mean row norm (the rows' relative lengths kept)
    scaled = data.load("pcmac", normalize="global")
    norms = np.sqrt(p.X.multiply(p.X).sum(axis=1)).A1
    assert sp.issparse(scaled.X)
    np.testing.assert_allclose((scaled.X - p.X / norms.mean()).toarray(), 0.0, atol=1e-15)
    np.testing.assert_allclose(np.sqrt(scaled.X.multiply(scaled.X).sum(axis=1)).A1.mean(), 1.0)


# ------------------------------------------------------------------------------------- ssl-book

def test_ssl_book_by_number_and_name():
    by_name = data.load("ssl-book", "g241n")
    by_number = data.load("ssl-book", 7)
    assert by_name.X.shape == (1500, 241)
    np.testing.assert_array_equal(by_name.X, by_number.X)
    assert by_name.options["set"] == 7 and by_name.options["set_name"] == "g241n"
    assert ((by_name.y == -1).sum(), (by_name.y == 1).sum()) == (752, 748)
    assert data.load("ssl-book", "g241d").X.shape == (1500, 241)
    coil = data.load("ssl-book", "COIL")
    assert np.bincount(coil.y).tolist() == [250] * 6
    usps = data.load("ssl-book", 2, -1, 1)
    assert (usps.y == 1).sum() == 1200  # -1 was given first, so it is coded +1


def test_ssl_book_secstr_expansion():
    ds = data.load("ssl-book", 8)
    assert sp.isspmatrix_csr(ds.X) and ds.X.shape == (83679, 315)
    assert np.all(np.diff(ds.X.indptr) == 15)            # one code per position
    assert np.array_equal(np.unique(ds.X.data), [1.0])
    positions = ds.X.indices.reshape(-1, 15) // 21
    assert np.array_equal(positions, np.broadcast_to(np.arange(15), positions.shape))
    assert np.bincount(ds.y).tolist() == [47856, 35823]


@pytest.mark.parametrize("number", [1, 4, 5, 9])
def test_ssl_book_held_back_sets_are_reported(number):
    with pytest.raises(data.DataError, match="TOOLKIT_DATA_MIRROR") as info:
        data.load("ssl-book", number)
    assert f"SSL,set={number},data.mat" in str(info.value)


# ------------------------------------------------------------------------------------ synthetic

def test_gaussian2c():
    ds = data.load("gaussian2c", rng=0)
    assert ds.X.shape == (500, 500) and ds.options["rng"] == 0
    assert (ds.y == 1).sum() == 250
    assert abs(ds.X[ds.y == 1, 0].mean() + 2.5) < 0.3 and abs(ds.X[ds.y == -1, 0].mean() - 2.5) < 0.3
    assert abs(ds.X[:, 1:].mean()) < 0.02
    np.testing.assert_array_equal(ds.X, data.load("gaussian2c", rng=0).X)
    assert not np.array_equal(ds.X, data.load("gaussian2c", rng=1).X)
    assert ds.files == ()


def test_gaussian2c_matches_reference_recipe():
    # shared/acceptance/reference.py: X = normal(n, d); X[:n/2, 0] -= 2.5; X[n/2:, 0] += 2.5; permute
    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 7))
    X[:30, 0] -= 2.5
    X[30:, 0] += 2.5
    y = np.r_[np.ones(30), -np.ones(30)]
    perm = rng.permutation(60)
    ds = data.load("gaussian2c", n=60, d=7, rng=3)
    np.testing.assert_array_equal(ds.X, X[perm])
    np.testing.assert_array_equal(ds.y, y[perm])


def test_gaussian4c():
    ds = data.load("gaussian4c", rng=0)
    assert ds.X.shape == (500, 500) and (ds.y == 1).sum() == 250
    pos, neg = ds.X[ds.y == 1], ds.X[ds.y == -1]
    assert abs(pos[:, 0].mean() + 2.5) < 0.3 and abs(neg[:, 0].mean() - 2.5) < 0.3
    assert np.sum(pos[:, 1] > 0) > 100 and np.sum(pos[:, 1] < 0) > 100  # two clusters at +-5
    assert np.all(np.abs(np.abs(ds.X[:, 1]) - 5) < 5)


def test_moons():
    ds = data.load("moons", rng=0)
    assert ds.X.shape == (200, 2) and (ds.y == 1).sum() == 100
    clean = data.load("moons", n=50, noise=0.0, rng=0)
    upper = clean.X[clean.y == 1]
    np.testing.assert_allclose(np.hypot(upper[:, 0], upper[:, 1]), 1.0)
    np.testing.assert_array_equal(ds.X, data.load("moons", rng=0).X)
    with pytest.raises(ValueError, match="'noise' parameter"):
        data.load("moons", noise=-1.0)


# ------------------------------------------------------------------------------------ bad input

def test_unknown_data_set_lists_names():
    with pytest.raises(ValueError) as info:
        data.load("uspss")
    for name in ("usps", "uspst", "mnist", "coil20", "g50c", "pcmac", "ssl-book", "gaussian2c", "moons"):
        assert name in str(info.value)


def test_unknown_class_is_named():
    with pytest.raises(ValueError, match=r"Class 10 is not a class of 'usps'.*0, 1, 2"):
        data.load("usps", 2, 10)
    with pytest.raises(ValueError, match="Class 21"):
        data.load("coil20", [1, 2], [3, 21])


def test_same_class_on_both_sides_is_named():
    with pytest.raises(ValueError, match="Class 2 is on both sides"):
        data.load("usps", 2, 2)
    with pytest.raises(ValueError, match="Class 4 is on both sides"):
        data.load("uspst", [0, 1, 4], [4, 5])


def test_wrong_number_of_classes_and_options():
    with pytest.raises(ValueError, match="no class arguments .* or two"):
        data.load("usps", 1, 2, 3)
    with pytest.raises(TypeError, match="unexpected option"):
        data.load("usps", 2, 5, colour="blue")
    with pytest.raises(ValueError, match="must be one of 1 = Digit1"):
        data.load("ssl-book", "digit7")
    with pytest.raises(ValueError, match="must be one of 1 = Digit1"):
        data.load("ssl-book")


def test_dataset_is_frozen_and_describes_itself():
    ds = data.load("g50c")
    with pytest.raises(AttributeError):
        ds.X = None
    assert "550 x 50" in repr(ds)
    text = ds.summary()
    assert "g50c.mat" in text and "Chapelle" in text


def test_warm_load_does_not_parse_again(monkeypatch):
    from toolkit.data import _parsers

    first = data.load("usps", 3, 8)
    data.load("g50c")

    def refuse(path):
        raise AssertionError(f"{path} parsed again")

    monkeypatch.setattr(_parsers, "parse_esl_text", refuse)
    monkeypatch.setattr(_parsers, "parse_mat", refuse)
    again = data.load("usps", 3, 8)
    np.testing.assert_array_equal(first.X, again.X)
    data.load("g50c")
