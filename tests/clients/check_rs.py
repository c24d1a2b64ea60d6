"""The Rust client presets against the crates themselves (backon, tokio-retry, tower), their
waits drawn by tests/clients/rust (a project of its own), compared as check_py.py compares the
Python ones.

Usage: tests/clients/.venv/bin/python tests/clients/check_rs.py RETRYLAB_BINARY CLIENT_DRAWS_BINARY
"""

import json
import subprocess
import sys

from common import Report, compare

N = 2000


def main():
    lab, draws = sys.argv[1], sys.argv[2]
    doc = json.loads(subprocess.run([draws, str(N)], capture_output=True, text=True, check=True).stdout)
    rep = Report()
    for case in doc["cases"]:
        compare(rep, lab, case["preset"], case["link"], case["clients"], N)
    sys.exit(rep.finish())


if __name__ == "__main__":
    main()
