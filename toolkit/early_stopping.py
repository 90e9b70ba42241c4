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
* the **mixed check**: stop when both would stop at the same check; otherwise both references
  (the old decisions and the old validation error) move to the current ones, as in the authors'
  code, LapSVMp v0.2 (``lapsvmp.m``, ``CgStopType = 3``).

Every check is made at the iterations ``t`` with ``t mod θ = 0`` and nothing happens in between;
``θ`` is rounded as LapSVMp rounds it (:func:`default_period`), and the comparisons are made in
LapSVMp's arithmetic, so that the rules stop where the authors' code stops on the same problem.

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

A rule is also a callback of any iterative solver of the toolkit (the one protocol of
``callback(intermediate_result)``, see :mod:`toolkit._contract`): :class:`EarlyStopping` wraps it,
reads the fields the rule needs from the solver's intermediate result (or computes them with the
functions you give), records every check, and raises ``StopIteration`` when the rule fires; the
solver then ends with status 1 and the rule's :class:`StopEvent` in ``result.stop``. For example
the validation check along the λ-path of an SVM:

>>> from toolkit import svm_path, kernel_matrix
>>> from toolkit.early_stopping import EarlyStopping, ValidationCheck
>>> rng = np.random.default_rng(0)
>>> X = rng.normal(size=(80, 2)); y = np.where(X[:, 0] + 0.5 * rng.normal(size=80) > 0, 1.0, -1.0)
>>> K, Kv = kernel_matrix(X[:40], kernel="rbf", sigma=1.0), kernel_matrix(X[40:], X[:40], kernel="rbf", sigma=1.0)
>>> stopper = EarlyStopping(ValidationCheck(eta=0.0, period=5), validation=(Kv, y[40:]))
>>> path = svm_path(K, y[:40], callback=stopper)
>>> path.status, path.stop.rule
(1, 'validation')
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field

import numpy as np

from toolkit._contract import RuleFired
from toolkit._validation import check_option, check_scalar

__all__ = ["Progress", "Check", "StopEvent", "Monitor",
           "StabilityCheck", "ValidationCheck", "MixedCheck",
           "GradientNorm", "PreconditionedGradientNorm", "MixedProduct", "RelativeObjectiveDecrease",
           "make_rule", "start_monitor", "RULE_NAMES", "default_period", "EarlyStopping", "RuleFired"]

#: η of Algorithm 2: stop when fewer than 1.5 % of the unlabelled decisions changed.
STABILITY_ETA = 0.015


def default_period(n_samples):
    """Check period ``θ = √n / 2`` of Algorithms 2-3, rounded as LapSVMp does (at least 1).

    Melacci & Belkin (2011, §4.1) "computed the classifier decision every √n / 2 iterations";
    LapSVMp v0.2 (``lapsvmp.m``, ``CgStopIter = round(sqrt(n)/2)``) rounds halves away from zero,
    as MATLAB's ``round`` does (``n = 25``: θ = 3, where Python's ``round`` would give 2).
    """
    return max(1, int(math.floor(math.sqrt(n_samples) / 2.0 + 0.5)))


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
        Current error rate on the validation set, in [0, 1]: the unit of Melacci & Belkin's
        Algorithm 3 (``eta = 1/|V|``, the old error starting at 1). The only error of the toolkit
        that is not in percent; the solvers' histories record it in percent (``check_error_V``).
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

    Every ``period`` iterations compute the decisions ``d`` on the unlabelled points and the
    fraction ``τ`` of them that differ from ``d^old``; stop if ``τ < eta``, else ``d^old ← d``.
    ``d^old`` starts at 0, so the first check never stops.

    Parameters
    ----------
    eta : float, default=0.015
        Tolerated fraction of changed decisions (the paper's η = 1.5 %).
    period : int, default=None
        Check period θ; ``None`` means ``√n / 2`` (n = labelled + unlabelled points), rounded as
        :func:`default_period`.

    Notes
    -----
    The paper writes ``τ = ||d - d^old||₁ / u`` for ``d ∈ {-1, +1}^u``, which counts a changed
    decision twice; we count it once, as the text ("less than 1.5 % of decisions changed") and
    LapSVMp v0.2 do, and in LapSVMp's arithmetic, ``τ = 1 - #{j : d_j = d_j^old} / u``
    (``lapsvmp.m``, ``CgStopType = 1``).
    """
    eta: float = STABILITY_ETA
    period: int | None = None
    name: str = field(default="stability", init=False)

    def __post_init__(self):
        check_scalar(self.eta, "eta", "StabilityCheck", low=0.0, high=1.0)
        check_scalar(self.period, "period", "StabilityCheck", kind=numbers.Integral, low=1, allow_none=True)

    def monitor(self, n_samples):
        return Monitor(self, self.period or default_period(n_samples))

    def _measure(self, mon, progress):
        """``(Check, new state)`` of this check, without updating the monitor."""
        d = np.asarray(_require(progress, "decisions", self.name))
        if mon.state is None:
            tau = 1.0
        else:
            tau = 1.0 - np.count_nonzero(d == mon.state) / d.size if d.size else 0.0
        return Check(self.name, progress.iteration, bool(tau < self.eta), float(tau), self.eta), d.copy()

    def _evaluate(self, mon, progress):
        chk, d = self._measure(mon, progress)
        if not chk.stop:
            mon.state = d
        return chk


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
        Check period θ; ``None`` means ``√n / 2``, rounded as :func:`default_period`.
    exact : bool, default=False
        How the comparison is rounded. ``False``: in LapSVMp v0.2's floating-point arithmetic, so
        that the rule stops where the authors' code stops: with ``|V|`` known, the error is
        ``err = 1 - (correct on V) / |V|`` and the rule stops when ``err > err_old - eta``, with no
        slack (``lapsvmp.m``, ``CgStopType = 2``). ``True``: an improvement of exactly ``eta`` always
        counts as an improvement (a relative slack of 1e-12 absorbs the round-off).

    Notes
    -----
    The paper "required the classifier to improve err(V) by one correctly classified example at
    every check" (§4.1). In LapSVMp's arithmetic an improvement of exactly one example sometimes
    rounds below ``eta`` and stops the rule: with ``|V| = 50``, from 46 to 47 correct examples
    ``1 - 47/50 = 0.06000000000000005 > (1 - 46/50) - 1/50 = 0.05999999999999994`` (likewise from
    3, 8, 17, 20, 28, 34 and 40 correct). ``exact=False`` reproduces those stops, and with them the
    iteration counts of LapSVMp on the same problem.
    """
    eta: float | None = None
    period: int | None = None
    exact: bool = False
    name: str = field(default="validation", init=False)

    def __post_init__(self):
        check_scalar(self.eta, "eta", "ValidationCheck", low=0.0, high=1.0, allow_none=True)
        check_scalar(self.period, "period", "ValidationCheck", kind=numbers.Integral, low=1, allow_none=True)
        if not isinstance(self.exact, (bool, np.bool_)):
            raise TypeError(f"The 'exact' parameter of ValidationCheck must be a bool. Got {self.exact!r} instead.")

    def monitor(self, n_samples, n_validation=None):
        mon = Monitor(self, self.period or default_period(n_samples))
        if self.eta is not None:
            mon.eta = self.eta
        elif n_validation:
            mon.eta = 1.0 / n_validation
        else:
            raise ValueError("ValidationCheck needs eta or the validation set size (n_validation).")
        mon.n_validation = n_validation or None
        mon.state = 1.0
        return mon

    def _measure(self, mon, progress):
        """``(Check, new state)`` of this check, without updating the monitor."""
        err = float(_require(progress, "validation_error", self.name))
        limit = mon.state - mon.eta
        if self.exact:
            # an improvement of exactly eta counts despite round-off
            stop = err > limit + 1e-12 * max(1.0, abs(limit))
        else:
            v = mon.n_validation
            if v:                                   # LapSVMp: valerr = 1 - nnz(sign(f_V) == y_V) / v
                err = 1.0 - round((1.0 - err) * v) / v
            stop = err > limit
        return Check(self.name, progress.iteration, bool(stop), err, limit), err

    def _evaluate(self, mon, progress):
        chk, err = self._measure(mon, progress)
        if not chk.stop:
            mon.state = err
        return chk


@dataclass(frozen=True)
class MixedCheck:
    """Mixed check, Melacci & Belkin (2011) §4.1 (Algorithms 2 and 3 merged).

    At every check (every ``θ`` iterations, the period of :class:`StabilityCheck`) both
    conditions are evaluated on the same iterate: stop when both hold, the decisions changed on
    fewer than ``η_s`` of the unlabelled points (Algorithm 2) *and* the validation error did not
    improve by ``η_v`` (Algorithm 3); otherwise update **both** references, ``d^old ← d`` and
    ``err_old(V) ← err(V)``, whichever condition held. This is LapSVMp v0.2's
    ``CgStopType = 3`` (``lapsvmp.m``); the paper states only that the validation check "can be
    eventually merged" with the stability check.

    Parameters
    ----------
    stability : StabilityCheck, default=StabilityCheck()
    validation : ValidationCheck, default=ValidationCheck()
        The two conditions and their constants. With different periods the rule checks at their
        common multiples only.

    Notes
    -----
    Updating a reference only when its own condition fails (running the two checks side by side)
    is a different rule: a stable decision at one check is then compared at the next check with an
    older ``d^old``, and a worse validation error does not become the new reference, so it stops
    later than LapSVMp.
    """
    stability: StabilityCheck = field(default_factory=StabilityCheck)
    validation: ValidationCheck = field(default_factory=ValidationCheck)
    name: str = field(default="mixed", init=False)

    def monitor(self, n_samples, n_validation=None):
        s = self.stability.monitor(n_samples)
        v = self.validation.monitor(n_samples, n_validation)
        mon = Monitor(self, s.period)
        mon.state = (s, v)
        mon.due = lambda t: s.due(t) and v.due(t)
        return mon

    def _evaluate(self, mon, progress):
        s, v = mon.state
        cs, d = s.rule._measure(s, progress)
        cv, err = v.rule._measure(v, progress)
        stop = cs.stop and cv.stop
        if not stop:                               # lapsvmp.m: both references move at every check
            s.state, v.state = d, err
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


# ----------------------------------------------------------------------------- rules as callbacks
class EarlyStopping:
    """An early-stopping rule as the ``callback`` of any iterative solver of the toolkit.

    ``EarlyStopping(rule)(intermediate_result)`` is the one callback protocol of
    :mod:`toolkit._contract`: at every call it builds a :class:`Progress` from the solver's
    :class:`~toolkit._contract.IntermediateResult` (iteration ``n_iter``), lets the rule's monitor
    check it, records the check, and when the rule fires raises
    :class:`~toolkit._contract.RuleFired` (a ``StopIteration``) carrying the :class:`StopEvent`.
    Every solver then stops cleanly with status 1 ("stopped early by the <rule> rule") and stores
    the event in ``result.stop``; in your own loop ``except StopIteration`` is enough.

    Parameters
    ----------
    rule : rule object or str
        :class:`StabilityCheck`, :class:`ValidationCheck`, :class:`MixedCheck`, a classic rule, or
        one of ``RULE_NAMES`` (classic rules built from a name use ``tol``).
    n_samples : int, default=None
        ``n`` for the default check period ``θ = √n / 2`` of rules built with ``period=None``;
        ``None`` takes ``n_samples`` from the intermediate result (PCG provides it) and otherwise
        checks at every call (restarts, path breakpoints).
    validation : tuple (X_val, y_val), default=None
        Labelled validation points for the validation / mixed checks, with ``y_val`` in {-1, +1}
        (+1 the positive class): the error is computed as ``mean(sign f(X_val) != y_val)`` from
        the intermediate result's ``decision_function`` (S²RLSC and MMC restarts: raw points;
        :func:`~toolkit.svm_path`: kernel rows ``K(X_val, X_train)``;
        :func:`~toolkit.laplacian_svm_path`: raw points), and ``n_validation = len(y_val)``.
        LapSVM / LapRLSC take their validation set through their own ``validation=`` instead.
    n_validation : int, default=None
        ``|V|`` for the default ``η = 1 / |V|`` of the validation check; ``None`` takes
        ``n_validation`` from ``validation`` or from the intermediate result when the solver
        provides it.
    tol : float, default=1e-6
        Threshold of a classic rule given by name.
    **fields : callable
        How to compute a :class:`Progress` field the solver does not provide, as
        ``name=function(intermediate_result)``: ``objective``, ``grad_norm``, ``pgrad_norm``,
        ``mixed_product``, ``decisions`` or ``validation_error``. Fields not given are read from the
        intermediate result by the same name (when present); each is evaluated only when the rule
        looks at it.

    Attributes
    ----------
    event : StopEvent or None
        The firing of the last run (None while the rule has not fired).
    history : dict of ndarray
        Every check of the last run: ``iteration``, ``value``, ``threshold``, ``stop``.

    Notes
    -----
    The monitor (the rule's state) starts afresh when a new run begins, recognised by an
    iteration counter that does not increase (every solver counts from 0 or 1 within a run), or
    explicitly by :meth:`reset`. The rules, their constants and references are those of the
    module docstring (Melacci & Belkin 2011, §4.1, Algorithms 2-3).

    Examples
    --------
    Stop the restarts of S²RLSC when the best labelling changes by less than 1.5 %:

    >>> import numpy as np
    >>> from toolkit import s2rlsc
    >>> from toolkit.early_stopping import EarlyStopping, StabilityCheck
    >>> from toolkit.specs import LocalSearch
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(120, 3)); X[:60, 0] -= 3; X[60:, 0] += 3
    >>> y = np.r_[-np.ones(60), np.ones(60)]
    >>> lab = np.r_[0, 1, 60, 61]; unl = np.setdiff1d(np.arange(120), lab)
    >>> fit = s2rlsc(X[lab], y[lab], X[unl], search=LocalSearch(restarts=20), rng=0,
    ...              callback=EarlyStopping(StabilityCheck()))
    >>> fit.status, fit.stop.rule, len(fit.restarts) < 20
    (1, 'stability', True)
    """

    def __init__(self, rule, *, validation=None, n_samples=None, n_validation=None, tol=1e-6, **fields):
        self.rule = make_rule(rule, tol=tol, func="EarlyStopping")
        if self.rule is None:
            raise ValueError("The 'rule' parameter of EarlyStopping must be a rule object or one of "
                             f"{RULE_NAMES}. Got None instead.")
        unknown = set(fields) - set(Progress._FIELDS)
        if unknown:
            raise TypeError(f"EarlyStopping got unknown fields {sorted(unknown)}; expected some of "
                            f"{Progress._FIELDS}.")
        for name, fn in fields.items():
            if not callable(fn):
                raise TypeError(f"The '{name}' parameter of EarlyStopping must be a function of the "
                                f"intermediate result. Got {fn!r} instead.")
        self.n_samples = check_scalar(n_samples, "n_samples", "EarlyStopping", kind=numbers.Integral, low=1,
                                      allow_none=True)
        self.n_validation = check_scalar(n_validation, "n_validation", "EarlyStopping", kind=numbers.Integral,
                                         low=1, allow_none=True)
        self.fields = dict(fields)
        if validation is not None:
            if "validation_error" in fields:
                raise TypeError("EarlyStopping takes 'validation' or 'validation_error', not both.")
            self.fields["validation_error"] = _validation_error(validation)
            self.n_validation = self.n_validation or len(validation[1])
        self.reset()

    @property
    def name(self):
        return self.rule.name

    def reset(self):
        """Forget the previous run (the monitor starts afresh at the next call)."""
        self._monitor = None
        self._last = None
        self.event = None
        self._checks = []

    def _start(self, result):
        n = self.n_samples or result.get("n_samples")
        n_val = self.n_validation or result.get("n_validation")
        rule = self.rule
        if n is None:
            # no problem size: a rule without its own period checks at every call
            rule = _with_period(rule)
            n = 1
        return start_monitor(rule, n, n_val)

    def _field(self, result, name):
        if name in self.fields:
            fn = self.fields[name]
            return lambda: fn(result)
        if name in result:
            return lambda: result[name]
        return None

    def __call__(self, intermediate_result):
        result = intermediate_result
        t = int(result["n_iter"])
        if self._monitor is None or (self._last is not None and t <= self._last):
            self.reset()
            self._monitor = self._start(result)
        self._last = t
        progress = Progress(t, **{name: self._field(result, name) for name in Progress._FIELDS})
        chk = self._monitor.check(progress)
        if chk is None:
            return
        self._checks.append((chk.iteration, chk.value, chk.threshold, chk.stop))
        if chk.stop:
            self.event = StopEvent(chk.rule, chk.iteration, chk.value, chk.threshold)
            raise RuleFired(self.event)

    @property
    def history(self):
        cols = list(zip(*self._checks)) if self._checks else [[], [], [], []]
        return {k: np.asarray(v, dtype=dt) for k, v, dt in
                zip(("iteration", "value", "threshold", "stop"), cols, (int, float, float, bool))}

    def __repr__(self):
        return f"EarlyStopping({self.rule!r}, checks={len(self._checks)}, event={self.event})"


def _validation_error(validation):
    """``validation_error(intermediate_result)`` for labelled points ``(X_val, y_val)``, y in {-1, +1}."""
    try:
        X_val, y_val = validation
    except (TypeError, ValueError) as exc:
        raise TypeError("The 'validation' parameter of EarlyStopping must be a pair (X_val, y_val). "
                        f"Got {type(validation).__name__} instead.") from exc
    y_val = np.asarray(y_val)
    if y_val.ndim != 1 or y_val.size == 0 or not np.all(np.isin(y_val, (-1, 1))):
        raise ValueError("The 'y_val' of EarlyStopping's 'validation' must be a non-empty 1-d array of -1 / +1 "
                         f"(+1 the positive class). Got values {np.unique(y_val)[:5]} instead.")

    def validation_error(result):
        f = np.asarray(result.decision_function(X_val), dtype=float)
        if f.shape != y_val.shape:
            raise ValueError(f"EarlyStopping: the decision function gave shape {f.shape} on X_val but y_val has "
                             f"shape {y_val.shape}.")
        return float(np.mean(np.where(f >= 0, 1, -1) != y_val))

    return validation_error


def _with_period(rule):
    """The rule with ``period=1`` where it has none of its own (restarts, path breakpoints)."""
    import dataclasses
    if isinstance(rule, MixedCheck):
        return dataclasses.replace(rule, stability=_with_period(rule.stability),
                                   validation=_with_period(rule.validation))
    if getattr(rule, "period", 1) is None:
        return dataclasses.replace(rule, period=1)
    return rule
