# cmake -DSIZE=avr-size -DELF=x.elf -DRAM=bytes -DSTACK=bytes -P check_ram.cmake
# Prints the image's sizes and fails when .data + .bss + STACK exceed RAM.
execute_process(COMMAND ${SIZE} ${ELF} OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${SIZE} ${ELF} failed")
endif()
message("${out}")
string(REGEX MATCH "\n *([0-9]+)[ \t]+([0-9]+)[ \t]+([0-9]+)" _ "${out}")
math(EXPR used "${CMAKE_MATCH_2} + ${CMAKE_MATCH_3}")
math(EXPR total "${used} + ${STACK}")
if(total GREATER RAM)
  message(FATAL_ERROR "RAM overflow: .data + .bss ${used} + stack ${STACK} = ${total} > ${RAM} B")
endif()
message("RAM: .data + .bss ${used} + stack ${STACK} reserved = ${total} of ${RAM} B")
