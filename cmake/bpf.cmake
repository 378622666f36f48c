# BPF build: vmlinux.h from the running kernel's BTF, clang -target bpf,
# then a bpftool skeleton. pl_bpf_skeleton(<name> <source.bpf.c>...) produces
# ${PL_BPF_OUT}/<name>.skel.h and a target <name>_skel to depend on.
find_program(CLANG clang REQUIRED)
find_program(BPFTOOL NAMES bpftool PATHS /usr/sbin /sbin REQUIRED)
set(PL_VMLINUX_BTF "/sys/kernel/btf/vmlinux" CACHE FILEPATH "BTF used to generate vmlinux.h")
set(PL_BPF_OUT "${CMAKE_BINARY_DIR}/bpf")
file(MAKE_DIRECTORY "${PL_BPF_OUT}")

if(NOT EXISTS "${PL_VMLINUX_BTF}")
  message(FATAL_ERROR "${PL_VMLINUX_BTF} not found: this kernel has no BTF "
    "(CONFIG_DEBUG_INFO_BTF). plumbline's CO-RE programs need it; set "
    "PL_VMLINUX_BTF to a BTF file of the target kernel.")
endif()

add_custom_command(
  OUTPUT "${PL_BPF_OUT}/vmlinux.h"
  COMMAND "${BPFTOOL}" btf dump file "${PL_VMLINUX_BTF}" format c > "${PL_BPF_OUT}/vmlinux.h.tmp"
  COMMAND ${CMAKE_COMMAND} -E rename "${PL_BPF_OUT}/vmlinux.h.tmp" "${PL_BPF_OUT}/vmlinux.h"
  COMMENT "Generating vmlinux.h from ${PL_VMLINUX_BTF}"
  VERBATIM)
add_custom_target(vmlinux_h DEPENDS "${PL_BPF_OUT}/vmlinux.h")

# The BPF side hard-codes x86_64 syscall numbers (the open family) and the
# name table comes from asm/unistd_64.h: other architectures need both first.
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  set(PL_BPF_ARCH x86)
else()
  message(FATAL_ERROR "plumbline supports x86_64 only for now, not ${CMAKE_SYSTEM_PROCESSOR}")
endif()

# pl_bpf_skeleton(<name> <source.bpf.c>...): each source compiled on its own
# (a depfile from clang, so a header change rebuilds what includes it);
# several are linked by libbpf's static linker (bpftool gen object) into
# one object, which is what the one skeleton is generated from.
function(pl_bpf_skeleton name)
  set(obj "${PL_BPF_OUT}/${name}.bpf.o")
  set(skel "${PL_BPF_OUT}/${name}.skel.h")
  set(parts "")
  list(LENGTH ARGN nsrc)
  foreach(src IN LISTS ARGN)
    get_filename_component(base "${src}" NAME_WE)
    if(nsrc EQUAL 1)
      set(part "${obj}")
    else()
      set(part "${PL_BPF_OUT}/${name}.${base}.o")
    endif()
    add_custom_command(
      OUTPUT "${part}"
      COMMAND "${CLANG}" -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_${PL_BPF_ARCH}
              -Wall -Werror -I "${PL_BPF_OUT}" -I "${PROJECT_SOURCE_DIR}/bpf"
              -MD -MF "${part}.d" -c "${src}" -o "${part}"
      DEPENDS "${src}" "${PL_BPF_OUT}/vmlinux.h"
      DEPFILE "${part}.d"
      COMMENT "Compiling BPF ${name}: ${base}"
      VERBATIM)
    list(APPEND parts "${part}")
  endforeach()
  if(nsrc GREATER 1)
    add_custom_command(
      OUTPUT "${obj}"
      COMMAND "${BPFTOOL}" gen object "${obj}" ${parts}
      DEPENDS ${parts}
      COMMENT "Linking BPF ${name}"
      VERBATIM)
  endif()
  add_custom_command(
    OUTPUT "${skel}"
    COMMAND "${BPFTOOL}" gen skeleton "${obj}" name "${name}" > "${skel}.tmp"
    COMMAND ${CMAKE_COMMAND} -E rename "${skel}.tmp" "${skel}"
    DEPENDS "${obj}"
    COMMENT "Generating skeleton ${name}.skel.h"
    VERBATIM)
  add_custom_target(${name}_skel DEPENDS "${skel}")
endfunction()
