"""The pages `gpulab report` and `gpulab compare --html` write, opened in a real browser (headless
Chromium): what it shows is read back, the document as laid out and a screenshot's pixels. The
reports are recorded device runs from docs/results; no GPU is needed. Skips, saying why, where the
gpulab program has not been built, matplotlib or Chromium are missing (CI has all three)."""
import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import browser  # noqa: E402

# The CLI of the test command's build (the ci preset), or of the release preset's.
GPULAB = pathlib.Path(os.environ.get("GPULAB_EXE", next((p for p in (ROOT / "build" / preset / "gpulab" for preset in ("ci", "release"))
                                                         if p.exists()), ROOT / "build" / "ci" / "gpulab")))
# The current records' suites: the H100's and the H200's, compared as two runs of the same cases.
H100_SUITE = ROOT / "docs/results/h100/suite.json"
H200_SUITE = ROOT / "docs/results/h200/suite.json"

pytestmark = [
    pytest.mark.skipif(not GPULAB.exists(), reason=f"{GPULAB} is not built (scripts/test.sh builds it)"),
    pytest.mark.skipif(browser.find() is None, reason="no Chromium (Debian: apt install chromium)"),
]


def gpulab(*args):
    pytest.importorskip("matplotlib")
    env = {**os.environ, "GPULAB_PYTHON": sys.executable}  # this interpreter has matplotlib
    return subprocess.run([str(GPULAB), *map(str, args)], capture_output=True, text=True, env=env, timeout=300)


def shown(page):
    """The page as the browser laid it out, and its visible text."""
    html = browser.dom(page)
    text = re.sub(r"<[^>]+>", " ", re.sub(r"<(style|svg)\b.*?</\1>", " ", html, flags=re.S))
    return html, re.sub(r"\s+", " ", text)


def pixels(png):
    import matplotlib.image
    return matplotlib.image.imread(str(png))  # height × width × RGBA, floats in [0, 1]


def near(image, rgb, tolerance=0.06):
    """How many pixels of the screenshot have this colour."""
    import numpy as np
    return int((np.abs(image[..., :3] - np.array(rgb)).max(axis=-1) < tolerance).sum())


LIBRARY_RED = (0xD6 / 255, 0x27 / 255, 0x28 / 255)  # the library's bars (src/core/plots.py)


def test_report_page_shows_every_case_its_charts_and_flags(tmp_path):
    page = tmp_path / "suite.html"
    done = gpulab("report", H200_SUITE, "-o", page)
    assert done.returncode == 0, done.stderr
    assert "no charts" not in done.stderr
    report = json.loads(H200_SUITE.read_text())
    html, text = shown(page)
    assert f"<h2>{report['device']['name']}</h2>" in html  # device facts first
    assert "measured ceiling" in text and "fp32 FMA" in text
    for case in report["cases"]:
        title = "  ".join([case["problem"], *(f"{k}={v}" for k, v in case["params"].items())])
        assert re.sub(r"\s+", " ", title) in text
    # One ladder table per case, one row per variant, flagged rows marked as such.
    assert html.count('<table class="ladder">') == len(report["cases"])
    rows = re.findall(r'<tr class="(rung|library|vendor)([^"]*)">', html)
    assert len(rows) == sum(len(c["variants"]) for c in report["cases"])
    noisy = sum(v["noisy"] for c in report["cases"] for v in c["variants"])
    assert sum("noisy" in extra for _, extra in rows) == noisy
    # The box on top lists each row that failed its check, is invalid or stayed noisy, once.
    flagged = sum(not v["check"]["ok"] or bool(v.get("invalid")) or v["noisy"] for c in report["cases"] for v in c["variants"])
    checked = sum(len(c["variants"]) for c in report["cases"])
    assert (f"{flagged} of {checked} rows need a second look" in text) if flagged else ("every check passed" in text)
    for c in report["cases"]:
        for v in c["variants"]:
            if v.get("invalid"):
                assert f"INVALID: {v['invalid']}" in text
    # Charts inline: the summary, the sweeps and one a case, drawn by the browser.
    assert html.count("<svg") >= len(report["cases"]) + 1
    assert not re.search(r'(src|href)\s*=\s*"(https?:)?//', html), "the page fetches something from a network"
    shot = browser.screenshot(page, tmp_path / "suite.png", 1280, 1800)
    image = pixels(shot)
    assert image.shape[:2] == (1800, 1280)
    assert image[..., :3].std() > 0.05, "a blank screenshot"
    assert near(image, LIBRARY_RED) > 500, "the summary chart's red bars are not on screen"


def test_comparison_page_shows_the_verdicts(tmp_path):
    page = tmp_path / "compare.html"
    done = gpulab("compare", H100_SUITE, H200_SUITE, "--html", page, "--json", tmp_path / "compare.json")
    assert done.returncode in (0, 4), done.stderr
    comparison = json.loads((tmp_path / "compare.json").read_text())
    assert done.returncode == (4 if comparison["summary"]["regressed"] else 0)
    html, text = shown(page)
    assert "gpulab comparison" in text
    s = comparison["summary"]
    assert f"{s['faster']} faster, {s['slower']} slower, {s['same']} within noise" in text
    verdict_rows = re.findall(r'<tr class="(faster|SLOWER|same|BROKEN|unjudged)\b', html)
    assert len(verdict_rows) == sum(len(c["rows"]) for c in comparison["cases"])
    assert verdict_rows.count("SLOWER") == s["slower"]
    assert html.count("<svg") == len(comparison["cases"]) + 1
    image = pixels(browser.screenshot(page, tmp_path / "compare.png", 1280, 1400))
    assert image[..., :3].std() > 0.05


def test_suite_page_degrades_to_tables_without_python(tmp_path):
    env = {**os.environ, "GPULAB_PYTHON": str(tmp_path / "no-python")}
    page = tmp_path / "tables.html"
    done = subprocess.run([str(GPULAB), "report", str(H200_SUITE), "-o", str(page)], capture_output=True, text=True,
                          env=env, timeout=120)
    assert done.returncode == 0
    assert "the page has no charts" in done.stderr
    html, text = shown(page)
    assert "No charts on this page" in text
    assert html.count('<table class="ladder">') == len(json.loads(H200_SUITE.read_text())["cases"])
