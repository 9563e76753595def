# CMake toolchain file: AVR with Debian's gcc-avr, avr-libc and binutils-avr
# (scripts/setup.sh).
#
#   cmake -S . -B build-avr -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/avr-gcc.cmake \
#         -DMOTEIP_AVR_MCU=atmega1284p -DMOTEIP_PROFILE=tiny
#
# MOTEIP_AVR_MCU: any -mmcu avr-gcc knows (default atmega1284p: 16 KB RAM,
# 128 KB flash); MOTEIP_AVR_F_CPU: the clock in Hz for <util/delay.h> and
# baud-rate arithmetic (default 16000000). Sections per function, and
# executables linked with --gc-sections.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR avr)

set(MOTEIP_AVR_MCU "atmega1284p" CACHE STRING "avr-gcc -mmcu value")
set(MOTEIP_AVR_F_CPU "16000000" CACHE STRING "CPU clock in Hz (F_CPU)")
if(NOT MOTEIP_AVR_F_CPU MATCHES "^[0-9]+$")
  message(FATAL_ERROR "MOTEIP_AVR_F_CPU must be a number of Hz, not '${MOTEIP_AVR_F_CPU}'")
endif()
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES MOTEIP_AVR_MCU MOTEIP_AVR_F_CPU)

set(CMAKE_C_COMPILER avr-gcc)
set(CMAKE_ASM_COMPILER avr-gcc)
set(CMAKE_AR avr-ar CACHE FILEPATH "")
set(CMAKE_RANLIB avr-ranlib CACHE FILEPATH "")
set(CMAKE_OBJCOPY avr-objcopy CACHE FILEPATH "")
set(CMAKE_SIZE avr-size CACHE FILEPATH "")
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

# Options, not CMAKE_C_FLAGS_INIT: a -DCMAKE_C_FLAGS=... on the command line
# replaces the _INIT flags, and code built for another -mmcu does not run.
add_compile_options(-mmcu=${MOTEIP_AVR_MCU} -DF_CPU=${MOTEIP_AVR_F_CPU}UL -ffunction-sections
                    -fdata-sections)
add_link_options(-mmcu=${MOTEIP_AVR_MCU} -Wl,--gc-sections)
if(NOT CMAKE_BUILD_TYPE)
  set(CMAKE_BUILD_TYPE MinSizeRel CACHE STRING "Build type")
endif()

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
