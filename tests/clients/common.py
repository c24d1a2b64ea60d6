"""What the client checks share: the lab's schedule and explained waits, the comparison of two
sets of draws (exact, or a two-sample Kolmogorov-Smirnov test per retry index), and the report."""

import csv
import io
import json
import subprocess

from scipy.stats import ks_2samp

# A random library passes when every retry index's KS p-value is above this.
P_MIN = 0.01


def run_lab(lab, *args):
    done = subprocess.run([lab, *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"retrylab {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout


def lab_schedule(lab, link, clients):
    """The lab's waits in seconds, one list per retry index."""
    out = run_lab(lab, "schedule", link, "--clients", str(clients), "--format", "csv")
    by_retry = {}
    for row in csv.DictReader(io.StringIO(out)):
        by_retry.setdefault(int(row["retry"]), []).append(float(row["wait_ms"]) / 1000)
    return [by_retry[k] for k in sorted(by_retry)]


def lab_wait(lab, link, detail=False):
    """The wait after the first attempt of `link`, in seconds, or None when the lab does not
    retry; with `detail`, (the backoff's draw, its ceiling, the wait)."""
    doc = json.loads(run_lab(lab, "explain", link, "--format", "json"))
    step = doc["steps"][0]
    wait = None if step["wait_ms"] is None else step["wait_ms"] / 1000
    if detail:
        return step["drawn_ms"] / 1000, step["ceiling_ms"] / 1000, wait
    return wait


class Report:
    def __init__(self):
        self.failed = 0
        self.pvalues = {}
        self.lines = 0

    def check(self, preset, what, ok, detail):
        self.lines += 1
        if not ok:
            self.failed += 1
        print(f"{'ok  ' if ok else 'FAIL'} {preset}: {what}: {detail}")

    def ks(self, preset, p):
        self.pvalues.setdefault(preset, []).append(p)

    def finish(self):
        print("\nKS p-values per preset (every retry index of every link checked):")
        for preset, ps in self.pvalues.items():
            print(f"  {preset}: {len(ps)} retry indexes, p from {min(ps):.3f} to {max(ps):.3f}")
        print(f"\n{self.lines} checks, {self.failed} failed")
        return 1 if self.failed else 0


def same(a, b):
    return abs(a - b) <= 1e-6 * max(1.0, abs(a))


def compare(rep, lab, preset, link, lib_clients, clients):
    """`lib_clients` holds each client's waits (seconds) in retry order."""
    lib_cols = [list(col) for col in zip(*lib_clients)]
    lab_cols = lab_schedule(lab, link, clients)
    if len(lib_cols) != len(lab_cols):
        rep.check(preset, link, False, f"library has {len(lib_cols)} retries, lab {len(lab_cols)}")
        return
    for i, (lib, ours) in enumerate(zip(lib_cols, lab_cols)):
        fixed = len({round(x, 9) for x in lib}) == 1
        if fixed:
            ok = all(same(lib[0], x) for x in ours)
            rep.check(preset, f"{link} retry {i + 1}", ok, f"exact {lib[0]:.6g} s, lab {min(ours):.6g} to {max(ours):.6g} s")
            continue
        p = ks_2samp(lib, ours).pvalue
        rep.ks(preset, p)
        rep.check(
            preset,
            f"{link} retry {i + 1}",
            p > P_MIN,
            f"KS p = {p:.3f}, library mean {sum(lib) / len(lib):.4g} s, lab mean {sum(ours) / len(ours):.4g} s",
        )
