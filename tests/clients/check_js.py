"""The npm client presets against the libraries themselves (their waits drawn by draws.mjs),
compared as check_py.py compares the Python ones.

Usage: tests/clients/.venv/bin/python tests/clients/check_js.py RETRYLAB_BINARY
"""

import json
import os
import subprocess
import sys

from common import Report, compare, lab_wait

N = 2000


def main():
    lab = sys.argv[1]
    here = os.path.dirname(os.path.abspath(__file__))
    out = subprocess.run(["node", os.path.join(here, "draws.mjs"), str(N)], capture_output=True, text=True, check=True)
    doc = json.loads(out.stdout)
    rep = Report()
    for case in doc["cases"]:
        compare(rep, lab, case["preset"], case["link"], case["clients"], N)
    for ra in doc["retryAfter"]:
        preset, header, secs = ra["preset"], ra["header"], ra["seconds"]
        link = f"preset={preset}&deadline=none&outcomes=503:ra={header}s,ok"
        if ra.get("limit"):
            link += f"&ra_mode=refuse_above&ra_max={ra['limit']}ms"
        got = lab_wait(lab, link)
        if secs is None:
            rep.check(preset, f"Retry-After {header} s over {ra['limit']} ms", got is None, f"lib: no retry; lab: {got}")
        else:
            rep.check(preset, f"Retry-After {header} s", got is not None and abs(got - secs) <= 0.001, f"lib {secs} s, lab {got} s")
    sys.exit(rep.finish())


if __name__ == "__main__":
    main()
