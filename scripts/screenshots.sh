#!/usr/bin/env bash
# The README's screenshots of `cdstore serve`: the browser test that takes them
# (ServeBrowserTests/screenshotsOfTheMainPages, on a copy of the SampleModel_V2 corpus store,
# the server started in the copy's folder on its file name, so the store page shows a short
# relative path) writes docs/images/serve-store.png, serve-entity.png, serve-object.png and
# serve-model.png.
#
#   scripts/screenshots.sh
#
# Needs chromium and chromedriver (Debian: apt-get install chromium chromium-driver); CI=true
# makes the test fail, instead of skip, without them.
set -euo pipefail
cd "$(dirname "$0")/.."

mkdir -p docs/images
swift build --build-tests >/dev/null
CI=true CDSTORE_SCREENSHOTS="$PWD/docs/images" swift test --skip-build --filter 'ServeBrowserTests/screenshotsOfTheMainPages'
ls -l docs/images/serve-store.png docs/images/serve-entity.png docs/images/serve-object.png docs/images/serve-model.png
