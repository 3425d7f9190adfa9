#!/usr/bin/env python3
"""Checks that the documents' numbers can be traced to the device runs they come from.

    python3 scripts/check_records.py [--verbose]

1. docs/results/ holds the index (README.md: the current records), earlier.md (the records before
   them, one line each, their folders in git history) and at most one folder per device kind (h100,
   h200, h200x2, h200-as-sm75, ...), under 9 MB in all; each folder is one record: its log names the
   commit it was built at, its commands.sh how it was made, and the index's table names both.
2. Every relative link of README.md and docs/**/*.md resolves: the file exists, and an anchor
   exists in the file it points into (a heading's slug, or an <a id> such as the index's lines),
   defined there once.
3. Every measured number (a time, a bandwidth, a FLOP rate, a ratio such as 0.83×) in README.md and
   docs/*.md is in the scope of a record: its paragraph, list item or table row, or an earlier one
   of a section enclosing it (not another table row), links into docs/results/ or names a commit
   that the index or earlier.md lists.
4. The documents stay a reader's path: each page of docs/ at most 350 lines, README.md and
   docs/*.md at most 2 800 in all, the index at most 30 KB, and no heading names an issue or a
   date (a record it links to aside: a session's story belongs in git history, not in a page's
   outline).
Prints each problem found and exits 1 if there is one.
"""
import argparse
import pathlib
import re
import sys

from record_run import DEVICE_KIND, LOG_HEADER  # the records' folder names and log header, defined once

ROOT = pathlib.Path(__file__).resolve().parent.parent
RESULTS = ROOT / "docs" / "results"
INDEX = RESULTS / "README.md"
EARLIER = RESULTS / "earlier.md"
MAX_BYTES = 9_000_000
MEASURED = re.compile(r"(?<![\w.^])\d+(?:\.\d+)?\s?(?:ms|µs|GB/s|TB/s|GFLOP/s|TFLOP/s)(?!\w)|(?<![\w.^])\d+\.\d+×(?!\d)")
LINK = re.compile(r"\]\(([^)\s]+)\)")
COMMIT = re.compile(r"\b[0-9a-f]{7}\b")


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, markup and punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def prose(text: str) -> str:
    """The text without its fenced code blocks (a `# comment` there is no heading, a number no claim)."""
    return re.sub(r"^```.*?^```[^\n]*$", "", text, flags=re.M | re.S)


def anchors(path: pathlib.Path) -> set:
    text = prose(path.read_text(encoding="utf-8"))
    found = set(re.findall(r'<a (?:id|name)="([^"]+)"', text))
    seen = {}
    for heading in re.findall(r"^#+\s+(.*)$", text, flags=re.M):
        base = slug(heading)
        found.add(base if base not in seen else f"{base}-{seen[base]}")
        seen[base] = seen.get(base, 0) + 1
    return found


def check_folders(problems: list):
    entries = sorted(p for p in RESULTS.iterdir())
    size = sum(p.stat().st_size for p in RESULTS.rglob("*") if p.is_file())
    if size >= MAX_BYTES:
        problems.append(f"docs/results holds {size / 1e6:.1f} MB, the limit is {MAX_BYTES / 1e6:.0f} MB")
    index = INDEX.read_text(encoding="utf-8") if INDEX.is_file() else ""
    if not index:
        problems.append("docs/results/README.md (the index) is missing")
    current = index.split("## Earlier records")[0]
    for entry in entries:
        if entry.name in ("README.md", "earlier.md"):
            continue
        if not entry.is_dir() or not DEVICE_KIND.fullmatch(entry.name):
            problems.append(f"docs/results/{entry.name}: only the index and a folder per device kind (h100, h200, h200x2) belong here")
            continue
        log, commands = entry / "log.txt", entry / "commands.sh"
        if not log.is_file() or not commands.is_file():
            problems.append(f"docs/results/{entry.name}: a record has log.txt and commands.sh")
            continue
        built = LOG_HEADER.match(log.read_text(encoding="utf-8"))
        row = next((line for line in current.splitlines() if f"]({entry.name}/)" in line), None)
        if not built:
            problems.append(f"docs/results/{entry.name}/log.txt: its first line names no commit")
            continue
        commit = built.group(2)[:7]
        if row is None or commit not in row:
            problems.append(f"docs/results/{entry.name}: the index's current records need its line, naming commit {commit}")


def check_links(files: list, problems: list):
    cache = {}
    for path in files:
        # An <a id> given twice (two records filed under one commit's name) makes a link ambiguous.
        ids = re.findall(r'<a (?:id|name)="([^"]+)"', prose(path.read_text(encoding="utf-8")))
        for twice in sorted({i for i in ids if ids.count(i) > 1}):
            problems.append(f"{path.relative_to(ROOT)}: the anchor #{twice} is defined {ids.count(twice)} times")
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for target in LINK.findall(line):
                if re.match(r"[a-z]+:", target) or target.startswith("<"):
                    continue  # http(s), mailto: not ours to check
                file_part, _, anchor = target.partition("#")
                dest = (path.parent / file_part).resolve() if file_part else path
                where = f"{path.relative_to(ROOT)}:{number}"
                if not dest.exists():
                    problems.append(f"{where}: the link {target} points at nothing")
                elif anchor and dest.suffix == ".md":
                    if dest not in cache:
                        cache[dest] = anchors(dest)
                    if anchor not in cache[dest]:
                        problems.append(f"{where}: {dest.relative_to(ROOT)} has no anchor #{anchor}")


def blocks(text: str):
    """(level, text) of each heading (its level), paragraph, list item and table row (level None)."""
    paragraph = []
    for line in text.splitlines() + [""]:
        heading = re.match(r"(#+)\s", line)
        starts = not line.strip() or heading or line.startswith("|") or re.match(r"\s*([-*]|\d+\.)\s", line)
        if starts and paragraph:
            yield None, " ".join(paragraph)
            paragraph = []
        if heading:
            yield len(heading.group(1)), line
        elif line.startswith("|"):
            yield None, line
        elif line.strip():
            paragraph.append(line)


def check_numbers(files: list, problems: list, verbose: bool):
    listed = {c for page in (INDEX, EARLIER) if page.is_file() for c in COMMIT.findall(page.read_text(encoding="utf-8"))}

    def names_record(block: str) -> bool:
        links = LINK.findall(block)
        return any("results/" in target for target in links) or any(c in listed for c in COMMIT.findall(block))

    for path in files:
        recorded = {0: False}  # per enclosing heading level: a record was named in that section so far
        for level, block in blocks(prose(path.read_text(encoding="utf-8"))):
            if level is not None:
                recorded = {k: v for k, v in recorded.items() if k < level}
                recorded[level] = names_record(block)
                continue
            if names_record(block):
                if not block.startswith("|"):  # a table row's record is that row's alone
                    recorded[max(recorded)] = True
            elif MEASURED.search(block) and not any(recorded.values()):
                shown = block if verbose else block[:110] + ("…" if len(block) > 110 else "")
                problems.append(f"{path.relative_to(ROOT)}: a measured number without its record: {shown}")


MAX_PAGE_LINES, MAX_DOC_LINES, MAX_INDEX_BYTES = 350, 2_800, 30_000
DATED_HEADING = re.compile(r"\bissues? \d+|\b\d{4}-\d{2}-\d{2}\b", re.I)


def check_reader_path(docs: list, problems: list):
    total = 0
    for path in docs:
        text = path.read_text(encoding="utf-8")
        lines = len(text.splitlines())
        total += lines
        if path.parent.name == "docs" and lines > MAX_PAGE_LINES:
            problems.append(f"{path.relative_to(ROOT)}: {lines} lines, a page holds at most {MAX_PAGE_LINES}")
        for heading in re.findall(r"^#+\s+(.*)$", prose(text), flags=re.M):
            if DATED_HEADING.search(re.sub(r"\[[^\]]*\]\([^)]*\)", "", heading)):  # a record cited is no date
                problems.append(f"{path.relative_to(ROOT)}: a heading names an issue or a date: {heading}")
    if total > MAX_DOC_LINES:
        problems.append(f"README.md and docs/*.md hold {total} lines, at most {MAX_DOC_LINES}")
    if INDEX.is_file() and INDEX.stat().st_size > MAX_INDEX_BYTES:  # (earlier.md grows a line a record)
        problems.append(f"docs/results/README.md is {INDEX.stat().st_size} bytes, at most {MAX_INDEX_BYTES}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verbose", action="store_true", help="print whole paragraphs")
    args = parser.parse_args()
    problems = []
    check_folders(problems)
    docs = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    check_links(docs + [INDEX, *([EARLIER] if EARLIER.is_file() else []), *sorted(RESULTS.glob("*/*.md"))], problems)
    check_numbers(docs, problems, args.verbose)
    check_reader_path(docs, problems)
    for problem in problems:
        print(problem)
    print(f"check_records: {len(problems)} problem(s)" if problems else "check_records: every number has its record")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
