#!/bin/sh
# Regenerates the git-made patch cases: each case dir holds before/, after/
# and the patch `git diff` printed between them.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mk() { # case-name: runs the edit script in $work/repo after copying before/
	name=$1; shift
	rm -rf "$work/repo"; mkdir "$work/repo"; cd "$work/repo"
	git init -q; git config user.email g@example.com; git config user.name g
	cp -a "$here/$name/before/." . 2>/dev/null || true
	git add -A; git commit -qm before --allow-empty
	sh -c "$*"
	git add -A
	git diff --cached -M > "$here/$name/patch.diff"
	rm -rf "$here/$name/after"; mkdir "$here/$name/after"
	git ls-files -z | xargs -0 -I{} cp --parents {} "$here/$name/after/"
}
mk modify "sed -i 's/^line 3\$/line three/; s/^line 40\$/line forty/' lines.txt && printf 'tail\n' >> lines.txt"
mk multi "printf 'new file\nwith two lines\n' > added.txt && git rm -q gone.txt && git mv old-name.txt new-name.txt && sed -i 's/beta/BETA/' new-name.txt && git mv pure.txt moved/pure.txt 2>/dev/null || (mkdir -p moved && git mv pure.txt moved/pure.txt); sed -i 's/one/ONE/' a.txt"
mk nonewline "printf 'first\nsecond\nthird changed' > n.txt"
