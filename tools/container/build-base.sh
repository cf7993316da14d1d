#!/usr/bin/env bash
# Build the local base image without any registry (docs/container.md, "Building the image"):
# Debian bookworm's Essential:yes packages plus python3, python3-venv, ca-certificates and
# libstdc++6 (Node needs it), made with mmdebstrap, its tarball's mtime set to SOURCE_DATE_EPOCH,
# imported as localhost/base:bookworm. With the same SOURCE_DATE_EPOCH and the same mirror state
# the tarball is byte-identical.
# Elsewhere, pass a registry base pinned by digest to build.sh instead (BASE_IMAGE=...@sha256:...).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=tools/container/podman-env.sh
. "$here/podman-env.sh"

BASE_TAG="${BASE_TAG:-localhost/base:bookworm}"
# The mirror the host's apt uses (first URI of debian.sources), unless given.
if [ -z "${MIRROR:-}" ] && [ -r /etc/apt/sources.list.d/debian.sources ]; then
    MIRROR="$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources)"
fi
MIRROR="${MIRROR:-http://deb.debian.org/debian}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# What is left out, and why (the image runs one program, offline, read-only):
# - variant "essential" instead of "minbase": no apt, no Priority:required extras; packages
#   are never installed in the image, only copied in from the build stages.
# - the merged-usr hook: /usr merged with symlinks and the `usr-is-merged` marker package, as
#   debootstrap does; otherwise apt satisfies that dependency with `usrmerge`, which pulls in
#   perl (about 50 MB).
# - documentation, man and info pages and translations (dpkg path-exclude, which also applies
#   to the build stages); copyright files stay.
# The hook and the apt/dpkg runs inside it narrate on stdout and stderr even with --quiet; that
# is shown only when mmdebstrap fails.
mmdebstrap --quiet --variant=essential \
    --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
    --include=python3,python3-venv,ca-certificates,libstdc++6 \
    --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/info/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' \
    --dpkgopt='path-exclude=/usr/share/lintian/*' \
    bookworm "$work/base.tar" "$MIRROR" >"$work/mmdebstrap.log" 2>&1 \
    || { cat "$work/mmdebstrap.log" >&2; exit 1; }
touch -d "@$SOURCE_DATE_EPOCH" "$work/base.tar"
sha256sum "$work/base.tar" | cut -d' ' -f1 >"$work/base.sha256"
podman import --quiet "$work/base.tar" "$BASE_TAG" >/dev/null
echo "base: tarball sha256 $(cat "$work/base.sha256"), image $(podman image inspect --format '{{.Id}}' "$BASE_TAG")"
