#!/usr/bin/env bash
# Fetch the training corpus into data/ at the repository root (ignored by git):
# Jane Austen's six novels, public-domain texts, as shipped by Debian 12's
# package r-cran-janeaustenr 1.0.0-1 (CRAN janeaustenr 1.0.0 by Julia Silge,
# MIT licence; the novels' texts come from Project Gutenberg with its header and
# licence boilerplate removed, and are in the public domain: Austen died in 1817).
#
# Steps: `apt-get download` the .deb (apt checks it against the signed archive
# index; its sha256 is also pinned below), `dpkg-deb -x` it, decode the R
# lazy-load database data/Rdata.{rdx,rdb} with scripts/rdata_text.py (Python
# standard library, no R), one text file per novel (each element of the R
# character vector is one line, joined with "\n"), plus data/austen.txt: the six
# in order of publication (Sense and Sensibility 1811, Pride and Prejudice 1813,
# Mansfield Park 1814, Emma 1815, Northanger Abbey 1817, Persuasion 1817),
# 4,025,029 bytes of UTF-8: ASCII but for one "£" (C2 A3) in Mansfield Park, 82
# distinct byte values. Prints every sha256 and exits 1 if the text is
# not the pinned one.
#
#     bash scripts/fetch_corpus.sh          # needs apt-get update once on a new machine
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/data"
PKG=r-cran-janeaustenr
VERSION=1.0.0-1
DEB_SHA256=df6bddf211906d1ff404f8ff662c21b34e6660e7f54a311084e749050c019c95
TEXT_SHA256=f2516f2139e3cecf49657122fed58ac46313f1fdff32a26fc66789293e92d573
ORDER="sensesensibility prideprejudice mansfieldpark emma northangerabbey persuasion"

mkdir -p "$OUT"
DEB="$OUT/${PKG}_${VERSION}_all.deb"
if [ ! -f "$DEB" ]; then
    WORK="$(mktemp -d)"
    trap 'rm -rf "$WORK"' EXIT
    # As root into a private temp dir: download as root, not as apt's _apt user.
    (cd "$WORK" && apt-get download -o APT::Sandbox::User=root "$PKG=$VERSION" >/dev/null) || {
        echo "apt-get download $PKG=$VERSION failed (run apt-get update first?)" >&2
        exit 1
    }
    mv "$WORK/${PKG}_${VERSION}_all.deb" "$DEB"
fi
echo "$DEB_SHA256  $DEB" | sha256sum --check --quiet

EXTRACT="$(mktemp -d)"
dpkg-deb -x "$DEB" "$EXTRACT"
python3 "$ROOT/scripts/rdata_text.py" "$EXTRACT/usr/lib/R/site-library/janeaustenr/data" "$OUT/austen"
rm -rf "$EXTRACT"

: >"$OUT/austen.txt"
for name in $ORDER; do cat "$OUT/austen/$name.txt" >>"$OUT/austen.txt"; done

(cd "$OUT" && sha256sum "$(basename "$DEB")" austen/*.txt austen.txt)
echo "$(wc -c <"$OUT/austen.txt") bytes in $OUT/austen.txt"
if ! echo "$TEXT_SHA256  $OUT/austen.txt" | sha256sum --check --quiet; then
    echo "austen.txt differs from the pinned sha256 $TEXT_SHA256" >&2
    exit 1
fi
