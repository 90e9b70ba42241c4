"""``ssl-toolkit reproduce quick`` end to end on a warm data cache (issue 9 target: within 3 minutes
on 2 cores), and the share of its time spent outside fitting.

    TOOLKIT_DATA_MIRROR=../shared/datasets python benchmarks/bench_reproduce.py [--jobs 2] [--experiment NAME [--quick]]

The data files are fetched into the cache first (not timed), then the command runs as a user types
it, into a temporary output folder, in a fresh process. Printed: the wall time and its ratio to the
target, the number of kernel starts, the time spent fitting (the ``seconds`` the notebooks record
for each fit) against the kernels' busy time, and the share outside fitting (kernel start-up,
imports, data loading, notebook I/O, the report). Before kernels were reused (one kernel per
configuration, one more for the report) the same command took 10-115 s per configuration.
"""
import argparse
import re
import subprocess
import sys
import tempfile
import time

TARGET = 180.0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--experiment", default="quick")
    parser.add_argument("--quick", action="store_true", help="the experiment's --quick version")
    args = parser.parse_args(argv)
    from toolkit import data
    from toolkit.reports import load_experiment

    seen = set()
    configurations = load_experiment(args.experiment, quick=args.quick).configurations
    for c in configurations:  # warm cache: downloads are not measured
        p = c.parameters
        key = (p["dataset"], repr(p["classes"]), repr(sorted(p["options"].items())))
        if key not in seen:
            seen.add(key)
            data.load(p["dataset"], *p["classes"], **p["options"])
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "toolkit", "reproduce", args.experiment, "--jobs",
                               str(args.jobs), "--output", out] + (["--quick"] if args.quick else []),
                              capture_output=True, text=True)
        wall = time.perf_counter() - start
    if proc.returncode != 0:
        print(proc.stdout[-3000:], proc.stderr[-3000:], sep="\n")
        raise SystemExit(f"reproduce {args.experiment} exited {proc.returncode}")
    line = next(l for l in proc.stdout.splitlines() if "outside fitting" in l)
    fit, busy, outside, starts = re.search(
        r"fitting ([\d.]+) s of (\d+) s kernel time \((\d+) % outside fitting: (\d+) kernel", line).groups()
    quick = " --quick" if args.quick else ""
    print(f"reproduce {args.experiment}{quick} --jobs {args.jobs}, {len(configurations)} configurations: "
          f"{wall:.0f} s wall ({wall / 60:.1f} min; target {TARGET:.0f} s: "
          f"{wall / TARGET:.2f} of it); {starts} kernel starts; fitting {fit} s of {busy} s kernel time, "
          f"{outside} % outside fitting")


if __name__ == "__main__":
    main()
