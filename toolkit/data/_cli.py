"""``ssl-toolkit data list | fetch | info`` (also ``python -m toolkit data ...``)."""
from __future__ import annotations

import sys

from ._registry import DataError, catalogue, fetch_file, is_cached, mirror, registry, source_url, urls


def register(subparsers) -> None:
    """Add the ``data`` sub-command and its ``list``, ``fetch`` and ``info`` commands."""
    parser = subparsers.add_parser("data", help="list, fetch and describe the benchmark data sets",
                                   description="Benchmark data sets: list, fetch (verified), info.")
    commands = parser.add_subparsers(dest="data_command", metavar="ACTION")
    parser.set_defaults(func=lambda args: (parser.print_help(), 2)[1])

    listing = commands.add_parser("list", help="name, n, d, classes and cache state of every data set")
    listing.set_defaults(func=_list)

    fetch = commands.add_parser("fetch", help="download (or copy from the mirror) and verify data files")
    fetch.add_argument("names", nargs="*", metavar="NAME", help="data set names (see 'data list')")
    fetch.add_argument("--all", action="store_true", help="fetch every data set")
    fetch.add_argument("--no-progress", action="store_true", help="no progress bars")
    fetch.set_defaults(func=_fetch)

    info = commands.add_parser("info", help="citation, licence and provenance of a data set")
    info.add_argument("name", metavar="NAME")
    info.set_defaults(func=_info)


def _entries():
    """(display name, catalogue table, files, known gaps) for every data set, SSL-book sets one by one."""
    out = []
    for name, table in catalogue().items():
        if name == "ssl-book":
            for number, sub in table["sets"].items():
                out.append((f"ssl-book {number} ({sub['name']})", {**table, **sub}, sub["files"],
                            sub.get("not_mirrored", {})))
        else:
            files = list(table.get("files", [])) + list(table.get("extra_files", []))
            out.append((name, table, files, table.get("not_mirrored", {})))
    return out


def _cache_state(table, files):
    if table.get("available", True) is False:
        return "unavailable"
    if not files:
        return "synthetic"
    have = sum(is_cached(f) for f in files)
    return "yes" if have == len(files) else "no" if have == 0 else f"partial ({have}/{len(files)})"


def _list(args) -> int:
    rows = [("name", "n", "d", "classes", "cached")]
    for label, table, _, _ in _entries():
        files = table.get("files", [])  # the files load() reads (extra provenance files not counted)
        rows.append((label, str(table.get("n", "")), str(table.get("d", "")), table.get("classes", ""),
                     _cache_state(table, files)))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)) + "  " + row[4])
    where = mirror() or "canonical addresses (set TOOLKIT_DATA_MIRROR for a mirror)"
    from ._registry import cache_dir
    print(f"\ncache: {cache_dir()}\nsource: {where}")
    return 0


def _resolve(names):
    entries = _entries()
    known = sorted({label.split(" ")[0] for label, *_ in entries})
    chosen = []
    for name in names:
        hits = [e for e in entries if e[0] == name or e[0].split(" ")[0] == name
                or (name.startswith("ssl-book") and e[0].startswith(name.replace(":", " ") + " "))]
        if not hits:
            raise SystemExit(f"ssl-toolkit data: unknown data set {name!r}. Available: {', '.join(known)}.")
        chosen += [h for h in hits if h not in chosen]
    return chosen


def _fetch(args) -> int:
    if args.all and args.names:
        print("ssl-toolkit data fetch: give NAME... or --all, not both", file=sys.stderr)
        return 2
    if not args.all and not args.names:
        print("ssl-toolkit data fetch: give one or more NAMEs, or --all (see 'ssl-toolkit data list')",
              file=sys.stderr)
        return 2
    entries = _entries() if args.all else _resolve(args.names)
    failed, gaps = [], []
    for label, table, files, not_mirrored in entries:
        if table.get("available", True) is False:
            print(f"{label}: unavailable: {table.get('reason', '')}")
            gaps.append(label)
            continue
        if not files:
            print(f"{label}: synthetic, nothing to fetch")
            continue
        for file in files:
            try:
                record = fetch_file(file, progressbar=not args.no_progress)
            except DataError as exc:
                if file in not_mirrored:
                    print(f"{label}: {file}: unavailable from {source_url(file)} ({not_mirrored[file]})")
                    gaps.append(f"{label}: {file}")
                else:
                    print(f"{label}: {file}: FAILED: {exc}", file=sys.stderr)
                    failed.append(f"{label}: {file}")
                continue
            print(f"{label}: {file}: ok ({record.hash[:23]}...)")
    if gaps:
        print(f"\n{len(gaps)} known gap(s) reported above (files not obtainable from this source); "
              "they do not count as failures.")
    if failed:
        print(f"{len(failed)} file(s) failed: {'; '.join(failed)}", file=sys.stderr)
        return 1
    return 0


def _info(args) -> int:
    for label, table, files, not_mirrored in _resolve([args.name]):
        print(f"{label}: {table.get('title', '')}")
        for key in ("n", "d", "classes", "class_coding", "preprocessing", "options", "fixed_splits"):
            if key in table:
                print(f"  {key}: {table[key]}")
        if table.get("available", True) is False:
            print(f"  UNAVAILABLE: {table.get('reason', '')}")
        print(f"  citation: {table.get('citation', '')}")
        print(f"  licence: {table.get('licence', '')}")
        for file in files:
            state = "cached" if is_cached(file) else "not cached"
            print(f"  file {file}: {registry().get(file, 'no known hash')} ({state})")
            print(f"    canonical: {urls().get(file, '?')}")
            if mirror() and file in registry():
                print(f"    fetched from: {source_url(file)}")
            if file in not_mirrored:
                print(f"    note: {not_mirrored[file]}")
        print()
    return 0
