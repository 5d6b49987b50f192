#!/bin/sh
# Builds the baseline engine for `benchmarks/strength.py --only baseline`: damier as of a
# git tag or commit (default issue23-start, the start of the current strength issue),
# installed in its own virtual environment, so that the current engine can play it as a
# Hub engine (hub:.baseline/venv/bin/damier hub).
#
#   sh benchmarks/make_baseline.sh               # the tag issue23-start (or, without the
#                                                # tag, its commit 8f3bd69)
#   sh benchmarks/make_baseline.sh issue10-start # the first strength issue's start (or,
#                                                # without the tag, the parent of the
#                                                # commit adding evalfile.py)
#   sh benchmarks/make_baseline.sh v0.1.0        # another tag or commit
#   PYTHON=python3.12 sh benchmarks/make_baseline.sh
#
# Tags do not travel with every clone, so the two named starts fall back to their commits
# and say so. It writes only under .baseline/ (ignored by git): src/ (the commit's files,
# from `git archive`), venv/ (the environment) and COMMIT (the commit built). Running it
# again does nothing when .baseline/ already holds a working build of that commit; another
# ref rebuilds it. Installing compiles the Cython core (a minute or two), and needs the
# build requirements (setuptools, Cython) from the package index.
set -eu

ref=${1:-issue23-start}
# The strength round 2 issue began at this commit (2026-11-27); its figures are against it.
issue23_commit=8f3bd699acd494fba6db51b70b4a7da022373429
python=${PYTHON:-python3}
root=$(git rev-parse --show-toplevel)
cd "$root"
dir=.baseline

if ! commit=$(git rev-parse --verify --quiet "$ref^{commit}"); then
    if [ "$ref" = issue23-start ] && commit=$(git rev-parse --verify --quiet "$issue23_commit^{commit}"); then
        echo "make_baseline: no tag issue23-start; using its commit $commit"
    elif [ "$ref" = issue10-start ]; then
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
