#!/bin/sh
# Prints the log and verdict of every run recorded by run_check.sh, then the total as the last
# line, "N passed, M failed"; exits 0 only when every run passed (csrc/Makefile).
#   summarize.sh TITLE RESULT...
title=$1
shift
total_pass=0
total_fail=0
for result in "$@"; do
    name=$(basename "$result" .result)
    echo "==== $title: $name"
    if [ -f "$result.log" ]; then
        cat "$result.log"
    fi
    if [ -f "$result" ]; then
        line=$(cat "$result")
    else
        line="0 passed, 1 failed (no result: the build failed)"
    fi
    p=$(printf '%s\n' "$line" | sed -n 's/^\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed.*$/\1/p')
    f=$(printf '%s\n' "$line" | sed -n 's/^\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed.*$/\2/p')
    [ -n "$p" ] || p=0
    [ -n "$f" ] || f=1
    case "$line" in
        *"("*) echo "==== $title: $name FAILED: $line" ;;
        *) echo "==== $title: $name ok: $line" ;;
    esac
    total_pass=$((total_pass + p))
    total_fail=$((total_fail + f))
done
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
