#!/bin/sh
# Stands in for a bwrap that never answers.
exec sleep 30
