"""The specs (toolkit.specs) and the one release of the old flat keywords.

Each spec checks its fields and names the one it refuses; the solvers give the same numbers through
a spec and through the flat keywords it replaces (which warn with the new spelling); an old keyword
beside its spec is refused; the estimators' options and fit arguments reach the function.
"""
from __future__ import annotations

import dataclasses
import inspect
import warnings

import numpy as np
import pytest

import toolkit
from toolkit.estimators import LapRLSC, LapSVM
from toolkit.graphs import laplacian
from toolkit.specs import FLAT_KEYWORDS, Graph, Kernel, LocalSearch, LowRank, Solver, from_flat, translate


@pytest.fixture(scope="module")
def moons():
    rng = np.random.default_rng(0)
    t = rng.uniform(0, np.pi, 80)
    X = np.r_[np.c_[np.cos(t[:40]), np.sin(t[:40])], np.c_[1 - np.cos(t[40:]), 0.5 - np.sin(t[40:])]]
    X += 0.05 * rng.normal(size=X.shape)
    y = np.r_[-np.ones(40), np.ones(40)]
    lab = np.r_[0, 1, 40, 41]
    unl = np.setdiff1d(np.arange(80), lab)
    return X, y, lab, unl


# ---- the specs ---------------------------------------------------------------------------------
def test_specs_are_frozen_hashable_and_equal_by_value():
    for spec in (Kernel("rbf", sigma=0.5), Graph(n_neighbors=6), Solver("newton"), LowRank(20), LocalSearch("mu+nu")):
        assert hash(spec) == hash(dataclasses.replace(spec)) and spec == dataclasses.replace(spec)
        with pytest.raises(dataclasses.FrozenInstanceError):
            spec.__setattr__(dataclasses.fields(spec)[0].name, None)
    assert Graph(n_neighbors=6) != Graph(n_neighbors=7)
    assert len({Graph(), Graph(), Graph(power=1)}) == 2


@pytest.mark.parametrize("make, name", [
    (lambda: Kernel("sigmoid"), "'name'"), (lambda: Kernel(sigma=-1.0), "'sigma'"), (lambda: Kernel(sigma="median"), "'sigma'"),
    (lambda: Kernel(degree=0), "'degree'"), (lambda: Graph(n_neighbors=0), "'n_neighbors'"),
    (lambda: Graph(weight="gauss"), "'weight'"), (lambda: Graph(power=0), "'power'"), (lambda: Graph(normalized=1), "'normalized'"),
    (lambda: Graph(metric="jaccard"), "'metric'"), (lambda: Solver("lbfgs"), "'method'"), (lambda: Solver(tol=-1.0), "'tol'"),
    (lambda: Solver(dtype="float16"), "'dtype'"), (lambda: Solver(stop=["stability"]), "'stop'"),
    (lambda: LowRank(0), "'n_basis'"), (lambda: LowRank(10, basis="random"), "'basis'"),
    (lambda: LocalSearch("ga"), "'kind'"), (lambda: LocalSearch(restarts=0), "'restarts'"),
])
def test_a_spec_names_the_field_it_refuses(make, name):
    with pytest.raises((TypeError, ValueError), match=name):
        make()


def test_graph_laplacian_is_the_building_block():
    X = np.random.default_rng(1).normal(size=(40, 3))
    spec = Graph(n_neighbors=5, weight="binary", normalized=False, power=2)
    expected = laplacian(X, n_neighbors=5, weight="binary", normalized=False, power=2)
    assert (spec.laplacian(X) != expected).nnz == 0


def test_from_flat_gathers_the_flat_keywords_of_each_spec():
    specs, rest = from_flat({"n_neighbors": 6, "laplacian_power": 1, "method": "newton", "gamma_I": 0.1, "n_basis": None},
                            {"graph": Graph(), "solver": Solver(), "low_rank": None})
    assert specs == {"graph": Graph(n_neighbors=6, power=1), "solver": Solver("newton"), "low_rank": None}
    assert rest == {"gamma_I": 0.1}


def test_translate_refuses_a_keyword_the_function_never_took():
    with pytest.raises(TypeError, match="unexpected keyword argument 'neighbours'"):
        translate("lapsvm", {"neighbours": 3}, FLAT_KEYWORDS, {})


# ---- the functions: one model through the spec and through the old keywords ------------------------
CASES = [
    ("lapsvm", dict(kernel=Kernel("rbf", sigma=0.4), graph=Graph(n_neighbors=6, power=1), solver="newton", gamma_A=1e-2),
     dict(sigma=0.4, neighbors=6, degree=1, method="newton", gamma_A=1e-2),
     "kernel=Kernel('rbf', sigma=0.4); graph=Graph(n_neighbors=6, power=1); solver=Solver(method='newton')"),
    ("laprlsc", dict(kernel=Kernel("rbf", sigma=0.4), solver="pcg", low_rank=LowRank(20), rng=0),
     dict(sigma=0.4, method="pcg", n_basis=20, rng=0),
     "solver=Solver(stop=None)"),                      # laprlsc's own default solver: no early stopping
    ("lapsvm_dual", dict(kernel=Kernel("rbf", sigma=0.4), graph=Graph(weight="binary"), gamma_A=1e-2),
     dict(sigma=0.4, weight="binary", gamma_A=1e-2), "graph=Graph(weight='binary')"),
    ("laplacian_svm_path", dict(kernel=Kernel("rbf", sigma=0.4), graph=Graph(n_neighbors=5, weight="binary", power=1)),
     dict(sigma=0.4, neighbors=5), "graph=Graph(n_neighbors=5, weight='binary', power=1)"),   # the path's own graph
    ("s2rlsc", dict(kernel=Kernel("rbf", sigma=0.4), search=LocalSearch(restarts=2), rng=0),
     dict(kernel="rbf", sigma=0.4, restarts=2, rng=0), "search=LocalSearch(restarts=2)"),
]


def _numbers(result):
    for name in ("alpha", "coefficients", "breakpoints"):
        if hasattr(result, name):
            return np.asarray(getattr(result, name))
    return np.asarray(result.svm.breakpoints)


@pytest.mark.parametrize("name, new, old, spelling", CASES, ids=[c[0] for c in CASES])
def test_the_old_keywords_give_the_same_model_with_a_future_warning(moons, name, new, old, spelling):
    X, y, lab, unl = moons
    function = getattr(toolkit, name)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        a = function(X[lab], y[lab], X[unl], **new)
    with pytest.warns(FutureWarning, match="deprecated") as caught:
        b = function(X[lab], y[lab], X[unl], **old)
    assert spelling in str(caught[0].message)
    assert caught[0].filename == __file__                # the warning points at the caller's line
    np.testing.assert_array_equal(_numbers(a), _numbers(b))


def test_an_old_keyword_beside_its_spec_is_refused(moons):
    X, y, lab, unl = moons
    with pytest.raises(ValueError, match="neighbors=3 and graph= both set the graph"):
        toolkit.lapsvm(X[lab], y[lab], X[unl], graph=Graph(), neighbors=3)
    with pytest.raises(ValueError, match="restarts=3 and search= both set the search"):
        toolkit.s2rlsc(X[lab], y[lab], X[unl], search=LocalSearch(), restarts=3)


def test_a_given_laplacian_is_the_graph_argument(moons):
    X, y, lab, unl = moons
    L = laplacian(np.r_[X[lab], X[unl]], n_neighbors=6, weight="heat", power=2)
    a = toolkit.lapsvm(X[lab], y[lab], X[unl], kernel=Kernel("rbf", sigma=0.4), graph=L, solver="newton")
    with pytest.warns(FutureWarning, match=r"graph=L \(L: the laplacian_matrix\)"):
        b = toolkit.lapsvm(X[lab], y[lab], X[unl], kernel=Kernel("rbf", sigma=0.4), laplacian_matrix=L, method="newton")
    np.testing.assert_array_equal(a.alpha, b.alpha)
    with pytest.raises(TypeError, match="'graph' parameter of lapsvm must be a Graph"):
        toolkit.lapsvm(X[lab], y[lab], X[unl], graph="knn")


@pytest.mark.parametrize("name", ["lapsvm", "laprlsc", "lapsvm_dual", "laplacian_svm_path", "cv_laplacian_svm_path",
                                  "s2rlsc", "mmc"])
def test_the_functions_take_at_most_twenty_parameters(name):
    parameters = inspect.signature(getattr(toolkit, name)).parameters.values()
    assert sum(p.kind is not p.VAR_KEYWORD for p in parameters) <= 20


# ---- the estimators: flat hyper-parameters, options, fit arguments ---------------------------------
def test_estimator_options_and_fit_arguments_reach_the_function(moons):
    X, y, lab, unl = moons
    target = np.full(len(y), np.nan)
    target[lab] = y[lab]
    validation = (X[unl[:10]], y[unl[:10]])
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        est = LapSVM(sigma=0.4, stop="validation", options={"preconditioner": "kernel"}).fit(
            X, target, validation=validation)
    direct = toolkit.lapsvm(X[lab], y[lab], X[unl], kernel=Kernel("rbf", sigma=0.4),
                            solver=Solver(stop="validation", preconditioner="kernel"), validation=validation)
    np.testing.assert_array_equal(est.result_.alpha, direct.alpha)
    with pytest.warns(FutureWarning, match=r"options=\{'preconditioner': 'kernel'\}; fit\(X, y, validation=\.\.\.\)"):
        old = LapSVM(sigma=0.4, stop="validation", validation=validation, preconditioner="kernel").fit(X, target)
    np.testing.assert_array_equal(old.result_.alpha, direct.alpha)
    with pytest.raises(ValueError, match="'options' parameter of LapRLSC must be a dict with keys among"):
        LapRLSC(options={"max_iterations": 3}).fit(X, target)


def test_estimators_take_at_most_twenty_four_live_parameters():
    for cls in (LapSVM, LapRLSC):
        live = [p for p in inspect.signature(cls).parameters.values() if p.default != "deprecated"]
        assert len(live) <= 24, cls.__name__


# ---- one graph builder --------------------------------------------------------------------------------
def test_the_solver_the_path_and_the_selection_build_the_same_graph_ties_included():
    """lapsvm (which once read the graph off its RBF kernel for many features), the path and the registry
    behind select build L^p by the one construction: the same matrix bit for bit, on points with ties."""
    from toolkit._methods import _laplacian_of
    from toolkit.graphs import POWER_MAX_DENSITY

    rng = np.random.default_rng(3)
    X = rng.integers(0, 3, size=(60, 20)).astype(float)         # 20 features: many equal distances
    y = np.where(X[:, 0] + X[:, 1] > 2, 1.0, -1.0)
    lab = np.r_[np.flatnonzero(y > 0)[:3], np.flatnonzero(y < 0)[:3]]
    unl = np.setdiff1d(np.arange(60), lab)
    graph = Graph(n_neighbors=5, power=2)
    L = graph.laplacian(np.r_[X[lab], X[unl]], max_density=POWER_MAX_DENSITY)
    np.testing.assert_array_equal(_dense(_laplacian_of(X[lab], X[unl], graph, None)), _dense(L))
    kernel = Kernel("rbf", sigma=2.0)
    built = toolkit.lapsvm(X[lab], y[lab], X[unl], kernel=kernel, graph=graph, solver="newton")
    given = toolkit.lapsvm(X[lab], y[lab], X[unl], kernel=kernel, graph=L, solver="newton")
    assert built.params["neighbor_search"] != "kernel"
    np.testing.assert_array_equal(built.alpha, given.alpha)
    path_graph = Graph(n_neighbors=5, weight="binary", power=1)
    path = toolkit.laplacian_svm_path(X[lab], y[lab], X[unl], kernel=kernel, graph=path_graph)
    np.testing.assert_array_equal(_dense(path.laplacian_matrix), _dense(path_graph.laplacian(np.r_[X[lab], X[unl]])))


def _dense(L):
    return L.toarray() if hasattr(L, "toarray") else np.asarray(L @ np.eye(L.shape[0]))


# ---------------------------------------------------------------- the registry's flat vocabulary
def test_the_registry_reads_its_parameters_off_the_solvers_signatures():
    """A method's parameters are its solver's keyword parameters, each spec spelled as the flat keywords
    of its fields, less what the selection supplies: a parameter added to a solver reaches the registry."""
    from toolkit._methods import METHODS, SUPPLIED, signature_params

    lapsvm_params = METHODS["lapsvm"].valid_params
    graph_fields = {f.name for f in dataclasses.fields(Graph)}
    solver_fields = {f.name for f in dataclasses.fields(Solver)}
    assert {FLAT_KEYWORDS[k][1] for k in lapsvm_params if FLAT_KEYWORDS.get(k, ("",))[0] == "graph"} == graph_fields
    assert {FLAT_KEYWORDS[k][1] for k in lapsvm_params if FLAT_KEYWORDS.get(k, ("",))[0] == "solver"} == solver_fields
    assert {"n_neighbors", "laplacian_power", "n_basis", "basis", "gamma_A", "gamma_I"} <= set(lapsvm_params)
    assert not {"neighbors", "degree", "graph", "solver", "low_rank"} & set(lapsvm_params)
    for name, method in METHODS.items():
        if method.solver is None:
            continue
        module, function = method.solver.split(":")
        signature = inspect.signature(getattr(__import__(module, fromlist=[function]), function)).parameters
        plain = {p for p, v in signature.items() if v.kind is v.KEYWORD_ONLY and p not in SUPPLIED
                 and p not in ("graph", "solver", "low_rank", "search") and p not in method.exclude}
        assert plain <= set(method.valid_params), name
        assert method.valid_params[4:] == signature_params(method.solver, method.exclude, method.extra)
    assert METHODS["tsvm"].valid_params[-1] == "C_star_u" and "C_star" not in METHODS["tsvm"].valid_params


def test_the_previous_releases_flat_names_are_read_with_a_future_warning(moons):
    """select's grid and fixed, and the experiment files, read ``neighbors`` / ``degree`` as ``n_neighbors`` /
    ``laplacian_power`` for one release (a FutureWarning names the new name); both at once are refused."""
    from toolkit._methods import current_names
    from toolkit.selection import Indices, select

    X, y, lab, unl = moons
    rows = np.r_[lab, unl]
    split = Indices(np.arange(4), np.arange(4, 60), np.arange(60, 80))
    fixed = {"kernel": "rbf", "sigma": 0.3, "gamma_A": 1e-2, "gamma_I": 1.0, "method": "direct"}
    new = select("laprlsc", X[rows], y[rows], split, grid={"n_neighbors": [4, 6]},
                 fixed={**fixed, "laplacian_power": 1}, rng=0, progress=False, n_folds=2, refit=False)
    with pytest.warns(FutureWarning, match=r"select: grid: the parameter name 'neighbors' is deprecated.*'n_neighbors'"):
        old = select("laprlsc", X[rows], y[rows], split, grid={"neighbors": [4, 6]},
                     fixed={**fixed, "laplacian_power": 1}, rng=0, progress=False, n_folds=2, refit=False)
    assert old.results.drop(columns="seconds").equals(new.results.drop(columns="seconds")) and len(new.results) == 4
    with pytest.warns(FutureWarning, match="'degree' is deprecated"):
        assert current_names({"degree": 1, "gamma_I": 0.1}, "here") == {"laplacian_power": 1, "gamma_I": 0.1}
    with pytest.raises(ValueError, match="'neighbors' and 'n_neighbors' are the same parameter"):
        current_names({"neighbors": 4, "n_neighbors": 6}, "here")


def test_an_experiment_file_with_the_previous_names_loads_as_with_the_current_ones(tmp_path):
    from toolkit.reports import load_experiment
    from toolkit.reports._experiments import experiments_dir

    text = (experiments_dir() / "quick.toml").read_text(encoding="utf-8")
    assert "n_neighbors = 6, laplacian_power = 1" in text
    old = tmp_path / "old.toml"
    old.write_text(text.replace("n_neighbors = 6, laplacian_power = 1", "neighbors = 6, degree = 1"), encoding="utf-8")
    with pytest.warns(FutureWarning, match="'neighbors', 'degree' are deprecated"):
        before = load_experiment(old)
    now = load_experiment(experiments_dir() / "quick.toml")
    assert [c.parameters for c in before.configurations] == [c.parameters for c in now.configurations]


@pytest.mark.parametrize("name", ["S2RLSC", "TSVM", "LapSVMPath"])
def test_a_callback_is_an_argument_of_fit_and_the_old_parameter_warns(name, moons):
    """A callback is a live object of one fit: ``fit(X, y, callback=...)``; the parameter of the previous
    release still reaches the function for one release, with a FutureWarning, and both at once are refused."""
    import toolkit.estimators as E

    X, y, lab, unl = moons
    rows = np.r_[lab, unl]
    target = np.full(len(rows), np.nan)
    target[:len(lab)] = y[lab]
    params = {"S2RLSC": dict(kernel="rbf", sigma=0.5, restarts=1, random_state=0), "TSVM": dict(kernel="rbf", sigma=0.5),
              "LapSVMPath": dict(sigma=0.5)}[name]
    calls = []
    new = getattr(E, name)(**params).fit(X[rows], target, callback=lambda *a, **k: calls.append(1))
    assert calls, f"{name}.fit(callback=...) never called it"
    n_new = len(calls)
    with pytest.warns(FutureWarning, match=r"callback is deprecated.*fit\(X, y, callback=\.\.\.\)"):
        old = getattr(E, name)(**params, callback=lambda *a, **k: calls.append(1)).fit(X[rows], target)
    assert len(calls) == 2 * n_new
    np.testing.assert_array_equal(new.predict(X[unl]), old.predict(X[unl]))
    with pytest.raises(ValueError, match="give it to fit alone"):
        with pytest.warns(FutureWarning):
            getattr(E, name)(**params, callback=print).fit(X[rows], target, callback=print)


def test_mmc_takes_its_callback_in_fit():
    from toolkit.estimators import MMC

    X = np.r_[np.random.default_rng(0).normal(-3, 1, (20, 2)), np.random.default_rng(1).normal(3, 1, (20, 2))]
    calls = []
    MMC(random_state=0, restarts=1).fit(X, callback=lambda *a, **k: calls.append(1))
    assert calls
    with pytest.warns(FutureWarning, match=r"fit\(X, callback=\.\.\.\)"):
        MMC(random_state=0, restarts=1, callback=lambda *a, **k: calls.append(1)).fit(X)
