# What `cmake --install` puts under the prefix (included by CMakeLists.txt,
# with MOTEIP_INSTALL_TARGETS naming the libraries of this build's profile):
#
#   include/moteip/...          the public headers (include/moteip/), and the
#   include/moteip/apps/...     apps' headers (apps/*.h)
#   lib/libmoteip.a, lib/libmoteip_apps.a    (micro profile: libmoteip_micro4/6.a)
#   lib/cmake/moteip/           moteipConfig.cmake, its version file and the
#                               exported targets moteip::moteip, moteip::apps
#                               (micro: moteip::micro4, moteip::micro6)
#   lib/pkgconfig/moteip.pc, moteip-apps.pc  (micro: moteip-micro4.pc, moteip-micro6.pc)
#   share/moteip/port/common/   the port helpers a bare-metal firmware builds
#                               with its own board.h: slip_node.c (the main.c of
#                               a SLIP node), micro_node.c, board_api.h,
#                               tick_clock.h, cortexm.h (docs/PORTING.md)
#   bin/moteip-sim, moteip-slip, moteip-host, moteip-simavr   the host tools, when
#                               this build made them (Linux, full profile)
#
# The library was compiled for one profile and one set of MIP_CONF_* and
# size macros (config.h); every struct a caller allocates depends on them.
# So the targets carry them as INTERFACE_COMPILE_DEFINITIONS and the .pc
# files in Cflags: a consumer compiles with exactly the library's
# configuration, and config.h stays the one place it is chosen
# (docs/PORTING.md, "Using the installed library").
include(CMakePackageConfigHelpers)

set(MOTEIP_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/moteip)
set(MOTEIP_PC_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

install(TARGETS ${MOTEIP_INSTALL_TARGETS} EXPORT moteipTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/moteip DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
if(TARGET moteip_apps AND "moteip_apps" IN_LIST MOTEIP_INSTALL_TARGETS)
  file(GLOB MOTEIP_APPS_HEADERS ${CMAKE_SOURCE_DIR}/apps/*.h)
  install(FILES ${MOTEIP_APPS_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/moteip/apps)
endif()
install(EXPORT moteipTargets NAMESPACE moteip:: DESTINATION ${MOTEIP_CMAKE_DIR})
install(FILES ${CMAKE_SOURCE_DIR}/port/common/board_api.h ${CMAKE_SOURCE_DIR}/port/common/tick_clock.h
              ${CMAKE_SOURCE_DIR}/port/common/cortexm.h ${CMAKE_SOURCE_DIR}/port/common/slip_node.c
              ${CMAKE_SOURCE_DIR}/port/common/micro_node.c
        DESTINATION ${CMAKE_INSTALL_DATADIR}/moteip/port/common)
# OPTIONAL: a build that made only the libraries (--target moteip) installs them alone.
foreach(tool moteip-sim moteip-slip moteip-host moteip-simavr)
  if(TARGET ${tool})
    install(TARGETS ${tool} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} OPTIONAL)
  endif()
endforeach()

configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/moteipConfig.cmake.in
  ${CMAKE_BINARY_DIR}/moteipConfig.cmake INSTALL_DESTINATION ${MOTEIP_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/moteipConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/moteipConfig.cmake ${CMAKE_BINARY_DIR}/moteipConfigVersion.cmake
        DESTINATION ${MOTEIP_CMAKE_DIR})

# pkg-config: the prefix relative to the .pc file, so the tree can move.
file(RELATIVE_PATH MOTEIP_PC_PREFIX /root/${MOTEIP_PC_DIR} /root)
string(REGEX REPLACE "/$" "" MOTEIP_PC_PREFIX "${MOTEIP_PC_PREFIX}")
# moteip_pc(TARGET NAME DESCRIPTION INCLUDE-SUBDIR REQUIRES)
function(moteip_pc target name description incsub requires)
  get_target_property(out ${target} OUTPUT_NAME)
  if(NOT out)
    set(out ${target})
  endif()
  set(defs "$<TARGET_PROPERTY:${target},INTERFACE_COMPILE_DEFINITIONS>")
  set(cflags "-I\${includedir}${incsub}$<$<BOOL:${defs}>: -D$<JOIN:${defs}, -D>>")
  file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/pkgconfig/${name}.pc CONTENT
"prefix=\${pcfiledir}/${MOTEIP_PC_PREFIX}
libdir=\${prefix}/${CMAKE_INSTALL_LIBDIR}
includedir=\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}

Name: ${name}
Description: ${description}
Version: ${PROJECT_VERSION}
Requires: ${requires}
Cflags: ${cflags}
Libs: -L\${libdir} -l${out}
")
  install(FILES ${CMAKE_BINARY_DIR}/pkgconfig/${name}.pc DESTINATION ${MOTEIP_PC_DIR})
endfunction()

foreach(t ${MOTEIP_INSTALL_TARGETS})
  if(t STREQUAL "moteip")
    moteip_pc(moteip moteip "moteip TCP/IP stack (${MOTEIP_PROFILE} profile)" "" "")
  elseif(t STREQUAL "moteip_apps")
    moteip_pc(moteip_apps moteip-apps "moteip applications: echo, discard, chargen, HTTP, CoAP"
              "/moteip/apps" "moteip = ${PROJECT_VERSION}")
  elseif(t MATCHES "^moteip_micro([46])$")
    moteip_pc(${t} moteip-micro${CMAKE_MATCH_1}
              "moteip micro profile, IPv${CMAKE_MATCH_1}" "" "")
  endif()
endforeach()
