#!/usr/bin/env bash
# The house rules a compiler cannot check, run as a test: product code never reaches into tests/,
# time and timers enter core only through its Clock, and every document a text names exists.
# Exits 1 with each breach listed.
set -uo pipefail
cd "$(dirname "$0")/../.."

failures=0
breach() {
  echo "house rule broken: $1" >&2
  shift
  printf '  %s\n' "$@" >&2
  failures=$((failures + 1))
}

product_dirs=(core ui app resources packaging)

# 1. Nothing outside tests/ includes a file inside it, or builds from it.
hits=$(grep -rnE '^\s*#\s*include\s*[<"][^">]*tests/' "${product_dirs[@]}" --include='*.h' --include='*.cpp' 2>/dev/null)
[ -n "$hits" ] && breach "product code includes a file under tests/" "$hits"
hits=$(grep -rnE 'tests/|sb_test_support|sb_integration_support' "${product_dirs[@]}" --include=CMakeLists.txt --include='*.cmake' 2>/dev/null)
[ -n "$hits" ] && breach "a product build file refers to tests/ or to a test library" "$hits"
# Every quoted include of product code resolves inside the product: its own folder, a core/ or
# ui/ include root, or a file the build generates.
unresolved=()
while IFS=: read -r file _ include; do
  name=$(sed -E 's/^\s*#\s*include\s*"([^"]+)".*/\1/' <<<"$include")
  case "$name" in ui_*.h | *.moc | moc_*.cpp | common/BuildInfo.h) continue ;; esac
  dir=$(dirname "$file")
  if [ -e "$dir/$name" ] || [ -e "core/$name" ] || [ -e "ui/$name" ]; then continue; fi
  unresolved+=("$file: \"$name\"")
done < <(grep -rnE '^\s*#\s*include\s*"' core ui app --include='*.h' --include='*.cpp')
[ ${#unresolved[@]} -gt 0 ] && breach "an include of product code is found only outside the product (under tests/?)" "${unresolved[@]}"
hits=$(grep -rnE '^\s*install\s*\(' tests --include=CMakeLists.txt 2>/dev/null)
[ -n "$hits" ] && breach "tests/ installs something: product code lives outside tests/" "$hits"

# 2. Time, timers and randomness come into core through Clock and Random only.
hits=$(grep -rnE '\bQTimer\b|QElapsedTimer|QDeadlineTimer|steady_clock::now|system_clock::now|high_resolution_clock|\bstartTimer\(|QDateTime::current|QRandomGenerator|sleep_for|\bmsleep\(|\busleep\(' core \
         --include='*.h' --include='*.cpp' | grep -vE '^core/common/(Clock|Random)\.cpp:' | grep -vE ':\s*//')
[ -n "$hits" ] && breach "core reads time, makes a timer or draws randomness outside common/Clock and common/Random" "$hits"

# 3. Every Markdown document a text names exists, and none cites development rounds.
missing=()
while IFS=: read -r file _ ref; do
  ref=${ref#./}
  base=$(basename "$ref")
  case "$ref" in /usr/* | ///usr/* | http*) continue ;; esac
  if [[ "$ref" == */* ]]; then
    # A path: relative to the repository, or to the file that names it.
    clean=${ref#/}
    if [ -e "$clean" ] || [ -e "$(dirname "$file")/$ref" ]; then continue; fi
  elif git ls-files --error-unmatch "*$base" >/dev/null 2>&1 || [ -n "$(find . -path ./build -prune -o -name "$base" -print -quit)" ]; then
    continue
  fi
  missing+=("$file names $ref")
done < <(grep -rnoE '[A-Za-z0-9_./-]*[A-Za-z0-9_]\.md\b' core ui app tests packaging resources .ci README.md ARCHITECTURE.md CMakeLists.txt \
           --include='*.h' --include='*.cpp' --include='*.md' --include='*.txt' --include='*.sh' --include='*.json' --include='run' --include='*.in' 2>/dev/null \
           | grep -v '/fuzz/corpus/')
[ ${#missing[@]} -gt 0 ] && breach "a text names a document that is not in the repository" "${missing[@]}"
hits=$(grep -rnE 'MISSION\.md|\b[Ii]ssue ?#?[0-9]+|#[0-9]+, (point|§)' core ui app tests packaging .ci README.md ARCHITECTURE.md \
         --include='*.h' --include='*.cpp' --include='*.md' --include='*.txt' --include='*.sh' --include='run' 2>/dev/null \
         | grep -v '^tests/house/')
[ -n "$hits" ] && breach "a text cites an outside brief or an issue number instead of saying why" "$hits"

if [ "$failures" -gt 0 ]; then
  echo "$failures house rule(s) broken" >&2
  exit 1
fi
echo "house rules hold"
