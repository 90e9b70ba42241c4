"""``pip install .`` into a new virtual environment from an empty pip cache: wall time and packages.

    python benchmarks/bench_install.py [--extras dask,ann]

What a new user waits for and gets (README, "Install"). The project is installed from this checkout
(``pip install --no-cache-dir .``, so every package is downloaded, as on a fresh machine); the count
is of the distributions in the new environment, pip and setuptools excluded. The network makes most
of the time: rerun on the same machine to compare.
"""
import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--extras", default="", help="comma-separated extras, e.g. dask,ann")
    args = parser.parse_args(argv)
    target = f".[{args.extras}]" if args.extras else "."
    with tempfile.TemporaryDirectory() as tmp:
        venv = Path(tmp) / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        pip = str(venv / "bin" / "pip")
        start = time.perf_counter()
        subprocess.run([pip, "install", "--no-cache-dir", "-q", target], cwd=ROOT, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wall = time.perf_counter() - start
        listed = subprocess.run([pip, "list", "--format=freeze"], capture_output=True, text=True, check=True)
        names = [line.split("==")[0].lower() for line in listed.stdout.splitlines() if "==" in line]
        packages = [n for n in names if n not in ("pip", "setuptools")]
    print(f"pip install {target} from an empty cache: {wall:.0f} s wall, {len(packages)} packages "
          f"(ssl-toolkit and its dependencies; pip and setuptools not counted)")


if __name__ == "__main__":
    main()
