#!/usr/bin/env python3
"""gpulab's plots: every chart of every problem, drawn from the JSON reports by one code path.

    gpulab_plots.py report RUN.json...        SVGs for `gpulab report` (JSON on stdout)
    gpulab_plots.py compare COMPARISON.json   SVGs for the page of `gpulab compare` (JSON on stdout)
    gpulab_plots.py png RUN.json... -o DIR    the same report charts as PNG files (for docs)

A report gets, per run: a summary (each problem's top rung and its vendor as a share of the measured
ceiling, at the problem's largest case); per problem, its sweeps (throughput over every numeric axis
the run varied, one line a rung, the ceiling as a line); per case, the ladder's bars against the
ceiling and the vendor; per problem of a multi-GPU run, its speed-up against the number of GPUs with
the ideal line. Throughput is in the unit of the ceiling that judges the case: GFLOP/s
against the FMA ceiling where a problem computes more than it moves, GB/s otherwise. The `gpulab`
program runs this with python3 (or $GPULAB_PYTHON) and puts the charts into its pages. Needs
matplotlib; nothing else beyond the standard library.
"""
import argparse
import hashlib
import io
import json
import math
import pathlib
import re
import sys

VENDOR, LIBRARY, RUNG, OTHER, CEILING = "#7f7f7f", "#d62728", "#1f77b4", "#9467bd", "#2ca02c"
VERDICT_COLOURS = {"faster": "#2ca02c", "SLOWER": "#d62728", "same": "#9e9e9e", "BROKEN": "#000000",
                   "unjudged": "#cccccc"}


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def by_fma(case):
    return (case.get("ceiling") or {}).get("name") == "FMA"


def unit(case):
    return "GFLOP/s" if by_fma(case) else "GB/s"


def rate(case, row):
    """The row's throughput in the unit of the case's ceiling (None where not measured or invalid)."""
    value = row.get("gflops") if by_fma(case) else row.get("bandwidth_gbs")
    return value if isinstance(value, (int, float)) and math.isfinite(value) and value > 0 else None


def rate_at(case, ms):
    """Throughput of a time in ms (for the spread of a row: its min and max times)."""
    work = case.get("flops") if by_fma(case) else case.get("bytes")
    return (work or 0) / (ms * 1e6) if ms and ms > 0 else None


def ceiling_of(case):
    c = case.get("ceiling") or {}
    return c["gbs"] if (c.get("gbs") or 0) > 0 else None


def params_text(case, skip=()):
    return " ".join(f"{k}={v}" for k, v in case["params"].items() if k not in skip)


def axis_number(text):
    """The number a parameter value stands for: "67108864 (2^26)" → 67108864, "4096x4096x4096" → its
    product (the elements it spans); None for words ("float32", "replicate")."""
    text = str(text).split(" ")[0]
    if re.fullmatch(r"\d+(x\d+)*", text):
        return math.prod(int(p) for p in text.split("x"))
    return None


def figure(plt, width, height=3.6):
    fig, ax = plt.subplots(figsize=(width, height))
    ax.grid(axis="y", alpha=0.3)
    return fig, ax


def ladder_bars(plt, case):
    """The ladder of one case: each row's throughput (its min..max as a whisker), the ceiling a line."""
    rows = [(v, rate(case, v)) for v in case["variants"]]
    rows = [(v, r) for v, r in rows if r is not None]
    if not rows:
        return None
    fig, ax = figure(plt, max(5.5, 0.55 * len(rows) + 2.5))
    for i, (v, r) in enumerate(rows):
        colour = VENDOR if v["vendor"] else OTHER if v.get("other_units") else LIBRARY if v.get("library") else RUNG
        lo, hi = rate_at(case, v["kernel"]["max_ms"]), rate_at(case, v["kernel"]["min_ms"])
        err = [[max(0.0, r - lo)], [max(0.0, hi - r)]] if lo and hi else None
        ax.bar(i, r, color=colour, yerr=err, capsize=2, ecolor="#333333",
               hatch="//" if v.get("invalid") or v.get("noisy") else None, edgecolor="white")
    ceiling = ceiling_of(case)
    if ceiling:
        ax.axhline(ceiling, color=CEILING, linestyle="--", linewidth=1.2,
                   label=f"measured {case['ceiling']['name']} ceiling {ceiling:.0f}")
        ax.legend(loc="upper left", fontsize=8, frameon=False)
    values = [r for _, r in rows] + ([ceiling] if ceiling else [])
    if max(values) > 30 * min(values):
        ax.set_yscale("log")  # a naive rung and a tensor-core one 1000x apart
    ax.set_xticks(range(len(rows)), [f"{v['id']} {v['name']}" for v, _ in rows], rotation=35, ha="right", fontsize=7)
    ax.set_ylabel(unit(case))
    ax.set_title(f"{case['problem']} {params_text(case)}", fontsize=9)
    return fig


def sweeps(plt, cases):
    """One chart per numeric axis a problem's cases vary along with everything else held: x = the
    axis, one line per row (vendor grey dashed, the library red), the ceiling of each case a line."""
    out = []
    keys = list(dict.fromkeys(k for c in cases for k in c["params"]))
    for key in keys:
        groups = {}
        for c in cases:
            x = axis_number(c["params"].get(key, ""))
            if x is not None:
                groups.setdefault(params_text(c, skip=(key,)), []).append((x, c))
        for rest, members in groups.items():
            if len({x for x, _ in members}) < 3:
                continue
            members.sort(key=lambda m: m[0])
            fig, ax = figure(plt, 5.2, 3.3)
            names = list(dict.fromkeys(v["name"] for _, c in members for v in c["variants"]))
            for name in names:
                pts = [(x, rate(c, v), v) for x, c in members for v in c["variants"] if v["name"] == name]
                pts = [(x, r, v) for x, r, v in pts if r is not None]
                if not pts:
                    continue
                v0 = pts[0][2]
                style = dict(color=VENDOR, linestyle="--", linewidth=1.6) if v0["vendor"] else \
                    dict(color=LIBRARY, linewidth=2.2) if v0.get("library") else dict(linewidth=1.0, alpha=0.8)
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", markersize=3,
                        label=f"{v0['id']} {name}", **style)
            ceil = [(x, ceiling_of(c)) for x, c in members if ceiling_of(c)]
            if ceil:
                ax.step([p[0] for p in ceil], [p[1] for p in ceil], where="mid", color=CEILING, linestyle=":",
                        linewidth=1.5, label="measured ceiling")
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlabel(key)
            ax.set_ylabel(unit(members[0][1]))
            problem = members[0][1]["problem"]
            ax.set_title(f"{problem}: over {key}" + (f" ({rest})" if rest else ""), fontsize=9)
            ax.legend(fontsize=6, ncol=2, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
            out.append((problem, f"{problem} over {key}" + (f", {rest}" if rest else ""), fig))
    return out


def share(case, row):
    ceiling = ceiling_of(case)
    value = rate(case, row) if row and not row.get("other_units") else None
    return 100 * value / ceiling if value and ceiling else None


def summary_chart(plt, report):
    """Each problem's library rung and its vendor as a share of the measured ceiling over the run's
    large cases of the problem (those moving at least 1/8 of the bytes of its largest: small cases
    measure launch latency, not the limit): the median a bar, the range a whisker. The page's first
    chart and the README's."""
    problems = list(dict.fromkeys(c["problem"] for c in report["cases"]))
    labels, series = [], {"library": [], "vendor": []}
    for p in problems:
        cases = [c for c in report["cases"] if c["problem"] == p]
        largest = max(c.get("bytes") or 0 for c in cases)
        cases = [c for c in cases if (c.get("bytes") or 0) >= largest / 8]
        shares = {"library": [], "vendor": []}
        for c in cases:
            lib = next((v for v in c["variants"] if v.get("library")), None)
            ven = next((v for v in c["variants"] if v["vendor"]), None)
            for key, row in (("library", lib), ("vendor", ven)):
                if share(c, row) is not None:
                    shares[key].append(share(c, row))
        if not shares["library"]:
            continue
        labels.append(f"{p}\n({len(cases)} large cases)")
        for key in series:
            values = sorted(shares[key])
            if not values:  # no vendor for this problem: no bar rather than a zero
                series[key].append((math.nan, 0.0, 0.0))
                continue
            mid = values[len(values) // 2] if len(values) % 2 else 0.5 * sum(values[len(values) // 2 - 1:][:2])
            series[key].append((mid, mid - values[0], values[-1] - mid))
    if not labels:
        return None
    fig, ax = figure(plt, max(6, 1.0 * len(labels) + 2), 3.8)
    for offset, key, colour, label in ((-0.2, "library", LIBRARY, "gpulab (the library's rung)"),
                                       (0.2, "vendor", VENDOR, "vendor (CUB, cuBLAS, NPP)")):
        mids = [m for m, _, _ in series[key]]
        err = [[lo for _, lo, _ in series[key]], [hi for _, _, hi in series[key]]]
        ax.bar([i + offset for i in range(len(labels))], mids, width=0.4, color=colour, yerr=err, capsize=2,
               ecolor="#333333", label=label)
    ax.axhline(100, color=CEILING, linestyle="--", linewidth=1.2, label="measured ceiling")
    ax.set_xticks(range(len(labels)), labels, fontsize=8)
    ax.set_ylabel("% of the measured ceiling")
    device = (report.get("device") or {}).get("name", "")
    ax.set_title(f"{device}: median over each problem's large cases (whiskers: the range)", fontsize=9)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=3, frameon=False)
    return fig


def scaling_charts(plt, multi):
    """Per problem of a multi-GPU run: each case's speed-up (work per second over one GPU's) against
    the number of GPUs, a line per case and data placement, the ideal N-fold line dashed."""
    problems = list(dict.fromkeys(c["problem"] for c in multi["cases"]))
    for problem in problems:
        cases = [c for c in multi["cases"] if c["problem"] == problem]
        fig, ax = figure(plt, 6.2, 3.8)
        most = 1
        for case in cases:
            placements = list(dict.fromkeys(r["placement"] for r in case["rows"]))
            for placement in placements:
                points = sorted((r["gpus"], r["speedup"]) for r in case["rows"]
                                if r["placement"] == placement and isinstance(r.get("speedup"), (int, float))
                                and math.isfinite(r["speedup"]) and r["speedup"] > 0)
                if not points:
                    continue
                most = max(most, points[-1][0])
                weak = " (weak)" if case.get("scale", 1) > 1 else ""
                ax.plot([g for g, _ in points], [x for _, x in points], marker="o", linewidth=1.2,
                        label=f"{params_text(case)}, {placement}{weak}")
        ax.plot([1, most], [1, most], linestyle="--", color=CEILING, linewidth=1.2, label="ideal: N GPUs, N times")
        ax.set_xticks(range(1, most + 1))
        ax.set_xlabel("GPUs")
        ax.set_ylabel("speed-up over one GPU")
        ax.set_ylim(bottom=0)
        ax.set_title(f"{problem}: {multi['gpus']} GPUs, {'one process' if multi.get('processes', 1) == 1 else 'a process each'}",
                     fontsize=9)
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=2, frameon=False)
        yield problem, fig


def comparison_bars(plt, case, names):
    rows = [r for r in case["rows"] if isinstance(r.get("speedup"), (int, float))]
    if not rows:
        return None
    fig, ax = figure(plt, max(5.5, 0.55 * len(rows) + 2.5))
    for i, r in enumerate(rows):
        ax.bar(i, r["speedup"], color=VERDICT_COLOURS.get(r["verdict"], "#9e9e9e"))
    ax.axhline(1.0, color="#333333", linewidth=0.8)
    ratio = case["ceiling"].get("ratio")
    if isinstance(ratio, (int, float)):
        ax.axhline(ratio, color=CEILING, linestyle="--", linewidth=1.2,
                   label=f"{case['ceiling']['name']} ceiling ratio {ratio:.2f}x")
        ax.legend(loc="upper left", fontsize=8, frameon=False)
    ax.set_xticks(range(len(rows)), [f"{r['id']} {r['name']}" for r in rows], rotation=35, ha="right", fontsize=7)
    ax.set_ylabel(f"speed {names[1]} ÷ {names[0]}")
    ax.set_title(case["title"], fontsize=9)
    return fig


def svg(plt, fig):
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None, "Creator": None})
    plt.close(fig)
    text = buf.getvalue()
    text = text[text.index("<svg"):]  # the XML header and doctype do not belong inside a page
    # matplotlib writes for people reading the file: indentation, comments, RDF metadata, coordinates
    # to a millionth of a point, an id on every group, a dozen styles repeated on thousands of
    # elements. A page holds a hundred charts, so keep what the browser draws: coordinates to a
    # hundredth of a point, one space where there were many, the ids something refers to, and each
    # style once as a class. A page's styles are shared by its SVGs, so a class is named by its style.
    text = re.sub(r"<metadata>.*?</metadata>|<!--.*?-->", "", text, flags=re.S)
    text = re.sub(r"(\d\.\d\d)\d+", r"\1", text)
    text = re.sub(r">\s+<", "><", re.sub(r"\s*\n\s*", " ", text))
    referred = set(re.findall(r"#([\w.-]+)", text))
    text = re.sub(r' id="([^"]*)"', lambda m: m.group(0) if m.group(1) in referred else "", text)
    classes = {}

    def as_class(match):
        style = match.group(1)
        name = classes.setdefault(style, "s" + hashlib.sha1(style.encode()).hexdigest()[:6])
        return f' class="{name}"'

    text = re.sub(r' style="([^"]*)"', as_class, text)
    rules = "".join(f".{name}{{{style}}}" for style, name in classes.items())
    return text.replace("</style>", rules + "</style>", 1)


def report_plots(plt, paths, emit):
    """Draws every chart of the reports, handing each to emit(meta, figure) as soon as it is drawn."""
    for run, path in enumerate(paths):
        report = load(path)
        fig = summary_chart(plt, report)
        if fig:
            emit({"run": run, "kind": "summary", "title": "top rungs against the vendor and the ceiling"}, fig)
        problems = list(dict.fromkeys(c["problem"] for c in report["cases"]))
        for p in problems:
            for problem, title, fig in sweeps(plt, [c for c in report["cases"] if c["problem"] == p]):
                emit({"run": run, "kind": "sweep", "problem": problem, "title": title}, fig)
        for i, case in enumerate(report["cases"]):
            fig = ladder_bars(plt, case)
            if fig:
                emit({"run": run, "kind": "case", "case": i, "title": f"{case['problem']} {params_text(case)}"}, fig)
        if report.get("multi_gpu"):
            for problem, fig in scaling_charts(plt, report["multi_gpu"]):
                emit({"run": run, "kind": "scaling", "problem": problem, "title": f"{problem} over GPUs"}, fig)


def comparison_summary(plt, comparison):
    """Every row: B's speed over A's against how close A's row came to its ceiling, with each ceiling's
    B/A ratio a line: rows at their ceiling on A should follow it; the others show what else binds."""
    fig, ax = figure(plt, 7.5, 4.2)
    ratios = {}
    problems = list(dict.fromkeys(c["problem"] for c in comparison["cases"]))
    colours = matplotlib_colours(len(problems))
    for colour, problem in zip(colours, problems):
        xs, ys = [], []
        for case in comparison["cases"]:
            if case["problem"] != problem:
                continue
            if isinstance(case["ceiling"].get("ratio"), (int, float)):
                ratios[case["ceiling"]["name"]] = case["ceiling"]["ratio"]
            for r in case["rows"]:
                if isinstance(r.get("a_of_ceiling"), (int, float)) and isinstance(r.get("speedup"), (int, float)):
                    xs.append(100 * r["a_of_ceiling"])
                    ys.append(r["speedup"])
        ax.scatter(xs, ys, s=12, color=colour, label=problem, alpha=0.75)
    for (name, ratio), style in zip(sorted(ratios.items()), ("--", ":", "-.", (0, (5, 1)), (0, (1, 3)))):
        ax.axhline(ratio, color=CEILING, linestyle=style, linewidth=1.1, label=f"{name} ceiling ratio {ratio:.2f}x")
    ax.axhline(1.0, color="#333333", linewidth=0.8)
    ax.set_xlabel("A's row as % of A's measured ceiling")
    ax.set_ylabel("speed B ÷ A")
    ax.set_title(f"{comparison['b']['device']} against {comparison['a']['device']}: every row", fontsize=9)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    return fig


def matplotlib_colours(n):
    import matplotlib
    cycle = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
    return [cycle[i % len(cycle)] for i in range(n)]


def comparison_plots(plt, path, emit):
    comparison = load(path)
    if comparison["cases"]:
        emit({"kind": "summary", "title": "every row against the ceiling ratio"}, comparison_summary(plt, comparison))
    for i, case in enumerate(comparison["cases"]):
        fig = comparison_bars(plt, case, ("A", "B"))
        if fig:
            emit({"kind": "case", "case": i, "title": case["title"]}, fig)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    sub.add_parser("report").add_argument("reports", nargs="+")
    sub.add_parser("compare").add_argument("comparison")
    png = sub.add_parser("png")
    png.add_argument("reports", nargs="+")
    png.add_argument("-o", "--out", required=True, type=pathlib.Path)
    png.add_argument("--kinds", default="summary,sweep,case,scaling", help="which charts (comma list)")
    args = ap.parse_args(argv)
    try:
        import matplotlib
        matplotlib.use("Agg")
        matplotlib.rcParams.update({"svg.fonttype": "none", "svg.hashsalt": "gpulab", "font.size": 8})
        import matplotlib.pyplot as plt
    except ImportError as e:
        print(f"matplotlib is missing ({e}): pip install matplotlib, or apt install python3-matplotlib",
              file=sys.stderr)
        return 4
    plots = []
    kinds = set(args.kinds.split(",")) if args.command == "png" else None

    def emit(meta, fig):
        if args.command == "png":
            if meta["kind"] in kinds:
                name = re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{meta['kind']}_{len(plots):03d}_{meta['title']}")
                path = args.out / f"{name.strip('_')[:100]}.png"
                fig.savefig(path, dpi=110, bbox_inches="tight")
                plots.append(str(path))
            plt.close(fig)
        else:
            plots.append({**meta, "svg": svg(plt, fig)})

    try:
        if args.command == "png":
            args.out.mkdir(parents=True, exist_ok=True)
        if args.command == "compare":
            comparison_plots(plt, args.comparison, emit)
        else:
            report_plots(plt, args.reports, emit)
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"cannot draw from these reports: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    if args.command == "png":
        print("\n".join(plots))
    else:
        json.dump({"plots": plots}, sys.stdout)
    return 0

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
