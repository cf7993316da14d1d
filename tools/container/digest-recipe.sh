#!/usr/bin/env bash
# Runs the pinned-digest recipe of docs/container.md ("From a pinned digest") for real, against
# a throw-away registry on 127.0.0.1 (Debian's docker-registry package), and prints what each
# step gave; docs/container.md records the output.
#  1. push the built image with `podman push --digestfile`: the file holds the digest the
#     registry stores (the manifest as pushed, layers recompressed), the only one to pin;
#  2. pull that digest into an empty storage: the pulled image's ID equals the built image's
#     ID (what `make image` and `make image-check` print), so the digest names these bytes;
#  3. run it by digest, sealed;
#  4. the two recipes that do not work, shown failing: `podman image inspect --format
#     '{{.Digest}}'` of the pushed name ("image not known": a push adds no local name) and the
#     local digest after `podman tag`, which the registry does not know (HTTP 404).
# Needs: podman, docker-registry (apt-get install docker-registry), a built IMAGE (default
# localhost/clearing-analysis:latest). REGISTRY_PORT (default 5000) must be free. The registry,
# its storage and the pull storage are removed at the end.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=tools/container/podman-env.sh
. "$here/podman-env.sh"

IMAGE="${IMAGE:-localhost/clearing-analysis:latest}"
REGISTRY="127.0.0.1:${REGISTRY_PORT:-5000}"
fail() { echo "digest-recipe.sh: FAIL $*" >&2; exit 1; }
command -v docker-registry >/dev/null || fail "docker-registry missing (apt-get install docker-registry)"
podman image exists "$IMAGE" || fail "image $IMAGE not built: run make image first"

work="$(mktemp -d "${TMPDIR:-/tmp}/clearing-digest.XXXXXX")"
registry_pid=""
cleanup() {
    if [ -n "$registry_pid" ]; then kill "$registry_pid" 2>/dev/null || true; wait "$registry_pid" 2>/dev/null || true; fi
    PODMAN_ROOT="$work/pull" podman system reset --force >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

# A registry of our own: loopback only, no auth, storage under $work (not the package's
# /etc/docker/registry/config.yml, which listens on every interface and wants htpasswd).
cat >"$work/registry.yml" <<EOF
version: 0.1
log:
  level: error
storage:
  filesystem:
    rootdirectory: $work/registry
http:
  addr: $REGISTRY
EOF
docker-registry serve "$work/registry.yml" >"$work/registry.log" 2>&1 &
registry_pid=$!
http_status() {  # http_status URL [ACCEPT]: the HTTP status of a HEAD request, 000 if none
    python3 - "$@" <<'EOF'
import sys, urllib.error, urllib.request
headers = {"Accept": sys.argv[2]} if len(sys.argv) > 2 else {}
request = urllib.request.Request(sys.argv[1], method="HEAD", headers=headers)
try:
    with urllib.request.urlopen(request, timeout=2) as response:
        print(response.status)
except urllib.error.HTTPError as error:
    print(error.code)
except OSError:
    print("000")
EOF
}
for _ in $(seq 50); do
    [ "$(http_status "http://$REGISTRY/v2/")" = 200 ] && break
    sleep 0.2
done
[ "$(http_status "http://$REGISTRY/v2/")" = 200 ] || fail "the registry did not start"
# A plain-HTTP registry on loopback: TLS verification off for it alone.
TLS=(--tls-verify=false)

built_id="$(podman image inspect --format '{{.Id}}' "$IMAGE")"
echo "built_image_id=$built_id"

# --- 1. push, the digest from --digestfile -----------------------------------------------------
podman push --quiet "${TLS[@]}" --digestfile "$work/digest" "$IMAGE" \
    "$REGISTRY/clearing-analysis:0.1.0"
digest="$(cat "$work/digest")"
echo "pushed_digest=$digest"
if command -v skopeo >/dev/null; then
    # The same digest, asked of the registry directly.
    asked="$(skopeo inspect "${TLS[@]}" --format '{{.Digest}}' \
        "docker://$REGISTRY/clearing-analysis:0.1.0")"
    [ "$asked" = "$digest" ] || fail "skopeo inspect gives $asked"
    echo "skopeo_inspect_digest=$asked"
fi

# --- 2. pull by digest into an empty storage: same image ID -------------------------------------
pinned="$REGISTRY/clearing-analysis@$digest"
PODMAN_ROOT="$work/pull" podman pull --quiet "${TLS[@]}" "$pinned" >/dev/null
pulled_id="$(PODMAN_ROOT="$work/pull" podman image inspect --format '{{.Id}}' "$pinned")"
echo "pulled_image_id=$pulled_id"
[ "$pulled_id" = "$built_id" ] || fail "the pulled image's ID differs from the built one"
echo "pulled_equals_built=yes"

# --- 3. run by digest, sealed ------------------------------------------------------------------
PODMAN_ROOT="$work/pull" podman run --rm --pull=never --network=none --read-only --cap-drop=ALL \
    --security-opt=no-new-privileges "$pinned" --help >/dev/null
echo "sealed_run_by_digest=exit0"

# --- 4. the recipes that do not work -------------------------------------------------------------
if podman image inspect --format '{{.Digest}}' "$REGISTRY/clearing-analysis:0.1.0" \
    >/dev/null 2>"$work/inspect.err"; then
    echo "inspect_pushed_name=worked"
else
    echo "inspect_pushed_name=failed: $(grep -o 'image not known' "$work/inspect.err" | head -n 1)"
fi
podman tag "$IMAGE" "$REGISTRY/clearing-analysis:tagged"
local_digest="$(podman image inspect --format '{{.Digest}}' "$REGISTRY/clearing-analysis:tagged")"
podman untag "$IMAGE" "$REGISTRY/clearing-analysis:tagged"
manifests="application/vnd.oci.image.manifest.v1+json,application/vnd.docker.distribution.manifest.v2+json"
echo "local_digest_after_tag=$local_digest registry_answers=$(http_status \
    "http://$REGISTRY/v2/clearing-analysis/manifests/$local_digest" "$manifests")"
echo "digest_recipe=pass"
