# Generates the x86_64 syscall-number -> name table from the kernel UAPI
# header, so the names always match the headers the sensor was built with.
# Usage: cmake -DIN=<unistd_64.h> -DOUT=<file.c> -P gen_syscalls.cmake
file(STRINGS "${IN}" lines REGEX "^#define __NR_[a-z0-9_]+ [0-9]+$")
set(body "")
foreach(l IN LISTS lines)
  string(REGEX REPLACE "^#define __NR_([a-z0-9_]+) ([0-9]+)$" "\\1;\\2" pair "${l}")
  list(GET pair 0 name)
  list(GET pair 1 nr)
  string(APPEND body "\t[${nr}] = \"${name}\",\n")
endforeach()
file(WRITE "${OUT}.tmp" "/* Generated from ${IN} by cmake/gen_syscalls.cmake. Do not edit. */\n#include \"syscalls.h\"\n\nconst char *const pl_syscall_names[PL_SYSCALL_TABLE_LEN] = {\n${body}};\n")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
