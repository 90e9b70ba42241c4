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
