#!/usr/bin/env bash
# Draws the README's model diagram, docs/images/samplemodel3.png: CoreDataPlus's SampleModel3
# (Samples/CoreDataPlus, version SampleModel3) as `cdstore model --format dot` describes it,
# rendered by Graphviz's dot (Debian: graphviz).
#
# Only that file is written. Runs `swift run cdstore` from the repository, or the binary named by
# CDSTORE (CDSTORE=.build/release/cdstore scripts/build-diagram.sh).
set -euo pipefail

cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.."
output=docs/images/samplemodel3.png

cdstore() {
    if [[ -n ${CDSTORE:-} ]]; then
        "$CDSTORE" "$@"
    else
        swift run --quiet cdstore "$@"
    fi
}

command -v dot >/dev/null || { echo "build-diagram.sh: Graphviz's dot is needed (Debian: apt-get install graphviz)" >&2; exit 1; }
mkdir -p -- "$(dirname -- "$output")"
# The picture is drawn beside its place and moved there whole: a failed cdstore or dot fails the
# script (pipefail) and leaves neither a half-drawn picture nor the partial file.
trap 'rm -f -- "$output.partial"' EXIT
cdstore model Samples/CoreDataPlus/SampleModel.xcdatamodeld --version SampleModel3 --format dot \
    | dot -Tpng -Gdpi=96 -o "$output.partial"
mv -- "$output.partial" "$output"
echo "wrote $output"
