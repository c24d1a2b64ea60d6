"""Exported configurations read by the real parsers and libraries that install here.

gRPC: grpcio's own service-config parser (C-core), through a channel given the config: a
config it refuses fails the call with INVALID_ARGUMENT and the field it refused, a config it
accepts fails only to connect (UNAVAILABLE). Envoy and Istio: PyYAML reads the YAML, and the
fields the importer reads are where Envoy and Istio look for them. tenacity: the exported
decorator runs under tenacity itself, which must stop after the link's attempts and draw each
retry's wait inside the range `retrylab schedule` gives, reaching both ends. AWS: botocore's own
config loader reads the exported profile, which must give the link's mode and attempts, and
botocore's delay functions for that mode must draw inside the lab's ranges, reaching both ends.
resilience4j (Java, which does not install here): PyYAML reads the instance, and resilience4j's
IntervalFunction, written again below from its source (configs.md A4), must draw within a
millisecond of the lab's ranges. Polly (.NET, which does not install here): the JSON, its comment
lines dropped as .NET's configuration drops them, holds the standard handler's options with
TimeSpans in the "c" format and the link's retries.

Usage: check_exports.py PATH/TO/retrylab
"""
import json
import subprocess
import sys

import os
import random
import re
import tempfile

import botocore.retries.standard
import botocore.retryhandler
import botocore.session

import grpc
import tenacity
import yaml

# Links whose policies are exported: client presets, lessons' policies and hostile corners.
LINKS = [
    "preset=grpc-2024",
    "preset=grpc-2024&hedge=on&scenario=outage&hedge_max=3&hedge_delay=20ms",
    "preset=envoy",
    "preset=payments-jitter",
    "preset=chapter",
    "attempts=9&backoff=constant&base=500us&cap=2s&deadline=none",
    "attempts=1",
    "backoff=full&base=100ms&cap=100ms&retry_on=400-599&budget=grpc",
    "attempts=5&backoff=full&base=500ms&cap=30s&deadline=20s&fit=cut",
    "attempts=4&backoff=exponential&base=100ms&multiplier=3&cap=2s&jitter=add&jitter_add=50ms",
    "attempts=6&backoff=exponential&base=250ms&cap=1s&jitter=add&jitter_add=100ms&jitter_after_cap=true",
    "attempts=3&backoff=constant&base=1s&cap=2s&jitter=add&jitter_add=500ms",
    "attempts=5&backoff=exponential&base=100ms&multiplier=3&cap=2s&jitter=mult&jitter_lo=0.75&jitter_hi=1.25&deadline=none",
    "attempts=4&backoff=constant&base=500ms&cap=500ms&deadline=none",
    "preset=botocore-standard&attempt_timeout=60s&deadline=none",
    "preset=botocore-adaptive&attempts=4&attempt_timeout=60s",
    "attempts=8&backoff=full&base=1s&cap=24h&classify=aws&ra_mode=ignore&attempt_timeout=60s&budget=none&deadline=none",
    # Linear waits (equal steps summed): Polly's Linear, tenacity's wait_incrementing.
    "attempts=5&backoff=exponential&multiplier=1&ceiling_sum=true&first_exp=1&base=1s&cap=4s&deadline=none",
    "attempts=4&backoff=exponential&multiplier=1&ceiling_sum=true&base=200ms&cap=500ms&jitter=mult&jitter_lo=0.75&jitter_hi=1.25",
]
FORMATS = ("grpc", "envoy", "istio", "linkerd", "gateway-api", "resilience4j", "polly", "aws",
           "tenacity", "spring-gateway")
# The keys whose notes mean a format draws other waits than the link's.
SHAPING = {"backoff", "jitter", "cap", "floor", "first_exp", "multiplier", "ceiling_sum"}


def export(lab, link, to):
    out = subprocess.run([lab, "export", link, "--to", to, "--format", "json"],
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        return None, out.stderr.strip()
    return json.loads(out.stdout), None


def grpc_accepts(config):
    """Whether grpcio's service-config parser takes `config` (None), or why not. The probe runs
    in a child process: a refused config fails at once, when the channel is made, while an
    accepted one with retries and no deadline of its own may keep the call waiting, so a probe
    still waiting after 10 s was accepted."""
    try:
        out = subprocess.run([sys.executable, __file__, "--probe"], input=config,
                             capture_output=True, text=True, timeout=10, check=False)
    except subprocess.TimeoutExpired:
        return None
    return out.stdout.strip() or None


def probe(config):
    """Makes one call on a channel given `config`: prints why the config was refused, if it was."""
    channel = grpc.insecure_channel("127.0.0.1:1", options=[
        ("grpc.service_config", config), ("grpc.enable_retries", 1)])
    try:
        channel.unary_unary("/pkg.Svc/Method")(b"", timeout=1)
    except grpc.RpcError as e:
        if e.code() == grpc.StatusCode.INVALID_ARGUMENT:
            print(e.details())
    finally:
        channel.close()


def check_envoy(doc):
    policy = doc["route"]["retry_policy"]
    assert isinstance(policy["num_retries"], int) and policy["num_retries"] >= 0, policy
    assert isinstance(policy["retry_on"], str), policy
    assert set(policy["retry_back_off"]) == {"base_interval", "max_interval"}, policy


def check_istio(doc):
    assert doc["apiVersion"].startswith("networking.istio.io/") and doc["kind"] == "VirtualService"
    retries = doc["spec"]["http"][0]["retries"]
    assert isinstance(retries["attempts"], int) and retries["attempts"] >= 0, retries


def lab_schedule(lab, link):
    """The link's attempts, and each retry's (lowest, highest) wait in seconds, as
    `retrylab schedule` gives them (its formula starts with the attempts)."""
    out = subprocess.run([lab, "schedule", link, "--format", "json", "--clients", "1"],
                         capture_output=True, text=True, check=True)
    doc = json.loads(out.stdout)
    attempts = int(doc["formula"].split(" attempt")[0])
    return attempts, [(r["low_ms"] / 1000, r["ceiling_ms"] / 1000) for r in doc["retries"]]


def check_tenacity(lab, link, e):
    """Runs the exported decorator under tenacity: its stop and its waits."""
    space = {}
    exec(compile(e["text"], "export.py", "exec"), space)  # our own export: a decorator only
    r = space["call"].retry
    attempts, ranges = lab_schedule(lab, link)
    state = tenacity.RetryCallState(retry_object=r, fn=None, args=(), kwargs={})
    state.outcome_timestamp = state.start_time
    for a in range(1, attempts + 1):
        state.attempt_number = a
        assert bool(r.stop(state)) == (a >= attempts), f"stop at attempt {a}"
    if SHAPING & {n["field"] for n in e["notes"]}:
        return
    check_draws(lambda n: r.wait(with_attempt(state, n)), ranges)


def with_attempt(state, n):
    state.attempt_number = n
    return state


def check_draws(draw, ranges):
    """`draw(n)` (retry n's wait in seconds) stays inside the lab's range and reaches both ends."""
    random.seed(7)
    for n, (low, high) in enumerate(ranges, start=1):
        waits = [draw(n) for _ in range(4000)]
        lo, hi = min(waits), max(waits)
        spread = high - low
        assert low - 1e-6 <= lo and hi <= high + 1e-6, f"retry {n}: [{lo}, {hi}] outside [{low}, {high}]"
        assert lo - low <= 0.02 * spread + 1e-6 and high - hi <= 0.02 * spread + 1e-6, \
            f"retry {n}: [{lo}, {hi}] does not fill [{low}, {high}]"


def spring_ms(v):
    """A Spring duration as resilience4j's export writes it, in milliseconds."""
    v = str(v)
    return float(v[:-2]) / 1000 if v.endswith("us") else float(v[:-2])


def r4j_interval(inst):
    """resilience4j's IntervalFunction for an instance with its own waitDuration: a function of
    the retry (1-based) giving one draw in milliseconds (IntervalFunction.java)."""
    b = spring_ms(inst["waitDuration"])
    exp, rnd = inst.get("enableExponentialBackoff", False), inst.get("enableRandomizedWait", False)
    m = inst.get("exponentialBackoffMultiplier")
    f = inst.get("randomizedWaitFactor")
    cap = inst.get("exponentialMaxWaitDuration")
    cap = spring_ms(cap) if cap is not None and exp and m is not None and (not rnd or f is not None) else None
    m = m if m is not None else 1.5
    f = f if f is not None and (not exp or "exponentialBackoffMultiplier" in inst) else 0.5

    def draw(n):
        d = b
        for _ in range(n - 1 if exp else 0):
            d = float(int(d * m))  # resilience4j truncates each step to whole milliseconds
        if rnd:
            d = max(1.0, d - f * d + random.random() * (2 * f * d + 1))
        return min(d, cap) if cap is not None else d
    return draw


def check_resilience4j(lab, link, e):
    """The instance reads back, and resilience4j's interval draws the lab's ranges."""
    doc = yaml.safe_load(e["text"])
    inst = doc["resilience4j"]["retry"]["instances"]["service"]
    attempts, ranges = lab_schedule(lab, link)
    assert inst["maxAttempts"] == attempts, inst
    if SHAPING & {n["field"] for n in e["notes"]}:
        return
    draw = r4j_interval(inst)
    random.seed(7)
    for n, (low, high) in enumerate(ranges, start=1):
        waits = [draw(n) / 1000 for _ in range(4000)]
        lo, hi = min(waits), max(waits)
        assert abs(lo - low) <= 0.0011 + 0.02 * (high - low) and abs(hi - high) <= 0.0011 + 0.02 * (high - low), \
            f"retry {n}: resilience4j draws [{lo}, {hi}], the lab [{low}, {high}]"


def check_retries(lab, link, e):
    """Linkerd, Gateway API and Spring Cloud Gateway (no validator installs here): PyYAML reads
    the file, and the retries sit where each reads them, counting retries."""
    doc = yaml.safe_load(e["text"])
    attempts, _ = lab_schedule(lab, link)
    if e["format"] == "linkerd":
        got = int(doc["metadata"]["annotations"]["retry.linkerd.io/limit"])
    elif e["format"] == "gateway-api":
        got = doc["spec"]["rules"][0]["retry"]["attempts"]
    else:
        route = doc["spring"]["cloud"]["gateway"]["routes"][0]
        got = route["filters"][0]["args"]["retries"]
    assert got == attempts - 1, (got, attempts)


TIMESPAN = re.compile(r"^(\d+\.)?\d\d:\d\d:\d\d(\.\d{1,7})?$")


def check_polly(lab, link, e):
    """The standard handler's section: its retries and TimeSpans as .NET binds them."""
    body = "\n".join(l for l in e["text"].splitlines() if not l.startswith("//"))
    section = json.loads(body)["Resilience"]
    attempts, _ = lab_schedule(lab, link)
    retry = section["Retry"]
    assert retry["MaxRetryAttempts"] == attempts - 1 >= 1, retry
    assert retry["BackoffType"] in ("Constant", "Linear", "Exponential"), retry
    for v in [retry["Delay"], retry.get("MaxDelay", "00:00:01"), section["AttemptTimeout"]["Timeout"],
              section["TotalRequestTimeout"]["Timeout"]]:
        assert TIMESPAN.match(v), v


def check_aws(lab, link, e):
    """botocore's config loader reads the profile; its delay functions draw the lab's ranges."""
    with tempfile.NamedTemporaryFile("w", suffix=".ini", delete=False) as f:
        f.write(e["text"])
    try:
        os.environ["AWS_CONFIG_FILE"] = f.name
        session = botocore.session.Session()
        client = session.create_client("s3", region_name="us-east-1", aws_access_key_id="k",
                                       aws_secret_access_key="s")
        retries = client.meta.config.retries
    finally:
        os.unlink(f.name)
    attempts, ranges = lab_schedule(lab, link)
    assert retries["total_max_attempts"] == attempts, retries
    assert retries["mode"] in e["text"], retries
    if SHAPING & {n["field"] for n in e["notes"]}:
        return
    if retries["mode"] == "legacy":
        draw = lambda n: botocore.retryhandler.delay_exponential("rand", 2, n)
    else:
        backoff = botocore.retries.standard.ExponentialBackoff()
        draw = lambda n: backoff.delay_amount(botocore.retries.standard.RetryContext(attempt_number=n))
    check_draws(draw, ranges)


def main():
    if sys.argv[1] == "--probe":
        probe(sys.stdin.read())
        return
    lab = sys.argv[1]
    failed = 0
    # The parser refuses what it should: the probe can tell.
    bad = '{"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 1}}]}'
    assert grpc_accepts(bad), "grpcio took a retryPolicy with maxAttempts 1"
    for link in LINKS:
        for to in FORMATS:
            e, refused = export(lab, link, to)
            if e is None:
                print(f"refused  {to:8} {link}: {refused}")
                continue
            try:
                if to == "grpc":
                    why = grpc_accepts(e["text"])
                    assert why is None, why
                elif to == "resilience4j":
                    check_resilience4j(lab, link, e)
                elif to in ("linkerd", "gateway-api", "spring-gateway"):
                    check_retries(lab, link, e)
                elif to == "polly":
                    check_polly(lab, link, e)
                elif to == "aws":
                    check_aws(lab, link, e)
                elif to == "tenacity":
                    check_tenacity(lab, link, e)
                else:
                    doc = yaml.safe_load(e["text"])
                    (check_envoy if to == "envoy" else check_istio)(doc)
                print(f"ok       {to:8} {link} ({len(e['notes'])} notes)")
            except (AssertionError, KeyError, TypeError, yaml.YAMLError) as err:
                failed += 1
                print(f"FAIL     {to:8} {link}: {err}\n{e['text']}")
    print(f"{len(LINKS) * len(FORMATS)} exports, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
