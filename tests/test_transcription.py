"""Every published number the reproductions declare, read back against a second transcription.

``notebooks/experiments/{gieseke2011,gieseke2012,melacci2011}.toml`` declare the papers' numbers in
their ``published`` entries. ``tests/data/transcriptions/*.csv`` is a second, independent
transcription of the same tables, made from the papers' text (``tests/data/transcriptions/README.md``
says how, and how each garbled spot of the text extraction was resolved). Here

- each declared entry is mapped to its cell (paper and table from its ``source``, data set from its
  task, the paper's row label from its method, the column from its metric or scenario) and its mean
  and sd must equal the printed ones (an entry without a cell fails with its name);
- every transcribed cell must be declared, or named in ``ALLOWED`` with the reason it is not (and,
  where the cell repeats another table's cell, that cell must print the same number and be declared),
  so that no published number is dropped silently.

No data, no network: two CSV files and three TOML files.
"""
from __future__ import annotations

import csv
import re
import tomllib
from pathlib import Path
from typing import Callable, NamedTuple

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXPERIMENTS = ROOT / "notebooks" / "experiments"
TRANSCRIPTIONS = ROOT / "tests" / "data" / "transcriptions"
PAPERS = ("gieseke2011", "gieseke2012", "melacci2011")

# ----------------------------------------------------------------------------------------- mapping
#: the ``source``'s author and year -> the transcription's paper
SOURCE_PAPERS = {"Gieseke et al. (2011)": "gieseke2011", "Gieseke et al. (2012)": "gieseke2012",
                 "Melacci & Belkin (2011)": "melacci2011"}
SOURCE = re.compile(r"^(?P<paper>.+?), Table (?P<table>\d+) \((?P<detail>[^)]*)\)$")

# Gieseke et al.: the toml's method names and scenarios -> the tables' labels
GIESEKE_METHODS = {"rlsc": "RLSC", "svc": "LIBSVM", "tsvm": "UniverSVM", "s2rlsc": "S2RLSC"}
GIESEKE_SCENARIOS = {"test-set": "non-realistic", "labeled-cv": "realistic"}
GIESEKE_TASK = re.compile(r"^(?P<name>\S+) \[(?P<l>\d+)/(?P<u>\d+)/(?P<t>\d+)\]$")

# Melacci & Belkin: the toml's method (label) -> the row label printed in each table
_PCG = {"lapsvm (PCG)": "PCG [Stability Check]", "lapsvm (PCG validation)": "PCG [Validation Check]",
        "lapsvm (PCG mixed)": "PCG [Mixed Check]"}
MELACCI_METHODS = {
    # the SVM column is declared as method "svm" (its label) or "svc" (the name, before it had one)
    "4": {"svm": "SVM", "svc": "SVM", "rlsc": "RLSC", "laprlsc": "LapRLSC", "lapsvm_dual": "LapSVM Dual (Original)",
          "lapsvm": "LapSVM Primal (Newton)"},
    "5": {"lapsvm": "LapSVM Primal (Newton)"},
    "6": {"lapsvm_dual": "Dual", "lapsvm": "Newton", **_PCG},
    "7": {"lapsvm": "Newton", **_PCG},
    "8": {"laprlsc": "Matrix Inversion", "laprlsc (PCG)": "PCG [Stability Check]",
          "laprlsc (PCG validation)": "PCG [Validation Check]", "laprlsc (PCG mixed)": "PCG [Mixed Check]"},
    # Table 12: PCG with each check at the (γ_A, γ_I) tuned for Newton's method (Table 9)
    "12": {"lapsvm": "Newton", "lapsvm (PCG, Newton's parameters)": "PCG [Stability Check]",
           "lapsvm (PCG validation, Newton's parameters)": "PCG [Validation Check]",
           "lapsvm (PCG mixed, Newton's parameters)": "PCG [Mixed Check]"},
    # Table 11: the times and PCG iterations of Table 12's runs
    "11": {"lapsvm (PCG, Newton's parameters)": "PCG [Stability Check]",
           "lapsvm (PCG validation, Newton's parameters)": "PCG [Validation Check]",
           "lapsvm (PCG mixed, Newton's parameters)": "PCG [Mixed Check]"},
}
#: metric -> column; n_iter counts Newton's steps in Table 5 and PCG iterations elsewhere
MELACCI_METRICS = {"test_error": "T", "unlabeled_error": "U", "validation_error": "V",
                   "seconds": "Training Time", "n_iter": "PCG Iters", "line_search_per_iter": "LS Iters"}
#: the ``source``'s words in brackets -> column (must agree with the metric's)
MELACCI_DETAILS = {"T": "T", "U": "U", "V": "V", "training time in s": "Training Time",
                   "PCG iterations": "PCG Iters", "Newton's steps": "Newton's Steps",
                   "line-search iterations per PCG iteration": "LS Iters"}

# ----------------------------------------------------------------------------- known toml errors
#: (paper, task, method, metric or scenario) -> why the toml's number is not the paper's. Each is
#: xfail(strict): fixing the toml makes it pass, and then its line here must go.
TOML_ERRORS: dict[tuple[str, str, str, str], str] = {}


# ------------------------------------------------------------------------------------ loading
def _norm(label: str) -> str:
    return re.sub(r"\s+", "", label)


def _decimals(text: str) -> int:
    return len(text.split(".")[1]) if "." in text else 0


class Cell(NamedTuple):
    paper: str
    table: str
    dataset: str      # normalised (no blanks)
    method: str
    column: str


def load_transcription() -> dict[Cell, dict]:
    cells: dict[Cell, dict] = {}
    for paper in PAPERS:
        with open(TRANSCRIPTIONS / f"{paper}.csv", newline="", encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                key = Cell(row["paper"], row["table"], _norm(row["dataset"]), row["method_as_printed"],
                           row["column"])
                assert key not in cells, f"{paper}.csv: {key} transcribed twice"
                cells[key] = row
    return cells


class Declared(NamedTuple):
    file: str         # the toml's stem
    line: int         # 1-based line of the entry in the toml (0: not found)
    entry: dict

    @property
    def what(self) -> str:
        return self.entry.get("metric") or self.entry.get("scenario") or ""

    @property
    def ident(self) -> str:
        return f"{self.file}.toml:{self.line}: {self.entry['task']} | {self.entry['method']} | {self.what}"


def _entries(path: Path) -> list[Declared]:
    text = path.read_text(encoding="utf-8")
    entries = tomllib.loads(text).get("published", [])
    # each entry is one inline table on its own line: find them in order, for the failure messages
    lines = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("{ task = "):
            try:
                lines.append((number, tomllib.loads("x = " + line.strip().rstrip(","))["x"]))
            except tomllib.TOMLDecodeError:
                pass
    out, k = [], 0
    for entry in entries:
        while k < len(lines) and lines[k][1] != entry:
            k += 1
        if k < len(lines):
            out.append(Declared(path.stem, lines[k][0], entry))
            k += 1
        else:     # not on a line of its own: reported by test_declared_number_is_the_papers
            out.append(Declared(path.stem, 0, entry))
    return out


def load_declared() -> list[Declared]:
    return [d for paper in PAPERS for d in _entries(EXPERIMENTS / f"{paper}.toml")]


def cell_of(declared: Declared) -> tuple[Cell | None, str]:
    """The transcription's cell a declared entry cites, or None and why not."""
    entry = declared.entry
    m = SOURCE.match(entry.get("source", ""))
    if m is None:
        return None, f"source {entry.get('source')!r} names no 'Author (year), Table N (...)'"
    paper = SOURCE_PAPERS.get(m["paper"])
    if paper is None:
        return None, f"source names an unknown paper {m['paper']!r}"
    if paper != declared.file:
        return None, f"source cites {paper}, the entry is in {declared.file}.toml"
    table, detail = m["table"], m["detail"]
    if paper.startswith("gieseke"):
        method = GIESEKE_METHODS.get(entry["method"])
        column = GIESEKE_SCENARIOS.get(entry.get("scenario", ""))
        task = GIESEKE_TASK.match(entry["task"])
        if method is None or column is None or task is None:
            return None, "no mapping for its method, scenario or task"
        if detail != column:
            return None, f"scenario {entry.get('scenario')} is the {column} one, the source says {detail!r}"
        dataset = f"{task['name']}[l={task['l']},u={task['u']},t={task['t']}]"
    else:
        method = MELACCI_METHODS.get(table, {}).get(entry["method"])
        column = MELACCI_METRICS.get(entry.get("metric", ""))
        if column == "PCG Iters" and table == "5":
            column = "Newton's Steps"
        if method is None or column is None:
            return None, f"no mapping for method {entry['method']!r} / metric {entry.get('metric')!r} in Table {table}"
        if MELACCI_DETAILS.get(detail) != column:
            return None, f"metric {entry.get('metric')} is column {column!r}, the source says {detail!r}"
        dataset = entry["task"].split(" [")[0]
    return Cell(paper, table, _norm(dataset), method, column), ""


TRANSCRIPTION = load_transcription()
DECLARED = load_declared()


def _param(declared: Declared):
    key = (declared.file, declared.entry["task"], declared.entry["method"], declared.what)
    marks = [pytest.mark.xfail(strict=True, reason=TOML_ERRORS[key])] if key in TOML_ERRORS else []
    return pytest.param(declared, id=declared.ident, marks=marks)


# --------------------------------------------------------------------------------------- tests
@pytest.mark.parametrize("declared", [_param(d) for d in DECLARED])
def test_declared_number_is_the_papers(declared: Declared):
    assert declared.line, f"{declared.ident}: entry not found on a line of its own in the toml"
    cell, why = cell_of(declared)
    assert cell is not None, f"{declared.ident}: no cell of the transcription: {why}"
    row = TRANSCRIPTION.get(cell)
    assert row is not None, f"{declared.ident}: the transcription has no cell {cell}"
    entry = declared.entry
    where = f"{row['paper']} Table {row['table']}, line {row['line']} of the paper's text"
    assert "sd" in entry, f"{declared.ident}: no sd; {where} prints {row['mean']} ({row['sd']})"
    assert float(entry["mean"]) == float(row["mean"]), (
        f"{declared.ident}: mean {entry['mean']}, {where} prints {row['mean']}")
    assert float(entry["sd"]) == float(row["sd"]), (
        f"{declared.ident}: sd {entry['sd']}, {where} prints {row['sd']}")


def test_toml_entries_found():
    """Each toml's published entries are all read (none lost to the line search above)."""
    for paper in PAPERS:
        with open(EXPERIMENTS / f"{paper}.toml", "rb") as fh:
            assert len(tomllib.load(fh).get("published", [])) == sum(d.file == paper for d in DECLARED)
    assert all(d.line for d in DECLARED), [d.ident for d in DECLARED if not d.line]


def test_no_other_experiment_cites_a_table():
    """Every experiment's number taken from a paper's table is covered here (figure statements,
    like wang_paths.toml's, are not table cells and are out of scope)."""
    others = []
    for path in sorted(EXPERIMENTS.glob("*.toml")):
        if path.stem in PAPERS:
            continue
        with open(path, "rb") as fh:
            for entry in tomllib.load(fh).get("published", []):
                if re.search(r"\bTable \d", entry.get("source", "")):
                    others.append(f"{path.name}: {entry}")
    assert not others


# ------------------------------------------------------------------------ undeclared cells
# Melacci & Belkin's Table 3 prints, per data set, the PCG time of "the best (in terms of accuracy)
# of the proposed stopping heuristics" (§6.4); these are the rows of Table 6 it repeats.
TABLE3_PCG = {"G50C": "PCG [Validation Check]", "COIL20(B)": "PCG [Validation Check]",
              "PCMAC": "PCG [Validation Check]", "USPST(B)": "PCG [Stability Check]",
              "COIL20": "PCG [Mixed Check]", "USPST": "PCG [Validation Check]",
              "MNIST3VS8": "PCG [Stability Check]", "FACEMIT": "PCG [Stability Check]"}
TABLE3_METHODS = {"Dual [Original]": "Dual", "Primal - Newton": "Newton"}


class Allowed(NamedTuple):
    paper: str
    table: str
    method: str | None             # None: every row
    column: str | None             # None: every column
    reason: str
    twin: Callable[[Cell], Cell] | None = None   # the declared cell that prints the same number


ALLOWED = [
    # Table 3 is the summary of Table 6's times (dual, Newton, the best PCG check per data set).
    Allowed("melacci2011", "3", None, "Training Time",
            "repeats Table 6's Dual / Newton / best-check PCG times (PCMAC's dual rounded: 14.82 for 14.8203)",
            lambda c: c._replace(table="6", method=TABLE3_METHODS.get(c.method) or TABLE3_PCG[c.dataset])),
    # Table 4's last FACEMIT row is the PCG run of Table 7 (FACEMIT has no dual or Newton run).
    Allowed("melacci2011", "4", "LapSVM Primal (PCG)", None,
            "FACEMIT's PCG row repeats Table 7's PCG [Stability Check] row, declared from Table 7",
            lambda c: c._replace(table="7", method="PCG [Stability Check]")),
    # Tables 7 and 12 repeat Newton's row of Table 4 as their reference row.
    Allowed("melacci2011", "7", "Newton", None, "repeats Table 4's LapSVM Primal (Newton) row",
            lambda c: c._replace(table="4", method="LapSVM Primal (Newton)")),
    Allowed("melacci2011", "12", "Newton", None, "repeats Table 4's LapSVM Primal (Newton) row",
            lambda c: c._replace(table="4", method="LapSVM Primal (Newton)")),
    # Table 11 (times and iterations of PCG at Newton's parameters, declared) repeats Table 6's dual
    # and Newton times.
    Allowed("melacci2011", "11", "Dual", None, "repeats Table 6's dual times",
            lambda c: c._replace(table="6")),
    Allowed("melacci2011", "11", "Newton", None, "repeats Table 6's Newton times",
            lambda c: c._replace(table="6")),
]


def _allowed(cell: Cell) -> list[Allowed]:
    return [a for a in ALLOWED if a.paper == cell.paper and a.table == cell.table
            and a.method in (None, cell.method) and a.column in (None, cell.column)]


def _declared_cells() -> set[Cell]:
    return {cell for cell, _ in map(cell_of, DECLARED) if cell is not None}


def test_every_transcribed_cell_is_declared_or_allowed():
    declared = _declared_cells()
    missing = [f"{c} (line {row['line']}: {row['mean']} ({row['sd']}))"
               for c, row in TRANSCRIPTION.items() if c not in declared and not _allowed(c)]
    assert not missing, "published numbers no toml declares:\n" + "\n".join(missing)


def test_allow_list_is_exact():
    """Each allowed group names transcribed cells, none of them declared."""
    declared = _declared_cells()
    for rule in ALLOWED:
        covered = [c for c in TRANSCRIPTION if rule in _allowed(c)]
        assert covered, f"{rule.paper} Table {rule.table} {rule.method} {rule.column}: no such cell"
        both = [c for c in covered if c in declared]
        assert not both, f"allowed as undeclared but declared: {both}"


@pytest.mark.parametrize("rule", [a for a in ALLOWED if a.twin], ids=lambda a: f"{a.paper}-T{a.table}-{a.method}")
def test_repeated_cells_print_the_declared_number(rule: Allowed):
    """A cell left out as a repeat prints the number of its twin, and the twin is declared."""
    declared = _declared_cells()
    for cell, row in TRANSCRIPTION.items():
        if rule not in _allowed(cell):
            continue
        twin = rule.twin(cell)
        assert twin in TRANSCRIPTION, f"{cell}: its twin {twin} is not transcribed"
        other = TRANSCRIPTION[twin]
        for field in ("mean", "sd"):
            ndigits = min(_decimals(row[field]), _decimals(other[field]))
            assert round(float(row[field]), ndigits) == round(float(other[field]), ndigits), (
                f"{cell} (line {row['line']}) prints {field} {row[field]}, its twin {twin} "
                f"(line {other['line']}) {other[field]}")
        assert twin in declared, f"{cell}: its twin {twin} is not declared either"


def test_transcription_shape():
    """The transcription holds each table whole (cells per table, as README.md counts them)."""
    counts: dict[tuple[str, str], int] = {}
    for cell in TRANSCRIPTION:
        counts[cell.paper, cell.table] = counts.get((cell.paper, cell.table), 0) + 1
    assert counts == {
        ("gieseke2011", "1"): 72,                                # 12 rows x 3 methods x 2 scenarios
        ("gieseke2012", "2"): 128, ("gieseke2012", "3"): 128,    # 32 rows x 4 methods
        ("melacci2011", "3"): 22,                                # 8 x 3, FACEMIT's dual and Newton "-"
        ("melacci2011", "4"): 114,                               # 38 rows x U, V, T
        ("melacci2011", "5"): 7,
        ("melacci2011", "6"): 86, ("melacci2011", "11"): 86,     # 14 dual/Newton times + 24 PCG rows x 3
        ("melacci2011", "7"): 93, ("melacci2011", "12"): 93,     # 31 rows x U, V, T
        ("melacci2011", "8"): 11,                                # 4 rows x 3, matrix inversion's iterations "-"
    }
    for cell, row in TRANSCRIPTION.items():
        for field in ("mean", "sd"):
            assert re.fullmatch(r"\d+(\.\d+)?", row[field]), (cell, field, row[field])
