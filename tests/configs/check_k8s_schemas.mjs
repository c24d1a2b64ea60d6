// Istio and Gateway API resources read by their own CRD schemas: every Istio, Gateway API and
// Linkerd (HTTPRoute) file of the corpus, and every Istio, Gateway API and Linkerd export of
// every corpus file's link, through `validate()` of @kubernetes-models/istio and
// @kubernetes-models/gateway-api (generated from the projects' CRDs). A file the schema refuses
// must be refused by `retrylab import` too.
//
// Usage: node tests/configs/check_k8s_schemas.mjs PATH/TO/retrylab
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import * as yaml from "js-yaml";
import * as istioV1 from "@kubernetes-models/istio/networking.istio.io/v1";
import * as istioV1alpha3 from "@kubernetes-models/istio/networking.istio.io/v1alpha3";
import * as istioV1beta1 from "@kubernetes-models/istio/networking.istio.io/v1beta1";
import * as gwV1 from "@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1";
import * as gwV1beta1 from "@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1beta1";

const MODELS = {
  "networking.istio.io/v1": istioV1,
  "networking.istio.io/v1alpha3": istioV1alpha3,
  "networking.istio.io/v1beta1": istioV1beta1,
  "gateway.networking.k8s.io/v1": gwV1,
  "gateway.networking.k8s.io/v1beta1": gwV1beta1,
};

/** Why the resource's schema refuses `doc`, or null (also when no schema here covers it). */
export function schemaRefuses(doc) {
  const group = MODELS[doc?.apiVersion];
  const Model = group?.[doc?.kind];
  if (!Model) return null;
  try {
    new Model(doc).validate();
    return null;
  } catch (e) {
    return String(e.message).split("\n")[0].slice(0, 200);
  }
}

function files(dir) {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : [p];
  });
}

function main() {
  const lab = process.argv[2];
  const corpus = dirname(fileURLToPath(import.meta.url));
  let failed = 0, checked = 0, exported = 0;
  // The schemas refuse what the CRDs refuse.
  if (!schemaRefuses({ apiVersion: "gateway.networking.k8s.io/v1", kind: "HTTPRoute", metadata: { name: "r" }, spec: { rules: [{ retry: { codes: [200] } }] } })) {
    throw new Error("the Gateway API schema took a retry code of 200");
  }
  for (const f of files(corpus).filter((p) => /\.(ya?ml|json|py|ini|env)$/.test(p)).sort()) {
    const rel = relative(corpus, f);
    const imp = spawnSync(lab, ["import", f, "--format", "json"], { encoding: "utf8" });
    if (/\.ya?ml$/.test(f)) {
      let docs = [];
      try { docs = yaml.loadAll(readFileSync(f, "utf8")).filter(Boolean); } catch { docs = []; }
      const covered = docs.filter((d) => MODELS[d?.apiVersion]?.[d?.kind]);
      if (covered.length) {
        checked++;
        const why = covered.map(schemaRefuses).find(Boolean);
        if (why && imp.status === 0) {
          failed++;
          console.log(`FAIL     ${rel}: the schema refuses it (${why}), retrylab imports it`);
        } else {
          console.log(`${why ? "refused " : "ok      "} ${rel}${why ? `: ${why}` : ""}`);
        }
      }
    }
    if (imp.status !== 0) continue;
    const link = JSON.parse(imp.stdout).link;
    if (link.includes("scenario=layers")) continue;
    for (const to of ["istio", "gateway-api", "linkerd"]) {
      const out = spawnSync(lab, ["export", link, "--to", to, "--format", "json"], { encoding: "utf8" });
      if (out.status !== 0) continue;
      for (const doc of yaml.loadAll(JSON.parse(out.stdout).text).filter(Boolean)) {
        if (!MODELS[doc.apiVersion]?.[doc.kind]) continue;
        exported++;
        const why = schemaRefuses(doc);
        if (why) {
          failed++;
          console.log(`FAIL     ${to} export of ${rel}: ${why}`);
        }
      }
    }
  }
  console.log(`${checked} Istio and Gateway API files and ${exported} exports through the CRD schemas, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
