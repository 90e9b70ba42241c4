"""Print what a new user pastes from the README: the mirror setting or a quick-start command.

``python3 .ci/readme_commands.py mirror`` prints the README's ``export TOOLKIT_DATA_MIRROR=...``
line as written (relative path included); ``python3 .ci/readme_commands.py 1`` (or ``2``) prints the
first (second) command of the fenced block under the "Quick start" heading. ``.ci/run`` executes
these verbatim, so CI runs exactly what the README tells a user to run.
"""
import re
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def quick_start(text: str) -> list[str]:
    match = re.search(r"^#+\s*Quick start.*?^```[a-z]*\n(.*?)^```", text, re.S | re.M | re.I)
    if not match:
        raise SystemExit("README.md has no fenced code block under a 'Quick start' heading")
    return [line.strip() for line in match.group(1).splitlines()
            if line.strip() and not line.strip().startswith("#")]


def mirror_setting(text: str) -> str:
    lines = [line.split("#")[0].strip() for line in text.splitlines()
             if line.strip().startswith("export TOOLKIT_DATA_MIRROR=")]
    if not lines:
        raise SystemExit("README.md shows no `export TOOLKIT_DATA_MIRROR=...` line")
    return lines[0]


if __name__ == "__main__":
    text = README.read_text(encoding="utf-8")
    what = sys.argv[1] if len(sys.argv) > 1 else ""
    if what == "mirror":
        print(mirror_setting(text))
    elif what in ("1", "2"):
        commands = quick_start(text)
        if len(commands) != 2:
            raise SystemExit(f"README.md's quick start has {len(commands)} commands, expected 2: {commands}")
        print(commands[int(what) - 1])
    else:
        raise SystemExit("usage: readme_commands.py mirror|1|2")
