#!/usr/bin/env bash
# The sealed smoke test of a built image (docs/container.md, "Proving an image"); .ci/run runs
# it after `make image`, and `make image-check` after its two builds.
#  1. `analyze` of a small synthetic corpus inside the sealed container (no network, read-only
#     root and inputs, no capabilities, user 65534) writes the same report, byte for byte, as
#     the same `analyze` in this checkout: through `--out` on the output mount, on stdout, and
#     with two pool workers.
#     The qualification record both use is written by the image's own `qualify` (its Node and
#     pinned pi-ai), and `demo` runs in the image too.
#  2. The refusals: a writable input mount, a network other than none, no output mount, an
#     output directory the image's user cannot write, an output mount that holds the inputs,
#     a sidecar companion and a writable mount below an input directory each exit 2 with their
#     one fixed line (the text of the checkout's remedy table) and create, change or remove
#     nothing.
# Needs the checkout's environment (`make setup`) and podman; IMAGE (default
# localhost/clearing-analysis:latest) must already be built. PODMAN_ROOT is honoured (see
# podman-env.sh). Prints `key=value` lines; exits non-zero on the first failure.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
# shellcheck source=tools/container/podman-env.sh
. "$here/podman-env.sh"

IMAGE="${IMAGE:-localhost/clearing-analysis:latest}"
cli="$repo/.venv/bin/clearing-analysis"
python="$repo/.venv/bin/python"
fail() { echo "smoke.sh: FAIL $*" >&2; exit 1; }
[ -x "$cli" ] || fail "no checkout environment: run make setup first"
podman image exists "$IMAGE" || fail "image $IMAGE not built: run make image first"

work="$(mktemp -d "${TMPDIR:-/tmp}/clearing-smoke.XXXXXX")"
trap 'rm -rf "$work"' EXIT
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
data="$work/data"
in="$data/in"
out="$data/out"
mkdir -p "$in" "$out"
# The image runs as 65534 (its USER): the output directory must be theirs. Rootless podman
# maps that user into the caller's subordinate ids, which `podman unshare` can chown to.
own_by_image_user() {
    if [ "$(id -u)" = 0 ]; then chown 65534:65534 "$@"; else podman unshare chown 65534:65534 "$@"; fi
}
own_by_image_user "$out"
SEALED=(--rm --pull=never --network=none --read-only --cap-drop=ALL
    --security-opt=no-new-privileges)

# --- 1. the same report inside the container and in the checkout ----------------------------
start="$(now)"
"$cli" synth --out "$in/corpus" --seed 7 --conversations 4 >/dev/null
podman run "${SEALED[@]}" -v "$out:/out:rw" "$IMAGE" qualify --out /out/qualification.json \
    || fail "qualify in the image exited $?"
mv "$out/qualification.json" "$in/qualification.json"
echo "smoke_inputs_seconds=$(elapsed "$start" "$(now)")"

ANALYZE=(analyze --journals corpus/journals --sidecar corpus/history.sqlite
    --routes corpus/routes.json --agent-config corpus/agent-config.json
    --app-allowlist corpus/app-allowlist.json --qualification qualification.json)
# The same arguments under /in inside the container (the report holds no path).
IN_ANALYZE=()
for word in "${ANALYZE[@]}"; do
    case "$word" in corpus/* | qualification.json) IN_ANALYZE+=("/in/$word") ;; *) IN_ANALYZE+=("$word") ;; esac
done

start="$(now)"
(cd "$in" && "$cli" "${ANALYZE[@]}") >"$work/checkout-report.json"
echo "smoke_checkout_analyze_seconds=$(elapsed "$start" "$(now)")"
start="$(now)"
podman run "${SEALED[@]}" -v "$in:/in:ro" -v "$out:/out:rw" "$IMAGE" \
    "${IN_ANALYZE[@]}" --out /out/report.json || fail "sealed analyze exited $?"
echo "smoke_sealed_analyze_seconds=$(elapsed "$start" "$(now)")"
[ "$(cd "$out" && ls)" = "report.json" ] || fail "the sealed analyze wrote more than its report"
cmp -s "$work/checkout-report.json" "$out/report.json" \
    || fail "the image's report differs from the checkout's"
echo "image_report_equals_checkout=yes bytes=$(wc -c <"$out/report.json")"
# The record the image's Node and pi-ai wrote was accepted for the APIs (else the comparison
# would not cover the qualification at all).
qualified="$(grep -o '"status":"QUALIFIED"' "$out/report.json" | wc -l)"
[ "$qualified" -gt 0 ] || fail "the image's own qualification record was not accepted"
echo "apis_qualified_by_the_image_record=$qualified"
# On stdout (a pipe: the JSON report), with no output mount at all.
podman run "${SEALED[@]}" -v "$in:/in:ro" "$IMAGE" "${IN_ANALYZE[@]}" >"$work/stdout-report.json" \
    || fail "sealed analyze to stdout exited $?"
cmp -s "$work/checkout-report.json" "$work/stdout-report.json" \
    || fail "the image's report on stdout differs from the checkout's"
echo "image_stdout_report_equals_checkout=yes"
# Two spawned pool workers inside the sealed container (their queues need the container's own
# /dev/shm): still the same bytes.
podman run "${SEALED[@]}" -v "$in:/in:ro" "$IMAGE" "${IN_ANALYZE[@]}" --workers 2 \
    >"$work/workers-report.json" || fail "sealed analyze with two workers exited $?"
cmp -s "$work/checkout-report.json" "$work/workers-report.json" \
    || fail "the image's report with two workers differs from the checkout's"
echo "image_two_workers_report_equals_checkout=yes"
start="$(now)"
podman run "${SEALED[@]}" --tmpfs /tmp "$IMAGE" demo >/dev/null || fail "demo in the image exited $?"
echo "smoke_sealed_demo_seconds=$(elapsed "$start" "$(now)")"

# --- 2. refusals: exit 2, the fixed line, nothing created -----------------------------------
rm -f "$out/report.json"
# What a refused run prints: the checkout's own remedy table, so the image cannot drift from it.
expected_line() {  # expected_line CODE DETAIL
    "$python" -c 'import sys
from clearing_analysis.remedies import PROGRAM, REMEDIES
code, detail = sys.argv[1:]
print(f"{PROGRAM}: {code} {detail}: {REMEDIES[(code, detail)]}")' "$1" "$2"
}
tree_state() { find "$data" -printf '%p %y %s %m %U:%G %T@\n' | sort | sha256sum; }
refused() {  # refused CODE DETAIL podman-run-arguments...
    local code="$1" detail="$2" status=0 err before expected
    shift 2
    expected="$(expected_line "$code" "$detail")"
    before="$(tree_state)"
    err="$(podman run --rm --pull=never --read-only --cap-drop=ALL \
        --security-opt=no-new-privileges "$@" 2>&1 >/dev/null)" || status=$?
    [ "$status" = 2 ] || fail "expected exit 2, got $status ($detail)"
    [ "$err" = "$expected" ] || fail "expected '$expected', got '$err'"
    [ "$(tree_state)" = "$before" ] || fail "a refused run changed the files ($detail)"
    echo "refused=$code:$detail"
}
ANALYZE_OUT=("${IN_ANALYZE[@]}" --out /out/report.json)
start="$(now)"
refused MOUNT_CONTRACT_VIOLATED INPUT_NOT_READ_ONLY --network=none \
    -v "$in:/in:rw" -v "$out:/out:rw" "$IMAGE" "${ANALYZE_OUT[@]}"
# The default network (a bridge as root, slirp4netns rootless): an interface besides lo.
refused MOUNT_CONTRACT_VIOLATED NETWORK_NOT_ISOLATED \
    -v "$in:/in:ro" -v "$out:/out:rw" "$IMAGE" "${ANALYZE_OUT[@]}"
# No output mount: /out is the image's read-only root.
refused MOUNT_CONTRACT_VIOLATED OUTPUT_NOT_WRITABLE --network=none \
    -v "$in:/in:ro" "$IMAGE" "${ANALYZE_OUT[@]}"
# An output directory left as created (owned by the caller, mode 0755): not the image user's.
mkdir "$data/out-not-chowned"
chmod 0755 "$data/out-not-chowned"
refused MOUNT_CONTRACT_VIOLATED OUTPUT_NOT_WRITABLE_BY_USER --network=none \
    -v "$in:/in:ro" -v "$data/out-not-chowned:/out:rw" "$IMAGE" "${ANALYZE_OUT[@]}"
# The output mount is the parent of the inputs: they would be writable through /out/in.
refused MOUNT_CONTRACT_VIOLATED OUTPUT_CONTAINS_INPUT --network=none \
    -v "$in:/in:ro" -v "$data:/out:rw" "$IMAGE" "${ANALYZE_OUT[@]}"
# A sidecar that is not an offline copy: the replay's own code, before anything runs.
: >"$in/corpus/history.sqlite-wal"
refused SIDECAR_NOT_OFFLINE COMPANION_PRESENT --network=none \
    -v "$in:/in:ro" -v "$out:/out:rw" "$IMAGE" "${ANALYZE_OUT[@]}"
rm "$in/corpus/history.sqlite-wal"
# A writable mount below an input directory (the journal walk would read it); last, as it
# adds a mount point under the inputs, removed again afterwards.
mkdir "$in/corpus/journals/extra" "$data/extra"
refused MOUNT_CONTRACT_VIOLATED INPUT_NOT_READ_ONLY --network=none -v "$in:/in:ro" \
    -v "$data/extra:/in/corpus/journals/extra:rw" -v "$out:/out:rw" "$IMAGE" "${ANALYZE_OUT[@]}"
rmdir "$in/corpus/journals/extra" "$data/extra"
echo "smoke_refusals_seconds=$(elapsed "$start" "$(now)")"
echo "smoke=pass"
