"""toolkit.selection: the SSL-aware splitter, select() scenarios, tidy output, shared kernels."""
from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, strategies as st

from toolkit.selection import (METHODS, CachedKernel, Indices, SemiSupervisedKFold, available_methods, get_method,
                               select)
from toolkit.specs import Graph, Kernel, Solver, from_flat

TIDY = ["dataset", "task", "split", "method", "params", "scenario", "fold", "metric", "value", "seconds", "seed"]


# ------------------------------------------------------------------------------ the splitter
@given(n=st.integers(20, 120), frac=st.floats(0.2, 0.9), k=st.integers(2, 5), seed=st.integers(0, 1000))
def test_splitter_semantics(n, frac, k, seed):
    rng = np.random.default_rng(seed)
    y = rng.choice([0, 1], size=n)
    y[: 2 * k] = [0, 1] * k  # at least k labelled points per class
    y[2 * k:][rng.random(n - 2 * k) < frac] = -1
    X = rng.normal(size=(n, 2))
    labeled, unlabeled = np.flatnonzero(y != -1), np.flatnonzero(y == -1)
    cv = SemiSupervisedKFold(k, shuffle=True, random_state=seed)
    tests = []
    for train, test in cv.split(X, y):
        assert set(unlabeled) <= set(train)
        assert not set(test) & set(unlabeled)
        assert not set(test) & set(train)
        tests.append(test)
    assert np.array_equal(np.sort(np.concatenate(tests)), labeled)
    assert cv.get_n_splits() == k == len(tests)


def test_splitter_is_stratified_and_deterministic():
    y = np.r_[np.zeros(20), np.ones(10), -np.ones(50)].astype(int)
    a = [te.tolist() for _, te in SemiSupervisedKFold(5, random_state=1).split(None, y)]
    b = [te.tolist() for _, te in SemiSupervisedKFold(5, random_state=1).split(None, y)]
    assert a == b
    for test in a:
        assert sorted(np.bincount(y[test], minlength=2).tolist()) == [2, 4]


def test_splitter_with_scikit_learn_cross_validate():
    from sklearn.model_selection import GridSearchCV, cross_validate
    from sklearn.semi_supervised import LabelSpreading

    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(-2, 1, (60, 2)), rng.normal(2, 1, (60, 2))]
    y = np.r_[np.zeros(60), np.ones(60)].astype(int)
    y_ssl = y.copy()
    y_ssl[rng.random(120) < 0.7] = -1
    cv = SemiSupervisedKFold(3, random_state=0)
    scores = cross_validate(LabelSpreading(), X, y_ssl, cv=cv)["test_score"]
    assert len(scores) == 3 and scores.min() > 0.8
    search = GridSearchCV(LabelSpreading(), {"gamma": [0.5, 20.0]}, cv=cv).fit(X, y_ssl)
    assert search.best_params_["gamma"] in (0.5, 20.0)


def test_splitter_bad_input():
    with pytest.raises(ValueError, match="n_splits"):
        SemiSupervisedKFold(1)
    with pytest.raises(ValueError, match="3 labelled rows cannot be split into 5 folds"):
        list(SemiSupervisedKFold(5).split(np.zeros((10, 1)), np.r_[[0, 1, 0], -np.ones(7, int)]))
    with pytest.raises(ValueError, match="rows"):
        list(SemiSupervisedKFold(2).split(np.zeros((4, 1)), np.array([0, 1, 0])))
    # a class coded -1 can be kept by naming another marker of unlabelled rows
    y = np.array([1, -1, 1, -1, 0, 0, 0, 0])
    folds = list(SemiSupervisedKFold(2, unlabeled=0, random_state=0).split(None, y))
    assert all(set(np.flatnonzero(y == 0)) <= set(tr) for tr, _ in folds)


# ------------------------------------------------------------------------------ select
@pytest.fixture(scope="module")
def moons():
    from sklearn.datasets import make_moons

    X, y = make_moons(160, noise=0.1, random_state=0)
    y = 2 * y - 1
    return X, y, Indices(np.arange(16), np.arange(16, 100), np.arange(120, 160), np.arange(100, 120))  # V and T disjoint


def test_select_labeled_cv_tidy_output(moons):
    X, y, split = moons
    cv = select("svc", X, y, split, grid={"C": [0.1, 10.0]}, fixed={"kernel": "rbf", "sigma": 0.5}, n_folds=4,
                rng=0, progress=False, dataset="moons", task="Moons", split_id=3)
    table = cv.results
    assert list(table.columns) == TIDY
    assert set(table["fold"]) == {"0", "1", "2", "3", "refit"}
    assert set(table["metric"]) == {"cv_error", "test_error", "unlabeled_error", "validation_error"}
    assert (table["scenario"] == "labeled-cv").all() and cv.realistic
    assert (table["split"] == 3).all() and (table["seed"] == 0).all() and (table["dataset"] == "moons").all()
    assert len(table[table["metric"] == "cv_error"]) == 2 * 4
    means = table[table.metric == "cv_error"].groupby("params")["value"].mean()
    assert means[json.dumps(cv.lambda_min, sort_keys=True)] == means.min()
    assert cv.summary_table["mean"].min() == means.min()
    # the refit is the model with the chosen parameters on L and U, scored on T
    from sklearn.svm import SVC

    from toolkit.kernels import rbf_kernel

    Xl = X[split.labeled]
    svc = SVC(C=cv.lambda_min["C"], kernel="precomputed").fit(rbf_kernel(Xl, sigma=0.5), y[split.labeled])
    expected = np.mean(svc.predict(rbf_kernel(X[split.test], Xl, sigma=0.5)) != y[split.test]) * 100
    assert cv.test_error == pytest.approx(expected)
    assert "lambda_min" in cv.summary() and cv._repr_html_().startswith("<table>")


def test_lambda_1se_is_the_simplest_within_one_standard_error(moons):
    X, y, split = moons
    cv = select("rlsc", X, y, split, grid={"lam": [1e-4, 1e-2, 1.0, 100.0]}, fixed={"kernel": "rbf", "sigma": 0.5},
                n_folds=4, rng=1, progress=False)
    s = cv.summary_table.set_index("params")
    best = s.loc[json.dumps(cv.lambda_min, sort_keys=True)]
    chosen = s.loc[json.dumps(cv.lambda_1se, sort_keys=True)]
    assert chosen["mean"] <= best["mean"] + best["se"] + 1e-12
    inside = [json.loads(p)["lam"] for p, row in s.iterrows() if row["mean"] <= best["mean"] + best["se"] + 1e-12]
    assert cv.lambda_1se["lam"] == max(inside)
    refit_1se = select("rlsc", X, y, split, grid={"lam": [1e-4, 1e-2, 1.0, 100.0]},
                       fixed={"kernel": "rbf", "sigma": 0.5}, n_folds=4, rng=1, refit="1se", progress=False)
    assert refit_1se.best_params == cv.lambda_1se


def test_test_set_scenario_is_labelled_non_realistic(moons):
    X, y, split = moons
    cv = select("rlsc", X, y, split, grid={"lam": [1e-3, 1.0]}, fixed={"kernel": "rbf", "sigma": 0.5},
                scenario="test-set", rng=0, progress=False)
    assert (cv.results["scenario"] == "test-set (non-realistic)").all()
    assert not cv.realistic and "NON-REALISTIC" in cv.summary()
    sel = cv.results[cv.results.fold == "all"]
    assert cv.test_error == pytest.approx(sel["value"].min())


def test_validation_scenario(moons):
    X, y, split = moons
    cv = select("rlsc", X, y, split, grid={"lam": [1e-3, 1.0]}, fixed={"kernel": "rbf", "sigma": 0.5},
                scenario="validation", rng=0, progress=False)
    assert set(cv.results[cv.results.fold == "all"]["metric"]) == {"validation_error"}
    with pytest.raises(ValueError, match="validation"):
        select("rlsc", X, y, Indices(split.labeled, split.unlabeled, split.test), scenario="validation",
               progress=False)


def test_path_methods_share_one_fit_and_agree_with_single_fits(moons):
    X, y, split = moons
    grid = {"lam": [1e-3, 1e-1, 10.0]}
    cv = select("rlsc", X, y, split, grid=grid, fixed={"kernel": "rbf", "sigma": 0.5}, n_folds=4, rng=0,
                progress=False)
    from toolkit.rls import rlsc

    for lam in grid["lam"]:
        fit = rlsc(X[split.labeled], y[split.labeled], kernel="rbf", sigma=0.5, lam=lam)
        err = np.mean(fit.predict(X[split.test]) != y[split.test]) * 100
        if lam == cv.best_params["lam"]:
            assert cv.test_error == pytest.approx(err)


def test_sigma_scale_and_kernel_grid(moons):
    X, y, split = moons
    cv = select("rlsc", X, y, split, grid={"lam": [0.01, 1.0], "sigma_scale": [0.1, 0.5]}, fixed={"kernel": "rbf"},
                n_folds=3, rng=0, progress=False)
    assert {json.loads(p)["sigma_scale"] for p in cv.results["params"]} == {0.1, 0.5}


def test_cached_kernel_reuses_matrices():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    k = CachedKernel("rbf", sigma=1.0)
    K1 = k(X, X)
    K1[0, 0] = 99.0  # a caller modifying its copy must not corrupt the cache
    K2 = k(X.copy(), X.copy())
    assert k.hits == 1 and k.misses == 1 and K2[0, 0] == pytest.approx(1.0)


def test_cached_kernel_hashes_a_frozen_array_once_and_a_writeable_one_every_time(monkeypatch):
    import toolkit.selection._cache as cache

    hashed = []
    real = cache.hashlib.blake2b
    monkeypatch.setattr(cache.hashlib, "blake2b", lambda **kw: hashed.append(1) or real(**kw))
    rng = np.random.default_rng(1)
    frozen = rng.normal(size=(20, 3))
    frozen.setflags(write=False)
    k = CachedKernel("rbf", sigma=1.0)
    k(frozen), k(frozen), k(frozen)
    assert len(hashed) == 1 and k.hits == 2
    # writeable data, or a read-only view of it, may change between two calls: hashed each time,
    # so a change in place is seen
    base = rng.normal(size=(20, 3))
    view = base[:]
    view.setflags(write=False)
    K1 = k(view)
    base[0, 0] += 5.0
    K2 = k(view)
    assert len(hashed) == 3 and not np.allclose(K1, K2)
    np.testing.assert_allclose(K2, CachedKernel("rbf", sigma=1.0)(base.copy()))


def test_parallel_equals_serial(moons):
    X, y, split = moons
    kwargs = dict(grid={"lam": [1e-3, 1.0], "sigma_scale": [0.1, 0.3]}, fixed={"kernel": "rbf"}, n_folds=3, rng=0,
                  progress=False)
    serial = select("rlsc", X, y, split, **kwargs)
    parallel = select("rlsc", X, y, split, n_jobs=2, **kwargs)
    cols = ["params", "fold", "metric", "value"]
    a = serial.results[cols].sort_values(cols[:3]).reset_index(drop=True)
    b = parallel.results[cols].sort_values(cols[:3]).reset_index(drop=True)
    assert a.equals(b)


def test_every_method_is_one_registry_entry():
    for name, method in METHODS.items():
        assert method.name == name and callable(method.fit)
        if method.baseline is not None:
            assert METHODS[method.baseline].family == "supervised"
    assert {"rlsc", "svc"} <= set(available_methods())


def test_a_fixed_parameter_leaves_the_default_grid(moons):
    """Without a grid the method's default one is searched, except what the caller fixes: the caller's value."""
    X, y, split = moons
    sel = select("rlsc", X, y, split, fixed={"kernel": "linear", "lam": 5.0}, n_folds=2, progress=False)
    assert set(sel.results["params"]) == {sel.results["params"].iloc[0]} and '"lam": 5.0' in sel.results["params"].iloc[0]


def test_select_bad_input(moons):
    X, y, split = moons
    with pytest.raises(ValueError, match="Unknown method 'nope'. Valid methods:.*rlsc"):
        select("nope", X, y, split)
    with pytest.raises(ValueError, match="Unknown parameter 'C' for method 'rlsc'. Valid parameters:.*lam"):
        select("rlsc", X, y, split, grid={"C": [1.0]})
    with pytest.raises(ValueError, match="scenario"):
        select("rlsc", X, y, split, scenario="oracle")
    # a parameter both searched and fixed is refused by name (it used to be searched, the fixed value lost)
    with pytest.raises(ValueError, match=r"'grid' and 'fixed' parameters of select both set 'lam'.*\[5.0\]"):
        select("rlsc", X, y, split, grid={"lam": [0.1, 1.0]}, fixed={"kernel": "linear", "lam": 5.0}, n_folds=2,
               progress=False)
    with pytest.raises(ValueError, match="lam"):  # the solver's own message for a value outside its domain
        select("rlsc", X, y, split, grid={"lam": [-1.0]}, fixed={"kernel": "linear"}, n_folds=2, progress=False)
    one_class = Indices(np.flatnonzero(y[:16] > 0)[:3], split.unlabeled, split.test)
    with pytest.raises(ValueError, match=r"labelled rows exactly two classes. Got \[1\]"):
        select("rlsc", X, y, one_class, progress=False)
    tiny = Indices(np.r_[np.flatnonzero(y[:16] > 0)[:2], np.flatnonzero(y[:16] < 0)[:1]], split.unlabeled, split.test)
    with pytest.raises(ValueError, match="labelled points per class"):
        select("rlsc", X, y, tiny, progress=False)
    assert get_method("rlsc") is METHODS["rlsc"]


def test_laplacian_methods_share_the_graph_and_warm_start(moons):
    from toolkit.manifold import laprlsc

    X, y, split = moons
    grid = {"gamma_A": [1e-4, 1e-2], "gamma_I": [0.1, 1.0]}
    fixed = {"kernel": "rbf", "sigma": 0.5, "n_neighbors": 5, "method": "direct"}
    cv = select("laprlsc", X, y, split, grid=grid, fixed=fixed, scenario="test-set", rng=0, progress=False)
    cold = select("laprlsc", X, y, split, grid=grid, fixed=fixed, scenario="test-set", rng=0, progress=False,
                  warm_start=False)
    def errors(sel):                                   # the timing rows (solve_seconds) differ, of course
        return sel.results[sel.results["metric"].str.endswith("_error")]["value"].tolist()

    assert errors(cv) == pytest.approx(errors(cold))   # direct solve: exact
    best = {k: v for k, v in cv.best_params.items() if k not in ("kernel", "sigma")}
    specs, rest = from_flat(best, {"graph": Graph(), "solver": Solver("direct", stop=None)})   # the registry's names
    fit = laprlsc(X[split.labeled], y[split.labeled], X[split.unlabeled], kernel=Kernel("rbf", sigma=0.5), **specs,
                  **rest)
    assert cv.test_error == pytest.approx(np.mean(fit.predict(X[split.test]) != y[split.test]) * 100)



def test_selection_plot_marks_lambda_min_and_1se(moons):
    import matplotlib

    matplotlib.use("Agg")
    X, y, split = moons
    cv = select("rlsc", X, y, split, grid={"lam": [1e-4, 1e-2, 1.0]}, fixed={"kernel": "rbf", "sigma": 0.5},
                n_folds=3, rng=0, progress=False)
    fig = cv.plot()
    labels = [line.get_label() for line in fig.axes[0].get_lines()]
    assert any(label.startswith("lambda_min") for label in labels)
    assert any(label.startswith("lambda_1se") for label in labels)


# ------------------------------------------------------------------------------ one fold assignment, one 1-SE rule
def test_select_folds_are_the_toolkits_stratified_folds(moons):
    """The cv_error of every fold equals the error of a fit on the training part of the toolkit's one
    fold assignment (toolkit._cv.stratified_folds with select's seed), computed here independently."""
    from toolkit._cv import stratified_folds
    from toolkit.kernels import kernel_matrix
    from toolkit.rls import rlsc
    X, y, split = moons
    cv = select("rlsc", X, y, split, grid={"lam": [0.1]}, fixed={"kernel": "rbf", "sigma": 0.5}, n_folds=4, rng=7,
                refit=False, progress=False)
    lab = split.labeled
    fold = stratified_folds(y[lab], 4, 7)
    rows = cv.results.query("metric == 'cv_error'").set_index("fold")["value"]
    for k in range(4):
        train, test = lab[fold != k], lab[fold == k]
        fit = rlsc(X[train], y[train], kernel="rbf", sigma=0.5, lam=0.1)
        assert rows[str(k)] == pytest.approx(100 * np.mean(fit.predict(X[test]) != y[test]))


def test_splitter_deals_the_same_folds_as_select():
    from toolkit._cv import stratified_folds
    y = np.r_[np.zeros(9), np.ones(7), -np.ones(30)].astype(int)
    labeled = np.flatnonzero(y != -1)
    for shuffle, seed in ((True, 3), (False, None)):
        fold = stratified_folds(y[labeled], 3, seed, shuffle=shuffle)
        tests = [te for _, te in SemiSupervisedKFold(3, shuffle=shuffle, random_state=seed).split(None, y)]
        assert [te.tolist() for te in tests] == [labeled[fold == k].tolist() for k in range(3)]
    in_order = [te.tolist() for _, te in SemiSupervisedKFold(3, shuffle=False).split(None, y)]
    assert in_order[0] == [0, 3, 6, 9, 12, 15]                 # each class dealt round-robin in row order


def test_each_selection_owns_its_graph_cache(monkeypatch, moons):
    """L^p is built once per fold (and once for the refit) and shared across the (γ_A, γ_I) grid; a
    second selection builds its own (no module-global cache)."""
    import toolkit.graphs
    X, y, split = moons
    builds = []
    real = toolkit.graphs.build_laplacian          # the one construction of every graph

    def counting(*args, **kwargs):
        builds.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(toolkit.graphs, "build_laplacian", counting)
    kw = dict(grid={"gamma_A": [1e-2, 1e-1], "gamma_I": [0.1, 1.0]}, n_folds=3, rng=0, progress=False,
              fixed={"kernel": "rbf", "sigma": 0.5, "n_neighbors": 5, "method": "newton"})
    first = select("lapsvm", X, y, split, **kw)
    assert len(builds) == 3 + 1
    second = select("lapsvm", X, y, split, **kw)
    assert len(builds) == 2 * (3 + 1)
    assert first.lambda_min == second.lambda_min and first.test_error == second.test_error


def test_lambda_1se_is_glmnets_rule_on_the_fold_means(moons):
    X, y, split = moons
    cv = select("rlsc", X, y, split, grid={"lam": [1e-3, 1e-2, 1e-1, 1.0, 10.0]},
                fixed={"kernel": "rbf", "sigma": 0.5}, n_folds=4, rng=2, refit="1se", progress=False)
    folds = cv.results.query("metric == 'cv_error'")
    by_lam = {json.loads(p)["lam"]: g["value"].to_numpy() for p, g in folds.groupby("params")}
    mean = {lam: v.mean() for lam, v in by_lam.items()}
    se = {lam: v.std(ddof=1) / np.sqrt(v.size) for lam, v in by_lam.items()}
    best = min(sorted(mean), key=lambda lam: mean[lam])                     # ties: any minimiser
    assert mean[cv.lambda_min["lam"]] == pytest.approx(mean[best])
    within = [lam for lam in mean if mean[lam] <= mean[cv.lambda_min["lam"]] + se[cv.lambda_min["lam"]] + 1e-12]
    assert cv.lambda_1se["lam"] == max(within)                               # the most regularised
    assert cv.best_params == cv.lambda_1se


def test_one_combination_scored_on_validation_is_fitted_once(monkeypatch, moons):
    """No choice to make (the papers' published parameters, scenario validation): the selection fit
    and the refit are the same model, so it is fitted once and both rows come from it."""
    import toolkit.rls
    X, y, split = moons
    calls = []
    real = toolkit.rls.rlsc

    def counting(*args, **kwargs):
        calls.append(kwargs.get("lam"))
        return real(*args, **kwargs)

    monkeypatch.setattr(toolkit.rls, "rlsc", counting)
    cv = select("rlsc", X, y, split, grid={}, fixed={"kernel": "rbf", "sigma": 0.5, "lam": 0.1},
                scenario="validation", rng=0, progress=False)
    assert calls == [0.1]
    fit = real(X[split.labeled], y[split.labeled], kernel="rbf", sigma=0.5, lam=0.1)
    v = split.validation
    rows = cv.results.set_index(["fold", "metric"])["value"]
    assert rows[("all", "validation_error")] == rows[("refit", "validation_error")] == pytest.approx(
        100 * np.mean(fit.predict(X[v]) != y[v]))
    assert cv.test_error == pytest.approx(100 * np.mean(fit.predict(X[split.test]) != y[split.test]))
    seconds = cv.results.groupby("fold")["seconds"].max()
    assert seconds["all"] == 0.0 and seconds["refit"] > 0        # one fit, its time counted once
    calls.clear()
    select("rlsc", X, y, split, grid={"lam": [0.1, 1.0]}, fixed={"kernel": "rbf", "sigma": 0.5},
           scenario="validation", rng=0, progress=False)
    assert len(calls) == 2                    # one fit for the whole λ grid (one eigendecomposition), the refit


@pytest.mark.parametrize("name", sorted(METHODS))
def test_every_registered_method_runs_through_select(name, moons):
    """Each adapter with the kernel select hands it (a CachedKernel callable) and its default grid's
    middle values: a model clearly better than chance on two moons, with its refit recorded."""
    X, y, split = moons
    m = get_method(name)
    grid = {k: [v[len(v) // 2]] for k, v in m.grid.items()}
    fixed = {"kernel": "rbf", "sigma": 0.5}
    if m.family in ("laplacian", "path"):
        fixed["n_neighbors"] = 5
    if name == "s2rlsc":
        fixed["restarts"] = 2
    cv = select(name, X, y, split, grid=grid, fixed=fixed, n_folds=3, rng=0, progress=False)
    assert cv.test_error < 30.0, (name, cv.test_error)
    assert set(cv.results.query("fold == 'refit'")["metric"]) >= {"test_error", "unlabeled_error"}


@pytest.mark.parametrize("stop", ["validation", "mixed"])
def test_select_hands_the_validation_points_to_a_validation_stopping_rule(stop, moons):
    """PCG with Melacci & Belkin's validation or mixed check reads V inside the solver: select's refit
    is exactly lapsvm(..., stop=..., validation=(X_V, y_V)) on L ∪ U (Tables 6-8's PCG rows)."""
    from toolkit.manifold import lapsvm
    from toolkit.selection import CachedKernel
    X, y, split = moons
    params = dict(gamma_A=1e-2, gamma_I=1.0, n_neighbors=5, method="pcg", stop=stop)
    sel = select("lapsvm", X, y, split, grid={}, fixed={"kernel": "rbf", "sigma": 0.5, **params},
                 scenario="validation", rng=0, progress=False)
    v = split.validation
    direct = lapsvm(X[split.labeled], y[split.labeled], X[split.unlabeled], kernel=CachedKernel("rbf", sigma=0.5),
                    validation=(X[v], y[v]), gamma_A=1e-2, gamma_I=1.0, graph=Graph(n_neighbors=5),
                    solver=Solver("pcg", stop=stop))
    np.testing.assert_array_equal(sel.model.alpha, direct.alpha)
    assert sel.model.stop == direct.stop and sel.model.n_iter == direct.n_iter
    assert len(direct.history["check_error_V"]) >= 1                  # the rule read V at its checks
    no_v = Indices(split.labeled, split.unlabeled, split.test)
    with pytest.raises(ValueError, match="'stop' parameter of lapsvm"):
        select("lapsvm", X, y, no_v, grid={}, fixed={"kernel": "rbf", "sigma": 0.5, **params}, scenario="test-set",
               rng=0, progress=False)


def test_multiclass_methods_select_on_more_than_two_classes():
    """SVC and the Laplacian family are one-vs-all / multi-class: select runs them on three classes
    (Melacci & Belkin's COIL20 and USPST); the two-class solvers say they are two-class."""
    from sklearn.datasets import make_blobs
    X, y = make_blobs(150, centers=[[-4, 0], [0, 4], [4, 0]], cluster_std=0.8, random_state=0)
    lab = np.r_[[np.flatnonzero(y == c)[:4] for c in range(3)]].ravel()
    rest = np.setdiff1d(np.arange(150), lab)
    split = Indices(lab, rest[:90], rest[90:], None)
    for name in ("svc", "lapsvm", "laprlsc", "lapsvm_dual"):
        m = get_method(name)
        grid = {k: [v[len(v) // 2]] for k, v in m.grid.items()}
        cv = select(name, X, y, split, grid=grid, fixed={"kernel": "rbf", "sigma": 2.0}, scenario="test-set",
                    rng=0, progress=False)
        assert cv.test_error < 10.0, (name, cv.test_error)
        assert set(np.unique(cv.model.predict(X[rest]))) <= {0, 1, 2}
    with pytest.raises(ValueError, match=r"exactly two classes \(rlsc is a two-class solver\)"):
        select("rlsc", X, y, split, grid={"lam": [1.0]}, scenario="test-set", rng=0, progress=False)


def test_svc_without_intercept_matches_liblinear_and_brute_force():
    """svc(intercept=False) solves the hinge-loss SVM with no bias: its decision values equal
    liblinear's dual coordinate descent (LinearSVC, loss="hinge", fit_intercept=False) on a
    linear kernel, its primal objective is not beaten by a direct minimisation of the primal, and
    the default (intercept=True) stays LIBSVM's SVC with a bias."""
    import warnings

    from scipy.optimize import minimize
    from sklearn.svm import SVC, LinearSVC

    from toolkit.transductive._svm import svm_dual_without_intercept

    rng = np.random.default_rng(4)
    y = np.where(np.arange(25) < 17, 1.0, -1.0)          # lopsided, as Gieseke et al.'s draws often are
    X = rng.normal(size=(25, 40))
    X[:, 0] += 2.5 * y
    Xt = rng.normal(size=(60, 40))
    kernel = CachedKernel(kernel="linear")
    for C in (2.0 ** -6, 1.0, 2.0 ** 10):
        model = get_method("svc").fit(X, y, X[:0], kernel=kernel, rng=0, C=C, intercept=False)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = LinearSVC(C=C, loss="hinge", fit_intercept=False, dual=True, tol=1e-12,
                            max_iter=10 ** 6).fit(X, y)
        np.testing.assert_allclose(model.decision_function(Xt), ref.decision_function(Xt),
                                   rtol=1e-6, atol=1e-6 * np.abs(ref.decision_function(Xt)).max())
        alpha, info = svm_dual_without_intercept(X @ X.T, y, C)
        w = X.T @ (alpha * y)

        def primal(v):
            return 0.5 * v @ v + C * np.maximum(0.0, 1.0 - y * (X @ v)).sum()

        direct = minimize(primal, np.zeros(40), method="Powell", options={"xtol": 1e-10, "ftol": 1e-12,
                                                                          "maxfev": 200000})
        assert primal(w) <= direct.fun + 1e-6 * max(1.0, abs(direct.fun))
        assert info["duality_gap"] <= 1e-6 * max(1.0, primal(w))
    with_bias = get_method("svc").fit(X, y, X[:0], kernel=kernel, rng=0, C=1.0)
    ref = SVC(C=1.0, kernel="linear").fit(X, y)
    np.testing.assert_allclose(with_bias.decision_function(Xt), ref.decision_function(Xt), rtol=1e-6, atol=1e-8)
    with pytest.raises(TypeError, match="'intercept' parameter of svc must be a bool. Got 'no'"):
        get_method("svc").fit(X, y, X[:0], kernel=kernel, rng=0, intercept="no")


def test_svm_dual_without_intercept_warns_when_it_stops_at_max_iter():
    from toolkit import ConvergenceWarning
    from toolkit.transductive._svm import svm_dual_without_intercept

    rng = np.random.default_rng(5)
    X = rng.normal(size=(30, 5))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=30) > 0, 1.0, -1.0)
    with pytest.warns(ConvergenceWarning, match="max_iter=1 with duality gap"):
        alpha, info = svm_dual_without_intercept(X @ X.T, y, 10.0, max_iter=1)
    assert info["status"] == 1 and info["duality_gap"] > 0
