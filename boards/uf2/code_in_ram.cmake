# The interpreter's hottest C code runs from SRAM instead of through the 16 KB XIP cache.
#
# MicroPython's rp2 linker script (ports/rp2/memmap_mp_rp2040.ld) means to keep gc.c, vm.c
# and parse.c out of flash, but it names their objects "*.c.obj" and this build (CMake's
# Unix Makefiles on Linux) makes "*.c.o": the pattern matches nothing and the VM's loop runs
# from flash. This writes a copy of that script into the build in which PONTOON_RAM_OBJECTS
# (py/ sources, set by the board, chosen from the virtual Pico's XIP-miss profile:
# tools/vpico/vpico.js VPICO_XIP_PROFILE) are kept out of flash instead; each costs its
# size of heap. parse.c is not among them: the shoe compiles nothing (only the REPL does).
set(_PONTOON_LD_IN ${MICROPY_PORT_DIR}/memmap_mp_rp2040.ld)
file(READ ${_PONTOON_LD_IN} _PONTOON_LD)
set(_PONTOON_TEXT_OLD "*gc.c.obj *vm.c.obj *parse.c.obj) .text*)")
set(_PONTOON_RODATA_OLD "*(EXCLUDE_FILE(*libgcc.a: *libc.a:*lib_a-mem*.o *libm.a:) .rodata*)")
string(FIND "${_PONTOON_LD}" "${_PONTOON_TEXT_OLD}" _PONTOON_AT_TEXT)
string(FIND "${_PONTOON_LD}" "${_PONTOON_RODATA_OLD}" _PONTOON_AT_RODATA)
if(_PONTOON_AT_TEXT LESS 0 OR _PONTOON_AT_RODATA LESS 0)
    message(FATAL_ERROR "code_in_ram.cmake: ${_PONTOON_LD_IN} is not the v1.28.0 script it "
                        "expects (its EXCLUDE_FILE lists changed); update boards/uf2/code_in_ram.cmake")
endif()
set(_PONTOON_FILES "")
foreach(_obj ${PONTOON_RAM_OBJECTS})
    string(APPEND _PONTOON_FILES " */py/${_obj}.o */py/${_obj}.obj")
endforeach()
# the frozen modules' machine code (@micropython.native/viper: the engine, the glyph blit):
# mpy-tool puts it in .text, and frozen_content.c has no other code
if(PONTOON_RAM_FROZEN_CODE)
    string(APPEND _PONTOON_FILES " *frozen_content.c.o *frozen_content.c.obj")
endif()
string(REPLACE "${_PONTOON_TEXT_OLD}" "${_PONTOON_FILES}) .text*)" _PONTOON_LD "${_PONTOON_LD}")
# vm.c's dispatch table (its .rodata) with it: the loop reads it at every opcode
string(REPLACE "${_PONTOON_RODATA_OLD}"
    "*(EXCLUDE_FILE(*libgcc.a: *libc.a:*lib_a-mem*.o *libm.a: */py/vm.c.o */py/vm.c.obj) .rodata*)"
    _PONTOON_LD "${_PONTOON_LD}")
set(MICROPY_BOARD_LINKER_SCRIPT ${CMAKE_BINARY_DIR}/memmap_pontoon_rp2040.ld)
file(WRITE ${MICROPY_BOARD_LINKER_SCRIPT} "/* made by boards/uf2/code_in_ram.cmake from ${_PONTOON_LD_IN} */\n${_PONTOON_LD}")
