#!/usr/bin/env bash
# Build the image reproducibly (R-CT-1; docs/container.md):
#   BASE_IMAGE  base reference (default localhost/base:bookworm from build-base.sh; elsewhere
#               a registry image pinned by digest, e.g. docker.io/library/debian@sha256:…
#               with python3, python3-venv and libstdc++6 installed)
#   IMAGE_TAG   tag of the result (default localhost/clearing-analysis:latest)
#   BUILD_CA    CA bundle the download steps trust, passed as a build secret, never stored in
#               the image (default: this host's /etc/ssl/certs/ca-certificates.crt)
#   SOURCE_DATE_EPOCH  default: commit time of HEAD
#   PULL        podman build --pull policy (default never: the base must be local or pinned)
#   KEEP_BUILD_STAGES=1  keep the build stages' images (the layer cache that makes a rebuild
#               after a source change take seconds instead of minutes); by default they are
#               removed, since they hold ~1 GB that nothing else uses
# Prints the image ID on the last line.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
# shellcheck source=tools/container/podman-env.sh
. "$here/podman-env.sh"

BASE_IMAGE="${BASE_IMAGE:-localhost/base:bookworm}"
IMAGE_TAG="${IMAGE_TAG:-localhost/clearing-analysis:latest}"
BUILD_CA="${BUILD_CA:-/etc/ssl/certs/ca-certificates.crt}"

# The committed lock export must be what uv.lock says (when uv is at hand to check it).
uv="$repo/.tools/bin/uv"
if [ -x "$uv" ]; then
    (cd "$repo" && "$uv" export --quiet --frozen --no-dev --no-emit-project \
        --format requirements-txt) | cmp -s - "$here/requirements.txt" \
        || { echo "build.sh: tools/container/requirements.txt is stale (see docs/container.md)" >&2; exit 1; }
fi

podman build --quiet \
    --pull="${PULL:-never}" \
    --timestamp "$SOURCE_DATE_EPOCH" \
    --build-arg SOURCE_DATE_EPOCH="$SOURCE_DATE_EPOCH" \
    --build-arg BASE_IMAGE="$BASE_IMAGE" \
    --secret id=build-ca,src="$BUILD_CA" \
    --tag "$IMAGE_TAG" \
    --file "$repo/Containerfile" \
    "$repo" >/dev/null
if [ "${KEEP_BUILD_STAGES:-}" != 1 ]; then
    # Only images labelled by the Containerfile's build stages are untagged and removed here;
    # the final image and the base carry no such label.
    for stage in node python; do
        podman image prune --force --filter "label=org.clearing-analysis.build-stage=$stage" >/dev/null
    done
fi
podman image inspect --format '{{.Id}}' "$IMAGE_TAG"
