"""Envoy configurations read by Envoy's own API: every Envoy file of the corpus, and every
export of every corpus file's link, through `google.protobuf.json_format.ParseDict` with the
messages of `xds-protos` (generated from envoyproxy/data-plane-api), which reads both of
protobuf JSON's spellings and refuses a field Envoy does not have. A file Envoy's API refuses
must be refused by `retrylab import` too.

Usage: check_envoy_proto.py PATH/TO/retrylab
"""
import glob
import importlib
import json
import pkgutil
import os
import subprocess
import sys

import yaml
from google.protobuf import json_format

import envoy
from envoy.admin.v3 import config_dump_pb2
from envoy.config.bootstrap.v3 import bootstrap_pb2
from envoy.config.cluster.v3 import cluster_pb2
from envoy.config.route.v3 import route_components_pb2, route_pb2

# Importing every message module registers it, so any `@type` in an Any (a filter, a retry
# host predicate) resolves as it does in Envoy.
for _m in pkgutil.walk_packages(envoy.__path__, "envoy."):
    if _m.name.endswith("_pb2"):
        importlib.import_module(_m.name)

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)))


def message_for(doc):
    """The Envoy message a document is, from its top-level fields."""
    keys = set(doc)
    if keys & {"static_resources", "staticResources", "dynamic_resources", "dynamicResources", "admin", "node"}:
        return bootstrap_pb2.Bootstrap()
    if "configs" in keys:
        return config_dump_pb2.ConfigDump()
    if keys & {"virtual_hosts", "virtualHosts"}:
        return route_pb2.RouteConfiguration()
    if keys & {"routes", "domains"}:
        return route_components_pb2.VirtualHost()
    if keys & {"circuit_breakers", "circuitBreakers", "connect_timeout", "lb_policy"}:
        return cluster_pb2.Cluster()
    return route_components_pb2.Route()


def envoy_refuses(doc):
    """Why Envoy's API refuses `doc`, or None. A list (a control plane's dump of several
    RouteConfigurations) is refused when one of its items is."""
    if isinstance(doc, list):
        return next((w for w in map(envoy_refuses, doc) if w), None)
    try:
        json_format.ParseDict(doc, message_for(doc))
        return None
    except (json_format.ParseError, TypeError, ValueError) as e:
        return str(e).splitlines()[0][:200]


def run(lab, *args):
    return subprocess.run([lab, *args], capture_output=True, text=True)


def main():
    lab = sys.argv[1]
    failed = 0
    # The parser refuses what Envoy refuses: a field it does not have.
    assert envoy_refuses({"route": {"cluster": "a", "retry_policy": {"num_retrys": 3}}})
    assert envoy_refuses({"route": {"cluster": "a", "retryPolicy": {"numRetries": 3}}}) is None
    files = sorted(
        f for f in glob.glob(os.path.join(CORPUS, "**", "*"), recursive=True)
        if os.path.isfile(f) and f.endswith((".yaml", ".yml", ".json", ".py", ".ini", ".env"))
        and not f.endswith(("check_exports.py", "check_envoy_proto.py"))
    )
    checked = exported = 0
    for f in files:
        rel = os.path.relpath(f, CORPUS)
        imp = run(lab, "import", f, "--format", "json")
        if rel.startswith("envoy") or "/envoy/" in rel:
            with open(f) as fh:
                docs = [d for d in yaml.safe_load_all(fh) if d]
            why = next((w for w in map(envoy_refuses, docs) if w), None)
            checked += 1
            if why and imp.returncode == 0:
                failed += 1
                print(f"FAIL     {rel}: Envoy refuses it ({why}), retrylab imports it")
            elif not why and imp.returncode != 0:
                print(f"refused  {rel}: Envoy reads it, retrylab refuses: {imp.stderr.strip()}")
            else:
                print(f"ok       {rel}")
        if imp.returncode != 0:
            continue
        link = json.loads(imp.stdout)["link"]
        if "scenario=layers" in link:
            continue
        out = run(lab, "export", link, "--to", "envoy", "--format", "json")
        if out.returncode != 0:
            continue
        doc = yaml.safe_load(json.loads(out.stdout)["text"])
        why = envoy_refuses(doc)
        exported += 1
        if why:
            failed += 1
            print(f"FAIL     export of {rel}: {why}")
    print(f"{checked} Envoy files and {exported} Envoy exports through Envoy's API, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
