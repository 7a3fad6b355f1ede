#!/bin/sh
# Stands in for a bwrap that runs but may not create namespaces, as on a
# kernel with unprivileged user namespaces switched off.
if [ "$1" = "--version" ]; then
	echo "bubblewrap 0.8.0"
	exit 0
fi
echo "bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces." >&2
exit 1
