#!/usr/bin/env python3
"""Throughput of the histogram ladder's top rung and CUB against the read ceiling, per m and input
distribution, from a `gpulab bench histogram --json` report.

    /usr/bin/python3 scripts/plot_histogram.py REPORT.json OUT.png     (Debian: python3-matplotlib)
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(report_path, png_path):
    with open(report_path) as f:
        report = json.load(f)
    cases = [c for c in report["cases"] if c["problem"] == "histogram"]
    if not cases:
        sys.exit(f"{report_path}: no histogram cases")
    inputs = list(dict.fromkeys(c["params"]["input"] for c in cases))
    bins = list(dict.fromkeys(c["params"]["m"].split(" ")[0] for c in cases))
    ceiling = cases[0]["ceiling"]["gbs"]

    fig, axes = plt.subplots(1, len(inputs), figsize=(5 * len(inputs), 4.2), sharey=True, squeeze=False)
    for ax, source in zip(axes[0], inputs):
        rows = [c for c in cases if c["params"]["input"] == source]
        x = range(len(rows))
        top = [next(v for v in reversed(c["variants"]) if not v["vendor"])["bandwidth_gbs"] for c in rows]
        vendor = [next((v["bandwidth_gbs"] for v in c["variants"] if v["vendor"]), 0) for c in rows]
        ax.bar([i - 0.2 for i in x], top, width=0.4, label="gpulab::histogram")
        ax.bar([i + 0.2 for i in x], vendor, width=0.4, label="CUB HistogramEven")
        if ceiling > 0:
            ax.axhline(ceiling, color="black", linestyle="--", linewidth=1, label=f"read ceiling {ceiling:.0f} GB/s")
        ax.set_xticks(list(x))
        ax.set_xticklabels([c["params"]["m"].split(" ")[0] for c in rows])
        ax.set_xlabel("bins m")
        ax.set_title(f"{source} input")
        ax.grid(axis="y", alpha=0.3)
    axes[0][0].set_ylabel("GB/s of input read")
    axes[0][0].legend(loc="upper right", fontsize=8)
    device = (report.get("device") or {}).get("name", "?")
    n = cases[0]["params"]["n"]
    fig.suptitle(f"histogram of n = {n} int32 values on {device} (commit {report['commit']})", fontsize=10)
    fig.tight_layout()
    fig.savefig(png_path, dpi=110)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
