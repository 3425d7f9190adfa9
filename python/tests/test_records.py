"""scripts/record_run.py: a device call filed into its device kind's record (no GPU needed)."""
import io
import json
import pathlib
import subprocess
import sys
import tarfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
RECORD_RUN = ROOT / "scripts" / "record_run.py"


def device_call(where: pathlib.Path, commit: str, parts: str, reports: dict) -> pathlib.Path:
    """What the device tool brings back from one call of device_run.sh: log.txt and results.tgz."""
    where.mkdir(parents=True)
    (where / "log.txt").write_text(f"== 2026-11-25T18:46:53Z commit {commit}, parts: {parts}\nNVIDIA H100\n")
    with tarfile.open(where / "results.tgz", "w:gz") as tar:
        for name, data in reports.items():
            blob = data.encode()
            info = tarfile.TarInfo(f"results/{name}")
            info.size = len(blob)
            tar.addfile(info, io.BytesIO(blob))
    return where


def record(files_at, results, *extra):
    return subprocess.run([sys.executable, str(RECORD_RUN), str(files_at), "--device", "h100", "--results", str(results),
                           *extra], capture_output=True, text=True)


def test_calls_of_one_build_make_one_record_and_another_build_replaces_it_only_when_asked(tmp_path):
    results = tmp_path / "results"
    suite = json.dumps({"gpulab_version": "0.1.0", "cases": [{"samples_ms": [1.0, 2.0]}]}, indent=2)
    tests = json.dumps({"tests": 3, "failures": 0, "disabled": 0, "errors": 0, "time": "1s",
                        "testsuites": [{"name": "Reduce", "tests": 3, "failures": 0, "testsuite": []}]})
    first = device_call(tmp_path / "1", "3f92ac114a18", "notests suite", {"suite.json": suite, "suite.html": "<html>"})
    second = device_call(tmp_path / "2", "3f92ac114a18", "tests (the GPU treated as sm_75)", {"gpu_tests.json": tests})
    assert record(first, results).returncode == 0
    assert record(second, results).returncode == 0
    kept = results / "h100"
    assert sorted(p.name for p in kept.iterdir()) == ["commands.sh", "gpu_tests_summary.txt", "log.txt", "suite.html", "suite.json"]
    assert json.loads((kept / "suite.json").read_text()) == json.loads(suite)
    assert "\n" not in (kept / "suite.json").read_text().rstrip("\n")  # filed compact
    assert (kept / "gpu_tests_summary.txt").read_text().startswith("tests 3, failures 0")
    assert (kept / "commands.sh").read_text().splitlines()[1:] == [
        "GPULAB_BIN=build/ci-device bash scripts/device_run.sh notests suite",
        "GPULAB_TREAT_AS=sm_75 GPULAB_BIN=build/ptx75-device bash scripts/device_run.sh tests"]  # the call's own build and family
    assert (kept / "log.txt").read_text().count("commit 3f92ac114a18") == 2
    again = record(second, results)
    assert again.returncode != 0 and "filed already" in again.stderr

    other = device_call(tmp_path / "3", "9988455aaaaa", "notests suite", {"suite.json": suite})
    refused = record(other, results)
    assert refused.returncode != 0 and "--replace" in refused.stderr
    assert (kept / "gpu_tests_summary.txt").is_file()  # the record is untouched
    assert record(other, results, "--replace").returncode == 0
    assert sorted(p.name for p in kept.iterdir()) == ["commands.sh", "log.txt", "suite.json"]
    assert "9988455" in (kept / "commands.sh").read_text()


def checked(tree: pathlib.Path, files: dict):
    """scripts/check_records.py run on a tree of these files (it checks the tree it sits in)."""
    for name, text in files.items():
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        (tree / name).write_text(text)
    (tree / "scripts").mkdir(exist_ok=True)
    for script in ("check_records.py", "record_run.py"):
        (tree / "scripts" / script).write_text((ROOT / "scripts" / script).read_text())
    done = subprocess.run([sys.executable, str(tree / "scripts" / "check_records.py")], capture_output=True, text=True)
    return done.returncode, done.stdout


def test_check_records_finds_numbers_without_records_broken_links_and_stray_folders(tmp_path):
    good = {
        "README.md": "# x\n\nThe sum runs at 3112 GB/s ([record](docs/results/h100/)).\n",
        "docs/a.md": "# a\n\n## Measured ([earlier](results/README.md#2026-11-22-h100-a14e237))\n\n| rung | ms |\n|---|---|\n"
                     "| 8 | 0.345 ms |\n",
        "docs/results/README.md": "# Measured results\n\n| record | commit |\n|---|---|\n| [h100/](h100/) | 3f92ac1 |\n\n"
                                  "## Earlier records\n\n"
                                  "| <a id=\"2026-11-22-h100-a14e237\"></a>2026-11-22-h100-a14e237 | a14e237 |\n",
        "docs/results/h100/log.txt": "== 2026-11-25T18:46:53Z commit 3f92ac114a18, parts: suite\n",
        "docs/results/h100/commands.sh": "bash scripts/device_run.sh suite\n",
    }
    assert checked(tmp_path / "good", good) == (0, "check_records: every number has its record\n")
    # Fenced code is not prose: its numbers are no claims, its comments no headings.
    code = "# e\n\n```sh\n# a comment\ngpulab bench reduce   # 0.345 ms\n```\n"
    assert checked(tmp_path / "code", {**good, "docs/e.md": code})[0] == 0

    # The reader's path: no heading names an issue or a date, no page runs past 350 lines.
    status, out = checked(tmp_path / "journal", {**good, "docs/j.md": "# j\n\n## Fixed in issue 12 (2026-11-20)\n"})
    assert status == 1 and "docs/j.md: a heading names an issue or a date: Fixed in issue 12 (2026-11-20)" in out
    status, out = checked(tmp_path / "long", {**good, "docs/l.md": "# l\n" + "text\n" * 400})
    assert status == 1 and "docs/l.md: 401 lines, a page holds at most 350" in out

    status, out = checked(tmp_path / "number", {**good, "docs/b.md": "# b\n\nIt took 1.5 ms.\n"})
    assert status == 1 and "docs/b.md: a measured number without its record: It took 1.5 ms." in out
    # A table row's record covers that row alone.
    rows = "# c\n\n| x | y |\n|---|---|\n| a | 2.1× ([r](results/h100/)) |\n| b | 0.9× |\n"
    status, out = checked(tmp_path / "row", {**good, "docs/c.md": rows})
    assert status == 1 and "| b | 0.9× |" in out and "| a |" not in out
    # A commit earlier.md lists is a record too (its folder in git history).
    earlier = {**good, "docs/results/earlier.md": "# Earlier records\n\n| <a id=\"2026-11-21-h100-b0b0b0b\"></a>x | c0ffee1 |\n",
               "docs/f.md": "# f\n\nAt c0ffee1 it took 1.5 ms ([then](results/earlier.md#2026-11-21-h100-b0b0b0b)).\n\nAt c0ffee1: 2.5 ms.\n"}
    assert checked(tmp_path / "earlier", earlier) == (0, "check_records: every number has its record\n")
    gone = "# d\n\n[gone](results/README.md#2026-01-01-h100-0000000)\n"
    status, out = checked(tmp_path / "link", {**good, "docs/d.md": gone})
    assert status == 1 and "has no anchor #2026-01-01-h100-0000000" in out
    status, out = checked(tmp_path / "folder", {**good, "docs/results/2026-11-22-h100-a14e237/log.txt": "old\n"})
    assert status == 1 and "2026-11-22-h100-a14e237: only the index and a folder per device kind" in out
    unlisted = {**good, "docs/results/h100/log.txt": "== 2026-11-26T00:00:00Z commit 1234567abcde, parts: suite\n"}
    status, out = checked(tmp_path / "unlisted", unlisted)
    assert status == 1 and "naming commit 1234567" in out
    no_line = {**good, "docs/results/h200/log.txt": good["docs/results/h100/log.txt"], "docs/results/h200/commands.sh": "x\n"}
    status, out = checked(tmp_path / "no_line", no_line)
    assert status == 1 and "docs/results/h200: the index's current records need its line, naming commit 3f92ac1" in out


def test_a_build_of_uncommitted_changes_is_refused(tmp_path):
    dirty = device_call(tmp_path / "1", "3f92ac114a18-dirty", "tests", {})
    done = record(dirty, tmp_path / "results")
    assert done.returncode != 0 and "uncommitted" in done.stderr
    assert not (tmp_path / "results" / "h100").exists()
