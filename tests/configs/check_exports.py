"""Exported configurations read by the real parsers that install here.

gRPC: grpcio's own service-config parser (C-core), through a channel given the config: a
config it refuses fails the call with INVALID_ARGUMENT and the field it refused, a config it
accepts fails only to connect (UNAVAILABLE). Envoy and Istio: PyYAML reads the YAML, and the
fields the importer reads are where Envoy and Istio look for them.

Usage: check_exports.py PATH/TO/retrylab
"""
import json
import subprocess
import sys

import grpc
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
]


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
        for to in ("grpc", "envoy", "istio"):
            e, refused = export(lab, link, to)
            if e is None:
                print(f"refused  {to:5} {link}: {refused}")
                continue
            try:
                if to == "grpc":
                    why = grpc_accepts(e["text"])
                    assert why is None, why
                else:
                    doc = yaml.safe_load(e["text"])
                    (check_envoy if to == "envoy" else check_istio)(doc)
                print(f"ok       {to:5} {link} ({len(e['notes'])} notes)")
            except (AssertionError, KeyError, TypeError, yaml.YAMLError) as err:
                failed += 1
                print(f"FAIL     {to:5} {link}: {err}\n{e['text']}")
    print(f"{len(LINKS) * 3} exports, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
