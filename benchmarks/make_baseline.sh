#!/bin/sh
# Builds the baseline engine for `benchmarks/strength.py --only baseline`: damier as of a
# git tag (default issue10-start), installed in its own virtual environment, so that the
# current engine can play it as a Hub engine (hub:.baseline/venv/bin/damier hub).
#
#   sh benchmarks/make_baseline.sh               # the tag issue10-start (or, without the
#                                                # tag, the parent of the commit adding evalfile.py)
#   sh benchmarks/make_baseline.sh v0.1.0        # another tag or commit
#   PYTHON=python3.12 sh benchmarks/make_baseline.sh
#
# It writes only under .baseline/ (ignored by git): src/ (the tag's files, from
# `git archive`), venv/ (the environment) and COMMIT (the commit built). Running it again
# does nothing when .baseline/ already holds a working build of that commit; another tag
# rebuilds it. Installing compiles the Cython core (a minute or two), and needs the build
# requirements (setuptools, Cython) from the package index.
set -eu

ref=${1:-issue10-start}
python=${PYTHON:-python3}
root=$(git rev-parse --show-toplevel)
cd "$root"
dir=.baseline

if ! commit=$(git rev-parse --verify --quiet "$ref^{commit}"); then
    if [ "$ref" = issue10-start ]; then
        # A clone without tags (or with rewritten history): the issue's start is the parent
        # of the commit that added the pattern evaluation's weight files (evalfile.py).
        first=$(git log --diff-filter=A --format=%H -- src/damier/evalfile.py | tail -n 1)
        if [ -n "$first" ] && commit=$(git rev-parse --verify --quiet "$first^"); then
            echo "make_baseline: no tag issue10-start; using $commit, the parent of $first" \
                "(which added src/damier/evalfile.py)"
        else
            echo "make_baseline: no tag issue10-start and no commit adding evalfile.py" >&2
            exit 2
        fi
    else
        echo "make_baseline: no tag or commit '$ref' in $root (git fetch --tags?)" >&2
        exit 2
    fi
fi

if [ -x "$dir/venv/bin/damier" ] && [ "$(cat "$dir/COMMIT" 2>/dev/null)" = "$commit" ] \
        && "$dir/venv/bin/python" -I -c "import damier._core" 2>/dev/null; then
    echo "make_baseline: $dir already holds $ref ($commit); nothing to do"
    exit 0
fi

echo "make_baseline: building $ref ($commit) in $dir"
rm -rf "$dir/src" "$dir/venv" "$dir/COMMIT"
mkdir -p "$dir/src"
git archive --format=tar "$commit" | tar -x -C "$dir/src"
"$python" -m venv "$dir/venv"
"$dir/venv/bin/python" -m pip install --quiet "$dir/src"
# Check that the installed engine starts and speaks the Hub protocol.
printf 'hub\nquit\n' | "$dir/venv/bin/damier" hub | grep -q '^id ' || {
    echo "make_baseline: $dir/venv/bin/damier hub does not answer the Hub protocol" >&2
    exit 1
}
echo "$commit" > "$dir/COMMIT"
echo "make_baseline: done: hub:$dir/venv/bin/damier hub"
