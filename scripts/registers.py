#!/usr/bin/env python3
"""Registers per thread, stack and spills of every kernel a source file builds, as ptxas reports
them (the seed's §2.7 check that a register cache stayed in registers). Recompiles the file with
the flags of build/release/compile_commands.json plus -Xptxas -v; prints a Markdown table.

    python3 scripts/registers.py src/sgemm/sgemm_ladder.cu src/sgemm/sgemm.cu
"""
import json
import pathlib
import re
import subprocess
import sys

root = pathlib.Path(__file__).resolve().parent.parent
commands = json.loads((root / "build/release/compile_commands.json").read_text())
print("| kernel | registers | stack bytes | spill stores | spill loads |")
print("|---|---:|---:|---:|---:|")
for wanted in sys.argv[1:]:
    path = (root / wanted).resolve()
    entry = next((e for e in commands if pathlib.Path(e["file"]).resolve() == path), None)
    if entry is None:
        sys.exit(f"{wanted}: not in build/release/compile_commands.json (configure the release preset)")
    command = re.sub(r" -o \S+", " -Xptxas -v -o /dev/null", entry["command"])
    log = subprocess.run(command, shell=True, cwd=entry["directory"], capture_output=True, text=True).stderr
    kernel = None
    for line in log.splitlines():
        if m := re.search(r"Compiling entry function '(\w+)'", line):
            kernel = subprocess.run(["c++filt", m.group(1)], capture_output=True, text=True).stdout.strip()
            kernel = re.sub(r"\(anonymous namespace\)::", "", kernel)
            kernel = re.sub(r"\([^()]*\)$", "", kernel)  # the parameter list
            kernel = re.sub(r"\b\w+::", "", kernel)     # namespaces
        elif (m := re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)) and kernel:
            stack, stores, loads = m.groups()
        elif (m := re.search(r"Used (\d+) registers", line)) and kernel:
            print(f"| `{kernel}` | {m.group(1)} | {stack} | {stores} | {loads} |")
            kernel = None
