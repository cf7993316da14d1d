#!/usr/bin/env bash
# One sealed clearing-analysis run, as a CI job makes it (docs/ci.md). Copy this file to
# ci/sealed-analyze.sh in your repository: the GitHub Actions workflow and the GitLab CI job
# next to it (ci/github/, ci/gitlab/) run it, and clearing-analysis's own CI runs those two
# templates' steps with it on every change, so the three cannot drift apart.
#
# What it does, in order:
#  1. checks its configuration before touching podman (each refusal: one line, exit 2);
#  2. pulls the analyzer image by its pinned digest, unless that digest is present already;
#  3. makes a new output directory, owned by the image's user (65534), and puts the signing
#     key in a private directory of its own (0500, the key 0400, owned by 65534);
#  4. runs `analyze` in the sealed container: no network, read-only root, no capabilities, the
#     snapshot mounted read-only at /in, the key read-only at /key, only the output directory
#     writable; it writes report.json, report.html and report.json.intoto.jsonl (signed);
#  5. when a report was written (exit 0, or 3 / 4 under CLEARING_FAIL_ON): verifies its
#     attestation in the image with the public key (CLEARING_PUBKEY, when given) and prints
#     the one-screen summary (`show`);
#  6. gives the output directory back to the job's user, removes the key, and exits with the
#     analyzer's status.
#
# Configuration, from the environment (the templates set it):
#   CLEARING_IMAGE      required: the analyzer image pinned by digest, NAME@sha256:<64 hex>;
#                       a tag is refused (docs/ci.md, "Pinning the image")
#   CLEARING_INPUTS     the snapshot directory (default clearing-analysis/inputs), laid out as
#                       corpus/journals/, corpus/history.sqlite, corpus/routes.json (required)
#                       and corpus/agent-config.json, corpus/app-allowlist.json and
#                       qualification.json (each passed when present)
#   CLEARING_OUT        the output directory, created here: it must not exist (default
#                       clearing-analysis-out)
#   CLEARING_FAIL_ON    empty (the default: the verdict never fails the job), stop (fail on
#                       STOP) or defer (fail on DEFER or STOP): `analyze --fail-on`
#   CLEARING_SIGNING_KEY       the run-signing private key, PEM text (a CI secret), or
#   CLEARING_SIGNING_KEY_FILE  the path of a file holding it (a GitLab file variable): one
#   CLEARING_PUBKEY     optional: the committed public key; the attestation must verify with it
#
# Exit status: the analyzer's own (docs/exit-codes.md): 0 complete, 2 refused or incomplete
# inputs (nothing written), 3 DEFER and 4 STOP under CLEARING_FAIL_ON (report written), 1 an
# internal fault; 2 as well for a configuration refused in step 1 or an attestation that does
# not verify. Run as root (root podman) or as a user with rootless podman.
set -euo pipefail

readonly DEFER_STATUS=3 STOP_STATUS=4
say() { echo "sealed-analyze: $*" >&2; }
refuse() {
    say "$*"
    exit 2
}

# --- 1. configuration -------------------------------------------------------------------------
image="${CLEARING_IMAGE:-}"
inputs="${CLEARING_INPUTS:-clearing-analysis/inputs}"
out="${CLEARING_OUT:-clearing-analysis-out}"
fail_on="${CLEARING_FAIL_ON:-}"
pubkey="${CLEARING_PUBKEY:-}"
[[ "$image" =~ ^[^[:space:]@]+@sha256:[0-9a-f]{64}$ ]] \
    || refuse "CLEARING_IMAGE must name the analyzer image by digest (NAME@sha256:<64 hex>), not by tag"
case "$fail_on" in
    "" | stop | defer) ;;
    *) refuse "CLEARING_FAIL_ON must be empty, stop or defer" ;;
esac
[ -d "$inputs" ] || refuse "CLEARING_INPUTS names no directory"
for required in corpus/journals corpus/history.sqlite corpus/routes.json; do
    [ -e "$inputs/$required" ] || refuse "the snapshot in CLEARING_INPUTS has no $required"
done
[ ! -e "$out" ] && [ ! -L "$out" ] || refuse "CLEARING_OUT exists already: name a new directory"
[ -d "$(dirname "$out")" ] || refuse "the parent of CLEARING_OUT does not exist"
if [ -n "${CLEARING_SIGNING_KEY:-}" ] && [ -n "${CLEARING_SIGNING_KEY_FILE:-}" ]; then
    refuse "set one of CLEARING_SIGNING_KEY and CLEARING_SIGNING_KEY_FILE, not both"
elif [ -n "${CLEARING_SIGNING_KEY_FILE:-}" ]; then
    [ -f "$CLEARING_SIGNING_KEY_FILE" ] || refuse "CLEARING_SIGNING_KEY_FILE names no file"
elif [ -z "${CLEARING_SIGNING_KEY:-}" ]; then
    refuse "no signing key: set the CLEARING_SIGNING_KEY secret (docs/ci.md, \"The signing key\")"
fi
[ -z "$pubkey" ] || [ -f "$pubkey" ] || refuse "CLEARING_PUBKEY names no file"
command -v podman >/dev/null || refuse "podman is not installed"

# Root podman chowns directly; rootless podman maps the image's user into the caller's
# subordinate ids, which only `podman unshare` reaches.
if [ "$(id -u)" = 0 ]; then
    as_root() { "$@"; }
else
    as_root() { podman unshare "$@"; }
fi
made_out="" scratch=""
hand_back() {
    if [ -n "$made_out" ]; then
        if [ "$(id -u)" != 0 ]; then
            podman unshare chown -R 0:0 "$out"
        elif [ -n "${SUDO_UID:-}" ]; then
            chown -R "$SUDO_UID:${SUDO_GID:-$SUDO_UID}" "$out"
        fi
    fi
    if [ -n "$scratch" ]; then as_root rm -rf "$scratch"; fi
}
trap hand_back EXIT

# --- 2. the image, by digest -------------------------------------------------------------------
if ! podman image exists "$image"; then
    podman pull --quiet "$image" >/dev/null
fi
echo "image_id=$(podman image inspect --format '{{.Id}}' "$image")"

# --- 3. output directory and signing key -------------------------------------------------------
mkdir -m 0755 "$out"
made_out=yes
as_root chown 65534:65534 "$out"
scratch="$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/sealed-analyze.XXXXXX")"
mkdir -m 0700 "$scratch/key"
(
    umask 077
    if [ -n "${CLEARING_SIGNING_KEY_FILE:-}" ]; then
        cat "$CLEARING_SIGNING_KEY_FILE"
    else
        printf '%s\n' "$CLEARING_SIGNING_KEY"
    fi >"$scratch/key/run-signing.key"
)
chmod 0400 "$scratch/key/run-signing.key"
chmod 0500 "$scratch/key"
as_root chown -R 65534:65534 "$scratch/key"

# --- 4. the sealed analysis --------------------------------------------------------------------
SEALED=(--rm --pull=never --network=none --read-only --cap-drop=ALL
    --security-opt=no-new-privileges --ulimit nofile=1024:1024 --ulimit nproc=4096:4096)
in_dir="$(cd "$inputs" && pwd -P)"
out_dir="$(cd "$out" && pwd -P)"
ANALYZE=(analyze --journals /in/corpus/journals --sidecar /in/corpus/history.sqlite
    --routes /in/corpus/routes.json)
if [ -f "$inputs/qualification.json" ]; then
    ANALYZE+=(--qualification /in/qualification.json)
else
    say "no qualification.json in the snapshot: every API is PAYLOAD_UNQUALIFIED (DEFER)"
fi
[ ! -f "$inputs/corpus/agent-config.json" ] || ANALYZE+=(--agent-config /in/corpus/agent-config.json)
[ ! -f "$inputs/corpus/app-allowlist.json" ] || ANALYZE+=(--app-allowlist /in/corpus/app-allowlist.json)
ANALYZE+=(--out /out/report.json --html /out/report.html --sign-key /key/run-signing.key)
[ -z "$fail_on" ] || ANALYZE+=(--fail-on "$fail_on")
status=0
podman run "${SEALED[@]}" -v "$in_dir:/in:ro" -v "$out_dir:/out:rw" \
    -v "$scratch/key:/key:ro" "$image" "${ANALYZE[@]}" || status=$?

# --- 5. what a written report gets: its attestation verified, its summary shown ---------------
if [ "$status" = 0 ] || [ "$status" = "$DEFER_STATUS" ] || [ "$status" = "$STOP_STATUS" ]; then
    if [ -n "$pubkey" ]; then
        pub_file="$(cd "$(dirname "$pubkey")" && pwd -P)/$(basename "$pubkey")"
        verified=0
        podman run "${SEALED[@]}" -v "$out_dir:/out:ro" \
            -v "$pub_file:/pub/run-signing.key.pub:ro" "$image" verify /out/report.json \
            --pubkey /pub/run-signing.key.pub --require-sealed || verified=$?
        if [ "$verified" != 0 ]; then
            say "the attestation does not verify with CLEARING_PUBKEY"
            exit 2
        fi
    fi
    podman run "${SEALED[@]}" -v "$out_dir:/out:ro" "$image" show /out/report.json
fi

# --- 6. the job's status -----------------------------------------------------------------------
case "$status" in
    0) say "complete: report.json, report.html and report.json.intoto.jsonl in CLEARING_OUT" ;;
    "$DEFER_STATUS") say "the verdict is DEFER and CLEARING_FAIL_ON=defer fails the job on it" ;;
    "$STOP_STATUS") say "the verdict is STOP and CLEARING_FAIL_ON=$fail_on fails the job on it" ;;
    2) say "refused (the line above says why); nothing was written" ;;
    *) say "analyze ended with status $status" ;;
esac
exit "$status"
