"""The Python client presets against the libraries themselves.

For each preset, the library draws its own waits through its own backoff function (no sleeping:
the function that computes the sleep is called directly) for 2,000 clients, and the lab draws
`retrylab schedule 'preset=NAME' --clients 2000`. Deterministic libraries must agree exactly;
random ones must pass a two-sample Kolmogorov-Smirnov test (p > 0.01) at every retry index.
Then each Retry-After rule is checked on fixed examples (seconds, an HTTP date, over a cap,
over a refusal limit) against `retrylab explain`.

Usage: tests/clients/.venv/bin/python tests/clients/check_py.py RETRYLAB_BINARY
Prints one line per check and a summary; exits 1 on any failure.
"""

import email.utils
import random
import sys
import time

from common import Report, compare, lab_wait

import azure.core.pipeline.policies as azp
import backoff._jitter as bj
import backoff._wait_gen as bw
import httpx_retries
import stamina._core as st
import urllib3.util.retry as ur
from azure.core.pipeline.policies import _utils as az_utils
from botocore.awsrequest import AWSResponse
from botocore.retries import standard as boto
from google.api_core.retry import retry_base as gac

N = 2000


def urllib3_waits(retries, **kw):
    def one():
        out = []
        for k in range(1, retries + 1):
            history = tuple(ur.RequestHistory("GET", "/", None, 503, None) for _ in range(k))
            out.append(ur.Retry(total=retries, history=history, **kw).get_backoff_time())
        return out
    return one


def google_waits(retries):
    def one():
        gen = gac.exponential_sleep_generator(1.0, 60.0, 2.0)
        return [next(gen) for _ in range(retries)]
    return one


def azure_waits(retries):
    def one():
        policy = azp.RetryPolicy()
        settings = policy.configure_retries({})
        out = []
        for k in range(1, retries + 1):
            settings["history"] = [None] * k
            out.append(policy.get_backoff_time(settings))
        return out
    return one


def stainless_waits(module, retries):
    """openai and anthropic: `_calculate_retry_timeout` of a client with `max_retries`."""
    client = module(api_key="unused", max_retries=retries)
    from openai._models import FinalRequestOptions as OpenAIOptions
    from anthropic._models import FinalRequestOptions as AnthropicOptions
    options_type = OpenAIOptions if "openai" in module.__module__ else AnthropicOptions
    options = options_type.construct(method="get", url="/x")

    def one():
        return [client._calculate_retry_timeout(retries - k, options, None) for k in range(retries)]
    return one


def httpx_retries_waits(retries, factor):
    def one():
        r = httpx_retries.Retry(total=retries, backoff_factor=factor)
        out = []
        for _ in range(retries):
            r = r.increment()
            out.append(r._calculate_sleep({}))
        return out
    return one


def backoff_py_waits(retries):
    def one():
        gen = bw.expo()
        gen.send(None)
        return [bj.full_jitter(next(gen)) for _ in range(retries)]
    return one


def stamina_waits(retries):
    def one():
        return [st._compute_backoff(n, 5.0, 0.1, 2, 1.0) for n in range(1, retries + 1)]
    return one


def botocore_waits(retries):
    def one():
        b = boto.ExponentialBackoff()
        return [b.delay_amount(boto.RetryContext(attempt_number=n)) for n in range(1, retries + 1)]
    return one


def schedules(rep, lab):
    import anthropic
    import openai
    cases = [
        ("urllib3", "preset=urllib3", urllib3_waits(3)),
        ("urllib3", "preset=urllib3&base=500ms&attempts=11", urllib3_waits(10, backoff_factor=0.5)),
        ("urllib3", "preset=urllib3&base=500ms&attempts=11&jitter=add&jitter_add=1s",
         urllib3_waits(10, backoff_factor=0.5, backoff_jitter=1.0)),
        ("google-api-core", "preset=google-api-core", google_waits(9)),
        ("azure-core", "preset=azure-core", azure_waits(3)),
        ("azure-core", "preset=azure-core&attempts=11", azure_waits(10)),
        ("openai", "preset=openai", stainless_waits(openai.OpenAI, 2)),
        ("openai", "preset=openai&attempts=8", stainless_waits(openai.OpenAI, 7)),
        ("anthropic", "preset=anthropic", stainless_waits(anthropic.Anthropic, 2)),
        ("anthropic", "preset=anthropic&attempts=8", stainless_waits(anthropic.Anthropic, 7)),
        ("httpx-retries", "preset=httpx-retries", httpx_retries_waits(10, 0.0)),
        ("httpx-retries", "preset=httpx-retries&base=500ms", httpx_retries_waits(10, 0.5)),
        ("backoff-py", "preset=backoff-py", backoff_py_waits(9)),
        ("stamina", "preset=stamina", stamina_waits(9)),
        ("botocore-standard", "preset=botocore-standard", botocore_waits(2)),
        ("botocore-standard", "preset=botocore-standard&attempts=11", botocore_waits(10)),
        # Adaptive mode waits as standard mode does; its limiter is checked by adaptive_botocore.py.
        ("botocore-adaptive", "preset=botocore-adaptive", botocore_waits(2)),
    ]
    for preset, link, draw in cases:
        compare(rep, lab, preset, link, [draw() for _ in range(N)], N)


def http_date(seconds_ahead):
    return email.utils.formatdate(time.time() + seconds_ahead, usegmt=True)


def retry_after(rep, lab):
    """Each library's own parsing and rule on fixed headers against the lab's rule."""
    import anthropic
    import httpx2
    import openai
    from openai._models import FinalRequestOptions

    u = ur.Retry.DEFAULT
    for header in ["30", http_date(90), "99999"]:
        secs = u.parse_retry_after(header)
        want = lab_wait(lab, f"preset=urllib3&deadline=none&outcomes=503:ra={round(secs)}s,ok")
        rep.check("urllib3", f"Retry-After {header!r}", abs(want - secs) <= 1.0, f"lib {secs:.1f} s, lab {want:.1f} s")
    hx = httpx_retries.Retry(total=3)
    for header in ["30", http_date(90), "500"]:
        secs = hx._calculate_sleep({"Retry-After": header})
        raw = hx.parse_retry_after(header)
        want = lab_wait(lab, f"preset=httpx-retries&deadline=none&outcomes=503:ra={round(raw)}s,ok")
        rep.check("httpx-retries", f"Retry-After {header!r}", abs(want - secs) <= 1.0, f"lib {secs:.1f} s, lab {want:.1f} s")
    for header in ["30", http_date(90), "86400"]:
        secs = az_utils.parse_retry_after(header)
        want = lab_wait(lab, f"preset=azure-core&outcomes=503:ra={round(secs)}s,ok")
        rep.check("azure-core", f"Retry-After {header!r}", abs(want - secs) <= 1.0, f"lib {secs:.1f} s, lab {want:.1f} s")
    for name, module, link in [("openai", openai.OpenAI, "preset=openai"), ("anthropic", anthropic.Anthropic, "preset=anthropic")]:
        client = module(api_key="unused")
        options = FinalRequestOptions.construct(method="get", url="/x")
        for header in ["30", http_date(90), "200"]:
            headers = httpx2.Headers({"retry-after": header})
            response = httpx2.Response(429, headers=headers, request=httpx2.Request("GET", "https://x/"))
            retries = client._should_retry(response)
            secs = client._calculate_retry_timeout(2, options, headers)
            raw = client._parse_retry_after_header(headers)
            got = lab_wait(lab, f"{link}&deadline=none&outcomes=429:ra={round(raw)}s,ok")
            if not retries:
                rep.check(name, f"Retry-After {header!r}", got is None, f"lib: no retry; lab: {got}")
            else:
                rep.check(name, f"Retry-After {header!r}", got is not None and abs(got - secs) <= 1.0, f"lib {secs:.1f} s, lab {got}")
    # botocore: x-amz-retry-after (ms) clamped to [t, t + 5 s]; the library's random is pinned
    # to the lab's own draw so both compute from the same t.
    for ms in [20, 3000, 60000]:
        link = f"preset=botocore-standard&outcomes=503:ra={ms}ms,ok"
        drawn, ceiling, wait = lab_wait(lab, link, detail=True)
        b = boto.ExponentialBackoff(random=lambda: drawn / ceiling)
        resp = AWSResponse("https://x/", 503, {"x-amz-retry-after": str(ms)}, None)
        secs = b.delay_amount(boto.RetryContext(attempt_number=1, http_response=resp))
        rep.check("botocore-standard", f"x-amz-retry-after {ms} ms", abs(secs - wait) <= 0.001, f"lib {secs:.4f} s, lab {wait:.4f} s")


def main():
    lab = sys.argv[1]
    random.seed(20261203)
    rep = Report()
    schedules(rep, lab)
    retry_after(rep, lab)
    sys.exit(rep.finish())


if __name__ == "__main__":
    main()
