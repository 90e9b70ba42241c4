"""Print one pin per required dependency at its lower bound (``name==X`` for ``name>=X``).

``.ci/run`` installs the checkout a second time with these as pip constraints and runs the test suite
again: scikit-learn's "min-dependencies" job. The bounds in ``pyproject.toml`` are thus the oldest
versions the suite passes with, not a guess.
"""
import re
import sys
import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def pins(text: str) -> list[str]:
    out = []
    for dep in tomllib.loads(text)["project"]["dependencies"]:
        name = re.split(r"[\s<>=!~\[;]", dep, maxsplit=1)[0]
        bound = re.search(r">=\s*([0-9][0-9.]*)", dep)
        if not bound:
            raise SystemExit(f"pyproject.toml: the dependency {dep!r} has no lower bound")
        out.append(f"{name}=={bound.group(1)}")
    return out


if __name__ == "__main__":
    print("\n".join(pins(PYPROJECT.read_text(encoding="utf-8"))))
    sys.exit(0)
