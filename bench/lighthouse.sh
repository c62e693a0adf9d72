#!/bin/sh
# Lighthouse scores of the demo's public pages (home, task, leaderboard, run) with
# Debian's Chromium (every demo leaderboard, the overall ranking; PAGES="/ …" to
# choose). Not part of the test suite.
#
#   npm install --prefix /tmp/lh lighthouse@12.8.2   # Lighthouse 13 needs Node >= 22.19
#   PATH=/tmp/lh/node_modules/.bin:$PATH sh bench/lighthouse.sh http://127.0.0.1:8000 [out-folder]
#
# Start the demo first (manage.py up) and wait until its runs are scored. Prints one
# line per page: performance, accessibility, best practices, SEO (0-100).
set -eu
BASE=${1:-http://127.0.0.1:8000}
OUT=${2:-${TMPDIR:-/tmp}/evalhub-lighthouse}
mkdir -p "$OUT"
export CHROME_PATH=${CHROME_PATH:-/usr/bin/chromium}
PAGES=${PAGES:-"/ /tasks/demo-bilingual-term-alignment/
  /tasks/demo-bilingual-term-alignment/evaluation/leaderboard/
  /tasks/demo-term-extraction/evaluation/leaderboard/
  /tasks/demo-sentence-alignment/evaluation/leaderboard/
  /tasks/demo-mt-lexicon-probe/evaluation/leaderboard/
  /tasks/demo-term-extraction-tracks/evaluation/leaderboard/
  /tasks/demo-sentence-alignment/evaluation/ranking/ /runs/1/"}
for page in $PAGES; do
  name=$(printf '%s' "$page" | tr -c 'a-z0-9' '_')
  lighthouse "$BASE$page" --quiet --output=json --output-path="$OUT/$name.json" \
    --chrome-flags="--headless=new --no-sandbox --disable-gpu" >/dev/null
  python3 - "$OUT/$name.json" "$page" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
scores = {k: round(100 * (v["score"] or 0)) for k, v in report["categories"].items()}
print(sys.argv[2], scores)
PY
done
