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
#
# Signed-in pages (the organiser console): LOGIN=user:password logs in first and
# sends the session cookie with every page, e.g.
#   LOGIN=organiser:evalhub-demo PAGES="/tasks/demo-bilingual-term-alignment/dashboard/ …" sh bench/lighthouse.sh
set -eu
BASE=${1:-http://127.0.0.1:8000}
OUT=${2:-${TMPDIR:-/tmp}/evalhub-lighthouse}
mkdir -p "$OUT"
export CHROME_PATH=${CHROME_PATH:-/usr/bin/chromium}
HEADERS="{}"
if [ -n "${LOGIN:-}" ]; then
  HEADERS=$(python3 - "$BASE" "$LOGIN" <<'PY'
import http.cookiejar, json, re, sys, urllib.parse, urllib.request
base, login = sys.argv[1], sys.argv[2]
user, password = login.split(":", 1)
jar = http.cookiejar.CookieJar()
opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
page = opener.open(base + "/accounts/login/").read().decode()
token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
data = urllib.parse.urlencode(
    {"login": user, "password": password, "csrfmiddlewaretoken": token}
).encode()
request = urllib.request.Request(
    base + "/accounts/login/", data=data, headers={"Referer": base + "/accounts/login/"}
)
assert "Signed in as" in opener.open(request).read().decode(), "login failed"
cookies = "; ".join(f"{c.name}={c.value}" for c in jar)
print(json.dumps({"Cookie": cookies}))
PY
)
fi
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
    --extra-headers="$HEADERS" \
    --chrome-flags="--headless=new --no-sandbox --disable-gpu" >/dev/null
  python3 - "$OUT/$name.json" "$page" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
scores = {k: round(100 * (v["score"] or 0)) for k, v in report["categories"].items()}
print(sys.argv[2], scores)
PY
done
