# Installation and the Debian packages (docs/deployment.md): `cpack -G DEB` in a build directory, or
# `cpack --config <build>/CPackConfig.cmake`, writes
#   a3s-power         the server and CLI, the hardened systemd unit, /etc/a3s-power/power.hcl (a
#                     conffile), the operator docs;
#   a3s-power-verify  the client verifier alone.
# Shared-library dependencies come from dpkg-shlibdeps.
include(GNUInstallDirs)

install(TARGETS a3s-power RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT server)
install(TARGETS a3s-power-verify RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT verify)
install(FILES ${CMAKE_SOURCE_DIR}/packaging/a3s-power.service
        DESTINATION lib/systemd/system COMPONENT server)
install(FILES ${CMAKE_SOURCE_DIR}/packaging/power.hcl DESTINATION /etc/a3s-power COMPONENT server)
install(FILES ${CMAKE_SOURCE_DIR}/docs/deployment.md ${CMAKE_SOURCE_DIR}/docs/configuration.md
              ${CMAKE_SOURCE_DIR}/docs/tee.md ${CMAKE_SOURCE_DIR}/docs/ra-tls.md ${CMAKE_SOURCE_DIR}/docs/privacy.md
        DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/a3s-power COMPONENT server)
install(FILES ${CMAKE_SOURCE_DIR}/docs/verify.md ${CMAKE_SOURCE_DIR}/docs/receipts.md
        DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/a3s-power-verify COMPONENT verify)

set(A3S_PACKAGE_MAINTAINER "A3S Power maintainers <root@localhost>" CACHE STRING
    "Maintainer field of the Debian packages")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME a3s-power)
set(CPACK_PACKAGE_VENDOR "A3S Power")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_PACKAGE_CONTACT "${A3S_PACKAGE_MAINTAINER}")
set(CPACK_STRIP_FILES ON)
set(CPACK_COMPONENTS_ALL server verify)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SECTION misc)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_SERVER_PACKAGE_NAME a3s-power)
set(CPACK_DEBIAN_VERIFY_PACKAGE_NAME a3s-power-verify)
set(CPACK_DEBIAN_SERVER_PACKAGE_CONTROL_EXTRA ${CMAKE_SOURCE_DIR}/packaging/debian/conffiles)
set(CPACK_COMPONENT_SERVER_DESCRIPTION
    "Privacy-preserving LLM inference server for confidential VMs (AMD SEV-SNP, Intel TDX)\n An OpenAI-compatible server that proves with hardware-signed evidence which code and\n which model answer, keeps prompts out of logs, and runs in a hardened systemd unit.")
set(CPACK_COMPONENT_VERIFY_DESCRIPTION
    "Client verifier for A3S Power attestation evidence and receipts\n Checks SEV-SNP reports, TDX quotes, RA-TLS certificates and signed receipts.")
include(CPack)
