#!/usr/bin/env bash
# Build both images reproducibly from the one Containerfile (R-CT-1; docs/container.md): the
# target `analyzer`, then the target `qualifier` (the analyzer's layers plus Node and pi-ai,
# which the second build takes from the first's layer cache).
#   BASE_IMAGE  base reference (default localhost/base:bookworm from build-base.sh; elsewhere
#               a registry image pinned by digest, e.g. docker.io/library/debian@sha256:…
#               with python3, python3-venv and libstdc++6 installed)
#   ANALYZER_TAG   tag of the analyzer image (default localhost/clearing-analysis:latest)
#   QUALIFIER_TAG  tag of the qualifier image (default localhost/clearing-analysis-qualifier:latest)
#   BUILD_CA    CA bundle the download steps trust, passed as a build secret, never stored in
#               the image (default: this host's /etc/ssl/certs/ca-certificates.crt)
#   SOURCE_DATE_EPOCH  default: commit time of HEAD
#   PULL        podman build --pull policy (default never: the base must be local or pinned)
#   KEEP_BUILD_STAGES=1  keep the build stages' images (the layer cache that makes a rebuild
#               after a source change take seconds instead of minutes); by default they are
#               removed, since they hold ~1 GB that nothing else uses
# Prints `analyzer_image_id=<ID>` and `qualifier_image_id=<ID>`, the last two lines.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
# shellcheck source=tools/container/podman-env.sh
. "$here/podman-env.sh"

BASE_IMAGE="${BASE_IMAGE:-localhost/base:bookworm}"
ANALYZER_TAG="${ANALYZER_TAG:-localhost/clearing-analysis:latest}"
QUALIFIER_TAG="${QUALIFIER_TAG:-localhost/clearing-analysis-qualifier:latest}"
BUILD_CA="${BUILD_CA:-/etc/ssl/certs/ca-certificates.crt}"

# The committed lock export must be what uv.lock says (when uv is at hand to check it).
uv="$repo/.tools/bin/uv"
if [ -x "$uv" ]; then
    (cd "$repo" && "$uv" export --quiet --frozen --no-dev --no-emit-project \
        --format requirements-txt) | cmp -s - "$here/requirements.txt" \
        || { echo "build.sh: tools/container/requirements.txt is stale (see docs/container.md)" >&2; exit 1; }
fi

build_target() {  # build_target TARGET TAG
    podman build --quiet \
        --pull="${PULL:-never}" \
        --timestamp "$SOURCE_DATE_EPOCH" \
        --build-arg SOURCE_DATE_EPOCH="$SOURCE_DATE_EPOCH" \
        --build-arg BASE_IMAGE="$BASE_IMAGE" \
        --secret id=build-ca,src="$BUILD_CA" \
        --target "$1" \
        --tag "$2" \
        --file "$repo/Containerfile" \
        "$repo" >/dev/null
}
build_target analyzer "$ANALYZER_TAG"
build_target qualifier "$QUALIFIER_TAG"
if [ "${KEEP_BUILD_STAGES:-}" != 1 ]; then
    # Only images labelled by the Containerfile's build stages are untagged and removed here;
    # the two images and the base carry no such label.
    for stage in node python; do
        podman image prune --force --filter "label=org.clearing-analysis.build-stage=$stage" >/dev/null
    done
fi
echo "analyzer_image_id=$(podman image inspect --format '{{.Id}}' "$ANALYZER_TAG")"
echo "qualifier_image_id=$(podman image inspect --format '{{.Id}}' "$QUALIFIER_TAG")"
