# `cmake --build build --target package` makes, in the build directory,
#   jdwpx_<version>_amd64.deb   (CPack's DEB generator; Depends computed by dpkg-shlibdeps)
#   jdwpx-<version>-Linux.tar.gz
# from what `cmake --install` installs (cmake/install.cmake). Installing it changes no JDK
# (jdwpx-install-into-jdk does, when run); its maintainer scripts (packaging/debian/) only
# follow what that command did: an upgrade updates the JDKs jdwpx is installed in, removal
# restores their stock agent. integration/check_package.py checks the result, with lintian;
# integration/containers/test_user_story.py installs, upgrades and removes it in Debian 12.
# Needs dpkg-dev (dpkg-shlibdeps) and file at packaging time only.

set(JDWPX_PACKAGE_MAINTAINER "jdwpx maintainers <jdwpx-maintainers@example.org>"
  CACHE STRING "the Maintainer of the Debian package")

# Debian wants /usr/share/doc/<package>/copyright and, for a native package, a changelog
# in its format, gzip -9n: one entry, naming the version.
set(doc_dir "${PROJECT_BINARY_DIR}/package-doc")
file(MAKE_DIRECTORY "${doc_dir}")
execute_process(COMMAND git log -1 --format=%cD WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
  OUTPUT_VARIABLE changelog_date OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT changelog_date)
  string(TIMESTAMP changelog_date "%a, %d %b %Y %H:%M:%S +0000" UTC)
endif()
file(WRITE "${doc_dir}/changelog"
  "jdwpx (${PROJECT_VERSION}) unstable; urgency=medium\n\n"
  "  * The sources' git history lists the changes.\n\n"
  " -- ${JDWPX_PACKAGE_MAINTAINER}  ${changelog_date}\n")
execute_process(COMMAND gzip -9 -n -f "${doc_dir}/changelog" COMMAND_ERROR_IS_FATAL ANY)
install(FILES "${PROJECT_SOURCE_DIR}/packaging/copyright" "${doc_dir}/changelog.gz"
  DESTINATION share/doc/jdwpx)

set(CPACK_GENERATOR DEB TGZ)
set(CPACK_PACKAGE_NAME jdwpx)
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_CONTACT "${JDWPX_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "JDWP debug agent for the JVM, a drop-in for the JDK's libjdwp.so")
string(CONCAT CPACK_DEBIAN_PACKAGE_DESCRIPTION
  "jdwpx speaks the Java Debug Wire Protocol to jdb, IDEs and other\n"
  "debuggers, with the options of the JDK's own agent, plus a protocol\n"
  "trace, Unix-socket listening and options for containers. A JVM loads it\n"
  "with -agentpath:/usr/lib/jdwpx/libjdwpx.so=<options>; jdwpx-install-into-jdk\n"
  "makes it a JDK's own agent (installing this package changes no JDK).\n"
  ".\n"
  "Also: jdwpx-trace reads the agent's protocol traces, jdwpx-bridge\n"
  "carries a JDWP connection through kubectl exec, ssh or podman exec, and\n"
  "jdwpx-probe sets logpoints and snapshots on one JVM or many.")
# No ldconfig calls: the agent lives in a private directory that no loader path names.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_LDCONFIG OFF)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
  "${PROJECT_SOURCE_DIR}/packaging/debian/postinst"
  "${PROJECT_SOURCE_DIR}/packaging/debian/prerm"
  "${PROJECT_SOURCE_DIR}/packaging/debian/postrm")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION TRUE)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${JDWPX_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "default-jdk-headless | java-sdk-headless")
# The source package target (package_source) would otherwise take build trees along.
set(CPACK_SOURCE_GENERATOR TGZ)
set(CPACK_SOURCE_IGNORE_FILES "/\\\\.git/" "/build[^/]*/")
include(CPack)
