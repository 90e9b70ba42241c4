"""Early stopping rules for iterative solvers, as explicit, reusable, recorded pieces.

Melacci & Belkin (2011, §4) observe that the classic goal conditions of (preconditioned)
conjugate gradient -- a small gradient norm ``||∇||``, preconditioned gradient norm ``||∇̂||``,
mixed product ``sqrt(∇̂ᵀ∇)`` or relative objective decrease, each normalised by its first value --
do not reflect the quality of a Laplacian SVM's *decisions*, which stabilise long before the
optimum is reached. They propose (§4.1):

* the **stability check** (Algorithm 2): every ``θ = √n / 2`` iterations, stop when fewer than
  ``η = 1.5 %`` of the unlabelled decisions ``sign f(x)`` changed since the previous check;
* the **validation check** (Algorithm 3): every ``θ`` iterations, stop when the error on the
  labelled validation set ``V`` did not improve by at least one example (``η = 1 / |V|``);
* the **mixed check**: stop when both would stop.

Design
------
A *rule* is a frozen dataclass holding its constants (``StabilityCheck(eta=0.015)``). A solver
calls ``rule.monitor(n_samples)`` once to get a fresh, private :class:`Monitor` and, at every
iteration ``t``, ``monitor.check(progress)`` with a :class:`Progress` snapshot; the monitor returns
``None`` when it does not look at this iteration, or a :class:`Check` (``stop``, ``value``,
``threshold``) when it does. The solver records every check in its history and the first firing
rule as a :class:`StopEvent` in its result. ``Progress`` evaluates its fields lazily (a field may be
given as a zero-argument callable), so a rule only pays for what it reads: the stability check
reads the unlabelled decisions (O(u), free during PCG since ``Kα`` is maintained), the validation
check reads the validation error (O(|V| n)).

Any iterative solver can use these rules:

>>> from toolkit.early_stopping import StabilityCheck, Progress
>>> import numpy as np
>>> mon = StabilityCheck(period=1).monitor(n_samples=100)
>>> mon.check(Progress(1, decisions=np.array([1, 1, -1, -1]))).stop   # first check: all "changed"
False
>>> mon.check(Progress(2, decisions=np.array([1, 1, -1, -1]))).stop
True
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field

import numpy as np

from toolkit._validation import check_option, check_scalar

__all__ = ["Progress", "Check", "StopEvent", "Monitor",
           "StabilityCheck", "ValidationCheck", "MixedCheck",
           "GradientNorm", "PreconditionedGradientNorm", "MixedProduct", "RelativeObjectiveDecrease",
           "make_rule", "start_monitor", "RULE_NAMES", "default_period"]

#: η of Algorithm 2: stop when fewer than 1.5 % of the unlabelled decisions changed.
STABILITY_ETA = 0.015


def default_period(n_samples):
    """Check period ``θ = √n / 2`` of Algorithms 2-3 (rounded, at least 1)."""
    return max(1, int(round(math.sqrt(n_samples) / 2.0)))


class Progress:
    """Snapshot of an iterative solver at iteration ``t``, evaluated lazily.

    Every field except ``iteration`` may be a value, a zero-argument callable computing it (called
    at most once, on first access), or ``None`` when the solver cannot provide it.

    Parameters
    ----------
    iteration : int
        Iteration counter ``t >= 1``.
    objective : float or callable, default=None
    grad_norm : float or callable, default=None
        ``||∇||``.
    pgrad_norm : float or callable, default=None
        ``||∇̂||`` (preconditioned gradient).
    mixed_product : float or callable, default=None
        ``sqrt(∇̂ᵀ ∇)``.
    decisions : array or callable, default=None
        Current decisions on the unlabelled points (``sign f`` or class indices).
    validation_error : float or callable, default=None
        Current error rate on the validation set.
    """

    _FIELDS = ("objective", "grad_norm", "pgrad_norm", "mixed_product", "decisions", "validation_error")

    def __init__(self, iteration, **fields):
        unknown = set(fields) - set(self._FIELDS)
        if unknown:
            raise TypeError(f"Progress got unknown fields {sorted(unknown)}; expected some of {self._FIELDS}.")
        self.iteration = int(iteration)
        self._raw = fields
        self._cache = {}

    def get(self, name):
        """The value of field ``name`` (evaluating it if it was given as a callable), or None."""
        if name not in self._cache:
            raw = self._raw.get(name)
            self._cache[name] = raw() if callable(raw) else raw
        return self._cache[name]

    def __getattr__(self, name):
        if name in Progress._FIELDS:
            return self.get(name)
        raise AttributeError(name)


@dataclass(frozen=True)
class Check:
    """Outcome of one rule at one iteration: stop if ``value`` crossed ``threshold``."""
    rule: str
    iteration: int
    stop: bool
    value: float
    threshold: float


@dataclass(frozen=True)
class StopEvent:
    """Which rule stopped a solver, when, and on what numbers (stored in solver results)."""
    rule: str
    iteration: int
    value: float
    threshold: float

    def __str__(self):
        return (f"{self.rule} rule fired at iteration {self.iteration} "
                f"(value {self.value:.4g} vs threshold {self.threshold:.4g})")


class Monitor:
    """Private, mutable state of one rule during one solver run (see :meth:`check`)."""

    def __init__(self, rule, period):
        self.rule = rule
        self.period = period
        self.state = None

    def due(self, iteration):
        return iteration % self.period == 0

    def check(self, progress):
        """Return a :class:`Check` if the rule looks at this iteration, else ``None``."""
        if not self.due(progress.iteration):
            return None
        return self.rule._evaluate(self, progress)


def _require(progress, name, rule):
    value = progress.get(name)
    if value is None:
        raise ValueError(f"The {rule} stopping rule needs '{name}', which this solver does not provide.")
    return value


# ----------------------------------------------------------------------------- Melacci & Belkin
@dataclass(frozen=True)
class StabilityCheck:
    """Stability check, Melacci & Belkin (2011) Algorithm 2.

    Every ``period`` iterations compute the decisions ``d`` on the unlabelled points and
    ``τ = #{j : d_j != d_j^old} / u``; stop if ``τ < eta``, else ``d^old ← d``. ``d^old`` starts at
    0, so the first check never stops.

    Parameters
    ----------
    eta : float, default=0.015
        Tolerated fraction of changed decisions (the paper's η = 1.5 %).
    period : int, default=None
        Check period θ; ``None`` means ``√n / 2`` (n = labelled + unlabelled points).

    Notes
    -----
    The paper writes ``τ = ||d - d^old||₁ / u`` for ``d ∈ {-1, +1}^u``, which counts a changed
    decision twice; we count it once, as the text ("less than 1.5 % of decisions changed") says.
    """
    eta: float = STABILITY_ETA
    period: int | None = None
    name: str = field(default="stability", init=False)

    def __post_init__(self):
        check_scalar(self.eta, "eta", "StabilityCheck", low=0.0, high=1.0)
        check_scalar(self.period, "period", "StabilityCheck", kind=numbers.Integral, low=1, allow_none=True)

    def monitor(self, n_samples):
        return Monitor(self, self.period or default_period(n_samples))

    def _evaluate(self, mon, progress):
        d = np.asarray(_require(progress, "decisions", self.name))
        tau = 1.0 if mon.state is None else float(np.mean(d != mon.state)) if d.size else 0.0
        stop = tau < self.eta
        if not stop:
            mon.state = d.copy()
        return Check(self.name, progress.iteration, stop, tau, self.eta)


@dataclass(frozen=True)
class ValidationCheck:
    """Validation check, Melacci & Belkin (2011) Algorithm 3.

    Every ``period`` iterations: stop if ``err(V) > err_old(V) - eta``, else
    ``err_old(V) ← err(V)``; ``err_old(V)`` starts at 100 %.

    Parameters
    ----------
    eta : float, default=None
        Required improvement of the validation error rate per check; ``None`` means one example,
        ``1 / |V|`` (the paper's choice), taken from ``n_validation`` passed to :meth:`monitor`.
    period : int, default=None
        Check period θ; ``None`` means ``√n / 2``.
    """
    eta: float | None = None
    period: int | None = None
    name: str = field(default="validation", init=False)

    def __post_init__(self):
        check_scalar(self.eta, "eta", "ValidationCheck", low=0.0, high=1.0, allow_none=True)
        check_scalar(self.period, "period", "ValidationCheck", kind=numbers.Integral, low=1, allow_none=True)

    def monitor(self, n_samples, n_validation=None):
        mon = Monitor(self, self.period or default_period(n_samples))
        if self.eta is not None:
            mon.eta = self.eta
        elif n_validation:
            mon.eta = 1.0 / n_validation
        else:
            raise ValueError("ValidationCheck needs eta or the validation set size (n_validation).")
        mon.state = 1.0
        return mon

    def _evaluate(self, mon, progress):
        err = float(_require(progress, "validation_error", self.name))
        limit = mon.state - mon.eta
        # a small slack so that an improvement of exactly one example counts despite round-off
        stop = err > limit + 1e-12
        if not stop:
            mon.state = err
        return Check(self.name, progress.iteration, stop, err, limit)


@dataclass(frozen=True)
class MixedCheck:
    """Mixed check (Melacci & Belkin 2011, §4.1): stop when both the stability and the
    validation checks would stop at the same check iteration.

    Both sub-rules keep updating their own state at every check.
    """
    stability: StabilityCheck = field(default_factory=StabilityCheck)
    validation: ValidationCheck = field(default_factory=ValidationCheck)
    name: str = field(default="mixed", init=False)

    def monitor(self, n_samples, n_validation=None):
        s = self.stability.monitor(n_samples)
        v = self.validation.monitor(n_samples, n_validation)
        mon = Monitor(self, s.period)
        mon.state = (s, v)
        mon.due = lambda t: s.due(t) or v.due(t)
        return mon

    def _evaluate(self, mon, progress):
        s, v = mon.state
        cs, cv = s.check(progress), v.check(progress)
        if cs is None or cv is None:
            return None
        stop = cs.stop and cv.stop
        return Check(self.name, progress.iteration, stop, cs.value, cs.threshold)


# ----------------------------------------------------------------------------- classic rules
@dataclass(frozen=True)
class _RelativeRule:
    """Stop when ``value_t / value_0 < tol`` (checked every iteration)."""
    tol: float = 1e-6
    period: int = 1

    def __post_init__(self):
        check_scalar(self.tol, "tol", type(self).__name__, low=0.0)
        check_scalar(self.period, "period", type(self).__name__, kind=numbers.Integral, low=1)

    def monitor(self, n_samples=None, n_validation=None):
        return Monitor(self, self.period)

    def _evaluate(self, mon, progress):
        value = float(_require(progress, self._field, self.name))
        if mon.state is None:
            mon.state = value if value > 0 else 1.0
        rel = value / mon.state
        return Check(self.name, progress.iteration, rel < self.tol, rel, self.tol)

    def start(self, mon, value0):
        """Normalise by ``value0`` (the value at iteration 0) instead of the first checked value."""
        mon.state = value0 if value0 > 0 else 1.0


@dataclass(frozen=True)
class GradientNorm(_RelativeRule):
    """Stop when ``||∇_t|| / ||∇_0|| < tol`` (Boyd & Vandenberghe 2004)."""
    name: str = field(default="gradient", init=False)
    _field = "grad_norm"


@dataclass(frozen=True)
class PreconditionedGradientNorm(_RelativeRule):
    """Stop when ``||∇̂_t|| / ||∇̂_0|| < tol`` (Chapelle 2007)."""
    name: str = field(default="preconditioned_gradient", init=False)
    _field = "pgrad_norm"


@dataclass(frozen=True)
class MixedProduct(_RelativeRule):
    """Stop when ``sqrt(∇̂_tᵀ∇_t) / sqrt(∇̂_0ᵀ∇_0) < tol`` (Shewchuk 1994)."""
    name: str = field(default="mixed_product", init=False)
    _field = "mixed_product"


@dataclass(frozen=True)
class RelativeObjectiveDecrease:
    """Stop when ``(obj_{t-1} - obj_t) / |obj_{t-1}| < tol`` (checked every iteration)."""
    tol: float = 1e-6
    period: int = 1
    name: str = field(default="relative_objective", init=False)

    def __post_init__(self):
        check_scalar(self.tol, "tol", "RelativeObjectiveDecrease", low=0.0)

    def monitor(self, n_samples=None, n_validation=None):
        return Monitor(self, self.period)

    def _evaluate(self, mon, progress):
        obj = float(_require(progress, "objective", self.name))
        prev, mon.state = mon.state, obj
        if prev is None:
            return Check(self.name, progress.iteration, False, math.inf, self.tol)
        rel = (prev - obj) / max(abs(prev), np.finfo(float).tiny)
        return Check(self.name, progress.iteration, rel < self.tol, rel, self.tol)


RULE_NAMES = ("stability", "validation", "mixed", "gradient", "preconditioned_gradient",
              "mixed_product", "relative_objective")


def make_rule(stop, *, tol=1e-6, func="make_rule"):
    """Rule object from a name (``RULE_NAMES``), a rule object, or ``None`` (no early stopping).

    Classic rules built from a name use ``tol`` as their threshold.
    """
    if stop is None or hasattr(stop, "monitor"):
        return stop
    check_option(stop, "stop", func, RULE_NAMES)
    return {
        "stability": lambda: StabilityCheck(),
        "validation": lambda: ValidationCheck(),
        "mixed": lambda: MixedCheck(),
        "gradient": lambda: GradientNorm(tol=tol),
        "preconditioned_gradient": lambda: PreconditionedGradientNorm(tol=tol),
        "mixed_product": lambda: MixedProduct(tol=tol),
        "relative_objective": lambda: RelativeObjectiveDecrease(tol=tol),
    }[stop]()


def start_monitor(rule, n_samples, n_validation=None):
    """Fresh monitor for ``rule`` (passing the validation size to the rules that use it)."""
    if isinstance(rule, (ValidationCheck, MixedCheck)):
        return rule.monitor(n_samples, n_validation)
    return rule.monitor(n_samples)
