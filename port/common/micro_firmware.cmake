# The micro profile's library for a board's firmware (port/common/micro_node.c,
# issue 18): src/micro + the checksum + the SLIP codec, IPv4 as uIP 1.0,
# config.h's sizes (2 connections, a 576-byte buffer). Each port that builds
# the micro firmware (port/avr, port/microbit) includes this file and links
# its executable with moteip_micro_firmware; the library is compiled with the
# port's toolchain and flags, like the port's own `moteip`.
add_library(moteip_micro_firmware STATIC ${CMAKE_SOURCE_DIR}/src/micro/micro.c
            ${CMAKE_SOURCE_DIR}/src/wire/checksum.c ${CMAKE_SOURCE_DIR}/src/wire/slip.c)
target_include_directories(moteip_micro_firmware PUBLIC ${CMAKE_SOURCE_DIR}/include)
target_compile_definitions(moteip_micro_firmware PUBLIC MOTEIP_PROFILE_MICRO=1 MIP_CONF_IPV6=0)
target_compile_options(moteip_micro_firmware PRIVATE ${MOTEIP_WARN} -fno-common)
