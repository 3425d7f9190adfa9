#!/usr/bin/env python3
"""Files one device run of scripts/device_run.sh as the current record of its device kind.

    python3 scripts/record_run.py FILES_AT --device h100|h200|h200x2|h100-as-sm75 [--replace]

FILES_AT is the folder the device tool copied $OUT to (log.txt, results.tgz; or results/ where a
run was cut short before packing it). The run's commit comes from the first line of log.txt
("== <date> commit <hash>, parts: ..."). docs/results/<device>/ holds one record: one build, one
commit, its calls' logs one after the other, their reports, sanitizer.txt, gpu_tests_summary.txt
(per-suite counts from GoogleTest's JSON) and commands.sh (each call's device_run.sh line). A call
at another commit than the folder's replaces the record only with --replace: move the record's line
in docs/results/README.md to docs/results/earlier.md first (its folder stays in history).
"""
import argparse
import json
import pathlib
import re
import shutil
import sys
import tarfile

# What scripts/check_records.py checks the records by, too: a device kind's folder name, and the
# first line device_run.sh writes to a call's log.
# A GPU treated as an older family (--treat-as) files under its own kind: h100-as-sm75.
DEVICE_KIND = re.compile(r"h(100|200)(x\d+)?(-as-sm\d{2})?")
LOG_HEADER = re.compile(r"== (\d{4}-\d{2}-\d{2})T\S+ commit ([0-9a-f]{7,})(-dirty)?, parts: (.*)")


def device_kind(text: str) -> str:
    if not DEVICE_KIND.fullmatch(text):
        raise argparse.ArgumentTypeError(f"'{text}' is not a device kind like h100, h200, h200x2, h100-as-sm75")
    return text


def summarize(report: dict) -> str:
    lines = [f"tests {report['tests']}, failures {report['failures']}, disabled {report['disabled']}, "
             f"errors {report['errors']}, time {report['time']}"]
    for suite in report["testsuites"]:
        cases = suite.get("testsuite", [])
        skipped = sum(1 for case in cases if case.get("result") == "SKIPPED")
        lines.append(f"{suite['name']}: {suite['tests']} tests, {suite['failures']} failures, {skipped} skipped")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files_at", type=pathlib.Path)
    parser.add_argument("--device", required=True, type=device_kind, help="the device kind's folder: h100, h200, h200x2, h100-as-sm75 (treated as sm_75)")
    parser.add_argument("--replace", action="store_true", help="replace a record made at another commit")
    parser.add_argument("--results", type=pathlib.Path, default=pathlib.Path(__file__).resolve().parent.parent / "docs" / "results",
                        help="the records' folder (default docs/results)")
    args = parser.parse_args()

    log = args.files_at / "log.txt"
    if not log.is_file():
        sys.exit(f"record_run: {log} not found")
    match = LOG_HEADER.match(log.read_text())
    if not match:
        sys.exit(f"record_run: the first line of {log} names no date, commit and parts: {log.read_text()[:120]!r}")
    if match.group(3):
        sys.exit("record_run: that build had uncommitted changes; commit, rebuild and run again to file it")
    commit, parts = match.group(2)[:7], match.group(4)

    dest = args.results / args.device
    kept_log, new_log = dest / "log.txt", log.read_text()
    if kept_log.is_file():
        kept = LOG_HEADER.match(kept_log.read_text())
        if kept and kept.group(2)[:7] != commit:
            if not args.replace:
                sys.exit(f"record_run: {dest} is the record of {kept.group(2)[:7]}; --replace files {commit} in its place")
            shutil.rmtree(dest)
    dest.mkdir(parents=True, exist_ok=True)
    if not kept_log.is_file():
        shutil.copyfile(log, kept_log)
    elif new_log in kept_log.read_text():
        sys.exit(f"record_run: {log} is filed already")
    else:  # another call of this build: its log after the others
        kept_log.write_text(kept_log.read_text().rstrip("\n") + "\n\n" + new_log)
    commands = dest / "commands.sh"
    if not commands.is_file():
        commands.write_text(f"# The calls of this record, each on the GPU machine with the build of {commit} carried "
                            "(scripts/test.sh's build/ci-device.tar.xz; a ptx preset's for a GPU treated as an older family)\n")
    treated = re.search(r" \(the GPU treated as sm_(\d{2})\)$", parts)
    parts = parts[:treated.start()] if treated else parts
    run = f"GPULAB_TREAT_AS=sm_{treated.group(1)} GPULAB_BIN=build/ptx{treated.group(1)}-device" if treated else "GPULAB_BIN=build/ci-device"
    with commands.open("a") as out:
        out.write(f"{run} bash scripts/device_run.sh {'' if parts == 'all' else parts}".rstrip() + "\n")

    def keep(name, data):
        if name == "gpu_tests.json":
            (dest / "gpu_tests_summary.txt").write_text(summarize(json.loads(data)))
        elif name.endswith(".json"):  # compact: the records stay a few MB (the samples are most of a report)
            (dest / name).write_text(json.dumps(json.loads(data), separators=(",", ":")) + "\n")
        else:
            (dest / name).write_bytes(data)

    archive = args.files_at / "results.tgz"
    if archive.is_file():
        with tarfile.open(archive) as tar:
            for member in tar.getmembers():
                if member.isfile():
                    keep(pathlib.PurePosixPath(member.name).name, tar.extractfile(member).read())
    elif (args.files_at / "results").is_dir():  # a run cut short before it packed its results
        for path in sorted((args.files_at / "results").rglob("*")):
            if path.is_file():
                keep(path.name, path.read_bytes())
    print(dest)
    return 0


if __name__ == "__main__":
    sys.exit(main())
