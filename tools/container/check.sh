#!/usr/bin/env bash
# `make image-check`: the image's claims, measured on this machine (docs/container.md).
#  1. R-CT-1: build the base and the image twice, each time from empty podman storage (a
#     throw-away --root), and require the same base tarball hash and the same image ID.
#  2. R-CT-2/3: the sealed smoke test (smoke.sh) on that image: the sealed `analyze` equals the
#     checkout's byte for byte, and every refusal exits 2 with its fixed line, creating nothing.
# Everything happens under a temporary directory that is removed at the end; the user's own
# podman storage is not touched. Prints `key=value` lines for the record.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
# shellcheck source=tools/container/podman-env.sh
. "$here/podman-env.sh"

IMAGE=localhost/clearing-analysis:check
work="$(mktemp -d "${TMPDIR:-/tmp}/clearing-image-check.XXXXXX")"
cleanup() {
    for run in 1 2; do
        if [ -d "$work/storage$run" ]; then
            # Removes that storage's images and unmounts its overlay root (plain rm cannot).
            PODMAN_ROOT="$work/storage$run" podman system reset --force >/dev/null 2>&1 || true
        fi
    done
    rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "check.sh: FAIL $*" >&2; exit 1; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

echo "source_date_epoch=$SOURCE_DATE_EPOCH"
# --- 1. two builds from empty storage --------------------------------------------------------
declare -a ids tarballs
for run in 1 2; do
    export PODMAN_ROOT="$work/storage$run"
    start="$(now)"
    base_line="$("$here/build-base.sh")"
    mid="$(now)"
    ids[run]="$(IMAGE_TAG="$IMAGE" "$here/build.sh" | tail -n 1)"
    end="$(now)"
    echo "build${run}_base_seconds=$(elapsed "$start" "$mid")"
    echo "build${run}_image_seconds=$(elapsed "$mid" "$end")"
    tarballs[run]="$(echo "$base_line" | sed -n 's/.*tarball sha256 \([0-9a-f]*\).*/\1/p')"
    echo "build${run}_base_tarball_sha256=${tarballs[run]}"
    echo "build${run}_image_id=${ids[run]}"
done
[ "${tarballs[1]}" = "${tarballs[2]}" ] || fail "R-CT-1: the two base tarballs differ"
[ "${ids[1]}" = "${ids[2]}" ] || fail "R-CT-1: the two builds gave different image IDs"
echo "reproducible=yes"
size="$(podman image inspect --format '{{.Size}}' "$IMAGE")"
echo "image_size_bytes=$size"

podman history --format '{{.Size}} {{.CreatedBy}}' "$IMAGE" \
    | awk '$1 != "0" && $1 != "0B" { print "layer=" $0 }' | cut -c1-90

# --- 2. the sealed smoke test on the image just built ----------------------------------------
# The documentation's blocks, which the smoke test runs as written, name the image :latest; in
# this throw-away storage that is the image just built.
podman tag "$IMAGE" localhost/clearing-analysis:latest
IMAGE="$IMAGE" "$here/smoke.sh"
echo "check=pass"
