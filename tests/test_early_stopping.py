"""The stopping rules of toolkit.early_stopping, driven by hand-made Progress sequences."""
import numpy as np
import pytest

from toolkit._contract import IntermediateResult, lazy
from toolkit.early_stopping import (Check, EarlyStopping, GradientNorm, MixedCheck, MixedProduct,
                                    PreconditionedGradientNorm, Progress, RelativeObjectiveDecrease, RuleFired,
                                    StabilityCheck, StopEvent, ValidationCheck, default_period, make_rule,
                                    start_monitor)
from toolkit.specs import Graph, Kernel, Solver


def run(monitor, progresses):
    return [monitor.check(p) for p in progresses]


def test_default_period_is_half_sqrt_n():
    assert default_period(400) == 10 and default_period(550) == 12 and default_period(1) == 1
    assert StabilityCheck().monitor(400).period == 10


def test_stability_check_algorithm_2():
    mon = StabilityCheck(period=2).monitor(100)
    d1 = np.ones(200)
    d2 = d1.copy(); d2[:10] = -1                      # 5 % changed
    d3 = d2.copy(); d3[10:12] = -1                    # 1 % changed
    checks = run(mon, [Progress(t, decisions=d) for t, d in [(1, d1), (2, d1), (4, d2), (5, d3), (6, d3)]])
    assert checks[0] is None and checks[3] is None    # only every θ = 2 iterations
    assert checks[1].stop is False and checks[1].value == 1.0         # first check: d_old = 0
    assert checks[2].stop is False and checks[2].value == pytest.approx(0.05)
    assert checks[4].stop is True and checks[4].value == pytest.approx(0.01)
    assert checks[4].threshold == 0.015


def test_validation_check_algorithm_3():
    mon = ValidationCheck(period=1).monitor(100, n_validation=50)    # η = one example = 0.02
    errs = [0.5, 0.3, 0.28, 0.27]
    checks = run(mon, [Progress(t + 1, validation_error=e) for t, e in enumerate(errs)])
    assert [c.stop for c in checks[:3]] == [False, False, False]     # 0.28 = 0.30 - 0.02 counts
    assert checks[3].stop is True and checks[3].threshold == pytest.approx(0.26)
    with pytest.raises(ValueError, match="n_validation"):
        ValidationCheck().monitor(100)


def test_mixed_check_needs_both():
    mon = start_monitor(MixedCheck(StabilityCheck(period=1), ValidationCheck(period=1)), 100, 10)
    d = np.ones(50)
    seq = [Progress(1, decisions=d, validation_error=0.5),       # neither
           Progress(2, decisions=d, validation_error=0.2),       # stable, validation improving
           Progress(3, decisions=-d, validation_error=0.2),      # validation stalls, unstable
           Progress(4, decisions=-d, validation_error=0.2)]      # both
    assert [c.stop for c in run(mon, seq)] == [False, False, False, True]


@pytest.mark.parametrize("rule, field", [(GradientNorm(tol=0.1), "grad_norm"),
                                         (PreconditionedGradientNorm(tol=0.1), "pgrad_norm"),
                                         (MixedProduct(tol=0.1), "mixed_product")])
def test_classic_relative_rules(rule, field):
    mon = rule.monitor()
    checks = run(mon, [Progress(t, **{field: v}) for t, v in [(1, 10.0), (2, 2.0), (3, 0.5)]])
    assert [c.stop for c in checks] == [False, False, True]
    assert checks[2].value == pytest.approx(0.05)
    mon = rule.monitor()
    rule.start(mon, 100.0)                                        # normalise by iteration 0
    assert mon.check(Progress(1, **{field: 5.0})).stop


def test_relative_objective_decrease():
    mon = RelativeObjectiveDecrease(tol=1e-3).monitor()
    checks = run(mon, [Progress(t, objective=v) for t, v in [(1, 10.0), (2, 5.0), (3, 4.999)]])
    assert [c.stop for c in checks] == [False, False, True]


def test_progress_is_lazy_and_evaluated_once():
    calls = []

    def expensive():
        calls.append(1)
        return 0.25

    p = Progress(3, validation_error=expensive, grad_norm=1.0)
    assert calls == [] and p.grad_norm == 1.0 and p.objective is None
    assert p.validation_error == 0.25 and p.validation_error == 0.25 and calls == [1]
    with pytest.raises(TypeError, match="unknown"):
        Progress(1, gradient=1.0)
    with pytest.raises(ValueError, match="needs 'decisions'"):
        StabilityCheck(period=1).monitor(10).check(Progress(1, grad_norm=1.0))


def test_make_rule_and_records():
    assert make_rule(None) is None
    assert isinstance(make_rule("stability"), StabilityCheck)
    assert make_rule("gradient", tol=1e-4).tol == 1e-4
    rule = StabilityCheck(eta=0.05)
    assert make_rule(rule) is rule
    with pytest.raises(ValueError, match="'stop' parameter of lapsvm must be one of"):
        make_rule("never", func="lapsvm")
    with pytest.raises(ValueError, match="'eta'"):
        StabilityCheck(eta=2.0)
    ev = StopEvent("stability", 20, 0.01, 0.015)
    assert "iteration 20" in str(ev) and "stability" in str(ev)
    assert Check("x", 1, True, 0.0, 1.0).stop


# ------------------------------------------------------------------ rules as callbacks (one protocol)
def report(t, **fields):
    return IntermediateResult(t, None, fields.pop("objective", None), **fields)


def test_early_stopping_is_a_callback_that_raises_stop_iteration():
    stopper = EarlyStopping(ValidationCheck(period=1), n_validation=4)
    errors = [0.5, 0.25, 0.25]
    with pytest.raises(StopIteration) as info:               # a user's own loop: except StopIteration
        for t, e in enumerate(errors, 1):
            stopper(report(t, validation_error=e))
    assert isinstance(info.value, RuleFired) and info.value.event is stopper.event
    assert stopper.event == StopEvent("validation", 3, 0.25, 0.0)
    h = stopper.history
    assert h["iteration"].tolist() == [1, 2, 3] and h["stop"].tolist() == [False, False, True]
    np.testing.assert_allclose(h["threshold"], [0.75, 0.25, 0.0])
    assert stopper.name == "validation" and "validation" in repr(stopper)


def test_early_stopping_fields_are_computed_from_the_report_on_demand():
    calls = []

    def error(r):
        calls.append(r.n_iter)
        return 0.5

    stopper = EarlyStopping(ValidationCheck(eta=0.1, period=2), validation_error=error)
    stopper(report(1))
    assert calls == []                                        # not due: nothing computed
    stopper(report(2))
    assert calls == [2]
    # fields the solver provides are read by name, lazily
    seen = []
    stability = EarlyStopping(StabilityCheck(period=1))
    stability(report(1, decisions=lazy(lambda: seen.append(1) or np.array([1, -1]))))
    assert seen == [1]
    with pytest.raises(StopIteration):
        stability(report(2, decisions=np.array([1, -1])))


def test_early_stopping_period_and_run_boundaries():
    # no period of its own: theta = sqrt(n)/2 from n_samples (given or in the report), else every call
    assert EarlyStopping(StabilityCheck())._start(report(1, n_samples=400)).period == 10
    assert EarlyStopping(StabilityCheck(), n_samples=100)._start(report(1)).period == 5
    assert EarlyStopping(StabilityCheck())._start(report(1)).period == 1
    mixed = EarlyStopping(MixedCheck(), n_validation=10)._start(report(1))
    assert mixed.period == 1 and all(m.period == 1 for m in mixed.state)
    assert EarlyStopping("relative_objective", tol=1e-3).rule.tol == 1e-3
    # a new run (the counter does not increase) starts the rule afresh
    stopper = EarlyStopping(StabilityCheck(period=1))
    stopper(report(1, decisions=np.array([1, 1])))
    stopper(report(1, decisions=np.array([1, -1])))            # new run: first check never stops
    assert stopper.history["iteration"].tolist() == [1]
    with pytest.raises(StopIteration):
        stopper(report(2, decisions=np.array([1, -1])))
    stopper.reset()
    assert stopper.event is None and stopper.history["iteration"].size == 0


def test_early_stopping_refuses_what_it_cannot_use():
    with pytest.raises(ValueError, match="'rule' parameter of EarlyStopping"):
        EarlyStopping(None)
    with pytest.raises(ValueError, match="must be one of"):
        EarlyStopping("never")
    with pytest.raises(TypeError, match="unknown fields"):
        EarlyStopping(StabilityCheck(), gradient=lambda r: 1.0)
    with pytest.raises(TypeError, match="function of the intermediate result"):
        EarlyStopping(ValidationCheck(), validation_error=0.3)
    with pytest.raises(ValueError, match="needs 'decisions'"):
        EarlyStopping(StabilityCheck(period=1))(report(1, objective=1.0))


def test_early_stopping_with_a_validation_set_on_a_path():
    from toolkit import kernel_matrix, svm_path
    rng = np.random.default_rng(2)
    X = rng.normal(size=(120, 2))
    y = np.where(X[:, 0] + 0.7 * rng.normal(size=120) > 0, 1.0, -1.0)
    K = kernel_matrix(X[:50], kernel="rbf", sigma=0.5)
    Kv = kernel_matrix(X[50:], X[:50], kernel="rbf", sigma=0.5)
    by_set = EarlyStopping("validation", validation=(Kv, y[50:]))
    # the same rule from the error function and |V| (LapSVMp's arithmetic reads |V|: err = 1 - correct / |V|)
    by_fn = EarlyStopping(ValidationCheck(), n_validation=70, validation_error=lambda r: float(
        np.mean(np.where(r.decision_function(Kv) >= 0, 1.0, -1.0) != y[50:])))
    a, b = svm_path(K, y[:50], callback=by_set), svm_path(K, y[:50], callback=by_fn)
    assert a.status == b.status == 1 and a.stop == b.stop
    np.testing.assert_array_equal(a.breakpoints, b.breakpoints)
    with pytest.raises(TypeError, match="not both"):
        EarlyStopping("validation", validation=(Kv, y[50:]), validation_error=lambda r: 0.0)
    with pytest.raises(ValueError, match="-1 / \\+1"):
        EarlyStopping("validation", validation=(Kv, (y[50:] > 0).astype(int)))
    with pytest.raises(TypeError, match="pair"):
        EarlyStopping("validation", validation=Kv)


def test_histories_record_the_checked_errors_in_percent():
    """The validation rule reads the error rate (Algorithm 3's unit); the history, a result, records it in
    percent like every error of the toolkit (issue 24)."""
    from sklearn.datasets import make_moons

    from toolkit import lapsvm

    X, y01 = make_moons(160, noise=0.15, random_state=18)
    y = 2.0 * y01 - 1
    Xv, yv01 = make_moons(40, noise=0.15, random_state=19)
    r = lapsvm(X[:6], y[:6], X[6:], kernel=Kernel("rbf", sigma=0.4), graph=Graph(n_neighbors=6),
               solver=Solver(stop=ValidationCheck(), preconditioner="kernel"), gamma_A=1e-2, gamma_I=1.0,
               validation=(Xv, 2.0 * yv01 - 1), y_unlabeled=y[6:])
    h = r.history
    assert len(h["check_error_V"]) >= 1
    np.testing.assert_allclose(h["check_error_V"], 100 * np.asarray(h["check_value"], dtype=float))
    assert np.all((0 <= h["check_error_U"]) & (h["check_error_U"] <= 100))
    # the last check is the stopped model's: its error on U, in percent
    assert h["check_error_U"][-1] == pytest.approx(100 * np.mean(r.predict(X[6:]) != y[6:]))
