#!/usr/bin/env python3
"""A real browser on gpulab's pages: headless Chromium (Debian's `chromium`) renders a page to a
screenshot or hands back the document as it laid it out. Used by python/tests/test_pages.py and
to take the screenshots that go with a device run:

    python3 scripts/browser.py PAGE.html SHOT.png [--width 1400] [--height 2400]
"""
import argparse
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

NAMES = ("chromium", "chromium-browser", "google-chrome", "chrome")


def find():
    """The browser's path, or None."""
    return next((p for p in map(shutil.which, NAMES) if p), None)


def _run(page, *args, timeout=120):
    browser = find()
    if not browser:
        raise FileNotFoundError("no Chromium found (Debian: apt install chromium)")
    with tempfile.TemporaryDirectory() as profile:
        # --no-sandbox: containers run it as root, where the sandbox cannot start.
        cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
               f"--user-data-dir={profile}", *args, pathlib.Path(page).resolve().as_uri()]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                              env={**os.environ, "DBUS_SESSION_BUS_ADDRESS": "disabled:"})
    if done.returncode != 0:
        raise RuntimeError(f"{browser} exited with {done.returncode}: {done.stderr[-400:]}")
    return done


def dom(page):
    """The document after the browser parsed and laid it out, as HTML text."""
    return _run(page, "--dump-dom").stdout


def screenshot(page, png, width=1400, height=2400):
    """The first width × height pixels of the page as a PNG file."""
    _run(page, f"--screenshot={pathlib.Path(png).resolve()}", f"--window-size={width},{height}")
    return png


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("page")
    ap.add_argument("png")
    ap.add_argument("--width", type=int, default=1400)
    ap.add_argument("--height", type=int, default=2400)
    args = ap.parse_args()
    try:
        screenshot(args.page, args.png, args.width, args.height)
    except (OSError, RuntimeError, subprocess.TimeoutExpired) as e:
        print(f"browser.py: {e}", file=sys.stderr)
        return 1
    print(args.png)
    return 0


if __name__ == "__main__":
    sys.exit(main())
