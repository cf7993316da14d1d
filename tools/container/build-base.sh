#!/usr/bin/env bash
# Build the local base image without any registry (docs/container.md, "The base image"):
# a minimal Debian bookworm with python3, python3-venv and ca-certificates, made with
# mmdebstrap, its tarball's mtime set to SOURCE_DATE_EPOCH, imported as localhost/base:bookworm.
# With the same SOURCE_DATE_EPOCH and the same mirror state the tarball is byte-identical.
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

mmdebstrap --quiet --variant=minbase --include=python3,python3-venv,ca-certificates \
    bookworm "$work/base.tar" "$MIRROR"
touch -d "@$SOURCE_DATE_EPOCH" "$work/base.tar"
sha256sum "$work/base.tar" | cut -d' ' -f1 >"$work/base.sha256"
podman import --quiet "$work/base.tar" "$BASE_TAG" >/dev/null
echo "base: tarball sha256 $(cat "$work/base.sha256"), image $(podman image inspect --format '{{.Id}}' "$BASE_TAG")"
