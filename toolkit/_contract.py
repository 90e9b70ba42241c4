"""The solver contract shared by every iterative solver of the toolkit.

:func:`~toolkit.s2rlsc`, :func:`~toolkit.mmc`, :func:`~toolkit.lapsvm`, :func:`~toolkit.laprlsc`,
:func:`~toolkit.svm_path` and :func:`~toolkit.laplacian_svm_path` (and :func:`~toolkit.lapsvm_dual`
for its status and warning) follow one protocol, modelled on ``scipy.optimize``:

* one **status table**, :data:`SOLVER_STATUS`: every code has one meaning in every solver, and
  ``result.message`` is its template filled with the numbers of the run;
* one **warning**, :class:`ConvergenceWarning` (a ``UserWarning``), issued when a solver stops
  without reaching its goal (``max_iter``, a numerical breakdown), quoting the numbers and a remedy;
* one warning for a fit that cannot be right although the solver converged,
  :class:`DegenerateFitWarning` (a ``UserWarning``): one class predicted for every training row,
  a kernel width below half the nearest-neighbour distance; the message quotes the numbers and a remedy;
* one **callback protocol**: ``callback(intermediate_result)`` once per iteration (PCG iteration,
  Newton step, restart of the search, breakpoint of a path) with an :class:`IntermediateResult`;
  raising ``StopIteration`` stops the solver cleanly with status 3 (:data:`CALLBACK`). An
  early-stopping rule used as a callback (:class:`toolkit.early_stopping.EarlyStopping`) raises
  :class:`RuleFired`, a ``StopIteration`` carrying its :class:`~toolkit.early_stopping.StopEvent`:
  the solver then ends with status 1 (:data:`EARLY_STOP`) and records the event in ``result.stop``.

Every result derives from :class:`SolverResult` and so carries ``converged``, ``status``,
``message``, ``n_iter``, ``history``, ``stop`` and ``fallbacks``: a tuple of sentences, one per
numerical fallback the solver took (least squares instead of a failed factorisation, a ridge
step), never silent.
"""
from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass

from toolkit._display import Result

__all__ = ["ConvergenceWarning", "DegenerateFitWarning", "SOLVER_STATUS", "StatusInfo", "CONVERGED", "EARLY_STOP", "MAX_ITER",
           "CALLBACK", "BREAKDOWN", "REQUESTED_END", "RESOLUTION_LIMIT", "status_message", "is_converged",
           "IntermediateResult", "ReadOnlyDict", "lazy", "RuleFired", "CallbackStop", "run_callback", "warn_not_converged",
           "SolverResult"]


class ConvergenceWarning(UserWarning):
    """A solver stopped before its goal condition (``max_iter`` reached, numerical breakdown).

    The one warning class of the toolkit's solvers, also available as ``toolkit.ConvergenceWarning``,
    ``toolkit.rls.ConvergenceWarning`` and ``toolkit.manifold.ConvergenceWarning``. The message
    quotes the numbers of the run and suggests a remedy; the result says the same in ``status``
    and ``message``.
    """


class DegenerateFitWarning(UserWarning):
    """A fit that converged but cannot be right: one class for every labelled and unlabelled row,
    or an RBF width below half the typical nearest-neighbour distance (a kernel close to the identity).

    Issued by :func:`toolkit.lapsvm` / :func:`toolkit.laprlsc` (and so by their estimators), also
    available as ``toolkit.DegenerateFitWarning``; the message quotes the numbers and a remedy
    (``sigma="scale"``, smaller weights, or the cross-validated estimators). Model selection does
    not issue it for the candidates it tries (their cross-validated error records a poor fit); the
    refit of the chosen parameters does.
    """


# ------------------------------------------------------------------------------ status table
@dataclass(frozen=True)
class StatusInfo:
    """One row of :data:`SOLVER_STATUS`: the code's name, whether it counts as converged, and the
    message template (``{detail}`` is filled with the numbers of the run)."""

    code: int
    name: str
    converged: bool
    template: str


CONVERGED = 0          #: the goal condition was met (optimality within tol, a complete path, ...)
EARLY_STOP = 1         #: an early-stopping rule fired (``stop=`` or a rule passed as callback)
MAX_ITER = 2           #: max_iter iterations / events before the goal condition
CALLBACK = 3           #: the callback raised StopIteration
BREAKDOWN = 4          #: numerical breakdown (a non-finite objective)
REQUESTED_END = 5      #: a path reached the end the caller asked for (``lambda_min``)
RESOLUTION_LIMIT = 6   #: a path reached the limit of floating-point resolution (λ⁰ · 1e-12)

#: The one status table of the toolkit's solvers: ``code -> StatusInfo``.
SOLVER_STATUS: Mapping[int, StatusInfo] = {
    info.code: info for info in (
        StatusInfo(CONVERGED, "converged", True, "Converged: {detail}."),
        StatusInfo(EARLY_STOP, "early_stop", True, "Stopped early by the {detail}."),
        StatusInfo(MAX_ITER, "max_iter", False, "Maximum number of iterations reached before convergence: {detail}."),
        StatusInfo(CALLBACK, "callback", False, "Stopped by the callback (StopIteration) {detail}."),
        StatusInfo(BREAKDOWN, "breakdown", False, "Numerical breakdown: {detail}."),
        StatusInfo(REQUESTED_END, "requested_end", True, "Stopped at the requested end: {detail}."),
        StatusInfo(RESOLUTION_LIMIT, "resolution_limit", True,
                   "Stopped at the limit of floating-point resolution: {detail}."),
    )
}


def status_message(status, detail):
    """The message of ``status`` (:data:`SOLVER_STATUS`) with the run's ``detail`` filled in."""
    return SOLVER_STATUS[status].template.format(detail=detail)


def is_converged(status):
    """``result.converged`` for ``status``: the solver ended on a goal it was asked to reach
    (0 optimality, 1 an early-stopping rule, 5 the requested end of a path, 6 a path followed to
    the floating-point floor)."""
    return SOLVER_STATUS[status].converged


def warn_not_converged(func, message, remedy, *, stacklevel=3):
    """Issue the :class:`ConvergenceWarning` of a solver that stopped short of its goal.

    ``message`` is the result's message (it quotes the numbers); ``remedy`` says what to change.
    """
    warnings.warn(f"{func} did not converge. {message} {remedy}", ConvergenceWarning, stacklevel=stacklevel + 1)


# ------------------------------------------------------------------------------ results
@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class SolverResult(Result):
    """The fields every solver's result carries, and their place in its display.

    The base of the frozen results of :func:`~toolkit.s2rlsc`, :func:`~toolkit.mmc`,
    :func:`~toolkit.tsvm`, :func:`~toolkit.lapsvm`, :func:`~toolkit.laprlsc`,
    :func:`~toolkit.lapsvm_dual`, :func:`~toolkit.svm_path` and :func:`~toolkit.laplacian_svm_path`.
    The fields are keyword-only, after the solver's own; ``summary()``, ``_repr_html_`` and
    ``repr`` come from :class:`toolkit._display.Result`.

    Attributes
    ----------
    converged : bool
        ``is_converged(status)``: the solver ended on a goal it was asked to reach.
    status : int
        A code of :data:`SOLVER_STATUS`.
    message : str
        The code's template filled with the numbers of the run (:func:`status_message`).
    n_iter : int
        Iterations, steps, restarts or path events, as each solver counts them.
    history : mapping of str to ndarray
        What the solver recorded along the run (objective, gradient norms, checks of a rule, ...).
    stop : StopEvent or None
        The early-stopping rule that ended the run (status :data:`EARLY_STOP`), when and on which
        value; None otherwise.
    fallbacks : tuple of str
        One sentence per numerical fallback the solver took; empty when none was needed.
    """

    converged: bool
    status: int
    message: str
    n_iter: int
    history: Mapping
    stop: object = None
    fallbacks: tuple = ()

    def _status_rows(self):
        """The contract's rows of the display: converged with the status code, the message, and
        one row per fallback."""
        return ([("converged", f"{self.converged} (status {self.status})"), ("message", self.message)]
                + [("fallback", text) for text in self.fallbacks])

    def _brief(self):
        return f"status={self.status}, n_iter={self.n_iter}"


# ------------------------------------------------------------------------------ callbacks
class lazy:  # noqa: N801 - used like a function: lazy(lambda: expensive())
    """A value of an :class:`IntermediateResult` computed on first access (at most once)."""

    __slots__ = ("fn",)

    def __init__(self, fn):
        self.fn = fn


class IntermediateResult(Mapping):
    """What a solver passes to ``callback`` once per iteration (read-only, like SciPy's
    ``OptimizeResult``: a mapping with attribute access).

    Always present: ``n_iter`` (also ``iteration``), iterations / restarts / events done so far
    (increasing within one run), ``x`` the solver's current coefficients, ``objective`` (``None``
    where a solver has none). Solver-specific fields are listed in each solver's docstring
    (e.g. ``alpha``, ``b``, ``grad_norm`` for PCG; ``lam``, ``alpha0``, ``decision_function``
    for paths). Fields the solver would have to compute are evaluated on first access only.
    """

    __slots__ = ("_data",)

    def __init__(self, n_iter, x, objective=None, **extras):
        data = {"n_iter": int(n_iter), "x": x, "objective": objective}
        data.update(extras)
        object.__setattr__(self, "_data", data)

    def _value(self, key):
        value = self._data[key]
        if isinstance(value, lazy):
            value = value.fn()
            self._data[key] = value
        return value

    def __getitem__(self, key):
        return self._value(key)

    def __iter__(self):
        return iter(self._data)

    def __len__(self):
        return len(self._data)

    def __getattr__(self, name):
        if name == "iteration":
            return self._data["n_iter"]
        try:
            return self._value(name)
        except KeyError:
            raise AttributeError(f"This IntermediateResult has no field {name!r}; it has "
                                 f"{sorted(self._data)}.") from None

    def __setattr__(self, name, value):
        raise AttributeError("IntermediateResult is read-only.")

    def __dir__(self):
        return sorted(set(self._data) | {"iteration", "get", "keys", "items", "values"})

    def __repr__(self):
        def show(v):
            if isinstance(v, lazy):
                return "<computed on access>"
            if callable(v):
                return "<function>"
            text = repr(v)
            return text if len(text) <= 60 else text[:57] + "..."
        body = ", ".join(f"{k}={show(v)}" for k, v in self._data.items())
        return f"IntermediateResult({body})"


class ReadOnlyDict(Mapping):
    """A read-only mapping for the dict-valued fields of frozen results (``history``, ``params``).

    Like :class:`types.MappingProxyType` it refuses item assignment, but it pickles (results go
    into estimators, which scikit-learn pickles, and across processes to Dask workers).
    """

    __slots__ = ("_data",)

    def __init__(self, data=()):
        self._data = dict(data)

    def __getitem__(self, key):
        return self._data[key]

    def __iter__(self):
        return iter(self._data)

    def __len__(self):
        return len(self._data)

    def __repr__(self):
        return f"ReadOnlyDict({self._data!r})"

    def __reduce__(self):
        return (ReadOnlyDict, (self._data,))


class RuleFired(StopIteration):
    """``StopIteration`` raised by an early-stopping rule used as a callback; ``event`` says which
    rule fired, at which iteration, on which value (a :class:`toolkit.early_stopping.StopEvent`)."""

    def __init__(self, event):
        super().__init__(str(event))
        self.event = event


@dataclass(frozen=True)
class CallbackStop:
    """Why a callback stopped a solver: ``status`` (1 a rule, 3 the callback), ``detail`` for the
    message, and the rule's ``event`` (None for a plain ``StopIteration``)."""

    status: int
    detail: str
    event: object = None


def run_callback(callback, intermediate, where):
    """Call ``callback(intermediate)``; return None to go on, or a :class:`CallbackStop`.

    A plain ``StopIteration`` gives status 3 (:data:`CALLBACK`), a :class:`RuleFired` status 1
    (:data:`EARLY_STOP`) with the rule's event. ``where`` names the point of the run for the
    message ("iteration 12", "restart 3", "event 40 (λ = 0.25)"). Any other exception propagates.
    """
    if callback is None:
        return None
    try:
        callback(intermediate)
    except RuleFired as exc:
        ev = exc.event
        return CallbackStop(EARLY_STOP, f"{ev.rule} rule (callback) at {where} "
                                        f"({ev.value:.4g} vs {ev.threshold:.4g})", ev)
    except StopIteration:
        return CallbackStop(CALLBACK, f"at {where}")
    return None
