# SPDX-License-Identifier: MIT
# What `cmake --install` installs (included from CMakeLists.txt), and where.
# Every path follows the install prefix P given then (`cmake --install build
# --prefix P`, default CMAKE_INSTALL_PREFIX), and DESTDIR: install time
# writes nothing into the build tree but CMake's install_manifest.txt.
#   P/sbin/plumbline, P/share/plumbline/rules/*.yaml
#   ETC/plumbline/plumbline.conf (only when none is there), ETC/plumbline/rules.d/
#   ETC/logrotate.d/plumbline
#   UNITDIR/plumbline.service, naming P's binary and ETC's config
#   P/share/man/man8/plumbline.8.gz, man5/plumbline.conf.5.gz
#   P/share/bash-completion/completions/plumbline (not these three in a
#   PL_SANITIZE build), P/share/doc/plumbline/copyright
# ETC is SYSCONFDIR: P/etc, but /etc for P = /usr (as GNUInstallDirs). UNITDIR
# is PL_SYSTEMD_UNIT_DIR when given (relative: under P), else
# P/lib/systemd/system, but /lib/systemd/system for P = /usr (Debian 12's
# systemdsystemunitdir, where the package puts it).
# The binary's own defaults (the config file, PL_CONFFILE; the shipped rules)
# are compiled in from the configure-time prefix: configure with the prefix
# you install to (`cmake -DCMAKE_INSTALL_PREFIX=/usr`) for `plumbline config
# check` to find the installed config with no argument (the unit names it).
# (a build tree configured before kept the old default, systemd's own unit
# directory whatever the prefix, in its cache: dropped)
get_property(_pl_help CACHE PL_SYSTEMD_UNIT_DIR PROPERTY HELPSTRING)
if(_pl_help STREQUAL "where plumbline.service is installed")
  unset(PL_SYSTEMD_UNIT_DIR CACHE)
endif()
set(PL_SYSTEMD_UNIT_DIR "" CACHE PATH
  "where plumbline.service is installed (relative: under the prefix; empty: PREFIX/lib/systemd/system, /lib/systemd/system for /usr)")

install(TARGETS plumbline RUNTIME DESTINATION ${CMAKE_INSTALL_SBINDIR})
install(DIRECTORY rules/default/ DESTINATION ${CMAKE_INSTALL_DATADIR}/plumbline/rules FILES_MATCHING PATTERN "*.yaml")

# The man pages and the bash completion, made at build time from the built
# binary's --help (scripts/gen-man.sh, scripts/gen-completion.sh); the man
# pages' templates configured here with the configure-time paths.
# (not in a PL_SANITIZE build, build/sanitized included: it is for the tests,
# never installed, and runs its binary only under the sanitizers' checks)
if(NOT PL_SANITIZE)
  set(PL_DIST_OUT "${CMAKE_BINARY_DIR}/dist")
  set(PL_RULES_DIR "${CMAKE_INSTALL_FULL_DATADIR}/plumbline/rules")
  set(PL_RULESD "${CMAKE_INSTALL_FULL_SYSCONFDIR}/plumbline/rules.d")
  set(PL_LOGROTATE "${CMAKE_INSTALL_FULL_SYSCONFDIR}/logrotate.d/plumbline")
  set(PL_DOCDIR "${CMAKE_INSTALL_FULL_DOCDIR}")
  string(TIMESTAMP PL_MAN_DATE "%Y-%m-%d" UTC) # SOURCE_DATE_EPOCH when set
  set(_pl_dist_outputs)
  foreach(_pl_man plumbline.8 plumbline.conf.5)
    configure_file(docs/man/${_pl_man}.in "${PL_DIST_OUT}/${_pl_man}.in" @ONLY)
    add_custom_command(OUTPUT "${PL_DIST_OUT}/${_pl_man}.gz"
      COMMAND sh "${PROJECT_SOURCE_DIR}/scripts/gen-man.sh" $<TARGET_FILE:plumbline>
              "${PL_DIST_OUT}/${_pl_man}.in" "${PL_DIST_OUT}/${_pl_man}"
      COMMAND gzip -9nf "${PL_DIST_OUT}/${_pl_man}"
      DEPENDS plumbline "${PL_DIST_OUT}/${_pl_man}.in" "${PROJECT_SOURCE_DIR}/scripts/gen-man.sh"
      COMMENT "Generating man page ${_pl_man}" VERBATIM)
    list(APPEND _pl_dist_outputs "${PL_DIST_OUT}/${_pl_man}.gz")
  endforeach()
  add_custom_command(OUTPUT "${PL_DIST_OUT}/plumbline.bash"
    COMMAND sh "${PROJECT_SOURCE_DIR}/scripts/gen-completion.sh" $<TARGET_FILE:plumbline> "${PL_DIST_OUT}/plumbline.bash"
    DEPENDS plumbline "${PROJECT_SOURCE_DIR}/scripts/gen-completion.sh"
    COMMENT "Generating the bash completion" VERBATIM)
  add_custom_target(plumbline_dist ALL DEPENDS ${_pl_dist_outputs} "${PL_DIST_OUT}/plumbline.bash")
  install(FILES "${PL_DIST_OUT}/plumbline.8.gz" DESTINATION ${CMAKE_INSTALL_MANDIR}/man8)
  install(FILES "${PL_DIST_OUT}/plumbline.conf.5.gz" DESTINATION ${CMAKE_INSTALL_MANDIR}/man5)
  install(FILES "${PL_DIST_OUT}/plumbline.bash" DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
    RENAME plumbline)
endif()
install(FILES sensor/dist/debian/copyright DESTINATION ${CMAKE_INSTALL_DOCDIR})

# The rest at install time, from the prefix then. _pl_etc and _pl_unitdir:
# one install script, run in order, so the blocks below share them.
install(CODE "
  set(_pl_etc \"${CMAKE_INSTALL_SYSCONFDIR}\")
  if(NOT IS_ABSOLUTE \"\${_pl_etc}\")
    if(CMAKE_INSTALL_PREFIX STREQUAL \"/usr\")
      set(_pl_etc \"/\${_pl_etc}\") # GNUInstallDirs: /usr puts its configuration in /etc
    else()
      set(_pl_etc \"\${CMAKE_INSTALL_PREFIX}/\${_pl_etc}\")
    endif()
  endif()
  set(_pl_unitdir \"${PL_SYSTEMD_UNIT_DIR}\")
  if(_pl_unitdir STREQUAL \"\")
    if(CMAKE_INSTALL_PREFIX STREQUAL \"/usr\")
      set(_pl_unitdir /lib/systemd/system)
    else()
      set(_pl_unitdir \"\${CMAKE_INSTALL_PREFIX}/lib/systemd/system\")
    endif()
  elseif(NOT IS_ABSOLUTE \"\${_pl_unitdir}\")
    set(_pl_unitdir \"\${CMAKE_INSTALL_PREFIX}/\${_pl_unitdir}\")
  endif()")
# The example config file (every key commented out at its default,
# docs/config.md) only when no file is there: an upgrade never overwrites the
# operator's settings. rules.d: an empty directory for the operator's rules.
install(CODE "
  set(_pl_conf \"\$ENV{DESTDIR}\${_pl_etc}/plumbline/plumbline.conf\")
  if(EXISTS \"\${_pl_conf}\")
    message(STATUS \"Keeping: \${_pl_conf} (the shipped example is not installed over it)\")
  else()
    file(INSTALL DESTINATION \"\${_pl_etc}/plumbline\" # file(INSTALL) adds DESTDIR itself
      TYPE FILE PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ
      FILES \"${PROJECT_SOURCE_DIR}/sensor/dist/plumbline.conf\")
  endif()
  file(INSTALL DESTINATION \"\${_pl_etc}/logrotate.d\" TYPE FILE
    PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ
    FILES \"${PROJECT_SOURCE_DIR}/sensor/dist/plumbline.logrotate\" RENAME plumbline)
  message(STATUS \"Installing: \$ENV{DESTDIR}\${_pl_etc}/plumbline/rules.d\")
  file(MAKE_DIRECTORY \"\$ENV{DESTDIR}\${_pl_etc}/plumbline/rules.d\")")
# The systemd unit, configured straight into its place (DESTDIR included):
# ExecStart names P's binary and the config file installed above.
install(CODE "
  set(PL_SBINDIR \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_SBINDIR}\")
  set(PL_CONFFILE \"\${_pl_etc}/plumbline/plumbline.conf\")
  set(_pl_unit \"\$ENV{DESTDIR}\${_pl_unitdir}/plumbline.service\")
  message(STATUS \"Installing: \${_pl_unit}\")
  file(READ \"${PROJECT_SOURCE_DIR}/sensor/dist/plumbline.service.in\" _pl_text)
  file(CONFIGURE OUTPUT \"\${_pl_unit}\" CONTENT \"\${_pl_text}\" @ONLY)
  file(CHMOD \"\${_pl_unit}\" PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
  list(APPEND CMAKE_INSTALL_MANIFEST_FILES \"\${_pl_unit}\")")
