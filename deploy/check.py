#!/usr/bin/env python3
"""Checks the deployment examples: every YAML file parses, and the files agree
with each other and with the Dockerfile (names, ports, paths, probes, memory,
shutdown time), so that none of them can drift from the others unnoticed.

    python3 deploy/check.py        # from the repository root; needs PyYAML

Prints each problem and exits 1 when there is one. Whether the environment
variables named here are ones the server reads is checked by tests/deploy.rs
against the server's own configuration code.
"""

import pathlib
import re
import sys

# Exit status when a module this check needs is missing (tests/deploy.rs fails then, naming the package).
MISSING_MODULE = 3
try:
    import tomllib
    import yaml
except ImportError as e:
    print(f"deploy/check.py needs Python 3.11 or later (tomllib) and PyYAML "
          f"(apt-get install python3-yaml, or pip install pyyaml): {e}", file=sys.stderr)
    sys.exit(MISSING_MODULE)

DEPLOY = pathlib.Path(__file__).resolve().parent
ROOT = DEPLOY.parent
K8S = DEPLOY / "kubernetes"
NATS_CONF = DEPLOY / "nats" / "nats.conf"

# Resident memory of the server at peak under the heaviest load `make bench`
# measures (256 fetches at once, three pages each, plugin memory included), MiB.
MEASURED_PEAK_MIB = 173
HEALTHCHECK = "/usr/local/bin/gleaner-healthcheck"

problems = []
checks = 0


def check(condition, message):
    """Records a problem unless `condition` holds."""
    global checks
    checks += 1
    if not condition:
        problems.append(message)
    return condition


def load(path):
    """Every document of a YAML file, or none after recording why it does not parse."""
    try:
        return [d for d in yaml.safe_load_all(path.read_text()) if d is not None]
    except yaml.YAMLError as e:
        check(False, f"{path.relative_to(ROOT)} is not valid YAML: {e}")
        return []


def dockerfile():
    """The Dockerfile's ENV settings, USER and the healthcheck's install path."""
    text = (ROOT / "Dockerfile").read_text()
    joined = re.sub(r"\\\n\s*", " ", text)
    env = {}
    for line in joined.splitlines():
        if line.startswith("ENV "):
            env.update(re.findall(r"(GLEANER_[A-Z0-9_]+)=(\S+)", line))
    user = re.search(r"^USER (\d+)", text, re.M)
    copied = re.search(r"^COPY .*deploy/healthcheck\.sh (\S+)$", text, re.M)
    return {
        "env": env,
        "uid": int(user.group(1)) if user else None,
        "healthcheck": copied.group(1) if copied else None,
        "text": text,
    }


def mebibytes(quantity):
    """A Kubernetes or compose memory quantity in MiB."""
    units = {"Ki": 1 / 1024, "Mi": 1, "Gi": 1024, "k": 1 / 1024, "m": 1, "g": 1024}
    match = re.fullmatch(r"(\d+)([A-Za-z]*)", str(quantity))
    if not match or match.group(2) not in units:
        check(False, f"memory quantity {quantity!r} is not understood")
        return 0
    return int(match.group(1)) * units[match.group(2)]


def port_of(addr):
    return int(str(addr).rsplit(":", 1)[1])


def main():
    image = dockerfile()
    config_text = (DEPLOY / "gleaner.toml").read_text()
    config = tomllib.loads(config_text)
    max_total = config.get("max_total_memory_mib", 2048)
    drain_ms = config.get("drain_timeout_ms", 30000)

    check(image["uid"] is not None, "Dockerfile: no numeric USER")
    check(image["healthcheck"] == HEALTHCHECK,
          f"Dockerfile: deploy/healthcheck.sh is not installed as {HEALTHCHECK}")
    check(f'CMD ["{HEALTHCHECK}", "--ready"]' in image["text"],
          "Dockerfile: the HEALTHCHECK does not run gleaner-healthcheck --ready")
    for name in ("GLEANER_ADDR", "GLEANER_PLUGIN_DIR", "GLEANER_CACHE_DIR", "GLEANER_DATA_DIR"):
        check(name in image["env"], f"Dockerfile: ENV does not set {name}")
    writable = {image["env"].get("GLEANER_CACHE_DIR"), image["env"].get("GLEANER_DATA_DIR")}

    # Kubernetes.
    docs = {}
    for path in sorted(K8S.glob("*.yaml")):
        for doc in load(path):
            check(isinstance(doc, dict) and "kind" in doc, f"{path.name}: a document without kind")
            docs[doc.get("kind")] = doc
    kustomization = docs.get("Kustomization", {})
    for resource in kustomization.get("resources", []):
        check((K8S / resource).is_file(), f"kustomization.yaml lists {resource}, which does not exist")
    check("secret.example.yaml" not in kustomization.get("resources", []),
          "kustomization.yaml must not apply the Secret's placeholder values")

    configmap, secret = docs.get("ConfigMap"), docs.get("Secret")
    deployment, service = docs.get("Deployment"), docs.get("Service")
    if not all(check(d is not None, f"deploy/kubernetes has no {k}") for d, k in
               [(configmap, "ConfigMap"), (secret, "Secret"), (deployment, "Deployment"), (service, "Service")]):
        return
    check(configmap["data"].get("gleaner.toml") == config_text,
          "configmap.yaml's gleaner.toml differs from deploy/gleaner.toml: copy the file into it")

    pod = deployment["spec"]["template"]
    spec = pod["spec"]
    labels = pod["metadata"]["labels"]
    check(deployment["spec"]["selector"]["matchLabels"].items() <= labels.items(),
          "deployment.yaml: the selector does not match the pod's labels")
    check(service["spec"]["selector"].items() <= labels.items(),
          "service.yaml: the selector does not match the pod's labels")
    check(spec["securityContext"].get("runAsUser") == image["uid"],
          f"deployment.yaml: runAsUser is not the image's user {image['uid']}")
    container = spec["containers"][0]
    env = {e["name"]: e for e in container["env"]}
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    check(port_of(env["GLEANER_ADDR"]["value"]) == ports.get("http"),
          "deployment.yaml: GLEANER_ADDR's port is not the container port named http")
    check(any(p["targetPort"] in ("http", ports.get("http")) for p in service["spec"]["ports"]),
          "service.yaml: no port targets the container's http port")

    referenced = set()
    for name, entry in env.items():
        ref = entry.get("valueFrom", {}).get("secretKeyRef")
        if ref:
            check(ref["name"] == secret["metadata"]["name"],
                  f"deployment.yaml: {name} reads Secret {ref['name']}, not {secret['metadata']['name']}")
            check(ref["key"] in secret["stringData"],
                  f"deployment.yaml: {name} reads key {ref['key']}, which the Secret does not have")
            referenced.add(ref["key"])
    # Cluster mode's overlay reads the NATS password too.
    for path in sorted((K8S / "cluster").glob("*.yaml")):
        for d in load(path):
            if d.get("kind") not in ("Deployment", "StatefulSet"):
                continue
            for overlay_container in d["spec"]["template"]["spec"]["containers"]:
                for entry in overlay_container.get("env", []):
                    ref = entry.get("valueFrom", {}).get("secretKeyRef")
                    if ref:
                        check(ref["name"] == secret["metadata"]["name"] and ref["key"] in secret["stringData"],
                              f"cluster/{path.name}: {entry['name']} reads {ref['name']}/{ref['key']}, which the Secret does not have")
                        referenced.add(ref["key"])
    check(referenced == set(secret["stringData"]),
          f"secret.example.yaml has keys no variable reads: {set(secret['stringData']) - referenced}")
    check("GLEANER_API_KEYS" in env and "secretKeyRef" in env["GLEANER_API_KEYS"].get("valueFrom", {}),
          "deployment.yaml: GLEANER_API_KEYS must come from the Secret (required off loopback)")

    mounts = {m["mountPath"]: m for m in container["volumeMounts"]}
    volumes = {v["name"]: v for v in spec["volumes"]}
    config_path = pathlib.PurePosixPath(env["GLEANER_CONFIG"]["value"])
    mount = mounts.get(str(config_path.parent))
    if check(mount is not None, f"deployment.yaml: nothing is mounted at {config_path.parent}"):
        source = volumes[mount["name"]].get("configMap", {})
        check(source.get("name") == configmap["metadata"]["name"],
              f"deployment.yaml: {config_path.parent} is not the ConfigMap {configmap['metadata']['name']}")
        check(config_path.name in configmap["data"],
              f"deployment.yaml: GLEANER_CONFIG names {config_path.name}, which the ConfigMap lacks")
    if container["securityContext"].get("readOnlyRootFilesystem"):
        for path in writable:
            check(path in mounts and not mounts[path].get("readOnly"),
                  f"deployment.yaml: the root filesystem is read-only but {path} has no writable volume")

    for probe in ("livenessProbe", "startupProbe"):
        check(container[probe].get("exec", {}).get("command") == [HEALTHCHECK],
              f"deployment.yaml: {probe} does not run {HEALTHCHECK} (which counts a 503 \"no plugins\" as alive)")
    check(container["readinessProbe"].get("exec", {}).get("command") == [HEALTHCHECK, "--ready"],
          f"deployment.yaml: readinessProbe does not run {HEALTHCHECK} --ready")

    limit = mebibytes(container["resources"]["limits"]["memory"])
    check(limit >= max_total + MEASURED_PEAK_MIB,
          f"deployment.yaml: memory limit {limit} MiB is below max_total_memory_mib ({max_total}) "
          f"plus the measured peak ({MEASURED_PEAK_MIB} MiB)")
    check(mebibytes(container["resources"]["requests"]["memory"]) <= limit,
          "deployment.yaml: the memory request exceeds the limit")
    pause = container.get("lifecycle", {}).get("preStop", {}).get("exec", {}).get("command", ["sleep", "0"])
    pause_s = int(pause[1]) if pause[:1] == ["sleep"] else 0
    check(spec["terminationGracePeriodSeconds"] * 1000 > drain_ms + pause_s * 1000,
          "deployment.yaml: terminationGracePeriodSeconds leaves no room for the preStop pause and drain_timeout_ms")

    # Compose.
    compose_docs = load(DEPLOY / "compose.yaml")
    if not check(len(compose_docs) == 1, "compose.yaml: expected one document"):
        return
    svc = compose_docs[0]["services"]["gleaner"]
    cenv = svc["environment"]
    check(str(cenv.get("GLEANER_API_KEYS", "")).startswith("${GLEANER_API_KEYS:?"),
          "compose.yaml: GLEANER_API_KEYS must be required (${GLEANER_API_KEYS:?...})")
    published = [str(p).rsplit(":", 1)[1] for p in svc["ports"]]
    check(str(port_of(cenv["GLEANER_ADDR"])) in published,
          "compose.yaml: GLEANER_ADDR's port is not a published container port")
    binds = {}
    for volume in svc["volumes"]:
        source, target = volume.split(":")[:2]
        binds[target] = source
    check(binds.get(cenv["GLEANER_CONFIG"]) == "./gleaner.toml",
          "compose.yaml: GLEANER_CONFIG is not where ./gleaner.toml is mounted")
    if svc.get("read_only"):
        for path in writable:
            check(path in binds, f"compose.yaml: the root filesystem is read-only but {path} has no volume")
    check(mebibytes(svc["mem_limit"]) >= max_total + MEASURED_PEAK_MIB,
          "compose.yaml: mem_limit is below max_total_memory_mib plus the measured peak")
    grace = re.fullmatch(r"(\d+)s", str(svc["stop_grace_period"]))
    check(grace is not None and int(grace.group(1)) * 1000 > drain_ms,
          "compose.yaml: stop_grace_period leaves no room for drain_timeout_ms")
    check(svc["build"]["context"] == ".." and (DEPLOY / svc["build"]["context"] / svc["build"]["dockerfile"]).is_file(),
          "compose.yaml: the build does not point at the repository's Dockerfile")

    cluster(max_total, drain_ms, writable)


def cluster(max_total, drain_ms, writable):
    """The cluster forms: compose with NATS and three replicas, and the
    Kubernetes overlay with a three-node NATS and the Deployment in cluster mode."""
    doc = load(DEPLOY / "compose.cluster.yaml")[0]
    services = doc["services"]
    nats = services.get("nats")
    check(NATS_CONF.is_file(), "nats/nats.conf is missing: the NATS configuration the cluster forms run with")
    users = nats_users(NATS_CONF.read_text()) if NATS_CONF.is_file() else ""
    check("password: $GLEANER_NATS_PASSWORD" in users,
          "nats/nats.conf: the replicas' user must take its password from GLEANER_NATS_PASSWORD")
    if check(nats is not None, "compose.cluster.yaml: no nats service"):
        check("-js" in nats["command"], "compose.cluster.yaml: NATS runs without JetStream (-js)")
        command = nats["command"]
        check("-c" in command and command[command.index("-c") + 1] == "/etc/nats/nats.conf"
              and "./nats/nats.conf:/etc/nats/nats.conf:ro" in nats.get("volumes", []),
              "compose.cluster.yaml: NATS must run with deploy/nats/nats.conf, which asks clients for credentials")
        check(str(nats.get("environment", {}).get("GLEANER_NATS_PASSWORD", "")).startswith("${GLEANER_NATS_PASSWORD:?"),
              "compose.cluster.yaml: NATS must require GLEANER_NATS_PASSWORD")
    replicas = {name: svc for name, svc in services.items() if name.startswith("gleaner")}
    check(len(replicas) == 3, f"compose.cluster.yaml: {len(replicas)} replicas, not 3")
    names = set()
    for name, svc in replicas.items():
        env = svc["environment"]
        check(env.get("GLEANER_NATS_URL") == "nats://nats:4222",
              f"compose.cluster.yaml: {name} does not reach the nats service")
        check(str(env.get("GLEANER_TOKEN_SECRET", "")).startswith("${GLEANER_TOKEN_SECRET:?"),
              f"compose.cluster.yaml: {name} must require GLEANER_TOKEN_SECRET (a replica refuses to start without it)")
        check(str(env.get("GLEANER_API_KEYS", "")).startswith("${GLEANER_API_KEYS:?"),
              f"compose.cluster.yaml: {name} must require GLEANER_API_KEYS")
        check(env.get("GLEANER_NATS_USER") == "gleaner"
              and str(env.get("GLEANER_NATS_PASSWORD", "")).startswith("${GLEANER_NATS_PASSWORD:?"),
              f"compose.cluster.yaml: {name} must connect to NATS as the user gleaner with GLEANER_NATS_PASSWORD")
        names.add(env.get("GLEANER_REPLICA_NAME"))
        check(mebibytes(svc["mem_limit"]) >= max_total + MEASURED_PEAK_MIB,
              f"compose.cluster.yaml: {name}'s mem_limit is below max_total_memory_mib plus the measured peak")
        if svc.get("read_only"):
            mounted = set(svc.get("tmpfs", [])) | {v.split(":")[1] for v in svc.get("volumes", [])}
            for path in writable:
                check(path in mounted, f"compose.cluster.yaml: {name} has a read-only root but {path} is not writable")
        grace = re.fullmatch(r"(\d+)s", str(svc["stop_grace_period"]))
        check(grace is not None and int(grace.group(1)) * 1000 > drain_ms,
              f"compose.cluster.yaml: {name}'s stop_grace_period leaves no room for drain_timeout_ms")
    check(len(names) == 3, "compose.cluster.yaml: replicas need distinct GLEANER_REPLICA_NAME values")

    overlay = K8S / "cluster"
    docs = {}
    for path in sorted(overlay.glob("*.yaml")):
        for d in load(path):
            docs.setdefault(d["kind"], []).append(d)
    kustomization = docs["Kustomization"][0]
    for resource in kustomization["resources"]:
        check((overlay / resource).exists(), f"cluster/kustomization.yaml lists {resource}, which does not exist")
    for patch in kustomization.get("patches", []):
        check((overlay / patch["path"]).is_file(), f"cluster/kustomization.yaml patches with {patch['path']}, which does not exist")
    statefulset = docs["StatefulSet"][0]
    nodes = statefulset["spec"]["replicas"]
    config = docs["ConfigMap"][0]["data"]["nats.conf"]
    check("jetstream" in config, "cluster/nats.yaml: NATS runs without JetStream")
    check(nats_users(config) == users,
          "cluster/nats.yaml: its authorization block must be deploy/nats/nats.conf's, word for word")
    nats_env = {e["name"]: e for e in statefulset["spec"]["template"]["spec"]["containers"][0].get("env", [])}
    check(nats_env.get("GLEANER_NATS_PASSWORD", {}).get("valueFrom", {}).get("secretKeyRef", {}).get("key") == "nats-password",
          "cluster/nats.yaml: NATS must read GLEANER_NATS_PASSWORD from the Secret's nats-password")
    container = statefulset["spec"]["template"]["spec"]["containers"][0]
    start = "\n".join(container.get("args", []))
    check(start.count("nats://route:$NATS_ROUTE_PASSWORD@nats-") == nodes,
          "cluster/nats.yaml: the routes must name every node, with the route password")
    check('authorization { user: route, password: "$NATS_ROUTE_PASSWORD" }' in start
          and 'include "/run/nats/routes.conf"' in config,
          "cluster/nats.yaml: the nodes' routes must require the route password")
    check(nats_env.get("NATS_ROUTE_PASSWORD", {}).get("valueFrom", {}).get("secretKeyRef", {}).get("key") == "nats-route-password",
          "cluster/nats.yaml: NATS must read NATS_ROUTE_PASSWORD from the Secret's nats-route-password")
    services = {svc["metadata"]["name"]: svc for svc in docs["Service"]}
    patch = docs["Deployment"][0]
    env = {e["name"]: e for e in patch["spec"]["template"]["spec"]["containers"][0]["env"]}
    url = env["GLEANER_NATS_URL"]["value"]
    host = url.removeprefix("nats://").split(":")[0]
    check(host in services, f"cluster/gleaner-cluster.yaml: GLEANER_NATS_URL names {host}, which no Service is")
    check(int(env["GLEANER_NATS_REPLICAS"]["value"]) <= nodes,
          "cluster/gleaner-cluster.yaml: GLEANER_NATS_REPLICAS exceeds the NATS nodes")
    check(env.get("GLEANER_NATS_USER", {}).get("value") == "gleaner"
          and env.get("GLEANER_NATS_PASSWORD", {}).get("valueFrom", {}).get("secretKeyRef", {}).get("key") == "nats-password",
          "cluster/gleaner-cluster.yaml: replicas must connect as the user gleaner with the Secret's nats-password")


def nats_users(config):
    """The `authorization { ... }` block of a NATS configuration, each line
    stripped: what must be the same wherever NATS runs for Gleaner."""
    start = config.find("authorization {")
    if start < 0:
        return ""
    depth, end = 0, start
    for i, c in enumerate(config[start:], start):
        depth += c == "{"
        depth -= c == "}"
        if depth == 0 and c == "}":
            end = i + 1
            break
    return "\n".join(line.strip() for line in config[start:end].splitlines())


if __name__ == "__main__":
    try:
        main()
    except (KeyError, IndexError, TypeError) as e:
        problems.append(f"an expected field is missing or of the wrong type: {e!r}")
    for problem in problems:
        print(f"deploy: {problem}", file=sys.stderr)
    if problems:
        sys.exit(1)
    print(f"deploy files consistent ({checks} checks)")
