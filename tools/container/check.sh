#!/usr/bin/env bash
# `make image-check`: the images' claims, measured on this machine (docs/container.md).
#  1. R-CT-1: build the base and both images (analyzer, qualifier) twice, each time from empty
#     podman storage (a throw-away --root), and require the same base tarball hash and, for
#     each image, the same image ID.
#  2. The analyzer image's size is under the budget (400 MB), printed with both sizes and the
#     non-empty layers of each.
#  3. R-CT-2/3: the sealed smoke test (smoke.sh) on those images: the analyzer's sealed
#     `analyze` equals the checkout's byte for byte, with the record the qualifier's `qualify`
#     wrote, and every refusal exits 2 with its fixed line, creating nothing.
# Everything happens under a temporary directory that is removed at the end; the user's own
# podman storage is not touched. Prints `key=value` lines for the record.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
# shellcheck source=tools/container/podman-env.sh
. "$here/podman-env.sh"

ANALYZER=localhost/clearing-analysis:check
QUALIFIER=localhost/clearing-analysis-qualifier:check
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
declare -A ids
declare -a tarballs
for run in 1 2; do
    export PODMAN_ROOT="$work/storage$run"
    start="$(now)"
    base_line="$("$here/build-base.sh")"
    mid="$(now)"
    built="$(ANALYZER_TAG="$ANALYZER" QUALIFIER_TAG="$QUALIFIER" "$here/build.sh")"
    end="$(now)"
    echo "build${run}_base_seconds=$(elapsed "$start" "$mid")"
    echo "build${run}_images_seconds=$(elapsed "$mid" "$end")"
    tarballs[run]="$(echo "$base_line" | sed -n 's/.*tarball sha256 \([0-9a-f]*\).*/\1/p')"
    echo "build${run}_base_tarball_sha256=${tarballs[run]}"
    for image in analyzer qualifier; do
        ids[$image$run]="$(echo "$built" | sed -n "s/^${image}_image_id=//p")"
        [ -n "${ids[$image$run]}" ] || fail "build.sh printed no $image image ID"
        echo "build${run}_${image}_image_id=${ids[$image$run]}"
    done
done
[ "${tarballs[1]}" = "${tarballs[2]}" ] || fail "R-CT-1: the two base tarballs differ"
for image in analyzer qualifier; do
    [ "${ids[${image}1]}" = "${ids[${image}2]}" ] \
        || fail "R-CT-1: the two builds gave different $image image IDs"
done
echo "reproducible=yes"

# --- 2. sizes --------------------------------------------------------------------------------
analyzer_size="$(podman image inspect --format '{{.Size}}' "$ANALYZER")"
qualifier_size="$(podman image inspect --format '{{.Size}}' "$QUALIFIER")"
echo "analyzer_image_size_bytes=$analyzer_size"
echo "qualifier_image_size_bytes=$qualifier_size"
[ "$analyzer_size" -lt 400000000 ] || fail "the analyzer image is not under 400 MB"
for image in "$ANALYZER" "$QUALIFIER"; do
    podman history --format '{{.Size}} {{.CreatedBy}}' "$image" \
        | awk -v name="${image%%:*}" '$1 != "0" && $1 != "0B" { print "layer=" name " " $0 }' \
        | cut -c1-110
done

# --- 3. the sealed smoke test on the images just built ---------------------------------------
# The documentation's blocks, which the smoke test runs as written, name the images :latest;
# in this throw-away storage those are the images just built.
podman tag "$ANALYZER" localhost/clearing-analysis:latest
podman tag "$QUALIFIER" localhost/clearing-analysis-qualifier:latest
ANALYZER_IMAGE="$ANALYZER" QUALIFIER_IMAGE="$QUALIFIER" "$here/smoke.sh"
echo "check=pass"
