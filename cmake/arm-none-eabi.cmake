# CMake toolchain file: bare-metal ARM Cortex-M with Debian's
# gcc-arm-none-eabi and libnewlib-arm-none-eabi (scripts/setup.sh).
#
#   cmake -S . -B build-arm -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/arm-none-eabi.cmake \
#         -DMOTEIP_ARM_CPU=cortex-m0plus -DMOTEIP_PROFILE=tiny
#
# MOTEIP_ARM_CPU: cortex-m0 (default; the micro:bit's nRF51), cortex-m0plus,
# cortex-m3. Code goes into one section per function and object so that a
# firmware linked with --gc-sections (set here) keeps only what it calls.
# Executables link against newlib-nano with no system calls (nosys): the
# stack uses no heap and no stdio, a port brings its own startup code and
# linker script (port/microbit/).
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)

set(MOTEIP_ARM_CPU "cortex-m0" CACHE STRING "Cortex-M core: cortex-m0, cortex-m0plus or cortex-m3")
set_property(CACHE MOTEIP_ARM_CPU PROPERTY STRINGS cortex-m0 cortex-m0plus cortex-m3)
if(NOT MOTEIP_ARM_CPU MATCHES "^cortex-m(0|0plus|3)$")
  message(FATAL_ERROR "MOTEIP_ARM_CPU must be cortex-m0, cortex-m0plus or cortex-m3, not '${MOTEIP_ARM_CPU}'")
endif()
# try_compile projects read this file again: hand them the choice.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES MOTEIP_ARM_CPU)

set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
set(CMAKE_AR arm-none-eabi-ar CACHE FILEPATH "")
set(CMAKE_RANLIB arm-none-eabi-ranlib CACHE FILEPATH "")
set(CMAKE_OBJCOPY arm-none-eabi-objcopy CACHE FILEPATH "")
set(CMAKE_SIZE arm-none-eabi-size CACHE FILEPATH "")
# No OS to run a test executable on while configuring.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

# Options, not CMAKE_C_FLAGS_INIT: a -DCMAKE_C_FLAGS=... on the command line
# replaces the _INIT flags, and code built without -mthumb faults on an M0.
add_compile_options(-mcpu=${MOTEIP_ARM_CPU} -mthumb -ffunction-sections -fdata-sections)
add_link_options(-mcpu=${MOTEIP_ARM_CPU} -mthumb -Wl,--gc-sections --specs=nano.specs
                 --specs=nosys.specs)
# A firmware is built for size unless told otherwise (-Os -DNDEBUG).
if(NOT CMAKE_BUILD_TYPE)
  set(CMAKE_BUILD_TYPE MinSizeRel CACHE STRING "Build type")
endif()

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
