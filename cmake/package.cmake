# SPDX-License-Identifier: MIT
# The Debian package, by CPack (included from CMakeLists.txt; docs/packaging.md):
#   cmake -S . -B build-deb -DCMAKE_INSTALL_PREFIX=/usr -DPL_TESTS=OFF
#   make -C build-deb -j2 && (cd build-deb && cpack -G DEB)
# It holds what `cmake --install --prefix /usr` installs (cmake/dist.cmake),
# plus changelog.Debian.gz and lintian's overrides; the conffiles, maintainer scripts and copyright
# are sensor/dist/debian/. Depends: from dpkg-shlibdeps.
set(PL_DEB_REVISION 1 CACHE STRING "the Debian revision of the package (VERSION-REVISION)")
set(PL_DEB_MAINTAINER "plumbline maintainers <maintainers@users.noreply.a-seed-6eb0f804.example>"
  CACHE STRING "the package's Maintainer")
set(PL_DEB_VERSION "${PROJECT_VERSION}-${PL_DEB_REVISION}")

# changelog.Debian.gz, in the package only (component deb, not installed by
# a plain `cmake --install`)
string(TIMESTAMP PL_DEB_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC) # SOURCE_DATE_EPOCH when set
configure_file(sensor/dist/debian/changelog.in "${CMAKE_BINARY_DIR}/dist/changelog.Debian" @ONLY)
add_custom_command(OUTPUT "${CMAKE_BINARY_DIR}/dist/changelog.Debian.gz"
  COMMAND gzip -9nc "${CMAKE_BINARY_DIR}/dist/changelog.Debian" > "${CMAKE_BINARY_DIR}/dist/changelog.Debian.gz"
  DEPENDS "${CMAKE_BINARY_DIR}/dist/changelog.Debian")
add_custom_target(plumbline_changelog ALL DEPENDS "${CMAKE_BINARY_DIR}/dist/changelog.Debian.gz")
install(FILES "${CMAKE_BINARY_DIR}/dist/changelog.Debian.gz" DESTINATION ${CMAKE_INSTALL_DOCDIR}
  COMPONENT deb EXCLUDE_FROM_ALL)

# lintian's overrides, each with its reason (package only too)
install(FILES sensor/dist/debian/lintian-overrides DESTINATION ${CMAKE_INSTALL_DATADIR}/lintian/overrides
  RENAME plumbline COMPONENT deb EXCLUDE_FROM_ALL)

# the maintainer scripts with the modes dpkg wants, configured (copied) at
# configure time
foreach(_pl_s postinst prerm postrm)
  file(COPY sensor/dist/debian/${_pl_s} DESTINATION "${CMAKE_BINARY_DIR}/dist/debian"
    FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
endforeach()
file(COPY sensor/dist/debian/conffiles DESTINATION "${CMAKE_BINARY_DIR}/dist/debian"
  FILE_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME plumbline)
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_CONTACT "${PL_DEB_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "eBPF security sensor: per-binary baselines and rules")
set(CPACK_PACKAGE_DESCRIPTION "plumbline watches every process through eBPF: it counts CPU time,
off-CPU time, syscalls and failed opens per process image, learns what is
normal per binary, and raises alerts from YAML rules and baseline scores,
as JSON Lines records, syslog and OCSF findings, with a hash-chained audit
log and Prometheus metrics.")
set(CPACK_PACKAGING_INSTALL_PREFIX "${CMAKE_INSTALL_PREFIX}")
# the install scripts put /etc and /lib/systemd/system under DESTDIR
set(CPACK_SET_DESTDIR ON)
set(CPACK_INSTALL_CMAKE_PROJECTS "${CMAKE_BINARY_DIR};plumbline;ALL;/" "${CMAKE_BINARY_DIR};plumbline;deb;/")
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_RELEASE "${PL_DEB_REVISION}")
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS logrotate)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
  "${CMAKE_BINARY_DIR}/dist/debian/conffiles" "${CMAKE_BINARY_DIR}/dist/debian/postinst"
  "${CMAKE_BINARY_DIR}/dist/debian/prerm" "${CMAKE_BINARY_DIR}/dist/debian/postrm")
include(CPack)
