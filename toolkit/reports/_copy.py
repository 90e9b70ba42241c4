"""``ssl-toolkit notebooks DIR``: copies of the notebook templates to open in JupyterLab.

``ssl-toolkit reproduce`` executes the templates shipped in ``toolkit.notebooks``; opening those
files in JupyterLab would let its autosave write outputs into them. The copies are the user's own.
"""
from __future__ import annotations

import shutil
from pathlib import Path

from ._experiments import notebooks_dir


def copy_notebooks(directory, *, overwrite=False) -> list[Path]:
    """Copy the notebook templates and the experiment files into ``directory``; return the copies.

    Parameters
    ----------
    directory : str or path-like
        Created if missing. Relative to the current directory.
    overwrite : bool, default=False
        Replace files already there; otherwise an existing file is an error (your edits are kept).

    Returns
    -------
    list of pathlib.Path
        The files written.
    """
    target = Path(directory).expanduser()
    source = notebooks_dir()
    files = sorted(source.glob("*.ipynb")) + sorted((source / "experiments").rglob("*"))
    files = [f for f in files if f.is_file() and "__pycache__" not in f.parts]
    clash = [target / f.relative_to(source) for f in files if (target / f.relative_to(source)).exists()]
    if clash and not overwrite:
        raise FileExistsError(f"The 'directory' argument of ssl-toolkit notebooks: {target.resolve()} already holds "
                              f"{clash[0].relative_to(target)} (and {len(clash) - 1} more); choose a new folder or "
                              "pass --overwrite to replace them.")
    written = []
    for f in files:
        out = target / f.relative_to(source)
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(f, out)
        written.append(out)
    return written


def register(subparsers) -> None:
    """Add the ``notebooks`` sub-command."""
    parser = subparsers.add_parser(
        "notebooks", help="copy the notebook templates into a folder, to open them in JupyterLab",
        description="Copy the notebooks that `ssl-toolkit reproduce` executes (and the experiment files) into DIR, "
                    "to open and change in JupyterLab (`jupyter lab DIR`) without touching the templates.")
    parser.add_argument("directory", metavar="DIR", help="folder for the copies (created if missing)")
    parser.add_argument("--overwrite", action="store_true", help="replace files already in DIR")
    parser.set_defaults(func=_main)


def _main(args) -> int:
    import sys

    try:
        written = copy_notebooks(args.directory, overwrite=args.overwrite)
    except FileExistsError as exc:
        print(f"ssl-toolkit notebooks: error: {exc}", file=sys.stderr)
        return 2
    notebooks = [p for p in written if p.suffix == ".ipynb"]
    print(f"copied {len(notebooks)} notebooks and {len(written) - len(notebooks)} experiment files into "
          f"{Path(args.directory)}; open them with: jupyter lab {args.directory}")
    return 0
