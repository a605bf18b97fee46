"""tools/cycle_profile.py: the virtual Pico's running time by function and by group, from
vpico.js's count of cycles per instruction (VPICO_PC_PROFILE)."""
import array

import cycle_profile as C


def test_cycles_go_to_the_function_whose_code_holds_them():
    syms = [(0x10000100, 0x20, "mp_execute_bytecode"), (0x10000120, 0, "divmod_u32u32"),
            (0x10000140, 0x10, "gc_alloc"), (0x20000000, 0x40, "gc_mark_subtree")]
    flash = array.array("I", bytes(C.FLASH_BYTES))
    sram = array.array("I", bytes(C.SRAM_BYTES))
    flash[0x100 // 4] = 5                 # the interpreter's first word
    flash[0x11c // 4] = 1                 # its last
    flash[0x13c // 4] = 7                 # a symbol of no size: up to the next one
    flash[0x150 // 4] = 3                 # past gc_alloc's end: no function's
    sram[0x3c // 4] = 11                  # code in SRAM (the interpreter's hot parts)
    by = C.attribute(syms, flash.tobytes() + sram.tobytes())
    assert by == {"mp_execute_bytecode": 6, "divmod_u32u32": 7, "gc_mark_subtree": 11,
                  "(no symbol) flash": 3}
    assert C.group_of("gc_mark_subtree") == "garbage collector"
    assert C.group_of("divmod_u32u32").startswith("division")
    assert C.group_of("mp_binary_op") == "everything else"
    assert C.group_of("__wrap___aeabi_uidiv").startswith("division")
    assert C.group_of("qstr_find_strn").startswith("interned-string")


def test_a_short_session_is_profiled_on_the_virtual_pico(capsys):
    assert C.main(["--board", "RPI_PICO", "--seats", "3", "--events", "20", "--top", "8"]) == 0
    out = capsys.readouterr().out.splitlines()
    head = next(x for x in out if x.startswith("emulated "))
    emulated, running, idle = (float(w) for w in head.replace(",", "").split()
                               if w.replace(".", "").isdigit())
    assert 0 < running <= emulated and abs(running + idle - emulated) < 0.2, head
    groups = out[out.index(head) + 2:out.index(head) + 2 + len(C.GROUPS) + 1]
    shares = [float(x.split("%")[0]) for x in groups]
    assert abs(sum(shares) - 100) < 0.1, groups
    names = [x.split(None, 2)[2] for x in out[-8:]]
    assert "mp_execute_bytecode" in names and "mp_map_lookup" in names, out[-8:]


def test_the_firmwares_symbols_include_those_of_no_size():
    import os
    syms = {name: size for _, size, name in C.symbols(
        os.path.join(C.uf2.OUT, "build-RPI_PICO", "firmware.elf"))}
    assert syms["mp_execute_bytecode"] > 0
    assert syms["divmod_u32u32_unsafe"] == 0      # the SDK's divider, hand-written
