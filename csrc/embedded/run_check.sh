#!/bin/sh
# Runs one test program and records its verdict (csrc/Makefile).
#   run_check.sh RESULT EXPECT [--] COMMAND [ARGS...]
# The program's output goes to RESULT.log; RESULT receives one line, "N passed, M failed", which is
# the program's own last line when it exited 0, printed that line with 0 failed, and stated the
# configuration EXPECT (a substring of its "config:" line, "" to skip the check); otherwise a
# failure line saying why. Always exits 0 so that make runs every variant; summarize.sh decides.
result=$1
expect=$2
shift 2
[ "$1" = "--" ] && shift
log="$result.log"
"$@" >"$log" 2>&1
status=$?
last=$(tail -n 1 "$log")
why=""
if [ "$status" -ne 0 ]; then
    why="exit status $status"
elif ! printf '%s\n' "$last" | grep -Eq '^[0-9]+ passed, 0 failed$'; then
    why="last line is not 'N passed, 0 failed': $last"
elif [ -n "$expect" ] && ! grep '^config:' "$log" | grep -Fq -- "$expect"; then
    why="built configuration differs from the requested '$expect': $(grep '^config:' "$log" | head -n 1)"
fi
if [ -z "$why" ]; then
    printf '%s\n' "$last" >"$result"
else
    passed=$(printf '%s\n' "$last" | sed -n 's/^\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed$/\1/p')
    failed=$(printf '%s\n' "$last" | sed -n 's/^\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed$/\2/p')
    [ -n "$passed" ] || passed=0
    [ -n "$failed" ] && [ "$failed" -gt 0 ] || failed=1
    printf '%s passed, %s failed (%s)\n' "$passed" "$failed" "$why" >"$result"
fi
exit 0
