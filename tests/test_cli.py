"""The command line: ``ssl-toolkit`` and ``python -m toolkit`` are the same program."""
import subprocess
import sys

import toolkit
from toolkit.cli import main


def test_version_and_help(capsys):
    assert main([]) == 2
    assert "data" in capsys.readouterr().out
    proc = subprocess.run([sys.executable, "-m", "toolkit", "--version"], capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout.strip() == f"ssl-toolkit {toolkit.__version__}"


def test_lazy_namespace_resolves_every_export():
    for name, module in toolkit._EXPORTS.items():
        assert getattr(toolkit, name) is getattr(__import__(module, fromlist=[name]), name)
    assert set(toolkit._EXPORTS) <= set(dir(toolkit))


def test_no_submodule_shares_a_name_with_an_export():
    import pkgutil
    modules = {m.name for m in pkgutil.iter_modules(toolkit.__path__)}
    assert not modules & set(toolkit._EXPORTS), "a submodule import would shadow the function export"


# ------------------------------------------------------------------- notebooks: copies, clean templates
def test_committed_notebook_templates_hold_no_outputs():
    """``reproduce`` executes the templates: they are committed without outputs or execution counts
    (JupyterLab's autosave on an opened template would add them; the README's route opens copies)."""
    import nbformat

    from toolkit.reports import notebooks_dir

    templates = sorted(notebooks_dir().glob("*.ipynb"))
    assert len(templates) >= 4
    for path in templates:
        nb = nbformat.read(str(path), as_version=4)
        for cell in nb.cells:
            if cell.cell_type == "code":
                assert cell.outputs == [] and cell.execution_count is None, (path.name, cell.source[:60])


def test_notebooks_command_copies_the_templates_and_keeps_existing_copies(tmp_path, monkeypatch, capsys):
    from toolkit.cli import main
    from toolkit.reports import notebooks_dir

    monkeypatch.chdir(tmp_path)
    assert main(["notebooks", "mine"]) == 0                  # relative to the working directory, as typed
    copies = {p.name for p in (tmp_path / "mine").glob("*.ipynb")}
    assert copies == {p.name for p in notebooks_dir().glob("*.ipynb")}
    assert (tmp_path / "mine" / "experiments" / "quick.toml").read_bytes() == \
        (notebooks_dir() / "experiments" / "quick.toml").read_bytes()
    assert "jupyter lab mine" in capsys.readouterr().out
    (tmp_path / "mine" / "datasets.ipynb").write_text("my edits")
    assert main(["notebooks", "mine"]) == 2                  # the user's edits are not overwritten
    err = capsys.readouterr().err
    assert "already holds" in err and "--overwrite" in err
    assert (tmp_path / "mine" / "datasets.ipynb").read_text() == "my edits"
    assert main(["notebooks", "mine", "--overwrite"]) == 0
    assert (tmp_path / "mine" / "datasets.ipynb").read_bytes() == (notebooks_dir() / "datasets.ipynb").read_bytes()
