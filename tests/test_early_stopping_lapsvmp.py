"""The data-based checks of Melacci & Belkin (2011, §4.1, Algorithms 2-3) against LapSVMp v0.2.

``lapsvmp_stop`` below is a line-by-line transcription of the goal condition of LapSVMp's PCG
(``lapsvmp_v02/classifiers/lapsvmp.m`` of viggin/domain-adaptation-toolbox at c04dd84, lines 112-126
for the defaults and 491-509 for the checks, ``CgStopType`` 1-3); the rules of
:mod:`toolkit.early_stopping` must stop at the same iteration on the same sequence of decisions and
validation outcomes. The last test reruns the experiment's USPST(B) "lapsvm (PCG mixed)" configuration
on three splits and compares its iteration counts with LapSVMp's stored ones.
"""
import csv
import math
from pathlib import Path

import numpy as np
import pytest

from toolkit.early_stopping import (MixedCheck, Progress, StabilityCheck, ValidationCheck, default_period,
                                    start_monitor)
from toolkit.specs import Graph, Kernel, Solver, from_flat

ROOT = Path(__file__).resolve().parents[1]


def matlab_round(x):
    return math.floor(x + 0.5)          # MATLAB's round for x >= 0: halves away from zero


def lapsvmp_stop(stop_type, decisions, correct, v, n, max_iter):
    """The iteration at which LapSVMp's PCG stops (``max_iter`` if no check fires).

    ``decisions[t - 1]``: sign f on U after iteration t (``yfx_unlabeled``); ``correct[t - 1]``: the
    number of validation points classified correctly (``nnz(sign(data.Kv*alpha+b)==data.Yv)``).
    """
    u = len(decisions[0])
    stop_iter = matlab_round(math.sqrt(n) / 2)                      # CgStopIter = round(sqrt(n)/2)
    param = {1: 0.015, 2: 1 / v, 3: [1 / v, 0.015]}[stop_type]       # CgStopParam defaults
    valerr_prev = 1
    yfx_unlabeled_prev = np.zeros(u)                                 # false(u,1)
    for t in range(1, max_iter + 1):
        if (t - 1) % stop_iter == stop_iter - 1:                     # mod(t-1,CgStopIter)==(CgStopIter-1)
            if stop_type == 1:
                yfx_unlabeled = decisions[t - 1]
                diff_unlabeled = 1 - np.count_nonzero(yfx_unlabeled == yfx_unlabeled_prev) / u
                if diff_unlabeled < param:
                    return t
                yfx_unlabeled_prev = yfx_unlabeled
            elif stop_type == 2:
                valerr = 1 - correct[t - 1] / v
                if valerr > (valerr_prev - param):
                    return t
                valerr_prev = valerr
            else:
                valerr = 1 - correct[t - 1] / v
                yfx_unlabeled = decisions[t - 1]
                diff_unlabeled = 1 - np.count_nonzero(yfx_unlabeled == yfx_unlabeled_prev) / u
                if valerr > (valerr_prev - param[0]) and diff_unlabeled < param[1]:
                    return t
                valerr_prev = valerr
                yfx_unlabeled_prev = yfx_unlabeled
    return max_iter


def toolkit_stop(rule, decisions, correct, v, n, max_iter):
    """The iteration at which a toolkit rule stops on the same sequence, as PCG drives it."""
    mon = start_monitor(rule, n, v)
    for t in range(1, max_iter + 1):
        chk = mon.check(Progress(t, decisions=lambda: decisions[t - 1],
                                 validation_error=lambda: float(np.mean(np.arange(v) >= correct[t - 1]))))
        if chk is not None and chk.stop:
            return t
    return max_iter


def random_run(seed, u=300, v=50, max_iter=200):
    """Decisions that settle with a few flips per iteration, and a validation count that drifts."""
    rng = np.random.default_rng(seed)
    d = np.where(rng.random(u) < 0.5, 1.0, -1.0)
    flips = rng.uniform(0.002, 0.03)
    decisions, correct, c = [], [], int(rng.integers(20, 35))
    for t in range(max_iter):
        d = np.where(rng.random(u) < flips * math.exp(-t / 60), -d, d)
        c = int(np.clip(c + rng.choice([-1, 0, 1, 1]), 0, v))
        decisions.append(d.copy())
        correct.append(c)
    return decisions, correct


def test_period_rounds_halves_away_from_zero_as_lapsvmp():
    """θ = round(√n / 2) with MATLAB's round: n = 25 gives 3 (Python's round(2.5) = 2), 81 gives 5."""
    assert [default_period(n) for n in (1, 9, 25, 49, 81, 169, 1455, 1409)] == [1, 2, 3, 4, 5, 7, 19, 19]
    for n in range(1, 3000):
        assert default_period(n) == max(1, matlab_round(math.sqrt(n) / 2))


@pytest.mark.parametrize("stop_type, rule", [(1, StabilityCheck()), (2, ValidationCheck()), (3, MixedCheck())])
@pytest.mark.parametrize("seed", range(40))
def test_rules_stop_where_lapsvmp_stops(stop_type, rule, seed):
    """On random, deterministic runs every check stops at LapSVMp's iteration (n = 81: θ = 5)."""
    decisions, correct = random_run(seed)
    args = (decisions, correct, 50, 81, len(decisions))
    assert toolkit_stop(rule, *args) == lapsvmp_stop(stop_type, *args)


def test_mixed_check_moves_both_references_at_every_check():
    """LapSVMp's CgStopType = 3 updates d_old and err_old at every check that does not stop, whichever
    condition held. Checks (θ = 1) with u = 100 decisions and |V| = 10:

    t = 1: first check, validation 5/10 correct: go on;
    t = 2: 1 decision changed (stable) but validation improves to 7/10: go on; d_old <- d_2;
    t = 3: 1 more decision changed (1 % against d_2; 2 % against d_1) and validation 7/10: stop.

    Running the two checks side by side (each reference moving only when its own condition fails) keeps
    d_1 at t = 2 and compares d_3 with it (2 % changed): it would go on.
    """
    d1 = np.ones(100)
    d2 = d1.copy(); d2[0] = -1
    d3 = d2.copy(); d3[1] = -1
    decisions, correct = [d1, d2, d3, d3], [5, 7, 7, 7]
    args = (decisions, correct, 10, 4, 4)                    # n = 4: θ = 1
    assert lapsvmp_stop(3, *args) == 3
    mon = start_monitor(MixedCheck(), 4, 10)
    checks = [mon.check(Progress(t, decisions=d, validation_error=1 - c / 10))
              for t, (d, c) in enumerate(zip(decisions, correct), 1)]
    assert [c.stop for c in checks[:3]] == [False, False, True]
    assert checks[2].value == pytest.approx(0.01)


def test_validation_check_in_lapsvmp_arithmetic():
    """|V| = 50: from 46 to 47 correct is an improvement of one example, which LapSVMp's
    ``1 - 47/50 > (1 - 46/50) - 1/50`` rounds to none (it stops); ``exact=True`` counts it."""
    assert (1 - 47 / 50) > (1 - 46 / 50) - 1 / 50
    for exact, stops in ((False, True), (True, False)):
        mon = ValidationCheck(period=1, exact=exact).monitor(100, n_validation=50)
        assert mon.check(Progress(1, validation_error=4 / 50)).stop is False
        assert mon.check(Progress(2, validation_error=3 / 50)).stop is stops
    # an improvement of one example that rounds well (35 -> 36 correct) counts either way
    for exact in (False, True):
        mon = ValidationCheck(period=1, exact=exact).monitor(100, n_validation=50)
        assert [mon.check(Progress(t, validation_error=e)).stop for t, e in ((1, 0.3), (2, 0.28))] == [False, False]
    with pytest.raises(TypeError, match="'exact' parameter of ValidationCheck"):
        ValidationCheck(exact=1)


def peer_iterations(task, method):
    path = ROOT / "notebooks" / "experiments" / "peers" / "lapsvmp_melacci2011_splits.csv"
    with open(path, newline="") as fh:
        return {int(r["split"]): float(r["value"]) for r in csv.DictReader(fh)
                if r["task"].startswith(task) and r["method"] == method and r["metric"] == "n_iter"}


def test_uspst_b_mixed_check_stops_where_lapsvmp_stops(mirror_dir, monkeypatch):
    """melacci2011.toml's USPST(B) "lapsvm (PCG mixed)" (Table 10's parameters, P = diag(1, K), no bias) on
    splits 1, 8 and 11, where the two checks side by side stopped one check later than LapSVMp
    (95 / 95 / 133 against 57 / 76 / 114): the iteration counts are LapSVMp's stored ones."""
    import toolkit
    from toolkit.data import cv_splits, load
    from toolkit.reports import load_experiment

    monkeypatch.setenv("TOOLKIT_DATA_MIRROR", str(mirror_dir.resolve()))
    method = "lapsvm (PCG mixed)"
    (config,) = [c for c in load_experiment("melacci2011").configurations
                 if c.task.startswith("USPST(B) [") and c.method == method and "·" not in c.task]
    p = dict(config.parameters)
    ds = load(p["dataset"], *p.get("classes", []), **p.get("options", {}))
    splits = list(cv_splits(ds, folds=p["folds"], repeats=p["repeats"], l=p["l"], v=p["v"], rng=p["seed"]))
    peer = peer_iterations("USPST(B) [", method)
    ours = {}
    for j in (1, 8, 11):
        s = splits[j]
        fixed = dict(p["fixed"])                   # the experiment's flat names, as the registry reads them
        specs, rest = from_flat(fixed, {"kernel": Kernel(fixed.pop("kernel")), "graph": Graph(), "solver": Solver()})
        fit = toolkit.lapsvm(ds.X[s.labeled], ds.y[s.labeled], ds.X[s.unlabeled],
                             validation=(ds.X[s.validation], ds.y[s.validation]), **specs, **rest)
        assert fit.stop is not None and fit.stop.rule == "mixed"
        ours[j] = fit.n_iter
    assert ours == {j: int(peer[j]) for j in (1, 8, 11)} == {1: 57, 8: 76, 11: 114}
