#!/usr/bin/env python3
"""Bar charts of every ladder in gpulab reports: per case, each GPU row's GFLOP/s (problems that
compute more than they move) or GB/s against the measured ceiling (a line) and the vendor (its
bar in another colour); the library's bar outlined, invalid rows hatched, rows on other units
(tensor cores) marked. One PNG per case, named after the problem and its parameters.

    python3 scripts/plot_ladder.py REPORT.json... -o DIR
"""
import argparse
import json
import math
import pathlib
import re
import sys


def plot_case(case, out_dir, plt):
    ceiling = case.get("ceiling") or {}
    rate = (case.get("flops") or 0) > 0  # GFLOP/s where the problem computes, GB/s where it moves
    key = "gflops" if rate else "bandwidth_gbs"
    rows = [v for v in case["variants"] if isinstance(v.get(key), (int, float)) and math.isfinite(v[key])]
    if not rows:
        return None
    labels = [f"{v['id']} {v['name']}" for v in rows]
    values = [v[key] for v in rows]
    colours = ["tab:gray" if v["vendor"] else "tab:purple" if v.get("other_units") else "tab:blue" for v in rows]
    fig, ax = plt.subplots(figsize=(max(6, 0.7 * len(rows) + 2), 4.5))
    bars = ax.bar(range(len(rows)), values, color=colours)
    for bar, v in zip(bars, rows):
        if v.get("library"):
            bar.set_edgecolor("black")
            bar.set_linewidth(2)
        if v.get("invalid"):
            bar.set_hatch("//")
    if (ceiling.get("gbs") or 0) > 0 and (ceiling.get("name") == "FMA") == rate:
        ax.axhline(ceiling["gbs"], color="tab:red", linestyle="--", label=f"measured {ceiling['name']} ceiling")
        ax.legend(loc="upper left")
    if max(values) > 50 * min(values):
        ax.set_yscale("log")  # a naive rung and a tensor-core one 1000x apart
    ax.set_xticks(range(len(rows)), labels, rotation=40, ha="right", fontsize=8)
    ax.set_ylabel("GFLOP/s" if rate else "GB/s (bytes that must move)")
    params = " ".join(f"{k}={v}" for k, v in case["params"].items())
    ax.set_title(f"{case['problem']} {params}", fontsize=10)
    fig.tight_layout()
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{case['problem']}_{params}").strip("_") + ".png"
    path = out_dir / name
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("reports", nargs="+", type=pathlib.Path)
    ap.add_argument("-o", "--out", type=pathlib.Path, required=True)
    args = ap.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plots", file=sys.stderr)
        return 1
    args.out.mkdir(parents=True, exist_ok=True)
    for report in args.reports:
        try:
            cases = json.loads(report.read_text())["cases"]
        except (OSError, ValueError, KeyError, TypeError) as e:
            print(f"{report}: not a gpulab report ({e}), skipped", file=sys.stderr)
            continue
        for case in cases:
            path = plot_case(case, args.out, plt)
            if path:
                print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
