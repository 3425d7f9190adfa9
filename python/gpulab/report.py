"""A gpulab run's JSON report (`gpulab bench ... --json F`, `gpulab suite`) as Python objects.

    r = gpulab.load_report("results/suite.json")
    r.device["name"], r.ceilings["copy_gbs"]
    for case in r.cases:
        for v in case.variants:
            print(case.problem, case.params, v.name, v.median_ms, v.bandwidth_gbs, v.vs_vendor)
    rows = r.rows()            # one flat dict a timed row: pandas.DataFrame(rows) for plotting
    r.scaling_rows()           # a multi-GPU run's (`bench --gpus N`): one flat dict per GPU count and placement

Needs no GPU and nothing beyond the standard library.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Optional


@dataclass
class Variant:
    """One timed row: a rung, the library, or the vendor."""
    id: str
    name: str
    adds: str
    vendor: bool
    library: bool
    ok: bool
    median_ms: Optional[float]
    min_ms: Optional[float]
    max_ms: Optional[float]
    bandwidth_gbs: Optional[float]
    gflops: Optional[float]
    vs_vendor: Optional[float]
    of_ceiling: Optional[float]
    flags: str
    raw: dict = field(repr=False)
    of_size_copy: Optional[float] = None  # a copy moving the same bytes, its time ÷ this row's


@dataclass
class Case:
    """One size (and type, layout, ...) of one problem, with every row timed on it."""
    problem: str
    params: dict
    bytes: float
    flops: float
    ceiling: Optional[dict]
    variants: list
    cpu: list
    raw: dict = field(repr=False)


@dataclass
class Report:
    gpulab_version: str
    commit: str
    created_utc: str
    command: str
    device: Optional[dict]
    ceilings: Optional[dict]
    clocks: Optional[dict]
    cases: list
    path: str = ""
    sanitizer: list = field(default_factory=list)  # `gpulab sanitize`: each rung's verdict per tool
    # `gpulab bench PROBLEM --gpus N`: {"gpus", "processes", "bus_bandwidth", "cases": [{"problem",
    # "params", "scale", "rows": [{"gpus", "placement", "total": {"median_ms", …}, "speedup", …}]}]}
    multi_gpu: Optional[dict] = None

    def scaling_rows(self) -> list:
        """Every multi-GPU row as one flat dict (problem, the case's params, scale, GPUs, placement,
        the whole function's median time, speed-up, efficiency, check): what a DataFrame wants."""
        out = []
        for case in (self.multi_gpu or {}).get("cases", []):
            for r in case["rows"]:
                out.append({"problem": case["problem"], **case["params"], "scale": case["scale"], "gpus": r["gpus"],
                            "placement": r["placement"], "total_ms": r["total"]["median_ms"], "speedup": r["speedup"],
                            "efficiency": r["efficiency"], "ok": r["check"]["ok"] and r["identical"]})
        return out

    def rows(self) -> list:
        """Every variant of every case as one flat dict (problem, the case's params, the row's
        numbers): what a DataFrame or a plot wants."""
        out = []
        for case in self.cases:
            for v in case.variants:
                row = {"problem": case.problem, **case.params, "id": v.id, "name": v.name, "vendor": v.vendor,
                       "library": v.library, "ok": v.ok, "median_ms": v.median_ms, "min_ms": v.min_ms,
                       "max_ms": v.max_ms, "bandwidth_gbs": v.bandwidth_gbs, "gflops": v.gflops,
                       "vs_vendor": v.vs_vendor, "of_ceiling": v.of_ceiling, "of_size_copy": v.of_size_copy,
                       "flags": v.flags}
                out.append(row)
        return out

    def problems(self) -> list:
        return sorted({case.problem for case in self.cases})


def _need(obj: Any, key: str, where: str):
    if not isinstance(obj, dict) or key not in obj:
        raise ValueError(f"not a gpulab report: {where} has no '{key}'")
    return obj[key]


def _variant(v: dict, where: str) -> Variant:
    kernel = _need(v, "kernel", where) or {}
    check = _need(v, "check", where) or {}
    return Variant(id=str(_need(v, "id", where)), name=_need(v, "name", where), adds=v.get("adds", ""),
                   vendor=bool(v.get("vendor", False)), library=bool(v.get("library", False)),
                   ok=bool(check.get("ok", False)), median_ms=kernel.get("median_ms"), min_ms=kernel.get("min_ms"),
                   max_ms=kernel.get("max_ms"), bandwidth_gbs=v.get("bandwidth_gbs"), gflops=v.get("gflops"),
                   vs_vendor=v.get("vs_vendor"), of_ceiling=v.get("of_ceiling"), flags=v.get("flags", ""), raw=v,
                   of_size_copy=v.get("of_size_copy"))


def _case(c: dict, index: int) -> Case:
    where = f"case {index}"
    variants = _need(c, "variants", where)
    if not isinstance(variants, list):
        raise ValueError(f"not a gpulab report: {where}'s variants are not a list")
    return Case(problem=_need(c, "problem", where), params=dict(c.get("params", {})), bytes=c.get("bytes", 0.0),
                flops=c.get("flops", 0.0), ceiling=c.get("ceiling"),
                variants=[_variant(v, f"{where}, variant {i}") for i, v in enumerate(variants)], cpu=c.get("cpu", []),
                raw=c)


def report_from_dict(d: Any, path: str = "") -> Report:
    """A Report from the parsed JSON; ValueError naming what is missing where it is no gpulab report."""
    where = "the top level"
    cases = _need(d, "cases", where)
    if not isinstance(cases, list):
        raise ValueError("not a gpulab report: 'cases' is not a list")
    return Report(gpulab_version=_need(d, "gpulab_version", where), commit=_need(d, "commit", where),
                  created_utc=d.get("created_utc", ""), command=d.get("command", ""), device=d.get("device"),
                  ceilings=d.get("ceilings"), clocks=d.get("clocks"),
                  cases=[_case(c, i) for i, c in enumerate(cases)], path=path, sanitizer=list(d.get("sanitizer", [])),
                  multi_gpu=d.get("multi_gpu"))


def load_report(path: str | os.PathLike) -> Report:
    """Reads a gpulab JSON report. FileNotFoundError where there is no file; ValueError where the
    file is not JSON or not a gpulab report (saying what is missing)."""
    path = os.fspath(path)
    with open(path, encoding="utf-8") as f:
        try:
            data = json.load(f)
        except json.JSONDecodeError as e:
            raise ValueError(f"{path} is not JSON: {e}") from None
    try:
        return report_from_dict(data, path)
    except ValueError as e:
        raise ValueError(f"{path}: {e}") from None
