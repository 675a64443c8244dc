#!/bin/sh
# The float build must not compute in double on an FPU without double (Cortex-M4F): checks that a
# linked image of the whole float IK core (fp_core.elf, --gc-sections) contains no software
# double-precision routine of libgcc (__aeabi_d*, __aeabi_f2d, __aeabi_i2d, ...) and no double libm
# function. Prints "N passed, M failed" last (csrc/Makefile, test-m4f).
#   check_no_double.sh NM IMAGE
nm=$1
image=$2
bad=$("$nm" "$image" | awk '{print $NF}' |
      grep -E '^(__aeabi_(d[a-z0-9]*|f2d|i2d|ui2d|l2d|ul2d)|__(add|sub|mul|div|neg|extendsf|truncdf)[a-z]*df[0-9]*|sin|cos|tan|atan2|atan|asin|acos|sqrt|floor|ceil|fmod|pow|exp|log)$' |
      sort -u)
total=$("$nm" "$image" | grep -c ' [Tt] ')
echo "$image: $total functions linked"
if [ -z "$bad" ]; then
    echo "no software double routine and no double libm function in the float IK image"
    echo "1 passed, 0 failed"
else
    echo "FAIL: the float IK image links double-precision code:"
    printf '  %s\n' $bad
    echo "0 passed, 1 failed"
fi
