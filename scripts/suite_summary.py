#!/usr/bin/env python3
"""A suite report's checks in a few lines: the device, the cases, the rows checked and failed, the
rungs not run and why. For a run whose times are not to be kept (a GPU treated as an older family:
its times are this GPU's, not that family's), in place of the report.

    python3 scripts/suite_summary.py SUITE_JSON
"""
import collections
import json
import sys


def main() -> int:
    report = json.load(open(sys.argv[1]))
    device = report["device"]
    rows = [(case, row) for case in report["cases"] for row in case["variants"]]
    failed = [(case, row) for case, row in rows if not row["check"]["ok"]]
    print(f"{device['name']} (compute capability {device['compute_capability']}), commit {report['commit']}, {report['created_utc']}")
    print(f"{len(report['cases'])} cases, {len(rows)} rows checked, {len(failed)} failed")
    by_problem = collections.Counter(case["problem"] for case, _ in rows)
    print("rows by problem: " + ", ".join(f"{p} {n}" for p, n in sorted(by_problem.items())))
    not_run = collections.Counter(note for case in report["cases"] for note in case.get("notes", []) if note.endswith("not run"))
    for note, count in sorted(not_run.items()):
        print(f"  {note} ({count} cases)")
    for case, row in failed:
        print(f"FAILED {case['problem']} {case['params']} {row['name']}: {row['check']['detail']}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
